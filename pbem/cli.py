"""The `pbem` command line: a thin wrapper over host, replay, view and simulate.

Every refusal prints one paragraph to stderr and exits with the code of its
kind (:class:`pbem.errors.Exit`); nothing is written on a refusal.
"""

from __future__ import annotations

import functools
import gc
import json
import os
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from pbem import __version__
from pbem.errors import Exit, FormatError, PbemError, StateError, UnknownError
from pbem.logfile import read_log

if TYPE_CHECKING:
    from pbem.host import Applied

F = TypeVar("F", bound=Callable[..., Any])


def refusals(func: F) -> F:
    """Turn a PbemError (or any unexpected failure) into one paragraph and an exit code."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except PbemError as err:
            click.echo(f"pbem: {err}", err=True)
            sys.exit(int(err.exit_code))
        except BrokenPipeError:  # `pbem show | head`: the reader left; not an error of ours
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            sys.exit(0)
        except KeyboardInterrupt:
            click.echo("pbem: interrupted; no file was changed by the unfinished step", err=True)
            sys.exit(130)
        except (click.exceptions.Exit, click.ClickException, click.Abort, SystemExit):
            raise
        except Exception as err:  # a bug in pbem: say so plainly, no traceback for players
            if os.environ.get("PBEM_DEBUG"):
                raise
            click.echo(
                f"pbem: internal error ({type(err).__name__}: {err}). "
                "Please report this with the input that caused it (PBEM_DEBUG=1 shows details).",
                err=True,
            )
            sys.exit(1)

    return wrapper  # type: ignore[return-value]


games_option = click.option(
    "--games",
    "games",
    type=click.Path(file_okay=False, path_type=Path),
    envvar="PBEM_GAMES",
    default=".",
    show_default="$PBEM_GAMES, else the current directory",
    help="The folder holding one directory per game.",
)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="pbem")
def main() -> None:
    """Play Rattus by email, with a log anyone can verify (see README.md)."""


# --- host commands ------------------------------------------------------------------

@main.command()
@click.argument("game_id")
@click.option("--players", required=True, help="Seat order, comma-separated: red,green,blue.")
@click.option("--first", help="The first player (R2.1); drawn from the seed if not named.")
@click.option(
    "--secret-file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Use this file's 64 hex digits as the secret (tests and demos; recorded as 'supplied').",
)
@click.option("--key", "keys", multiple=True, metavar="PLAYER=FILE",
              help="Register a player's public key file (.pub); their moves must then be signed (P8).")
@click.option("--host-key", type=click.Path(dir_okay=False, path_type=Path),
              help="The host's private key: it signs every entry (P8); its path goes to host.yaml.")
@click.option("--email", "emails", multiple=True, metavar="PLAYER=ADDRESS",
              help="A player's e-mail address for 'pbem mail' (kept in host.yaml, not in the log).")
@click.option("--data", "data_dir", type=click.Path(file_okay=False, path_type=Path),
              help="A folder with map.yaml and tokens.yaml: a custom game (P3), said in every output.")
@click.option("--bot", "bots", multiple=True, metavar="PLAYER=LEVEL",
              help="The host's bot plays this seat (random, greedy, mcts); named in entry 0.")
@games_option
@refusals
def new(
    game_id: str, players: str, first: str | None, secret_file: Path | None,
    keys: tuple[str, ...], host_key: Path | None, emails: tuple[str, ...], data_dir: Path | None,
    bots: tuple[str, ...], games: Path,
) -> None:
    """Create a game: its directory, secret (mode 0600) and first log entry (P3)."""
    from pbem.gamedata import GameDataError, read_data_dir
    from pbem.host import NewGame, create
    from pbem.signing import read_public_key
    from pbem.yamlio import read_limited

    secret = None
    if secret_file is not None:
        text = read_limited(secret_file, 1024, "secret file").decode("ascii", "replace").strip()
        try:
            secret = bytes.fromhex(text)
        except ValueError:
            raise FormatError("the secret file must hold 64 hex digits", "P1") from None
    names = tuple(p.strip() for p in players.split(",") if p.strip())
    spec = NewGame(game_id, names, first, secret, host_key_file=host_key)
    if data_dir is not None:
        try:
            spec.board, spec.catalogue = read_data_dir(data_dir)
        except GameDataError as err:
            raise FormatError(f"--data {data_dir}: {err}", "P3") from None
    spec.keys = {p: read_public_key(Path(f)) for p, f in _pairs(keys, "--key").items()}
    spec.emails = _pairs(emails, "--email")
    spec.bots = _pairs(bots, "--bot")
    path = create(games, spec)
    from pbem.host import load_game
    from pbem.view import notices

    click.echo(f"created game {game_id} in {path}")
    click.echo(f"players (seat order): {', '.join(names)}")
    game = load_game(path)
    for line in notices(game):
        click.echo(line)
    if spec.bots:  # P4: the bot seats commit to their nonces at once
        from pbem.bots.seat import play_bots

        for step in play_bots(games, game, []):
            _report(step)
    click.echo("next (P4): each player commits to a nonce ('pbem nonce GAME --player P' writes the "
               "move), then, when all have, reveals it; the last reveal starts the game")


@main.command()
@click.argument("game_id")
@click.option("--player", required=True, help="Your seat.")
@click.option("--reveal", "reveal_it", is_flag=True, help="Round 2: write the move revealing the kept nonce.")
@click.option("--keep", type=click.Path(dir_okay=False, path_type=Path),
              help="Where the nonce is kept (default: ./nonce-GAME-PLAYER.yaml, mode 0600).")
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), help="Write the move here, not stdout.")
@games_option
@refusals
def nonce(game_id: str, player: str, reveal_it: bool, keep: Path | None, out: Path | None, games: Path) -> None:
    """A player's nonce (P4): make and keep one and write its commitment; with --reveal, reveal it."""
    from pbem.host import game_dir, load_game
    from pbem.nonces import commit_move, keep_path, kept, reveal_move
    from pbem.nonces import keep as keep_new
    from pbem.yamlio import dump_yaml

    game = load_game(game_dir(games, game_id))
    if player not in game.players:
        raise UnknownError(f"{player!r} is not a player in game {game_id!r}", "R2.1")
    where = keep or keep_path(game_id, player, Path("."))
    for target in (t for t in (out, where) if t is not None):
        if not target.parent.is_dir():  # before the nonce is kept: nothing half done
            raise UnknownError(f"cannot write {target}: the folder {target.parent} does not exist", "P4")
    if out is not None and out.exists():
        raise StateError(f"{out} exists; pbem does not overwrite files", "P7")
    if reveal_it:
        text = dump_yaml(reveal_move(game, player, kept(where, game, player)))
    else:
        text = dump_yaml(commit_move(game, player, keep_new(where, game, player)))
    if out is None:
        click.echo(text, nl=False)
    else:
        out.write_text(text, encoding="utf-8")
        click.echo(f"{'nonce' if reveal_it else 'commitment'} move for {player} written to {out}; "
                   f"the nonce is kept in {where} (mode 0600)")


