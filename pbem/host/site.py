"""`pbem site`: a static site of the host's games, for any web server to publish.

The site's folder holds ``index.html`` (the open games, the games in play with whose turn it
is and since when, the finished games with their audits' verdicts), ``standings.html``
(:mod:`pbem.views.standings`) and, per game, ``games/GAME.html`` (its card),
``games/GAME-viewer.html`` (`pbem html`'s viewer) and ``games/GAME.log.yaml`` (its public
log, to verify).  Everything on it comes from the public logs (:mod:`pbem.host.cards`) and,
for the open games, the number of seats still free: never a secret, a private file or an
address (P10).

The build is incremental: ``.pbem-site.json`` in the site's folder names the log bytes (by
SHA-256) each game's pages were made from, with pbem's code mark; a game whose log is the
same keeps its pages, so a build after a pass of `pbem serve` makes the pages of the games
that pass changed, and the index and the standings.
"""

from __future__ import annotations

import concurrent.futures
import hashlib
import json
import multiprocessing
import os
import re
from pathlib import Path
from typing import Any

from pbem import __version__
from pbem.errors import PbemError, StateError, UnknownError
from pbem.fair.protocol import GAME_ID_RE
from pbem.files import read_limited, write_atomic
from pbem.host.caches import code_mark
from pbem.host.cards import Card, card_from, card_of, is_status, refused
from pbem.host.people import rated
from pbem.host.settings import SETTINGS_LIMIT, SETTINGS_NAME, load_settings
from pbem.i18n import Msg, translator
from pbem.log.clock import now
from pbem.log.logfile import LOG_NAME, log_records
from pbem.log.yamlio import LOG_LIMIT, decode, load_one
from pbem.record import Record
from pbem.views.html import viewer_and_game
from pbem.views.site import game_card_page, index_page, standings_page
from pbem.views.standings import Standing, standings
from pbem.views.svg import screen_board
from pbem.views.timeline import GameStatus, history_lines

MANIFEST = ".pbem-site.json"
PAGE_MODE = 0o644  # published by a web server: readable by all
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
    host.yaml, `pbem new --open N`) that no player's address holds yet.  The only place the
    site asks which games are open."""
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
    """The standings over every game under ``games`` that counts (:mod:`pbem.host.people`)."""
    found: list[Card] = []
    for folder in game_folders(games):
        try:
            found.append(card_from(folder, read_limited(folder / LOG_NAME, LOG_LIMIT, Msg("log")), lang))
        except PbemError:  # a log that cannot be read counts for nobody
            continue
    return standings(rated(games, found))


def build_site(games: Path, out: Path, lang: str = "en") -> Built:
    """Write (or bring up to date) the site of the games under ``games`` in ``out``."""
    _check_out(games, out)
    (out / "games").mkdir(parents=True, exist_ok=True)
    mark = code_mark().hex() + "/" + lang
    manifest, damaged = _manifest(out)
    known = manifest.get("games", {}) if manifest.get("code") == mark else {}
    made: dict[str, str] = {}
    cards: list[Card] = []
    todo: list[tuple[Path, Card, bytes, str]] = []
    for folder in game_folders(games):
        try:
            data = read_limited(folder / LOG_NAME, LOG_LIMIT, Msg("log"))
        except PbemError as err:  # too large, unreadable: said on the site, and the other games go on
            data, card = b"", refused(folder.name, err, lang)
        else:
            card = card_from(folder, data, lang)
        digest = hashlib.sha256(data).hexdigest()
        cards.append(card)
        made[card.game_id] = digest
        if known.get(card.game_id) != digest or not (out / "games" / f"{card.game_id}.html").is_file():
            todo.append((out / "games", card, data, lang))
    pages = _all_pages(todo)
    for gone in set(known) - set(made):  # a game no longer in the folder: its pages go too
        for name in (f"{gone}.html", f"{gone}-viewer.html", f"{gone}.log.yaml"):
            (out / "games" / name).unlink(missing_ok=True)
    said = translator(lang)
    footer = said.say(Msg("Made by pbem {version} at {at}, from the public logs.", version=__version__, at=now()))
    opened = open_games(games)
    waiting = {g.game_id for g in opened}
    playing = sorted((c for c in cards if c.game_id not in waiting and is_status(
        c, GameStatus.IN_PLAY, GameStatus.COMMITTING, GameStatus.REVEALING)), key=lambda c: (c.since_at, c.game_id))
    over = sorted((c for c in cards if c.places or not c.status), key=lambda c: c.last_at, reverse=True)
    results = rated(games, cards)  # the holders, by handle, of the fair games between people
    rows, counted = standings(results), len(results)
    write_atomic(out / "index.html", index_page([(g.game_id, g.seats, g.free) for g in opened], playing, over,
                                                lang, footer).encode(), PAGE_MODE, sync=False)
    write_atomic(out / "standings.html", standings_page(rows, counted, lang, footer).encode(), PAGE_MODE, sync=False)
    write_atomic(out / MANIFEST, json.dumps({"code": mark, "games": made}).encode(), PAGE_MODE, sync=False)
    return Built(len(cards), pages + 2, damaged)


PARALLEL_FROM = 24
"""Games to draw from which a build shares them out over the machine's cores: a first build, or
one after an upgrade of pbem, draws every game's viewer (each of its entries); a pass of `pbem
serve` changes a game or two, drawn at once in the build's own process."""


def _all_pages(todo: list[tuple[Path, Card, bytes, str]]) -> int:
    """Every game's pages in ``todo`` (its folder, card, log and language): the pages written."""
    workers = min(os.cpu_count() or 1, 8)
    if len(todo) < PARALLEL_FROM or workers < 2:
        return sum(_game_pages(*job) for job in todo)
    # Processes started afresh (not forked): `pbem serve` runs threads, which a fork would copy
    # mid-step.  Each process imports pbem once and draws a share of the games.
    with concurrent.futures.ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn")) as pool:
        return sum(pool.map(_game_pages, *zip(*todo, strict=True), chunksize=max(1, len(todo) // (workers * 4))))


def _game_pages(folder: Path, card: Card, data: bytes, lang: str) -> int:
    """A game's card, its viewer (a log that replays) and its log: the pages written."""
    viewer, history = False, []
    board: tuple[str, str, str] | None = None
    if card.status:
        try:
            entries, hashes = log_records(data)
            page, _n, final = viewer_and_game(entries, hashes, lang=lang)
            board = screen_board(final, lang)
            history = history_lines(entries, hashes, lang)
        except PbemError:
            pass
        else:
            write_atomic(folder / f"{card.game_id}-viewer.html", page.encode(), PAGE_MODE, sync=False)
            viewer = True
    if not viewer:
        (folder / f"{card.game_id}-viewer.html").unlink(missing_ok=True)
    write_atomic(folder / f"{card.game_id}.log.yaml", data, PAGE_MODE, sync=False)
    card_page = game_card_page(card, viewer, lang, "", board, history)
    write_atomic(folder / f"{card.game_id}.html", card_page.encode(), PAGE_MODE, sync=False)
    return 3 if viewer else 2


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
