"""Anyone's commands on a log: the board, verification, the audit.

(Imports inside command bodies are for start-up speed.)
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from pbem.cli.shell import force_option, game_log, games_option, lang_option, main, writable
from pbem.errors import StateError
from pbem.i18n import Msg, say, translator
from pbem.log.logfile import read_log
from pbem.views.trust import audit_verdict


@main.command()
@click.argument("game_id", metavar="GAME")
@click.option("--as", "as_player", help="Also show this player's private knowledge (Witch looks).")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@click.option("--at", "at_seq", type=int, metavar="SEQ", help="The game as of this entry of its log.")
@click.option("--svg", "svg_out", type=click.Path(dir_okay=False, path_type=Path),
              help="Also draw the board (SVG) into this file.")
@click.option("--png", "png_out", type=click.Path(dir_okay=False, path_type=Path),
              help="Also draw the board as a PNG picture into this file.")
@force_option
@lang_option
@games_option
def show(game_id: str, as_player: str | None, as_json: bool, at_seq: int | None,
         svg_out: Path | None, png_out: Path | None, force: bool, lang: str, games: Path) -> None:
    """The board as a person reads it; with --as, that player's private reveals too.
    GAME is a game's id, or the path of its log (a mailed log.yaml)."""
    from pbem.host.private import seat_view
    from pbem.views.json import state_json
    from pbem.views.text import board_lines, private_lines
    from pbem.views.timeline import game_at, read_checked

    log, path = game_log(games, game_id)
    entries, hashes = read_checked(log)  # the whole log holds (P7), then its prefix
    game = game_at(entries, hashes, len(entries) - 1 if at_seq is None else at_seq)
    view = None if as_player is None else seat_view(path, game, as_player)  # the seat's own view (R5.6)
    _pictures(game, svg_out, png_out, force, lang)
    if as_json:
        data = state_json(game)
        if view is not None:
            data["private"] = {"player": view.seat, "looks": view.private_docs()}
        click.echo(json.dumps(data, indent=1, ensure_ascii=False))
        return
    for line in board_lines(game, lang=lang):
        click.echo(line)
    if view is not None:
        click.echo(say(Msg("private to {seat}:", seat=view.seat), lang))
        for line in private_lines(view, lang) or ["  " + say(Msg("nothing yet"), lang)]:
            click.echo(line)


def _pictures(game: Any, svg_out: Path | None, png_out: Path | None, force: bool = False,
              lang: str = "en") -> None:
    """`pbem show --svg/--png`: the board drawn from the public game only (P10), its labels in ``lang``."""
    if svg_out is None and png_out is None:
        return
    from pbem.views.svg import board_png, board_svg

    for target in (t for t in (svg_out, png_out) if t is not None):
        writable(target, force)
    svg = board_svg(game, lang=lang)
    png = board_png(svg) if png_out is not None else b""
    if svg_out is not None:
        svg_out.write_text(svg, encoding="utf-8")
        click.echo(f"board drawn to {svg_out}", err=True)
    if png_out is not None:
        png_out.write_bytes(png)
        click.echo(f"board drawn to {png_out}", err=True)


@main.command()
@click.argument("game_id", metavar="GAME")
@lang_option
@games_option
def history(game_id: str, lang: str, games: Path) -> None:
    """The game told entry by entry, in words, from its public log (GAME: its id, or the
    path of its log, e.g. a mailed log.yaml)."""
    from pbem.views.timeline import history_lines, read_checked

    for line in history_lines(*read_checked(game_log(games, game_id)[0]), lang=lang):
        click.echo(line)


def _check_index(games: Path) -> None:
    from pbem.host import gamesets

    found = gamesets.checked_index(games)
    if found is None:
        click.echo(f"no index can be kept in {games}: pbem reads every log instead")
        return
    for line in found[1]:
        click.echo(line)
    click.echo(f"index checked against the logs: {found[0]} game(s), {len(found[1])} difference(s) mended")


@main.command(name="list")
@click.option("--check", is_flag=True, help="Compare the host's index of its games with every log, byte for "
              "byte, and mend what differs (the logs are the truth); say each difference.")