@main.command()
@click.argument("game_id")
@click.option("--player", required=True, help="The seat whose nonce is waived.")
@games_option
@refusals
def waive(game_id: str, player: str, games: Path) -> None:
    """Host: record that a seat adds no nonce (P4; only before the first reveal)."""
    from pbem.host import waive as do_waive

    _report(do_waive(games, game_id, player))


@main.command()
@click.argument("game_id")
@games_option
@refusals
def abandon(game_id: str, games: Path) -> None:
    """Host: abandon a game that cannot start (a nonce never revealed), on the record (P4)."""
    from pbem.host import abandon as do_abandon

    _report(do_abandon(games, game_id))


@main.command()
@click.argument("move_file", type=click.Path(path_type=Path))
@games_option
@refusals
def apply(move_file: Path, games: Path) -> None:
    """Check a player's move file and record it in the game's log."""
    from pbem.host import apply_move
    from pbem.moves import read_move

    if _is_mail(move_file):  # an RFC 5322 message (pbem/mailmsg.py, pbem/mail.py)
        from pbem.mail import apply_mail_file
        from pbem.mailmsg import MAIL_LIMIT
        from pbem.yamlio import read_limited

        _report(apply_mail_file(games, read_limited(move_file, MAIL_LIMIT, "message")))
        return
    move = read_move(move_file)
    applied = apply_move(games, move)
    _report(applied)


