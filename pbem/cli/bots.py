"""Bots: whole games in memory, and a demo game through the real path.

(Imports inside command bodies are for start-up speed.)
"""

from __future__ import annotations

from pathlib import Path

import click

from pbem.cli.shell import games_option, main
from pbem.errors import FormatError, StateError, UnknownError
from pbem.i18n import Msg

SECONDS_HELP = ("The mcts bot's thinking time, CPU seconds per decision.  Measured, a longer search does not "
                "play better: mcts's win share against three greedy bots is 48.5 / 52.5 / 50.5% at 0.25 / 1 / 4 s "
                "over the same 200 deals (docs/benchmarks.md), so a short budget is as good.")

# --- bots -----------------------------------------------------------------------------

@main.command()
@click.option("--count", "n_games", default=100, show_default=True, type=click.IntRange(1, 10**7),
              help="How many games to play.")
@click.option("--player-count", "players", default=4, show_default=True, type=click.IntRange(2, 4),
              help="Players in each game.")
@click.option("--seed", default=0, show_default=True, type=int,
              help="The first game's seed (game i plays seed + i): the same seed, the same games.")
@click.option("--check", is_flag=True, help="Check the invariants after every action.")
def simulate(n_games: int, players: int, seed: int, check: bool) -> None:
    """Random bots play complete games in memory; prints statistics."""
    from pbem.sim.simulate import simulate as run

    for line in run(n_games, players, seed, check).lines():
        click.echo(line)


@main.command()
@click.argument("game_id", metavar="GAME")
@click.option("--player", required=True, help="The seat the bot plays.")
@click.option("--level", default="greedy", show_default=True, type=click.Choice(["random", "greedy", "mcts"]),
              help="The bot: random (any legal move), greedy (one turn ahead), mcts (a tree search).")
@click.option("--seconds", default=1.0, show_default=True, type=click.FloatRange(0.01, 600),
              help=SECONDS_HELP)
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), help="Write the move here, not stdout.")
@games_option
def bot(game_id: str, player: str, level: str, seconds: float, out: Path | None, games: Path) -> None:
    """A bot writes PLAYER's next move in GAME from that seat's view only (the log and its own
    Witch looks): help for a player, or a host playing a bot seat by hand."""
    from pbem.host.botseat import bot_move
    from pbem.host.games import game_dir, load_game
    from pbem.log.yamlio import dump_yaml

    path = game_dir(games, game_id)
    if out is not None and out.exists():
        raise StateError(Msg("{out} exists; pbem does not overwrite files", out=str(out)), "P7")
    if out is not None and not out.parent.is_dir():
        raise UnknownError(Msg("cannot write {out}: the folder {folder} does not exist", out=str(out),
                               folder=str(out.parent)), "P7")
    text = dump_yaml(bot_move(path, load_game(path), player, level, seconds))
    if out is None:
        click.echo(text, nl=False)
    else:
        out.write_text(text, encoding="utf-8")
        click.echo(f"{level} bot's move for {player} written to {out}; apply it with: pbem apply {out}")


@main.command()
@click.option("--count", "n_games", default=100, show_default=True, type=click.IntRange(1, 10**6),
              help="How many games to play.")
@click.option("--player-count", "players", default=4, show_default=True, type=click.IntRange(2, 4),
              help="Players in each game (one bot level per seat in --bots).")
@click.option("--bots", "bots", default="greedy,random,random,random", show_default=True,
              help="One level per seat, comma-separated; seats rotate from game to game.")
@click.option("--seed", default=0, show_default=True, type=int,
              help="The first deal's seed: the same seed, the same deals.")
@click.option("--seconds", default=1.0, show_default=True, type=click.FloatRange(0.01, 600),
              help=SECONDS_HELP)
@click.option("--jobs", default=1, show_default=True, type=click.IntRange(1, 64), help="Parallel processes.")
def tournament(n_games: int, players: int, bots: str, seed: int, seconds: float, jobs: int) -> None:
    """Bots play in-memory games; each level's win share (95% Wilson interval), cubes left,
    and thinking time per turn."""
    from pbem.log.game import BOT_LEVELS
    from pbem.sim.tournament import run as play

    levels = [b.strip() for b in bots.split(",") if b.strip()]
    if len(levels) != players:
        raise FormatError(Msg.plural("--bots names {n} bot for {players} seats: name one per seat",
                                     "--bots names {n} bots for {players} seats: name one per seat", len(levels),
                                     players=players), "R2")
    for level in levels:
        if level not in BOT_LEVELS:
            raise FormatError(Msg("--bots: no bot level {level} (levels: {levels})", level=repr(level),
                                  levels=", ".join(BOT_LEVELS)), "R2")
    for line in play(n_games, levels, seed, seconds, jobs).lines():
        click.echo(line)


@main.command()
@click.option("--player-count", "players", default=3, show_default=True, type=click.IntRange(2, 4),
              help="Players in the game.")
@click.option("--games", "--dir", "directory", type=click.Path(file_okay=False, path_type=Path),
              help="The games folder to put the game in (default: a new folder ./demo-games).")
@click.option("--seed", default=None, type=int, help="Bot choices (default: random).")
@click.option("--quiet", is_flag=True, help="Only the summary.")
@click.option("--play-as", "play_as", metavar="SEAT",
              help="Play this seat yourself against the host's bots (red, green, blue, yellow).")
@click.option("--level", default="greedy", show_default=True, type=click.Choice(["random", "greedy", "mcts"]),
              help="With --play-as: the bots' level.")
def demo(players: int, directory: Path | None, seed: int | None, quiet: bool, play_as: str | None,
         level: str) -> None:
    """Bots play a whole game through the real path: move files, apply, reveal, audit.
    With --play-as SEAT: a game where you play SEAT against bots."""
    if play_as is not None:
        from pbem.sim.play_as import play_as as start

        for line in start(directory or Path("demo-games"), players, play_as, level, seed):
            click.echo(line)
        return
    from pbem.sim.demo import play_demo

    play_demo(directory or Path("demo-games"), players, seed, echo=None if quiet else click.echo, summary=click.echo)



