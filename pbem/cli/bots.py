"""Bots: whole games in memory, and a demo game through the real path.

(Imports inside command bodies are for start-up speed.)
"""

from __future__ import annotations

from pathlib import Path

import click

from pbem.cli.shell import main, refusals

# --- bots -----------------------------------------------------------------------------

@main.command()
@click.option("--games", "n_games", default=100, show_default=True, type=click.IntRange(1, 10**7))
@click.option("--players", default=4, show_default=True, type=click.IntRange(2, 4))
@click.option("--seed", default=0, show_default=True, type=int)
@click.option("--check", is_flag=True, help="Check the invariants after every action.")
@refusals
def simulate(n_games: int, players: int, seed: int, check: bool) -> None:
    """Random bots play complete games in memory; prints statistics."""
    from pbem.sim.simulate import simulate as run

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
    from pbem.sim.demo import play_demo

    play_demo(directory or Path("demo-games"), players, seed, echo=None if quiet else click.echo, summary=click.echo)