def _is_mail(path: Path) -> bool:
    if path.suffix.lower() == ".eml":
        return True
    try:
        with path.open("rb") as handle:
            head = handle.read(4096)
    except OSError:
        return False  # read_move says what is wrong
    if not head[:1].isalpha() or b":" not in head.split(b"\n", 1)[0]:
        return False
    if not re.search(rb"(?im)^from:", head):  # no From: header, no mail: spare importing email
        return False
    from pbem.mailmsg import looks_like_mail

    return looks_like_mail(path.name, head)


def _pairs(items: tuple[str, ...], option: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in items:
        player, sep, value = item.partition("=")
        if not sep or not player.strip() or not value.strip():
            raise FormatError(f"{option} {item!r}: write {option} PLAYER=VALUE")
        if player.strip() in out:
            raise FormatError(f"{option}: {player.strip()} is given twice")
        out[player.strip()] = value.strip()
    return out


def _report(applied: Applied) -> None:
    from pbem.report import report_lines  # shared with the mail host (pbem/mail.py)

    for line in report_lines(applied):
        click.echo(line)


@main.command()
@click.argument("game_id")
@games_option
@refusals
def reveal(game_id: str, games: Path) -> None:
    """When the game is over, publish the secret so anyone can audit (P6)."""
    from pbem.host import reveal as do_reveal

    _report(do_reveal(games, game_id))


# --- anyone's commands ---------------------------------------------------------------

@main.command()
@click.argument("game_id")
@click.option("--player", help="The player the template is for (default: the one to move).")
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), help="Write here, not stdout.")
@games_option
@refusals
def template(game_id: str, player: str | None, out: Path | None, games: Path) -> None:
    """A move file for the player to move (or, before the start, P4's commitment or nonce)."""
    from pbem.host import game_dir, load_game
    from pbem.view import template as make

    game = load_game(game_dir(games, game_id))
    who = player or game.to_move()
    if who is None:
        raise StateError(
            "name the player with --player (before the start every player commits to a nonce, then reveals it)"
            if not game.started else "the game is over: no more moves",
            "P4" if not game.started else "R6.5",
        )
    if who not in game.players:
        raise UnknownError(f"{who!r} is not a player in game {game_id!r}", "R2.1")
    text = make(game, who)
    if out is None:
        click.echo(text, nl=False)
    else:
        if out.exists():
            raise StateError(f"{out} exists; pbem does not overwrite files", "P7")
        if not out.parent.is_dir():
            raise UnknownError(f"cannot write {out}: the folder {out.parent} does not exist", "P7")
        out.write_text(text, encoding="utf-8")
        click.echo(f"template for {who} written to {out}")


@main.command()
@click.argument("move_file", type=click.Path(path_type=Path))
@click.option("--log", "log", required=True, type=click.Path(path_type=Path), help="The game's public log.")
@refusals
def check(move_file: Path, log: Path) -> None:
    """Before mailing: schema, staleness and rules against the public log only."""
    from pbem.checking import check_move

    for line in check_move(move_file, log):
        click.echo(line)


@main.command()
@click.argument("game_id")
@click.option("--as", "as_player", help="Also show this player's private knowledge (Witch looks).")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@games_option
@refusals
def show(game_id: str, as_player: str | None, as_json: bool, games: Path) -> None:
    """The board as a person reads it; with --as, that player's private reveals too."""
    from pbem.host import game_dir, load_game, read_private
    from pbem.view import board_lines, private_lines, state_json

    path = game_dir(games, game_id)
    game = load_game(path)
    reveals: list[dict[str, Any]] = []
    if as_player is not None:
        if as_player not in game.players:
            raise UnknownError(f"{as_player!r} is not a player in game {game_id!r}", "R2.1")
        reveals = read_private(path, as_player, game.last_seq)
    if as_json:
        data = state_json(game)
        if as_player is not None:
            data["private"] = {"player": as_player, "looks": reveals}
        click.echo(json.dumps(data, indent=1, ensure_ascii=False))
        return
    for line in board_lines(game):
        click.echo(line)
    if as_player is not None:
        click.echo(f"private to {as_player}:")
        for line in private_lines(reveals) or ["  nothing yet"]:
            click.echo(line)


@main.command()
@click.argument("log", type=click.Path(path_type=Path))
@click.option("--extends", "old", type=click.Path(dir_okay=False, path_type=Path),
              help="The last log you received: LOG must continue it, entry for entry (P9).")
