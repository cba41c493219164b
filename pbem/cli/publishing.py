"""The host's publishing: the static site of its games (`pbem site`, and `pbem serve --site`'s
rebuild after each round).

(Imports inside command bodies are for start-up speed.)
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import click

from pbem.cli.shell import games_option, lang_option, main
from pbem.errors import PbemError


def site_builder(games: Path, out: Path) -> Callable[[], None]:
    """`pbem serve --site`: the site brought up to date after a round; a failure is said, and serving goes on."""
    from pbem.host.site import build_site

    def rebuild() -> None:
        try:
            built = build_site(games, out)
        except PbemError as err:
            click.echo(f"pbem serve: the site in {out} was not brought up to date: {err}")
        else:
            if built.damaged:
                click.echo(f"pbem serve: {damaged_warning(out, 'en')}")

    return rebuild


def damaged_warning(out: Path, lang: str) -> str:
    """What the host is told when the site's manifest named paths, not games (P2)."""
    from pbem.host.sitestate import MANIFEST
    from pbem.i18n import Msg, say

    return say(Msg("warning: the site's manifest {out} named something other than game ids and their logs' "
                   "SHA-256 (P2: a game id is never a path); it was read as damaged: every game's pages "
                   "were made again, and nothing was removed on its word", out=str(out / MANIFEST)), lang)


@main.command()
@click.option("--site", "out", required=True, type=click.Path(file_okay=False, path_type=Path),
              help="The site's folder: new, empty, or a site pbem made (only the changed games' pages are made "
                   "again); the same as 'pbem serve --site'.")
@click.option("--check", is_flag=True,
              help="First compare every game's log with the host's index (a stat of each log), so that a log "
                   "edited by hand, which no pbem command wrote, is seen; without it the site follows the index.")
@lang_option
@games_option
def site(out: Path, check: bool, lang: str, games: Path) -> None:
    """Host: write a static site of the games (the open games, the games in play, the finished games
    with their audits' verdicts, standings), for any web server; needs no script, loads nothing."""
    from pbem.host.site import build_site

    built = build_site(games, out, lang, check)
    if built.damaged:
        click.echo(damaged_warning(out, lang), err=True)
    click.echo(f"{out}: {built.games} games; {built.pages} pages written (open {out / 'index.html'})")
