"""The host's index of its games: one SQLite row a game, so that `pbem list`, `pbem tick` and
`pbem serve`'s rounds cost what changed or is due, not the number of games in the folder.

``GAMES/+index/games.sqlite`` holds, per game folder: its `pbem list` line, where it stands
and whom it awaits since when, its deadline and reminder (R8.1), the open seats strangers may
still take, the log's size, mtime and SHA-256 and host.yaml's size and mtime it was made from,
and ``wake``: the moment from which `pbem tick` must look at the game (its reminder or its
deadline; NULL: never).  The
index is never the truth: every row is made from the game's log and host.yaml
(:func:`pbem.host.head.head_of`), and the whole index is made again from the logs when it is
missing, damaged, not the host's own file, or written by other code (:func:`code_mark`).

A crash between a log's append and its row's update loses nothing and doubles nothing: the
host marks the game dirty (``+index/dirty/GAME``, an empty file, synced) *before* it writes the
log, and once the log is written, in the same lock, it notes the game's new row in that mark
(:mod:`pbem.host.marks`: a `pbem apply` loads no SQLite).  Every reader first settles the
games still marked (each under its lock): a noted row made by this code from the log and
host.yaml as they are now is put in as it is, any other mark (empty: the writer was killed
between the two) has the game read again from its log, once; either way the mark is cleared.
A row is only ever replaced whole, so reading it twice is harmless.  A game folder added or removed is seen by the
games folder's own mtime; a log edited by hand in place is seen by `pbem list --check`, which
compares every row with its log byte for byte and mends what differs, by the host's next write
to that game, and by `pbem site --check`, which compares each row with its log's size and mtime
(:func:`pbem.host.gamesets.restat`): a stat of every log, a cost no command pays unasked.
A host.yaml edited by hand is seen by `pbem list --check` (its size and mtime,
:func:`pbem.host.gamesets.checked_index`) and by the host's next write to that game.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pbem.errors import PbemError
from pbem.host.caches import code_mark
from pbem.host.gamerow import row_of
from pbem.host.marks import DIRTY, LOG_NAME, index_dir, note, noted_row

if TYPE_CHECKING:
    import sqlite3


stats: Counter[str] = Counter()
"""``made`` (a row made from a game's log), ``noted`` (a row the host noted in its mark, put in
as it is) and ``listed`` (rows read): for tests, never a clock."""

DB_NAME = "games.sqlite"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS games (
    id TEXT PRIMARY KEY, size INTEGER NOT NULL, mtime INTEGER NOT NULL, sha256 TEXT NOT NULL,
    line TEXT NOT NULL, status TEXT NOT NULL, waiting TEXT NOT NULL, since_at TEXT NOT NULL,
    deadline INTEGER NOT NULL, head TEXT, wake TEXT, open_free INTEGER NOT NULL, emails INTEGER NOT NULL,
    readers INTEGER NOT NULL, settings TEXT NOT NULL, version INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS games_wake ON games (wake) WHERE wake IS NOT NULL;
CREATE INDEX IF NOT EXISTS games_open ON games (open_free) WHERE open_free > 0;
CREATE INDEX IF NOT EXISTS games_readers ON games (readers) WHERE readers > 0;
CREATE INDEX IF NOT EXISTS games_version ON games (version);
CREATE TRIGGER IF NOT EXISTS games_gone AFTER DELETE ON games BEGIN
    INSERT OR REPLACE INTO meta VALUES ('top', CAST(max(OLD.version, coalesce(
        (SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'top'), 0)) AS TEXT));
END;
"""
_ROW = (f"VALUES ({', '.join('?' * 15)}, (SELECT max(coalesce(max(version), 0), coalesce("
        "(SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'top'), 0)) + 1 FROM games))")
"""A row's values, its ``version`` the next of the index: above every row's, and above every row
ever removed (``top``, kept by the trigger), so that a version a mail pass has seen is never
given again to a game that changed (:func:`pbem.host.gamesets.changes`)."""


class IndexRow:
    """One game's row: what `list` and `tick` read of it."""

    __slots__ = ("game_id", "line", "mtime", "open_free", "sha256", "size", "wake")

    def __init__(self, game_id: str, line: str, wake: str | None, open_free: int, size: int, mtime: int,
                 sha256: str) -> None:
        self.game_id, self.line, self.wake, self.open_free = game_id, line, wake, open_free
        self.size, self.mtime, self.sha256 = size, mtime, sha256