@refusals
def verify(log: Path, old: Path | None) -> None:
    """Check a log: the chain, every reveal against its commitment, a full replay (P6-P7);
    with --extends OLD, also that LOG continues the log you kept (P9)."""
    from pbem.replay import check_schema, replay

    entries, hashes = read_log(log)
    check_schema(entries)
    game = replay(entries, hashes)
    click.echo(f"ok: {len(entries)} entries; the chain holds and each entry fits schemas/entry.json (P7)")
    flips = sum(
        1 for e in entries if e.get("kind") == "move"
        for ev in e["outcome"] if ev["event"] == "token_flipped"
    )
    click.echo(f"ok: {flips} reveals match their commitments (P6)")
    click.echo("ok: every move replays under the rules to its recorded outcome (R7.3)")
    from pbem.signing import require_valid  # P8; cryptography only if the log has keys

    checked = require_valid(entries)
    if checked is not None:
        if entries[0].get("host_key"):
            click.echo(f"ok: all {checked.entries_signed} entries carry the host's signature (P8)")
        click.echo(f"ok: {checked.moves_signed} signed moves verify with their players' keys (P8)")
    if game.secret is not None:  # revealed: every commitment can be checked now, flipped or not
        from pbem.audit import audit as do_audit

        for finding in do_audit(game):
            click.echo(f"ok: {finding}")
    status = "over" if game.over else ("in play" if game.started else game.opening.value)
    click.echo(f"game {game.game_id}: {status}; last entry {game.last_seq} ({game.last_hash[:16]})")
    if old is not None:
        _extends(log, entries, hashes, old)
    from pbem.view import trust_lines

    for line in trust_lines(game):
        click.echo(line)


def _extends(log: Path, entries: list[dict[str, Any]], hashes: list[str], old: Path) -> None:
    """P9: the log kept (OLD) is a prefix of LOG; a refusal prints a fork proof if there is one."""
    from pbem.errors import TamperError
    from pbem.history import compare

    try:
        old_entries, old_hashes = read_log(old)
    except TamperError as err:
        raise TamperError(f"OLD ({old}), the log you kept, does not verify: {err.message}",
                          err.rule) from None
    click.echo(f"ok: OLD ({old}), the log you kept, reads and its chain holds (P7)")
    result = compare(entries, hashes, old_entries, old_hashes)
    if result.ok:
        click.echo(f"ok: {result.message}")
        return
    if result.proof is not None:  # stdout: the statement, then both signed entries as JSON lines
        proof = result.proof
        click.echo(f"proof (P9): {proof.statement()}")
        for side, path in ((proof.new, log), (proof.old, old)):
            click.echo(json.dumps(
                {"log": side.side, "path": str(path), "seq": side.seq, "hash": side.hash,
                 "signature": side.signature, "entry": side.entry},
                ensure_ascii=False, sort_keys=True, separators=(",", ":"),
            ))
    raise result.error()


PROTOCOL_DOC = "docs/protocol.md"
"""The fair-play protocol as a document (in pbem's source); every verdict of `pbem audit` names it."""


def audit_verdict(err: PbemError | None) -> str:
    """The verdict line of `pbem audit` (tools/audit_min.py prints the same, word for word)."""
    if err is None:
        return f"verdict: FAIR. The rat order was fixed at the start and never touched (how to check: {PROTOCOL_DOC})."
    if isinstance(err, StateError):
        return f"verdict: NOT YET. The secret is revealed when the game is over (P6; how to check: {PROTOCOL_DOC})."
    found = re.match(r"entry (\d+):", err.message)
    where = f"at entry {found.group(1)}" if found else "as a whole"
    return f"verdict: REFUSED. The log does not verify {where} ({err.rule}; how to check: {PROTOCOL_DOC})."


@main.command()
@click.argument("log", type=click.Path(path_type=Path))
@refusals
def audit(log: Path) -> None:
    """After the reveal: recompute every draw and commitment and replay the game (P6).

    The protocol it checks, and how to check it yourself: docs/protocol.md."""
    from pbem.audit import audit as do_audit
    from pbem.errors import SignatureError, TamperError
    from pbem.replay import replay
    from pbem.rules import winner

    try:
        entries, hashes = read_log(log)  # (the entry schema is pbem verify's: slow, and not P6's)
        game = replay(entries, hashes)
        findings = do_audit(game)
    except (TamperError, SignatureError, StateError) as err:
        click.echo(audit_verdict(err))  # stdout; the reason goes to stderr as for every refusal
        raise
    for finding in findings:
        click.echo(f"ok: {finding}")
    assert game.state is not None  # audit() refuses a game that is not over
    scores = game.state.scores()
    click.echo("final scores: " + ", ".join(f"{p} {scores[p]}" for p in game.players))
    click.echo(f"winner: {winner(game.state)} (R6.5)")
    click.echo(audit_verdict(None))
    from pbem.view import trust_lines

    for line in trust_lines(game):
        click.echo(line)


