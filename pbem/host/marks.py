"""The marks the host's writer leaves in ``GAMES/+index/dirty/`` for the host's index of its
games (:mod:`pbem.host.index`): no SQLite here.

A game's mark is an empty file while its row must be made again from the log (the host made
it before writing the log: :func:`mark`), or the row itself, noted by the host once the log was
written (:func:`note`), which the next reader of the index puts in SQLite as it is
(:func:`noted_row`).  So a ``pbem apply``, a fresh process for every mailed move, neither loads
SQLite nor waits for its writes (a write-ahead log made, its header synced, merged back and
synced on every close): its row costs a small file.  A noted row is used only if it was made by
this code from the log and host.yaml as they are now (their sizes and mtimes): a host killed
after writing the log and before noting its row, or a file changed since, has the game read
again from its log.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pbem.host.caches import code_mark

LOG_NAME = "log.yaml"  # pbem.log.logfile.LOG_NAME (tests/test_hostindex.py holds them equal), not imported:
SETTINGS_NAME = "host.yaml"  # and pbem.host.settings.SETTINGS_NAME: a tick with nothing due reads rows alone

INDEX_DIR = "+index"
DIRTY = "dirty"
NOTE_LIMIT = 64 * 1024  # a noted row (its `pbem list` line is the longest part)


def index_dir(games: Path) -> Path:
    return games / INDEX_DIR


def mark(folder: Path) -> bool:
    """Before the host writes the log of the game in ``folder``: its mark, so that a crash before
    its row is updated leaves the game to be read again (see the module).  Not synced here: the
    log's own write syncs its folder, which commits the file system's journal (one for the
    whole disk on ext4 and xfs), this earlier creation with it.  True if this call made it (a
    mark already there, empty or a row noted earlier, is left: a row noted for an earlier log no
    longer matches the log's size, which only grows)."""
    dirty = index_dir(folder.parent) / DIRTY
    with contextlib.suppress(OSError):  # a folder the index cannot live in: the readers scan the logs
        if not dirty.is_dir():
            dirty.mkdir(mode=0o700, parents=True, exist_ok=True)
        os.close(os.open(dirty / folder.name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600))
        return True
    return False


def unmark(folder: Path) -> None:
    """The mark :func:`mark` made, taken back: the host wrote nothing (a refusal changes no file)."""
    with contextlib.suppress(OSError):
        (index_dir(folder.parent) / DIRTY / folder.name).unlink()
        (index_dir(folder.parent) / DIRTY).rmdir()  # only if empty: a folder it made for this mark alone


def note(folder: Path, row_of: Callable[[], tuple[Any, ...] | None]) -> bool:
    """The host, holding the game's lock after writing its log or host.yaml: the game's row (made
    by ``row_of``) noted in its mark, for the next reader of the index to put in (see the module).
    False when no index is kept here yet, or the game has no log: the caller updates the index."""
    where = index_dir(folder.parent)
    if not where.is_dir():
        return False
    seen = _files(folder)  # before the row is made: a file changed meanwhile makes the note not match
    row = row_of()
    if row is None or seen is None:
        return False
    data = json.dumps({"code": code_mark().hex(), "files": seen, "row": row}).encode()
    dirty = where / DIRTY
    if not dirty.is_dir():
        dirty.mkdir(mode=0o700, exist_ok=True)
    # in place, not renamed over: a reader takes the game's lock before it reads a mark, and a
    # note cut short by a crash is no JSON, or names other files: the game is read from its log
    fd = os.open(dirty / folder.name, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
    return True


def noted_row(folder: Path) -> tuple[Any, ...] | None:
    """The row noted in the mark of the game in ``folder`` (:func:`note`; the caller holds the
    game's lock), if this code noted it from the log and host.yaml as they are now; else None:
    the row is made again from the log."""
    try:
        fd = os.open(index_dir(folder.parent) / DIRTY / folder.name, os.O_RDONLY | os.O_NOFOLLOW)
        with os.fdopen(fd, "rb") as handle:
            noted = json.loads(handle.read(NOTE_LIMIT + 1) or b"null")
        made = (code_mark().hex(), _files(folder))
        if not isinstance(noted, dict) or (noted.get("code"), noted.get("files")) != made:
            return None
        row = noted.get("row")
    except (OSError, ValueError):  # no mark, or a mark cut short (JSON's errors are ValueErrors)
        return None
    if not isinstance(row, list) or not row or row[0] != folder.name:
        return None
    return tuple(row)


def _files(folder: Path) -> list[list[int] | None] | None:
    """The size and mtime of the game's log and of its host.yaml (None: no such file); None
    when the log cannot be looked at."""
    seen: list[list[int] | None] = []
    for name in (LOG_NAME, SETTINGS_NAME):
        try:
            st = os.stat(folder / name)
        except FileNotFoundError:
            if name == LOG_NAME:
                return None
            seen.append(None)
        except OSError:
            return None
        else:
            seen.append([st.st_size, st.st_mtime_ns])
    return seen
