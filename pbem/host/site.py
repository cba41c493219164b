"""`pbem site`: a static site of the host's games, for any web server to publish.

The site's folder holds ``index.html`` (the open games, the games in play with whose turn it
is and since when, the finished games with their audits' verdicts), ``standings.html``
(:mod:`pbem.views.standings`) and, per game, ``games/GAME.html`` (its card),
``games/GAME-viewer.html`` (`pbem html`'s viewer) and ``games/GAME.log.yaml`` (its public
log, to verify).  Everything on it comes from the public logs (:mod:`pbem.host.cards`) and,
for the open games, the number of seats still free: never a secret, a private file or an
address (P10).

A build costs what changed since the last one, not the number of games: the host's index of
its games (:mod:`pbem.host.index`), which every host write keeps, says which games changed (a
log edited by hand in place, which no host write saw, is seen by ``pbem site --check``, which
compares each log with its row by size and mtime, :func:`pbem.host.gamesets.restat`, or by
``pbem list --check``), and beside it the site keeps what each game's pages were made from and
what the index page and the standings need of it (:mod:`pbem.host.sitestate`): a build with
nothing changed reads no log and writes nothing; one game changed has that game's pages made
again, and the index and the standings when what they show of it changed
(:mod:`pbem.host.sitepages`).  ``.pbem-site.json`` in the site's folder names the log bytes (by
SHA-256) each game's pages were made from, with pbem's code mark: a build that cannot trust what
the index keeps (no index, another pbem, a manifest changed since) reads every log and makes
again the pages of each game whose log is not the one the manifest names.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pbem.errors import PbemError, StateError, UnknownError
from pbem.fair.protocol import GAME_ID_RE
from pbem.files import read_limited
from pbem.host.caches import code_mark
from pbem.host.gamesets import restat
from pbem.host.index import open_index
from pbem.host.marks import LOG_NAME
from pbem.host.sitestate import MANIFEST, Plan, plan
from pbem.i18n import Msg
from pbem.record import Record

if TYPE_CHECKING:
    from pbem.views.standings import Standing

_HEX64 = re.compile(r"[0-9a-f]{64}\Z")


class OpenGame(Record):
    """A game that waits for players: its seats, and how many are still free."""

    game_id: str
    seats: int
    free: int


class Built(Record):
    """What a build did: the games on the site, and the pages it (re)wrote."""

    games: int
    pages: int
    damaged: bool  # the site's manifest named something other than games and their logs: read as none


def game_folders(games: Path) -> list[Path]:
    """Every game folder under ``games`` (a folder named as a game id, with a log), in name order."""
    try:
        return sorted(p for p in games.iterdir() if GAME_ID_RE.match(p.name) and (p / LOG_NAME).is_file())
    except OSError as err:
        raise UnknownError(Msg("cannot read the games folder {folder}: {why}", folder=str(games),
                               why=err.strerror), "P1") from None


def open_games(games: Path) -> list[OpenGame]:
    """The games that wait for players: seats the host opened to strangers (``open_seats`` in
    host.yaml, `pbem new --open N`) that no player's address holds yet, each game's host.yaml
    and log read (the build reads the index's rows instead: the seats it counts the same way)."""
    from pbem.host.cards import card_of  # start-up speed: a build with nothing changed loads none of these
    from pbem.host.settings import SETTINGS_LIMIT, SETTINGS_NAME, load_settings  # start-up speed
    from pbem.log.yamlio import decode, load_one  # start-up speed

    found: list[OpenGame] = []
    for folder in game_folders(games):
        path = folder / SETTINGS_NAME
        if not path.is_file():
            continue
        try:
            raw = load_one(decode(read_limited(path, SETTINGS_LIMIT, Msg("host settings")), str(path)), str(path))
            taken = load_settings(folder).emails
        except PbemError:  # settings the host must mend: `pbem mail` says so; the site shows no seat
            continue
        opened = raw.get("open_seats") if isinstance(raw, dict) else None
        if not isinstance(opened, list) or not opened:
            continue
        free = sum(1 for seat in opened if seat not in taken)
        if free:
            try:
                found.append(OpenGame(folder.name, len(card_of(folder).players), free))
            except PbemError:  # its log cannot be read: the site shows it as such, not as open
                continue
    return found


def standings_of(games: Path, lang: str = "en") -> list[Standing]:
    """The standings over every game under ``games`` that counts (:mod:`pbem.host.people`), each log read."""
    from pbem.host.cards import Card, card_from  # start-up speed: a build with nothing changed loads none of these
    from pbem.host.people import rated  # start-up speed
    from pbem.log.yamlio import LOG_LIMIT  # start-up speed
    from pbem.views.standings import standings  # start-up speed

    found: list[Card] = []
    for folder in game_folders(games):
        try:
            found.append(card_from(folder, read_limited(folder / LOG_NAME, LOG_LIMIT, Msg("log")), lang))
        except PbemError:  # a log that cannot be read counts for nobody
            continue
    return standings(rated(games, found))


def build_site(games: Path, out: Path, lang: str = "en", check: bool = False) -> Built:
    """Write (or bring up to date) the site of the games under ``games`` in ``out`` (see the
    module); ``check``: first compare every log with its index row (a stat of each log), so
    that a log edited by hand is seen."""
    _check_out(games, out)
    (out / "games").mkdir(parents=True, exist_ok=True)
    mark = code_mark().hex() + "/" + lang
    index = open_index(games) if games.is_dir() else None
    try:
        if index is not None:
            index.sync()
            if check:
                restat(index)  # a log changed by hand: its row made again
            found = plan(index, out, mark)
        else:  # no index can be kept here: every game looked at, its seats from host.yaml
            free = {g.game_id: g.free for g in open_games(games)}
            found = Plan(str(out.resolve()), mark, "",
                         {f.name: (0, free.get(f.name, 0), "") for f in game_folders(games)})
        if found.nothing:
            return Built(found.count, 0, False)
        manifest, damaged = ({}, False) if found.trusted else _manifest(out)
        known: dict[str, str] = manifest.get("games", {}) if manifest.get("code") == mark else {}
        if not found.trusted:  # only a sound manifest's games: never a path (P2)
            found.gone = sorted(set(known) - set(found.games))
        from pbem.host.sitepages import write_pages  # start-up speed: only a build with work makes pages

        return Built(found.count, write_pages(games, out, lang, found, index, known), damaged)
    finally:
        if index is not None:
            index.db.close()


def _manifest(out: Path) -> tuple[dict[str, Any], bool]:
    """The site's manifest, or nothing: a file any writer of the site's folder could have changed,
    so it is never trusted for a path.  Every name in it must be a game id (P2: no ``/``, no
    ``..``, never absolute) and every log's mark a SHA-256; one that is not makes the whole
    manifest damaged, read as none: every game's pages are made again, and nothing is removed
    on its word.  The second value says it was damaged (not missing)."""
    try:
        got = json.loads((out / MANIFEST).read_bytes())
    except FileNotFoundError:
        return {}, False
    except (OSError, ValueError):
        return {}, True
    if not isinstance(got, dict) or not isinstance(got.get("games"), dict):
        return {}, True
    sound = all(isinstance(name, str) and GAME_ID_RE.match(name) and isinstance(mark, str) and _HEX64.match(mark)
                for name, mark in got["games"].items())
    return (got, False) if sound else ({}, True)


def _check_out(games: Path, out: Path) -> None:
    """The site's folder: new, empty, or a site pbem made (it never writes over other files)."""
    if out.exists() and not out.is_dir():
        raise StateError(Msg("the site's folder {out} is a file", out=str(out)), "P1")
    if out.resolve() == games.resolve():
        raise StateError(Msg("the site's folder {out} is the games folder; give the site a folder of its own",
                             out=str(out)), "P1")
    if (out / "games").is_symlink() or ((out / "games").exists() and not (out / "games").is_dir()):
        raise StateError(Msg("the site's folder {out} has a 'games' that is not a folder of its own (a link or a "
                             "file): pbem writes and removes game pages only inside the site's folder", out=str(out)),
                         "P1")
    if out.is_dir() and any(out.iterdir()) and not (out / MANIFEST).is_file():
        raise StateError(Msg("the site's folder {out} holds files that pbem did not make (no {manifest}); give an "
                             "empty or new folder, or a site pbem made before", out=str(out), manifest=MANIFEST), "P1")