@games_option
def list_games(check: bool, games: Path) -> None:
    """Every game in the games folder: its state, who is to move, and since when."""
    from pbem.host import gamesets

    if check:
        return _check_index(games)
    found = gamesets.listed(games)  # from the host's index, each game's row as its log last left it
    if found is None or not found[0]:  # no index can be kept here, or no game: read the folder
        from pbem.host.head import list_line
        from pbem.host.lobby import open_games
        from pbem.views.timeline import list_lines

        for line in list_lines(games, list_line):  # each game's line from its head index while its log is unchanged
            click.echo(line)
        opened = open_games(games)
    else:
        from pbem.host.settings import load_settings

        click.echo("\n".join(found[0]))
        opened = [(games / g, load_settings(games / g)) for g in found[1]]
    for path, settings in opened:  # pbem new --open: the seats strangers may still take by mail
        if not settings.waiting():
            continue
        click.echo(f"{path.name}: waiting for players, {len(settings.waiting())} open seat(s) "
                   f"({', '.join(settings.waiting())}); a mail 'join {path.name}' takes one")
    if (games / "+mail-queue").is_dir():  # a mail host: the seats awaited with no mail in flight for their turn
        from pbem.mail.resend import unmailed

        for game_id, seats in unmailed(games).items():
            click.echo(f"{game_id}: no mail in flight for {', '.join(seats)} (never sent, or given up: "
                       "see +mail-queue/failed/failed.log; 'pbem mail' sends a lost one again)")


@main.command()
@click.argument("log", type=click.Path(path_type=Path))
@click.option("-o", "--out", "out", required=True, type=click.Path(dir_okay=False, path_type=Path),
              help="The page to write (one self-contained HTML file).")
@click.option("--compose", "seat", default=None, metavar="SEAT",
              help="A page that writes SEAT's move by clicks (the board as SEAT sees it), not the viewer.")
@click.option("--to", "to", default=None, metavar="ADDRESS", help="With --compose: the host's address for Send.")
@force_option
@lang_option
def html(log: Path, out: Path, seat: str | None, to: str | None, force: bool, lang: str) -> None:
    """A page that steps through the game of LOG (a log.yaml) entry by entry: the board, the narration and,
    once the secret is revealed, the audit's verdict (works offline); with --compose SEAT,
    a page that writes SEAT's move."""
    from pbem.i18n import Msg, say

    writable(out, force)
    if seat is not None:
        from pbem.host.private import seat_view
        from pbem.views.compose import compose_page
        from pbem.views.timeline import game_at, read_checked

        entries, hashes = read_checked(log)  # any log file, a mailed one too
        game = game_at(entries, hashes, len(entries) - 1)
        page = compose_page(seat_view(log.parent, game, seat), to, lang)
        out.write_text(page, encoding="utf-8")
        click.echo(say(Msg("{out}: {seat}'s move as of entry {seq}; open it in a browser and click the move",
                           out=str(out), seat=seat, seq=game.last_seq), lang))
        return
    from pbem.host.press import public_press
    from pbem.views.html import game_page
    from pbem.views.timeline import read_checked

    press = [(p.at, p.sender, p.text) for p in public_press(log.parent)]  # the game's folder's: to all only
    page, n = game_page(*read_checked(log), lang=lang, log_text=log.read_bytes().decode("utf-8"), press=press)
    out.write_text(page, encoding="utf-8")
    click.echo(say(Msg.plural("{out}: {n} entry; open it in a browser (arrow keys step through the game)",
                              "{out}: {n} entries; open it in a browser (arrow keys step through the game)",
                              n, out=str(out)), lang))


def nonce_option(command: Any) -> Any:
    command = click.option(
        "--code", metavar="CODE",
        help="With --words: the code you wrote down with the words (else it is asked for; empty: a game opened "
             "before codes, its nonce made from the words alone).",
    )(command)
    command = click.option(
        "--words", "words_seat", metavar="SEAT",
        help="Type the secret words you made SEAT's secret number from (the page, or 'pbem nonce --from-words'), "
             "and the code: check that the log holds exactly their number (P4; it rests on nothing the host "
             "sent: docs/fairplay.md).",
    )(command)
    return click.option(
        "--nonce", "nonce_file", type=click.Path(dir_okay=False, path_type=Path),
        help="The nonce file 'pbem nonce' kept for you, or the nonce move the page downloaded: check that "
             "the log holds exactly it (P4).",
    )(command)


