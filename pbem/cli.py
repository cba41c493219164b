"""The `pbem` command line: a thin wrapper over host, replay, view and simulate.

Every refusal prints one paragraph to stderr and exits with the code of its
kind (:class:`pbem.errors.Exit`); nothing is written on a refusal.
"""

from __future__ import annotations

import functools
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from pbem import __version__
from pbem.errors import FormatError, PbemError, StateError, UnknownError
from pbem.logfile import read_log

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
        except KeyboardInterrupt:
            click.echo("pbem: interrupted; no file was changed by the unfinished step", err=True)
            sys.exit(130)
        except (click.exceptions.Exit, click.ClickException, click.Abort, SystemExit):
            raise
        except Exception as err:  # a bug in pbem: say so plainly, no traceback for players
            if os.environ.get("PBEM_DEBUG"):
                raise
            click.echo(
                f"pbem: internal error ({type(err).__name__}: {err}). No file was changed. "
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
@games_option
@refusals
def new(game_id: str, players: str, first: str | None, secret_file: Path | None, games: Path) -> None:
    """Create a game: its directory, secret (mode 0600) and first log entry (P3)."""
    from pbem.host import NewGame, create
    from pbem.yamlio import read_limited

    secret = None
    if secret_file is not None:
        text = read_limited(secret_file, 1024, "secret file").decode("ascii", "replace").strip()
        try:
            secret = bytes.fromhex(text)
        except ValueError:
            raise FormatError("the secret file must hold 64 hex digits", "P1") from None
    names = tuple(p.strip() for p in players.split(",") if p.strip())
    path = create(games, NewGame(game_id, names, first, secret))
    click.echo(f"created game {game_id} in {path}")
    click.echo(f"players (seat order): {', '.join(names)}")
    click.echo("send each player the log and a nonce template ('pbem template'), or run 'pbem start'")


@main.command()
@click.argument("game_id")
@games_option
@refusals
def start(game_id: str, games: Path) -> None:
    """Start the game now; players who sent no nonce count as empty (P4)."""
    from pbem.host import start as do_start

    applied = do_start(games, game_id)
    _report(applied)


@main.command()
@click.argument("move_file", type=click.Path(path_type=Path))
@games_option
@refusals
def apply(move_file: Path, games: Path) -> None:
    """Check a player's move file and record it in the game's log."""
    from pbem.host import apply_move
    from pbem.moves import read_move

    move = read_move(move_file)
    applied = apply_move(games, move)
    _report(applied)


def _report(applied: Any) -> None:
    from pbem.view import describe_event, next_step

    game = applied.game
    for entry in applied.entries:
        kind = entry["kind"]
        if kind == "move":
            click.echo(f"entry {entry['seq']}: {entry['player']}'s move accepted")
            for event in entry["outcome"]:
                if event["event"] != "turn_started":
                    click.echo(f"  {describe_event(game, event)}")
        elif kind == "nonce":
            click.echo(f"entry {entry['seq']}: nonce from {entry['player']} recorded")
        elif kind == "start":
            setup = entry["setup"]
            click.echo(
                f"entry {entry['seq']}: the game starts; first player {setup['first_player']}, "
                f"plague in {game.board.name_of(setup['plague'])}"
            )
        elif kind == "reveal":
            click.echo(f"entry {entry['seq']}: the secret is revealed; anyone can now run 'pbem audit'")
    for path in applied.private:
        click.echo(f"private reveal for {path.stem} written to {path} (send it to {path.stem} only)")
    if game.state is not None:
        click.echo(f"next: {next_step(game.state)}")
    click.echo(f"log now ends at entry {game.last_seq} ({game.last_hash[:16]})")


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
    """A move file for the player to move, with the legal choices as comments (P7)."""
    from pbem.host import game_dir, load_game
    from pbem.view import template as make

    game = load_game(game_dir(games, game_id))
    who = player or game.to_move()
    if who is None:
        raise StateError(
            "name the player with --player (before the start every player sends a nonce)"
            if not game.started else "the game is over: no more moves"
        )
    if who not in game.players:
        raise UnknownError(f"{who!r} is not a player in game {game_id!r}", "R2.1")
    text = make(game, who)
    if out is None:
        click.echo(text, nl=False)
    else:
        if out.exists():
            raise StateError(f"{out} exists; pbem does not overwrite files")
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
    from pbem.host import PRIVATE_DIR, game_dir, load_game
    from pbem.view import board_lines, private_lines, state_json
    from pbem.yamlio import decode, load_stream, read_limited

    path = game_dir(games, game_id)
    game = load_game(path)
    reveals: list[dict[str, Any]] = []
    if as_player is not None:
        if as_player not in game.players:
            raise UnknownError(f"{as_player!r} is not a player in game {game_id!r}", "R2.1")
        private = path / PRIVATE_DIR / f"{as_player}.yaml"
        if private.exists():
            text = decode(read_limited(private, 1 << 20, "private file"), "private file")
            reveals = load_stream(text, "private file")
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
@refusals
def verify(log: Path) -> None:
    """Check a log: the chain, every reveal against its commitment, a full replay (P6-P7)."""
    from pbem.replay import replay

    entries, hashes = read_log(log)
    game = replay(entries, hashes)
    click.echo(f"ok: {len(entries)} entries; the chain holds (P7)")
    flips = sum(
        1 for e in entries if e.get("kind") == "move"
        for ev in e["outcome"] if ev["event"] == "token_flipped"
    )
    click.echo(f"ok: {flips} reveals match their commitments (P6)")
    click.echo("ok: every move replays under the rules to its recorded outcome (R7.3)")
    status = "over" if game.over else ("in play" if game.started else "not started")
    click.echo(f"game {game.game_id}: {status}; last entry {game.last_seq} ({game.last_hash[:16]})")


@main.command()
@click.argument("log", type=click.Path(path_type=Path))
@refusals
def audit(log: Path) -> None:
    """After the reveal: recompute every draw and commitment and replay the game (P6)."""
    from pbem.host import audit as do_audit
    from pbem.replay import replay

    entries, hashes = read_log(log)
    game = replay(entries, hashes)
    for finding in do_audit(game):
        click.echo(f"ok: {finding}")
    from pbem.rules import winner

    assert game.state is not None  # audit() refuses a game that is not over
    scores = game.state.scores()
    click.echo("final scores: " + ", ".join(f"{p} {scores[p]}" for p in game.players))
    click.echo(
        "verdict: FAIR. The rat order was fixed at the start and never touched; "
        f"{winner(game.state)} wins (R6.5)."
    )


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
@click.option("--players", default=3, show_default=True, type=click.IntRange(2, 4))
@click.option(
    "--dir",
    "directory",
    type=click.Path(file_okay=False, path_type=Path),
    help="Where to put the game (default: a new folder ./demo-games).",
)
@click.option("--seed", default=None, type=int, help="Bot choices (default: random).")
@click.option("--quiet", is_flag=True, help="Only the summary.")
@refusals
def demo(players: int, directory: Path | None, seed: int | None, quiet: bool) -> None:
    """Bots play a whole game through the real path: move files, apply, reveal, audit."""
    from pbem.demo import play_demo

    play_demo(directory or Path("demo-games"), players, seed, echo=None if quiet else click.echo, summary=click.echo)


if __name__ == "__main__":  # pragma: no cover
    main()
