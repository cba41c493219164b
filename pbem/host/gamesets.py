"""The sets of games a command looks at, read from the host's index of its games
(:mod:`pbem.host.index`): `pbem list`'s lines and its check, the games with a seat open, and
the games a mail pass must look at (those changed since its last pass, and those with readers
of a daily summary).  Each returns None where no index is kept: the caller looks at every game."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

from pbem.files import write_atomic
from pbem.host.gamerow import stamp
from pbem.host.index import Index, open_index, stats
from pbem.host.marks import LOG_NAME, SETTINGS_NAME


def listed(games: Path) -> tuple[list[str], list[str]] | None:
    """`pbem list` from the index: every game's line, and the games with open seats; None when
    there is no index to keep here (the caller reads the logs)."""
    if not games.is_dir():
        return None
    index = open_index(games, create=False)
    if index is None:
        return None
    try:
        index.sync()
        lines = [r[0] for r in index.db.execute("SELECT line FROM games ORDER BY id")]
        stats["listed"] += len(lines)
        return lines, index.open_games()
    finally:
        index.db.close()


def open_folders(games: Path) -> list[Path] | None:
    """The games with a seat open to strangers, as the index says (None: no index kept here)."""
    index = open_index(games, create=False) if games.is_dir() else None
    if index is None:
        return None
    try:
        index.sync()
        return [games / game_id for game_id in index.open_games()]
    finally:
        index.db.close()


def checked_index(games: Path) -> tuple[int, list[str]] | None:
    """`pbem list --check`: the games, and each difference between the index and the logs, mended."""
    index = open_index(games) if games.is_dir() else None
    if index is None:
        return None
    try:
        said = index.check()
        said += _settings_checked(index)
        return index.count(), said
    finally:
        index.db.close()


def _settings_checked(index: Index) -> list[str]:
    """Every row whose host.yaml is not the file it was made from (its size or mtime differ: a
    file edited by hand; pbem's own commands index it as they write it) made again; said where
    what the index held of it (the open seats, the addresses, the readers of a daily summary)
    was not what the file says."""
    said = []
    held = "SELECT open_free, emails, readers FROM games WHERE id = ?"
    for game_id, settings in index.db.execute("SELECT id, settings FROM games").fetchall():
        if stamp(index.games / game_id / SETTINGS_NAME) != settings:
            before = index.db.execute(held, (game_id,)).fetchone()
            index.settle_free(index.games / game_id)
            if index.db.execute(held, (game_id,)).fetchone() != before:
                said.append(f"{game_id}: the index held an older state of its host.yaml; read again")
    return said


def restat(index: Index) -> list[str]:
    """For a command asked not to miss a log changed by hand in place (`pbem site --check`: a
    host who rewrote a finished game): every game whose log is not the file its row was made from (its
    size or mtime differ) has its row made again from it (:meth:`pbem.host.index.Index.settle_free`).
    A stat of each log, never a read: what the index spares every other command.  The games seen changed."""
    changed = []
    stat = os.stat
    folder = os.open(index.games, os.O_RDONLY | os.O_DIRECTORY)  # each log's path from here: a shorter walk
    try:
        for game_id, size, mtime in index.db.execute("SELECT id, size, mtime FROM games"):
            try:
                st = stat(f"{game_id}/{LOG_NAME}", dir_fd=folder)
            except OSError:
                changed.append(game_id)
                continue
            if st.st_mtime_ns != mtime or st.st_size != size:
                changed.append(game_id)
    finally:
        os.close(folder)
    for game_id in changed:
        index.settle_free(index.games / game_id)
    return changed


class Changes:
    """The games a mail pass must look at: ``folders``, the ones changed since it last looked;
    ``readers``, the ones with readers of a daily summary (due by the clock); the pass adds to
    ``trouble`` the games it could not finish, so that the next pass looks at them again."""

    def __init__(self, folders: list[Path], readers: list[Path]) -> None:
        self.folders, self.readers = folders, readers
        self.trouble: set[str] = set()


@contextlib.contextmanager
def changes(games: Path, seen: Path) -> Iterator[Changes | None]:
    """The games changed since the last pass whose mark the file ``seen`` keeps (the mail host's
    own bookkeeping: every game the first time, or once the index is made again); the mark is
    moved on only when the pass ends without an error.  None when no index is kept here: the
    pass looks at every game."""
    index = open_index(games) if games.is_dir() else None
    if index is None:
        yield None
        return
    try:
        index.sync()
        made = dict(index.db.execute("SELECT key, value FROM meta")).get("made", "")
        try:
            mark, since = seen.read_text("ascii").split()
            since_version = int(since) if mark == made else -1
        except (OSError, ValueError):
            since_version = -1
        upto = int(index.db.execute("SELECT coalesce(max(version), 0) FROM games").fetchone()[0])
        # sorted here, not by ORDER BY id, which would walk every row instead of the indexes
        changed = sorted(r[0] for r in index.db.execute("SELECT id FROM games WHERE version > ?", (since_version,)))
        readers = sorted(r[0] for r in index.db.execute("SELECT id FROM games WHERE readers > 0"))
        pass_ = Changes([games / g for g in changed], [games / g for g in readers])
        yield pass_
        if pass_.trouble:
            with index.db:
                for game_id in sorted(pass_.trouble):  # looked at again by the next pass
                    index.db.execute("UPDATE games SET version = (SELECT max(version) + 1 FROM games) WHERE id = ?",
                                     (game_id,))
        if upto != since_version:
            write_atomic(seen, f"{made} {upto}\n".encode(), sync=False)
    finally:
        index.db.close()