class Index:
    """An open index of the games folder ``games`` (see the module)."""

    def __init__(self, games: Path, db: sqlite3.Connection) -> None:
        self.games, self.db = games, db
        self.mark = code_mark().hex()
        self.damaged = False  # the file could not be read, and was made anew

    # --- reading ------------------------------------------------------------------------

    def rows(self) -> list[IndexRow]:
        return [IndexRow(*r) for r in self.db.execute(
            "SELECT id, line, wake, open_free, size, mtime, sha256 FROM games ORDER BY id")]

    def due(self, at: str) -> list[str]:
        """The games `pbem tick` must look at by ``at`` (their ``wake`` has come)."""
        # no ORDER BY: it would have SQLite walk every row in id order instead of the index on wake
        return sorted(r[0] for r in self.db.execute("SELECT id FROM games WHERE wake IS NOT NULL AND wake <= ?", (at,)))

    def open_games(self) -> list[str]:
        return sorted(r[0] for r in self.db.execute("SELECT id FROM games WHERE open_free > 0"))  # by its index

    def count(self, where: str = "1") -> int:
        return int(self.db.execute(f"SELECT count(*) FROM games WHERE {where}").fetchone()[0])

    # --- writing ------------------------------------------------------------------------

    def put(self, folder: Path, wake: str | bool | None = True, replace: bool = True) -> None:
        """The row of the game in ``folder``, made from its log and host.yaml now (the caller
        holds the game's lock when ``replace``; without it, a row is only added, never
        replaced).  ``wake``: as :func:`pbem.host.gamerow.wake_at` says it, or True: from the log alone."""
        self.put_row(folder, row_of(folder, wake, write=replace), replace)

    def put_row(self, folder: Path, row: tuple[Any, ...] | None, replace: bool = True) -> None:
        stats["made"] += 1
        if row is None:
            self.db.execute("DELETE FROM games WHERE id = ?", (folder.name,))
            return
        verb = "INSERT OR REPLACE" if replace else "INSERT OR IGNORE"
        self.db.execute(f"{verb} INTO games {_ROW}", row)

    def settle(self, folder: Path, wake: str | bool | None = True) -> None:
        """The row of the game in ``folder`` made again and its mark cleared (the caller holds its lock)."""
        with self.db:
            self.put(folder, wake)
        (index_dir(self.games) / DIRTY / folder.name).unlink(missing_ok=True)

    def sync(self) -> None:
        """Bring the index up to date: every game again when it was made by other code, the
        folders added or removed when the games folder changed, the games still marked dirty.
        A log changed by hand, in place, is not looked for here (that is a stat of every log):
        `pbem list --check` finds it, and so does the host's next write to that game."""
        meta = dict(self.db.execute("SELECT key, value FROM meta"))
        if meta.get("code") != self.mark:
            with self.db:  # the rows of other code, perhaps of another shape: made again, every one
                self.db.execute("DROP TABLE games")
                self.db.execute("DELETE FROM meta")
            self.db.executescript(_SCHEMA)
            with self.db:  # ``made``: this set of rows, whose versions a mail pass's mark counts in
                self.db.execute("INSERT INTO meta VALUES ('code', ?), ('made', ?)", (self.mark, secrets.token_hex(8)))
            meta = {}
        folder_mtime = str(os.stat(self.games).st_mtime_ns)
        if meta.get("folder") != folder_mtime:
            self._scan()
            with self.db:
                self.db.execute("INSERT OR REPLACE INTO meta VALUES ('folder', ?)", (folder_mtime,))
        self._settle_dirty()

    def _scan(self) -> None:
        """The game folders added since the last look get a row, the ones removed lose theirs
        (the folder's names alone are read; only a new one's log is looked at)."""
        with os.scandir(self.games) as found:
            names = {e.name for e in found if e.is_dir()}
        known = {r[0] for r in self.db.execute("SELECT id FROM games")}
        with self.db:
            for gone in known - names:
                self.db.execute("DELETE FROM games WHERE id = ?", (gone,))
            for new in sorted(names - known):
                if (self.games / new / LOG_NAME).is_file():
                    self.put(self.games / new, replace=False)

    def _settle_dirty(self) -> None:
        dirty = index_dir(self.games) / DIRTY
        try:
            marked = sorted(os.listdir(dirty))
        except OSError:
            return
        for name in marked:
            folder = self.games / name
            if not (folder / LOG_NAME).is_file():
                with self.db:
                    self.db.execute("DELETE FROM games WHERE id = ?", (name,))
                (dirty / name).unlink(missing_ok=True)
                continue
            with _try_lock(folder) as held:
                if held:
                    self._settle_noted(folder)
                # else its writer holds it, and notes its row itself once it has written

    def settle_free(self, folder: Path) -> None:
        """:meth:`settle` if the game's lock is free now; else its writer holds it, and settles it
        itself once it has written."""
        with _try_lock(folder) as held:
            if held:
                self.settle(folder)

    def _settle_noted(self, folder: Path) -> None:
        """A marked game's row: the one its host noted, if it still matches the game's files
        (:func:`pbem.host.marks.noted_row`), else made again from its log (the caller holds its lock)."""
        row = noted_row(folder)
        if row is None or len(row) != _ROW.count("?"):
            self.settle(folder)
            return
        stats["noted"] += 1
        with self.db:
            self.db.execute(f"INSERT OR REPLACE INTO games {_ROW}", row)
        (index_dir(self.games) / DIRTY / folder.name).unlink(missing_ok=True)

    def check(self) -> list[str]:
        """Every row compared with its log, byte for byte (SHA-256), and its folder: each
        difference said and mended.  What `pbem list --check` prints."""
        said = ["the index could not be read (damaged); made again from the logs"] if self.damaged else []
        self.sync()
        rows = {r.game_id: r for r in self.rows()}
        names = game_names(self.games)
        for name in names:
            folder = self.games / name
            with _try_lock(folder) as held:
                want = row_of(folder, True, write=held)
                got = rows.get(name)
                if want is None:
                    continue
                if got is None:
                    said.append(f"{name}: not in the index; added from its log")
                elif got.sha256 != want[3] or got.line != want[4]:
                    said.append(f"{name}: the index held an older state of its log; read again from the log")
                else:
                    continue
                if held:
                    with self.db:
                        self.put_row(folder, want)
                    (index_dir(self.games) / DIRTY / name).unlink(missing_ok=True)
        for gone in sorted(set(rows) - set(names)):
            said.append(f"{gone}: in the index, but no such game in the folder; dropped")
            with self.db:
                self.db.execute("DELETE FROM games WHERE id = ?", (gone,))
        return said