def _own_nonce(game: Any, nonce_file: Path | None, words_seat: str | None, lang: str = "en",
               code: str | None = None) -> list[str]:
    """P4: the log holds the nonce this player kept (a refusal otherwise); the seats checked
    against what their player's own words or program made."""
    checked: list[str] = []
    if nonce_file is not None:
        from pbem.player.nonces import check_kept

        found, seat, own = check_kept(nonce_file, game)
        click.echo(f"ok: {say(found, lang)}")
        if own:
            checked.append(seat)
        else:
            click.echo(say(Msg("note (P4): {file} is a nonce move: it shows what the log holds, not who made the "
                               "nonce; the words you made it from show that: --words {seat}",
                               file=nonce_file.name, seat=seat), lang))
    if words_seat is not None:
        from pbem.cli.playing import read_code, read_words
        from pbem.player.nonces import check_words

        words = read_words(Msg("{player}'s secret words", player=words_seat), lang)
        code = read_code(lang) if code is None else code
        click.echo(f"ok: {say(check_words(game, words_seat, words, code), lang)}")
        checked.append(words_seat)
    return [p for p in game.players if p in checked]


@main.command()
@click.argument("log", type=click.Path(path_type=Path))
@click.option("--extends", "old", type=click.Path(dir_okay=False, path_type=Path),
              help="The last log you received: LOG must continue it, entry for entry (P9).")
@nonce_option
@lang_option
def verify(log: Path, old: Path | None, nonce_file: Path | None, words_seat: str | None, code: str | None,
           lang: str) -> None:
    """Check a log: the chain, every reveal against its commitment, a full replay (P6-P7);
    with --extends OLD, also that LOG continues the log you kept (P9)."""
    from pbem.referee.replay import check_schema, replay

    said = translator(lang)  # "ok:" stays (what a script reads, like a verdict's word); the sentence is said

    def ok(text: Msg) -> None:
        click.echo(f"ok: {said.say(text)}")

    entries, hashes = read_log(log)
    check_schema(entries)
    game = replay(entries, hashes)
    own = _own_nonce(game, nonce_file, words_seat, lang, code)
    ok(Msg.plural("{n} entry; the chain holds and it fits schemas/entry.json (P7)",
                  "{n} entries; the chain holds and each entry fits schemas/entry.json (P7)", len(entries)))
    flips = sum(len(e.reveals) for e in entries)  # every public flip, whichever entry made it
    ok(Msg.plural("{n} reveal matches its commitment (P6)", "{n} reveals match their commitments (P6)", flips))
    ok(Msg("every move replays under the rules to its recorded outcome (R7.3)"))
    from pbem.referee.signatures import require_valid  # P8; cryptography only if the log has keys

    checked = require_valid(entries)
    if checked is not None:
        if game.keys.host:
            ok(Msg.plural("the {n} entry carries the host's signature (P8)",
                          "all {n} entries carry the host's signature (P8)", checked.entries_signed))
        ok(Msg.plural("{n} signed move verifies with its player's key (P8)",
                      "{n} signed moves verify with their players' keys (P8)", checked.moves_signed))
    if game.secret is not None:  # revealed: every commitment can be checked now, flipped or not
        from pbem.referee.audit import audit as do_audit

        for finding in do_audit(game):
            click.echo(f"ok: {say(finding, lang)}")
    from pbem.views.trust import record_lines

    for line in record_lines(game, lang):
        click.echo(f"ok: {line}")
    status = "over" if game.over else ("in play" if game.started else game.opening.value)
    click.echo(said.say(Msg("game {game}: {status}; last entry {seq} ({hash})", game=game.game_id,
                            status=_STATUS.get(status, status), seq=game.last_seq, hash=game.last_hash[:16])))
    if old is not None:
        _extends(log, entries, hashes, old, lang)
    _clock_warnings(entries, game, log, old, lang)
    from pbem.views.trust import trust_lines

    for line in trust_lines(game, lang, checked=own):
        click.echo(line)


