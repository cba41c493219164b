"""The pages one build of `pbem site` writes (:func:`pbem.host.site.build_site`), for the games
its plan names (:class:`pbem.host.sitestate.Plan`): each looked-at game's log read, its card
made (:mod:`pbem.host.cards`), its pages made again when its log is not the one they were made
from, its item on the index page and its result kept; then the index page from every game's
item, the standings from every result, the manifest, each written only when it changed.
"""

from __future__ import annotations

import concurrent.futures
import hashlib
import json
import multiprocessing
import os
import sqlite3
from pathlib import Path

from pbem import __version__
from pbem.errors import PbemError
from pbem.files import read_limited, write_atomic
from pbem.host.cards import Card, card_from, is_status, refused
from pbem.host.index import Index
from pbem.host.people import counts, held
from pbem.host.sitestate import (
    MANIFEST,
    Entry,
    Plan,
    column,
    finished,
    gone_results,
    items,
    kept,
    on_site,
    opened,
    scratch,
    store,
)
from pbem.i18n import Msg, translator
from pbem.log.clock import now
from pbem.log.logfile import LOG_NAME, log_records
from pbem.log.yamlio import LOG_LIMIT
from pbem.views.html import viewer_and_game
from pbem.views.markup import Markup
from pbem.views.site import game_card_page, index_page, over_item, play_item, standings_page
from pbem.views.standings import Result, standings
from pbem.views.svg import screen_board
from pbem.views.timeline import GameStatus, history_lines

PAGE_MODE = 0o644  # published by a web server: readable by all


def write_pages(games: Path, out: Path, lang: str, found: Plan, index: Index | None, known: dict[str, str]) -> int:
    """The build ``found`` plans, over the games under ``games``, in the site ``out``; ``known``:
    the manifest's SHA-256 of each game's log, when nothing is kept of the site.  The pages written."""
    db = index.db if index is not None else scratch()
    old = kept(db, found.site, found.look) if found.trusted else {}
    new, todo = _looked(games, out, lang, found, old, known)
    new = _results(games, list(new.values()))
    pages = _all_pages(todo)
    for gone in found.gone:  # a game no longer in the folder: its pages go too
        for name in (f"{gone}.html", f"{gone}-viewer.html", f"{gone}.log.yaml"):
            (out / "games" / name).unlink(missing_ok=True)
    again: dict[str, str | None] = {}
    if found.people and found.trusted:  # a new key of handles: every result made again
        counted = {g: c for g, c in column(db, found.site, "counted").items() if g not in new and g not in found.gone}
        again = {e[0]: e[9] for e in _results(games, [(g, 0, "", "", "", "", 0, 0, c, None)
                                                      for g, c in counted.items()]).values()}
    news = [(old.get(g), e) for g, e in new.items()]
    shown = not found.trusted or bool(found.gone) or any(o is None or o[3:8] != e[3:8] for o, e in news)
    rated = (not found.trusted or bool(again) or gone_results(db, found.site, found.gone)
             or any((o[9] if o else None) != e[9] for o, e in news))
    logs = not found.trusted or bool(found.gone) or any(o is None or o[2] != e[2] for o, e in news)
    store(db, found, list(new.values()), again)
    found.count = on_site(db, found.site)
    said = translator(lang)
    footer = said.say(Msg("Made by pbem {version} at {at}, from the public logs.", version=__version__, at=now()))
    if shown:
        write_atomic(out / "index.html", _index(db, found.site, lang, footer).encode(), PAGE_MODE, sync=False)
        pages += 1
    if rated:
        results = [Result(g, *_pair(result)) for g, result in column(db, found.site, "result").items()]
        write_atomic(out / "standings.html", standings_page(standings(results), len(results), lang, footer).encode(),
                     PAGE_MODE, sync=False)
        pages += 1
    if logs:
        made = json.dumps({"code": found.mark, "games": column(db, found.site, "sha256")})
        write_atomic(out / MANIFEST, made.encode(), PAGE_MODE, sync=False)
    finished(db, found, out, games)
    if index is None:
        db.close()
    return pages


def _looked(games: Path, out: Path, lang: str, found: Plan, old: dict[str, Entry], known: dict[str, str],
            ) -> tuple[dict[str, Entry], list[tuple[Path, Card, bytes, str]]]:
    """The games the plan looks at, each read from its log: its kept row, and its pages to make
    when its log is not the one they were made from (by SHA-256) or its page is gone.  A game
    whose index row names the log its pages were made from (its host.yaml alone changed: a seat
    taken, a reader of the daily summary) keeps what it had, with its open seats now."""
    new: dict[str, Entry] = {}
    todo: list[tuple[Path, Card, bytes, str]] = []
    for game_id in found.look:
        if game_id not in found.games:  # its folder left between two looks at the index
            continue
        folder = games / game_id
        version, free, sha = found.games[game_id]
        gone = not (out / "games" / f"{game_id}.html").is_file() if found.missing is None else game_id in found.missing
        before = old.get(game_id)
        if before is not None and before[2] == sha and not gone:
            new[game_id] = (game_id, version, *before[2:7], free, before[8], None)
            continue
        try:
            data = read_limited(folder / LOG_NAME, LOG_LIMIT, Msg("log"))
        except PbemError as err:  # too large, unreadable: said on the site, and the other games go on
            data, card, seats = b"", refused(game_id, err, lang), -1
        else:
            card = card_from(folder, data, lang)
            seats = len(card.players)
        digest = hashlib.sha256(data).hexdigest()
        if (before[2] if before is not None else known.get(game_id)) != digest or gone:
            todo.append((out / "games", card, data, lang))
        new[game_id] = (game_id, version, digest, *_item(card, lang), seats, free,
                        json.dumps([card.last_at, list(card.places)]) if counts(card) else None, None)
    return new, todo


def _item(card: Card, lang: str) -> tuple[str, str, str]:
    """A game's section of the index page, the time it is sorted by there, and its item."""
    if is_status(card, GameStatus.IN_PLAY, GameStatus.COMMITTING, GameStatus.REVEALING):
        return "play", card.since_at, str(play_item(card, lang))
    if card.places or not card.status:  # over, or a log that does not verify
        return "over", card.last_at, str(over_item(card, lang))
    return "", "", ""


def _results(games: Path, entries: list[Entry]) -> dict[str, Entry]:
    """``entries`` with their results made (the handles of their seats' holders, now)."""
    counted = [(e[0], *_pair(e[8])) for e in entries if e[8] is not None]
    made = {r.game_id: json.dumps([r.ended_at, list(r.places)]) for r in held(games, counted)}
    return {e[0]: (*e[:9], made.get(e[0])) for e in entries}


def _pair(kept_json: str) -> tuple[str, tuple[str, ...]]:
    at, names = json.loads(kept_json)
    return str(at), tuple(str(name) for name in names)


def _index(db: sqlite3.Connection, site: str, lang: str, footer: str) -> str:
    """The index page from every game's kept item: the open games by name, the games in play by
    the time since which they wait, the finished ones last ended first (then by name)."""
    playing = "".join(items(db, site, "play", "sort, id"))
    over = "".join(items(db, site, "over", "sort DESC, id"))
    return index_page(opened(db, site), [Markup(playing)] if playing else [], [Markup(over)] if over else [],
                      lang, footer)


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