def game_names(games: Path) -> list[str]:
    """Every game folder's name (a folder with a log, as `pbem list` has always listed them)."""
    with os.scandir(games) as found:
        return sorted(e.name for e in found if e.is_dir() and os.path.isfile(os.path.join(e.path, LOG_NAME)))


@contextlib.contextmanager
def _try_lock(folder: Path) -> Iterator[bool]:
    """The game's lock if it is free now (True), else nothing (False): a reader never waits."""
    from pbem.log.logfile import locked  # start-up speed: only a game marked dirty is locked by a reader

    lock = locked(folder, timeout=0.0)
    try:
        lock.__enter__()
    except PbemError:
        yield False
        return
    try:
        yield True
    finally:
        lock.__exit__(None, None, None)


def open_index(games: Path, create: bool = True) -> Index | None:
    """The games folder's index, made or mended as needed (see the module); None when it
    cannot be kept here (a folder not the host's own, a file not its own), or, without
    ``create``, when the host has never kept one here (`pbem list` in any folder makes none):
    the caller then reads every log, as if there were no index."""
    import sqlite3  # start-up speed: only the commands that read or write the index load it

    where = index_dir(games)
    if not create and not where.is_dir():
        return None
    path = where / DB_NAME
    damaged = False
    for _attempt in range(2):
        try:
            where.mkdir(mode=0o700, exist_ok=True)
            if path.is_symlink() or (path.exists() and not _own(path)):
                return None
            db = sqlite3.connect(path, timeout=30.0, isolation_level=None)
            try:
                db.execute("PRAGMA busy_timeout = 30000")
                # a write-ahead log, synced at checkpoints only: the index is made again from the logs at
                # will, and a row's update is one transaction with its game's mark cleared (see the module)
                db.execute("PRAGMA journal_mode = WAL")
                db.execute("PRAGMA synchronous = NORMAL")
                db.executescript(_SCHEMA)
                db.isolation_level = "DEFERRED"
                os.chmod(path, 0o600)
                index = Index(games, db)
                index.damaged = damaged
                return index
            except sqlite3.DatabaseError:
                db.close()
                raise
        except sqlite3.DatabaseError:  # damaged: it is only an index; made again from the logs
            damaged = True
            for name in (DB_NAME, DB_NAME + "-wal", DB_NAME + "-shm"):
                with contextlib.suppress(OSError):
                    (where / name).unlink()
        except OSError:
            return None
    return None


def _own(path: Path) -> bool:
    st = os.lstat(path)
    return st.st_uid == os.geteuid() and st.st_mode & 0o022 == 0


def settled(folder: Path, new: bool = False) -> None:
    """The host, holding the game's lock after writing its log (or host.yaml): its row noted in
    its mark for the next reader to put in (:func:`pbem.host.marks.note`: no SQLite, for the
    start-up of a `pbem apply`); for a ``new`` game, or where no index is kept yet, its row made
    again in the index and its mark cleared, and for a new game the folder looked at too, so the
    next reader need not.  Never an error: a reader that finds the mark (or the folder changed)
    reads the game again."""
    with contextlib.suppress(Exception):
        if not new and note(folder, lambda: row_of(folder, True, write=True)):
            return
        index = open_index(folder.parent)
        if index is not None:
            try:
                index.settle(folder)
                if new:
                    index.sync()
            finally:
                index.db.close()
