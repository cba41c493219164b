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
index's set of rows (``made``: a row's version counts within its set), and the size and mtime
of the site's manifest, of its ``games`` folder and of the host's key of handles as the build
left them.

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
from pbem.host.index import Index, stamp

_SCHEMA = """
CREATE TABLE IF NOT EXISTS site_builds (
    site TEXT PRIMARY KEY, mark TEXT NOT NULL, made TEXT NOT NULL, manifest TEXT NOT NULL, pages TEXT NOT NULL,
    people TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS site_games (
    site TEXT NOT NULL, id TEXT NOT NULL, version INTEGER NOT NULL, sha256 TEXT NOT NULL, section TEXT NOT NULL,
    sort TEXT NOT NULL, item TEXT NOT NULL, seats INTEGER NOT NULL, free INTEGER NOT NULL, counted TEXT,
    result TEXT, PRIMARY KEY (site, id)
);
"""
COLUMNS = "id, version, sha256, section, sort, item, seats, free, counted, result"
"""A game's kept row, in this order (:data:`Entry`)."""

Entry = tuple[str, int, str, str, str, str, int, int, str | None, str | None]

MANIFEST = ".pbem-site.json"
PEOPLE_KEY = ".pbem-people-key"  # pbem.host.people.KEY_NAME (tests/test_site_index.py holds them equal), not
# imported: a build with nothing changed loads none of the code that makes pages or handles


class Plan:
    """What a build of one site must do: ``games``, every game on it (its index row's version, open
    seats and log's SHA-256); ``look``, the games whose log it reads; ``missing``, the games whose page is not
    on the site (None: not known, each looked at is checked); ``gone``, the games its pages name
    that have left the folder; ``people``, whether the key of handles changed since; ``trusted``,
    whether what is kept here is the site as it is (else every game is looked at)."""

    def __init__(self, site: str, mark: str, made: str, games: dict[str, tuple[int, int, str]]) -> None:
        self.site, self.mark, self.made, self.games = site, mark, made, games
        self.look: list[str] = sorted(games)
        self.missing: set[str] | None = None
        self.gone: list[str] = []
        self.people = True
        self.trusted = False

    @property
    def nothing(self) -> bool:
        """Nothing to read or write: the site is as its games are."""
        return self.trusted and not self.look and not self.gone and not self.people


def plan(index: Index, out: Path, mark: str) -> Plan:
    """What a build of the site in ``out`` must do, from the index's rows and what the last build
    kept (see the module); no log is read."""
    db = index.db
    db.executescript(_SCHEMA)
    try:
        db.execute(f"SELECT {COLUMNS} FROM site_games LIMIT 0")
    except sqlite3.OperationalError:  # kept by other code, in another shape: nothing kept
        db.executescript(f"DROP TABLE site_games; DROP TABLE site_builds; {_SCHEMA}")
    rows = db.execute("SELECT id, version, open_free, sha256 FROM games").fetchall()
    made = dict(db.execute("SELECT key, value FROM meta")).get("made", "")
    found = Plan(str(out.resolve()), mark, made, {row[0]: row[1:] for row in rows if GAME_ID_RE.match(row[0])})
    build = db.execute("SELECT mark, made, manifest, pages, people FROM site_builds WHERE site = ?",
                       (found.site,)).fetchone()
    if build is None or tuple(build[:3]) != (mark, made, stamp(out / MANIFEST)):
        return found
    found.trusted = True
    kept = dict(db.execute("SELECT id, version FROM site_games WHERE site = ?", (found.site,)))
    look = {g for g, (version, _free, _sha) in found.games.items() if kept.get(g) != version}
    found.gone = sorted(set(kept) - set(found.games))
    found.missing = set()
    if stamp(out / "games") != build[3]:  # a page removed, or added, since: the games whose page is gone
        with os.scandir(out / "games") as pages:
            names = {entry.name for entry in pages}
        found.missing = {g for g in found.games if f"{g}.html" not in names}
    found.look = sorted(look | found.missing)
    found.people = stamp(index.games / PEOPLE_KEY) != build[4]
    return found


def kept(index: Index, site: str) -> dict[str, Entry]:
    """Every game's kept row for the site (see the module)."""
    return {row[0]: row for row in index.db.execute(f"SELECT {COLUMNS} FROM site_games WHERE site = ?", (site,))}


def keep(index: Index, found: Plan, entries: list[Entry], out: Path) -> None:
    """What a build made (``entries``: the games it looked at, or whose result it made again)
    kept, with the stamps of what it left: one transaction, after every file is written."""
    marks = "?, " * len(COLUMNS.split(",")) + "?"
    with index.db:
        if not found.trusted:
            index.db.execute("DELETE FROM site_games WHERE site = ?", (found.site,))
        for gone in found.gone:
            index.db.execute("DELETE FROM site_games WHERE site = ? AND id = ?", (found.site, gone))
        index.db.executemany(f"INSERT OR REPLACE INTO site_games (site, {COLUMNS}) VALUES ({marks})",
                             [(found.site, *entry) for entry in entries])
        stamps: tuple[Any, ...] = (stamp(out / MANIFEST), stamp(out / "games"), stamp(index.games / PEOPLE_KEY))
        index.db.execute("INSERT OR REPLACE INTO site_builds VALUES (?, ?, ?, ?, ?, ?)",
                         (found.site, found.mark, found.made, *stamps))