# --- signatures and mail (P8; pbem/signing.py, pbem/mail.py) ---------------------------

@main.command()
@click.option("--out", required=True, type=click.Path(dir_okay=False, path_type=Path),
              help="The private key file (mode 0600); the public key goes to OUT.pub.")
@refusals
def keygen(out: Path) -> None:
    """Make an Ed25519 key pair for signing moves or, for the host, log entries (P8)."""
    from pbem.signing import keygen as make

    private, public_path, public = make(out)
    click.echo(f"private key: {private} (mode 0600; keep it, never send it)")
    click.echo(f"public key:  {public_path}: {public}")


@main.command()
@click.argument("move_file", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--key", "key", required=True, type=click.Path(dir_okay=False, path_type=Path),
              help="Your private key file.")
@click.option("--register", is_flag=True, help="Commit moves: also add your public key ('key:').")
@refusals
def sign(move_file: Path, key: Path, register: bool) -> None:
    """Sign a move file in place (a 'signature:' line over the parsed move, P8)."""
    from pbem.signing import sign_move_file

    move = sign_move_file(move_file, key, register)
    click.echo(f"signed {move_file} ({move.player}'s {move.kind} for game {move.game})")


@main.command()
@click.option("--inbox", required=True, type=click.Path(file_okay=False, path_type=Path),
              help="The Maildir where players' moves arrive.")
@click.option("--outbox", type=click.Path(file_okay=False, path_type=Path),
              help="Put the replies into this Maildir.")
@click.option("--smtp", metavar="HOST:PORT",
              help="Send the replies by SMTP (STARTTLS if offered; $PBEM_SMTP_USER/_PASSWORD).")
@click.option("--from", "from_address", envvar="PBEM_FROM",
              help="The host's own From address (required, or 'mail_from' in host.yaml).")
@click.option("--flush", is_flag=True, help="Only deliver the replies still queued.")
@games_option
@refusals
def mail(inbox: Path, outbox: Path | None, smtp: str | None, from_address: str | None,
         flush: bool, games: Path) -> None:
    """Apply every new message of a Maildir, file it as seen (or quarantine it), queue
    the replies, then deliver the queue.  Exit 3 if a message was quarantined, 9 if
    replies are still queued (they are retried by the next run or --flush)."""
    from pbem.mail import process

    run = process(inbox, games, outbox, smtp, from_address, flush_only=flush)
    for item in run.done:
        click.echo(f"{item.key} from {item.sender or '?'}: {item.result}")
    click.echo(f"{len(run.done)} message(s) processed, {run.quarantined} quarantined; "
               f"{run.sent} repl(ies) delivered, {run.kept} kept for the next run")
    if run.quarantined:
        sys.exit(int(Exit.FORMAT))
    if run.kept:
        sys.exit(int(Exit.BUSY))


# --- bots -----------------------------------------------------------------------------

@main.command()
@click.option("--games", "n_games", default=100, show_default=True, type=click.IntRange(1, 10**7))
@click.option("--players", default=4, show_default=True, type=click.IntRange(2, 4))
@click.option("--seed", default=0, show_default=True, type=int)
@click.option("--check", is_flag=True, help="Check the invariants after every action.")
@refusals
def simulate(n_games: int, players: int, seed: int, check: bool) -> None:
    """Random bots play complete games in memory; prints statistics."""
    from pbem.simulate import simulate as run

    for line in run(n_games, players, seed, check).lines():
        click.echo(line)


