"""What `pbem site` made, kept beside the host's index of its games (the same SQLite file,
``+index/games.sqlite``), so that a build reads the logs of the games whose index row changed
since their pages were made, and no other.

``site_games`` holds, per site folder (its real path) and game: the index row's ``version``
the game was last looked at in and the SHA-256 of the log bytes its pages were made from; what
the site's index page shows of it (``section``: "play", "over" or ""; ``sort``: the time it is
sorted by there; ``item``: its markup, made by :mod:`pbem.views.site` from its public card;
``seats``, -1 for a log that could not be read; ``free``: its open seats); and, for a game that
counts in the standings (:func:`pbem.host.people.counts`), when it ended and its seats from
first place to last (``counted``) and its result, the holders' handles (``result``).
``site_builds`` holds, per site folder, the code and language its pages were made by, the
index's set of rows (``made``: a row's version counts within its set) and how many rows it
had, and the size and mtime of the site's manifest, of its ``games`` folder and of the host's
key of handles as the build left them.

Never the truth: a site with no row here, or one of other code, of another set of rows, or
whose manifest is not the file the last build wrote, is built as a first build is, from every
game's log (keeping each page whose log the manifest names by the same SHA-256); a ``games``
folder changed since has the games whose page is missing made again; a new key of handles has
every result made again.  The index is the host's own file (:func:`pbem.host.index.open_index`
refuses any other), so the items it keeps are the markup pbem made.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from typing import Any

from pbem.fair.protocol import GAME_ID_RE
from pbem.host.gamerow import stamp
from pbem.host.index import Index

_SCHEMA = """
CREATE TABLE IF NOT EXISTS site_builds (
    site TEXT PRIMARY KEY, mark TEXT NOT NULL, made TEXT NOT NULL, manifest TEXT NOT NULL, pages TEXT NOT NULL,
    people TEXT NOT NULL, rows INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS site_games (
    site TEXT NOT NULL, id TEXT NOT NULL, version INTEGER NOT NULL, sha256 TEXT NOT NULL, section TEXT NOT NULL,
    sort TEXT NOT NULL, item TEXT NOT NULL, seats INTEGER NOT NULL, free INTEGER NOT NULL, counted TEXT,
    result TEXT, PRIMARY KEY (site, id)
);
CREATE INDEX IF NOT EXISTS site_games_play ON site_games (site, section, sort, id);
CREATE INDEX IF NOT EXISTS site_games_over ON site_games (site, section, sort DESC, id);
"""
COLUMNS = "id, version, sha256, section, sort, item, seats, free, counted, result"
"""A game's kept row, in this order (:data:`Entry`)."""
BUILD = "site, mark, made, manifest, pages, people, rows"
"""A site's build, in this order."""

Entry = tuple[str, int, str, str, str, str, int, int, str | None, str | None]

MANIFEST = ".pbem-site.json"
PEOPLE_KEY = ".pbem-people-key"  # pbem.host.people.KEY_NAME (tests/test_site_index.py holds them equal), not
# imported: a build with nothing changed loads none of the code that makes pages or handles


class Plan:
    """What a build of one site must do: ``games``, every game on it (its index row's version, open
    seats and log's SHA-256; filled once there is work); ``look``, the games whose log it reads;
    ``missing``, the games whose page is not on the site (None: not known, each looked at is
    checked); ``gone``, the games its pages name that have left the folder; ``people``, whether
    the key of handles changed since; ``trusted``, whether what is kept here is the site as it
    is (else every game is looked at); ``count``, the games on the site."""

    def __init__(self, site: str, mark: str, made: str, games: dict[str, tuple[int, int, str]]) -> None:
        self.site, self.mark, self.made, self.games = site, mark, made, games
        self.look: list[str] = sorted(games)
        self.missing: set[str] | None = None
        self.gone: list[str] = []
        self.people = True
        self.trusted = False
        self.count = len(games)
        self.rows = 0  # the index's rows, as this build found them

    @property
    def nothing(self) -> bool:
        """Nothing to read or write: the site is as its games are."""
        return self.trusted and not self.look and not self.gone and not self.people


_CHANGED = ("SELECT g.id FROM games g LEFT JOIN site_games s ON s.site = ? AND s.id = g.id "
            "WHERE s.version IS NULL OR s.version != g.version")
"""The games whose row is not the one their pages were made at: each row compared with what the
site kept (a version is unique to its game's row, but a row removed may let another take its
number later, so a mark of the last version seen, as a mail pass keeps, is not enough here)."""
_GONE = "SELECT s.id FROM site_games s WHERE s.site = ? AND NOT EXISTS (SELECT 1 FROM games g WHERE g.id = s.id)"


def plan(index: Index, out: Path, mark: str) -> Plan:
    """What a build of the site in ``out`` must do, from the index's rows and what the last build
    kept (see the module); no log is read, and with nothing changed no row is brought into Python."""
    db = index.db
    db.executescript(_SCHEMA)
    try:
        db.execute(f"SELECT {COLUMNS} FROM site_games LIMIT 0")
        db.execute(f"SELECT {BUILD} FROM site_builds LIMIT 0")
    except sqlite3.OperationalError:  # kept by other code, in another shape: nothing kept
        db.executescript(f"DROP TABLE site_games; DROP TABLE site_builds; {_SCHEMA}")
    made = dict(db.execute("SELECT key, value FROM meta")).get("made", "")
    found = Plan(str(out.resolve()), mark, made, {})
    found.rows = int(db.execute("SELECT count(*) FROM games").fetchone()[0])
    build = db.execute("SELECT mark, made, manifest, pages, people, rows FROM site_builds WHERE site = ?",
                       (found.site,)).fetchone()
    found.trusted = build is not None and tuple(build[:3]) == (mark, made, stamp(out / MANIFEST))
    if found.trusted:
        found.look = sorted(g for (g,) in db.execute(_CHANGED, (found.site,)) if GAME_ID_RE.match(g))
        if found.look or found.rows != build[5]:  # a game may have left the folder
            found.gone = sorted(g for (g,) in db.execute(_GONE, (found.site,)))
        found.people = stamp(index.games / PEOPLE_KEY) != build[4]
        found.count = on_site(db, found.site)
        found.missing = set() if stamp(out / "games") == build[3] else None
    if found.nothing and found.missing is not None:
        return found
    if found.missing is not None:  # the rows of the games looked at, and no other
        query = "SELECT id, version, open_free, sha256 FROM games WHERE id = ?"
        found.games = {g: row[1:] for g in found.look for row in db.execute(query, (g,))}
        return found
    rows = db.execute("SELECT id, version, open_free, sha256 FROM games").fetchall()
    found.games = {row[0]: row[1:] for row in rows if GAME_ID_RE.match(row[0])}
    found.count = len(found.games)
    if not found.trusted:
        found.look = sorted(found.games)
    else:  # a page removed, or added, since: the games whose page is gone
        with os.scandir(out / "games") as pages:
            names = {entry.name for entry in pages}
        found.missing = {g for g in found.games if f"{g}.html" not in names}
        found.look = sorted(set(found.look) | found.missing)
    return found


def on_site(db: sqlite3.Connection, site: str) -> int:
    """The games on the site, as kept."""
    return int(db.execute("SELECT count(*) FROM site_games WHERE site = ?", (site,)).fetchone()[0])


def scratch() -> sqlite3.Connection:
    """Tables in memory, for a build where no index can be kept (it looks at every game)."""
    db = sqlite3.connect(":memory:", isolation_level="DEFERRED")
    db.executescript(_SCHEMA)
    return db


def kept(db: sqlite3.Connection, site: str, ids: list[str]) -> dict[str, Entry]:
    """The kept rows of the games ``ids`` (see the module)."""
    query = f"SELECT {COLUMNS} FROM site_games WHERE site = ? AND id = ?"
    return {row[0]: row for row in (db.execute(query, (site, game_id)).fetchone() for game_id in ids) if row}


def store(db: sqlite3.Connection, found: Plan, entries: list[Entry], results: dict[str, str | None]) -> None:
    """The rows of the games a build looked at kept (and the other ``results`` it made again),
    those of the games gone dropped, before it writes the index page, the standings and the
    manifest from them: one transaction, which also marks the build unfinished (a manifest's
    stamp no file has), so that a build killed before :func:`finished` is not trusted."""
    marks = "?, " * len(COLUMNS.split(",")) + "?"
    with db:
        if not found.trusted:
            db.execute("DELETE FROM site_games WHERE site = ?", (found.site,))
        db.executemany("DELETE FROM site_games WHERE site = ? AND id = ?", [(found.site, g) for g in found.gone])
        db.executemany(f"INSERT OR REPLACE INTO site_games (site, {COLUMNS}) VALUES ({marks})",
                       [(found.site, *entry) for entry in entries])
        db.executemany("UPDATE site_games SET result = ? WHERE site = ? AND id = ?",
                       [(result, found.site, game_id) for game_id, result in results.items()])
        db.execute(f"INSERT OR REPLACE INTO site_builds ({BUILD}) VALUES (?, ?, ?, '-', '', '', -1)",
                   (found.site, found.mark, found.made))


def finished(db: sqlite3.Connection, found: Plan, out: Path, games: Path) -> None:
    """The build done: the stamps of the manifest, the pages folder and the key of handles it left."""
    stamps: tuple[Any, ...] = (stamp(out / MANIFEST), stamp(out / "games"), stamp(games / PEOPLE_KEY))
    with db:
        db.execute(f"INSERT OR REPLACE INTO site_builds ({BUILD}) VALUES (?, ?, ?, ?, ?, ?, ?)",
                   (found.site, found.mark, found.made, *stamps, found.rows))


def items(db: sqlite3.Connection, site: str, section: str, order: str) -> list[str]:
    """The index page's items of a section, in ``order`` (the games in play leave out those with
    open seats: they wait for players, not for a move)."""
    waiting = " AND NOT (free > 0 AND seats >= 0)" if section == "play" else ""
    return [item for (item,) in db.execute(
        f"SELECT item FROM site_games WHERE site = ? AND section = ?{waiting} ORDER BY {order}", (site, section))]


def opened(db: sqlite3.Connection, site: str) -> list[tuple[str, int, int]]:
    """The games with seats still open (and a log that reads): each with its seats and the free ones."""
    return list(db.execute("SELECT id, seats, free FROM site_games WHERE site = ? AND free > 0 AND seats >= 0 "
                           "ORDER BY id", (site,)))


def column(db: sqlite3.Connection, site: str, name: str) -> dict[str, str]:
    """One column of every game that has it (``sha256``, ``counted``, ``result``), by game."""
    assert name in ("sha256", "counted", "result")
    return dict(db.execute(f"SELECT id, {name} FROM site_games WHERE site = ? AND {name} IS NOT NULL ORDER BY id",
                           (site,)))


def gone_results(db: sqlite3.Connection, site: str, gone: list[str]) -> bool:
    """Whether any of the games gone had a result in the standings."""
    query = "SELECT 1 FROM site_games WHERE site = ? AND id = ? AND result IS NOT NULL"
    return any(db.execute(query, (site, game_id)).fetchone() for game_id in gone)