_STATUS = {"over": Msg("over"), "in play": Msg("in play"), "commit": Msg("commit"), "reveal": Msg("reveal"),
           "abandoned": Msg("abandoned")}
"""`pbem verify`'s word for where the game stands (the opening's words: :class:`pbem.log.game.Opening`)."""


def _clock_warnings(entries: list[Any], game: Any, log: Path, old: Path | None, lang: str = "en") -> None:
    """P7, R8.2: what the reader's own clock contradicts, on stderr (warnings, not refusals)."""
    from pbem.log.clock import now
    from pbem.referee.clocks import ahead, early_timeouts

    lines = ahead(entries, now(), lang)
    if old is not None:  # the kept log continues into LOG (checked): the file times are the reader's
        kept = read_log(old)[0]
        lines += early_timeouts(entries, len(kept) - 1, int(old.stat().st_mtime), int(log.stat().st_mtime),
                                game.deadline, lang)
    for line in lines:
        click.echo(line, err=True)


def _extends(log: Path, entries: list[Any], hashes: list[str], old: Path, lang: str = "en") -> None:
    """P9: the log kept (OLD) is a prefix of LOG; a refusal prints a fork proof if there is one."""
    from pbem.errors import TamperError
    from pbem.referee.history import compare

    try:
        old_entries, old_hashes = read_log(old)
    except TamperError as err:
        raise TamperError(Msg("OLD ({old}), the log you kept, does not verify: {reason}", old=str(old),
                              reason=err.words), err.rule) from None
    said = Msg("OLD ({old}), the log you kept, reads and its chain holds (P7)", old=str(old))
    click.echo(f"ok: {say(said, lang)}")
    result = compare([e.to_raw() for e in entries], hashes, [e.to_raw() for e in old_entries], old_hashes)
    if result.ok:
        click.echo(f"ok: {say(result.message, lang)}")
        return
    if result.proof is not None:  # stdout: the statement, then both signed entries as JSON lines
        proof = result.proof
        click.echo(f"proof (P9): {say(proof.statement(), lang)}")
        for side, path in ((proof.new, log), (proof.old, old)):
            click.echo(json.dumps(
                {"log": side.side, "path": str(path), "seq": side.seq, "hash": side.hash,
                 "signature": side.signature, "entry": side.entry},
                ensure_ascii=False, sort_keys=True, separators=(",", ":"),
            ))
    raise result.error()


"""The fair-play protocol as a document (in pbem's source); every verdict of `pbem audit` names it."""


@main.command()
@click.argument("log", type=click.Path(path_type=Path))
@nonce_option
@lang_option
def audit(log: Path, nonce_file: Path | None, words_seat: str | None, code: str | None, lang: str) -> None:
    """After the reveal: recompute every draw and commitment of LOG and replay the game (P6).

    The protocol it checks, and how to check it yourself: docs/protocol.md."""
    from pbem.errors import SignatureError, TamperError
    from pbem.referee.audit import audit as do_audit
    from pbem.referee.replay import replay
    from pbem.rules import winner

    try:
        entries, hashes = read_log(log)  # (the entry schema is pbem verify's: slow, and not P6's)
        game = replay(entries, hashes)
        checked = _own_nonce(game, nonce_file, words_seat, lang, code)
        findings = do_audit(game)
    except (TamperError, SignatureError, StateError) as err:
        click.echo(audit_verdict(err, lang=lang))  # stdout; the reason goes to stderr as for every refusal
        raise
    _clock_warnings(entries, game, log, None, lang)
    for finding in findings:
        click.echo(f"ok: {say(finding, lang)}")
    assert game.state is not None  # audit() refuses a game that is not over
    scores = game.state.scores()
    click.echo(say(Msg("final scores: {scores}", scores=", ".join(f"{p} {scores[p]}" for p in game.players)), lang))
    click.echo(say(Msg("winner: {winner} (R6.5)", winner=winner(game.state)), lang))
    from pbem.views.trust import record_lines, trust_lines

    for line in record_lines(game, lang):
        click.echo(f"ok: {line}")
    click.echo(audit_verdict(None, game, lang))
    for line in trust_lines(game, lang, checked=checked):
        click.echo(line)