@main.command()
@click.argument("game_id")
@click.option("--player", required=True, help="The seat the bot plays.")
@click.option("--level", default="greedy", show_default=True, type=click.Choice(["random", "greedy", "mcts"]))
@click.option("--seconds", default=1.0, show_default=True, type=click.FloatRange(0.01, 600),
              help="The mcts bot's thinking time.")
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), help="Write the move here, not stdout.")
@games_option
@refusals
def bot(game_id: str, player: str, level: str, seconds: float, out: Path | None, games: Path) -> None:
    """A bot writes PLAYER's next move from that seat's view only (the log and its own
    Witch looks): help for a player, or a host playing a bot seat by hand."""
    from pbem.bots.seat import bot_move
    from pbem.host import game_dir, load_game
    from pbem.yamlio import dump_yaml

    path = game_dir(games, game_id)
    if out is not None and out.exists():
        raise StateError(f"{out} exists; pbem does not overwrite files", "P7")
    if out is not None and not out.parent.is_dir():
        raise UnknownError(f"cannot write {out}: the folder {out.parent} does not exist", "P7")
    text = dump_yaml(bot_move(path, load_game(path), player, level, seconds))
    if out is None:
        click.echo(text, nl=False)
    else:
        out.write_text(text, encoding="utf-8")
        click.echo(f"{level} bot's move for {player} written to {out}; apply it with: pbem apply {out}")


@main.command()
@click.option("--games", "n_games", default=100, show_default=True, type=click.IntRange(1, 10**6))
@click.option("--players", default=4, show_default=True, type=click.IntRange(2, 4))
@click.option("--bots", "bots", default="greedy,random,random,random", show_default=True,
              help="One level per seat, comma-separated; seats rotate from game to game.")
@click.option("--seed", default=0, show_default=True, type=int)
@click.option("--seconds", default=1.0, show_default=True, type=click.FloatRange(0.01, 600),
              help="The mcts bots' thinking time per turn.")
@click.option("--jobs", default=1, show_default=True, type=click.IntRange(1, 64), help="Parallel processes.")
@refusals
def tournament(n_games: int, players: int, bots: str, seed: int, seconds: float, jobs: int) -> None:
    """Bots play in-memory games; each level's win share (95% Wilson interval), cubes left,
    and thinking time per turn."""
    from pbem.bots import LEVELS
    from pbem.tournament import run as play

    levels = [b.strip() for b in bots.split(",") if b.strip()]
    if len(levels) != players:
        raise FormatError(f"--bots names {len(levels)} bot(s) for {players} players: name one per seat", "R2")
    for level in levels:
        if level not in LEVELS:
            raise FormatError(f"--bots: no bot level {level!r} (levels: {', '.join(LEVELS)})", "R2")
    for line in play(n_games, levels, seed, seconds, jobs).lines():
        click.echo(line)


@main.command()
@click.option("--players", default=3, show_default=True, type=click.IntRange(2, 4))
@click.option(
    "--dir",
    "directory",
    type=click.Path(file_okay=False, path_type=Path),
    help="Where to put the game (default: a new folder ./demo-games).",
)
@click.option("--seed", default=None, type=int, help="Bot choices (default: random).")
@click.option("--quiet", is_flag=True, help="Only the summary.")
@click.option("--play-as", "play_as", metavar="SEAT",
              help="Play this seat yourself against the host's bots (red, green, blue, yellow).")
@click.option("--level", default="greedy", show_default=True, type=click.Choice(["random", "greedy", "mcts"]),
              help="With --play-as: the bots' level.")
@refusals
def demo(players: int, directory: Path | None, seed: int | None, quiet: bool, play_as: str | None,
         level: str) -> None:
    """Bots play a whole game through the real path: move files, apply, reveal, audit.
    With --play-as SEAT: a game where you play SEAT against bots."""
    if play_as is not None:
        from pbem.bots.play_as import play_as as start

        for line in start(directory or Path("demo-games"), players, play_as, level, seed):
            click.echo(line)
        return
    from pbem.demo import play_demo

    play_demo(directory or Path("demo-games"), players, seed, echo=None if quiet else click.echo, summary=click.echo)


def run() -> None:
    """The `pbem` process (console script, `python -m pbem`).

    A pbem command is a short process: it loads its modules, builds many small
    objects (a log's entries, a replay) and exits.  Marking what is loaded as
    permanent and collecting young objects less often spares the collector
    from walking the same objects again and again (bench/bench.py: about 10%
    of `pbem apply`).  Long commands (`pbem mail`) still collect.
    """
    gc.freeze()
    gc.set_threshold(50_000, 20, 20)
    main()


if __name__ == "__main__":  # pragma: no cover
    run()
