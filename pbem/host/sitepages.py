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
from pathlib import Path

from pbem import __version__
from pbem.errors import PbemError
from pbem.files import read_limited, write_atomic
from pbem.host.cards import Card, card_from, is_status, refused
from pbem.host.index import Index
from pbem.host.people import counts, held
from pbem.host.sitestate import MANIFEST, Entry, Plan, keep, kept
from pbem.i18n import Msg, translator
from pbem.log.clock import now
from pbem.log.logfile import LOG_NAME, log_records
from pbem.log.yamlio import LOG_LIMIT
from pbem.views.html import viewer_and_game
from pbem.views.markup import Markup
from pbem.views.site import game_card_page, index_of_items, over_item, play_item, standings_page
from pbem.views.standings import Result, standings
from pbem.views.svg import screen_board
from pbem.views.timeline import GameStatus, history_lines

PAGE_MODE = 0o644  # published by a web server: readable by all


def write_pages(games: Path, out: Path, lang: str, found: Plan, index: Index | None, known: dict[str, str]) -> int:
    """The build ``found`` plans, over the games under ``games``, in the site ``out``; ``known``:
    the manifest's SHA-256 of each game's log, when nothing is kept of the site.  The pages written."""
    old = kept(index, found.site) if index is not None and found.trusted else {}
    new, todo = _looked(games, out, lang, found, old, known)
    pages = _all_pages(todo)
    for gone in found.gone:  # a game no longer in the folder: its pages go too
        for name in (f"{gone}.html", f"{gone}-viewer.html", f"{gone}.log.yaml"):
            (out / "games" / name).unlink(missing_ok=True)
    entries = {g: e for g, e in old.items() if g in found.games} | new
    entries |= _results(games, [e for g, e in entries.items() if found.people or g in new])
    said = translator(lang)
    footer = said.say(Msg("Made by pbem {version} at {at}, from the public logs.", version=__version__, at=now()))
    if not found.trusted or _shown(entries) != _shown(old):
        write_atomic(out / "index.html", _index(entries, lang, footer).encode(), PAGE_MODE, sync=False)
        pages += 1
    results = {g: e[9] for g, e in entries.items() if e[9] is not None}
    if not found.trusted or results != {g: e[9] for g, e in old.items() if e[9] is not None}:
        rated = [Result(g, *_pair(result)) for g, result in results.items()]
        write_atomic(out / "standings.html", standings_page(standings(rated), len(rated), lang, footer).encode(),
                     PAGE_MODE, sync=False)
        pages += 1
    made = {g: entries[g][2] for g in sorted(entries)}
    if not found.trusted or made != {g: e[2] for g, e in old.items()}:
        write_atomic(out / MANIFEST, json.dumps({"code": found.mark, "games": made}).encode(), PAGE_MODE, sync=False)
    if index is not None:
        keep(index, found, [e for g, e in entries.items() if old.get(g) != e], out)
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


def _shown(entries: dict[str, Entry]) -> dict[str, tuple[str, str, str, int, int]]:
    """What the index page shows of each game."""
    return {g: e[3:8] for g, e in entries.items()}


def _index(entries: dict[str, Entry], lang: str, footer: str) -> str:
    """The index page from every game's kept item: the open games by name, the games in play by
    the time since which they wait, the finished ones last ended first (then by name)."""
    opened = [(g, e[6], e[7]) for g, e in sorted(entries.items()) if e[7] > 0 and e[6] >= 0]
    waiting = {g for g, _seats, _free in opened}
    playing = sorted((e for e in entries.values() if e[3] == "play" and e[0] not in waiting),
                     key=lambda e: (e[4], e[0]))
    over = sorted(sorted(e for e in entries.values() if e[3] == "over"), key=lambda e: e[4], reverse=True)
    return index_of_items(opened, [Markup(e[5]) for e in playing], [Markup(e[5]) for e in over], lang, footer)


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
