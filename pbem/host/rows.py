"""A game's row of the host's index (:mod:`pbem.host.index`) as the host's writer makes it, and
the marks the writer leaves in ``GAMES/+index/dirty/``: no SQLite here.

A game's mark is an empty file while its row must be made again from the log (the host made
it before writing the log: :func:`mark`), or the row itself, noted by the host once the log was
written (:func:`note`), which the next reader of the index puts in SQLite as it is
(:func:`noted_row`).  So a ``pbem apply``, a fresh process for every mailed move, neither loads
SQLite nor waits for its writes (a write-ahead log made, synced and merged back on every
close): its row costs a small file.  A noted row is used only if it was made by this code from
the log and host.yaml as they are now (their sizes and mtimes): a host killed after writing the
log and before noting its row, or a file changed since, has the game read again from its log.
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pbem.errors import PbemError
from pbem.host.caches import code_mark

if TYPE_CHECKING:
    from pbem.host.head import Head

LOG_NAME = "log.yaml"  # pbem.log.logfile.LOG_NAME (tests/test_hostindex.py holds them equal), not imported:
SETTINGS_NAME = "host.yaml"  # and pbem.host.settings.SETTINGS_NAME: a tick with nothing due reads rows alone

INDEX_DIR = "+index"
DIRTY = "dirty"
ROW_FIELDS = 14  # a row as :func:`row_of` makes it: every column of the index's games but its version
NOTE_LIMIT = 64 * 1024  # a noted row (its `pbem list` line is the longest part)


def index_dir(games: Path) -> Path:
    return games / INDEX_DIR


def mark(folder: Path) -> bool:
    """Before the host writes the log of the game in ``folder``: its mark, so that a crash before
    its row is updated leaves the game to be read again (see the module).  Not synced here: the
    log's own write syncs its folder, which commits the file system's journal (one for the
    whole disk on ext4 and xfs), this earlier creation with it.  True if this call made it
    (a mark already there, empty or a row noted earlier, is left: a row noted for an earlier log
    no longer matches the log's size, the log only grows)."""
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


def note(folder: Path) -> bool:
    """The host, holding the game's lock after writing its log or host.yaml: the game's row
    noted in its mark, for the next reader of the index to put in (see the module).  False when
    no index is kept here yet, or the game has no log: the caller updates the index itself."""
    where = index_dir(folder.parent)
    if not where.is_dir():
        return False
    seen = _files(folder)  # before the row is made: a file changed meanwhile makes the note not match
    row = row_of(folder, True, write=True)
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
    if not isinstance(row, list) or len(row) != ROW_FIELDS or row[0] != folder.name:
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


def wake_at(head: Head | None, emails: bool, sent: frozenset[str] | None = None) -> str | None:
    """When `pbem tick` must next look at a game (R8.1-R8.2): now ("") for a log that does not
    verify or a timeout whose notice is owed, else its reminder (owed to an address) or its
    deadline; None for a game with no deadline running.  ``sent``: the notices `pbem tick`
    recorded (None: not known here, so every notice counts as owed: an early look, never a
    missed one)."""
    if head is None:
        return ""
    if not head.deadline:
        return None
    told = sent if sent is not None else frozenset()
    if emails and any(f"notice {seq}" not in told for seq in head.timeouts):
        return ""
    if head.due is None:
        return None
    at = head.due[1]
    if emails and head.remind is not None and f"remind {head.turn_since}" not in told:
        at = min(at, head.remind)
    return at


def row_of(folder: Path, wake: str | bool | None = True, write: bool = False) -> tuple[Any, ...] | None:
    """A game's row, from its log (through its head) and host.yaml; None when it has no log.
    ``write``: the host, holding the game's lock, keeps the head it read (:func:`head_of`)."""
    log = folder / LOG_NAME
    try:
        st = os.stat(log)
    except OSError:
        return None
    from pbem.host.head import head_of  # start-up speed: only a row made again reads a log

    head: Head | None
    try:
        head = head_of(folder, write=write)
        line = head.line
    except PbemError as err:
        head, line = None, f"{folder.name}: does not verify: {err.message} ({err.rule})"
    emails, free, readers = _seats(folder)
    if wake is True:  # as if every seat had an address: host.yaml may gain one before tick looks again
        wake = wake_at(head, True)
    fields = None if head is None else json.dumps(
        {"due": head.due, "remind": head.remind, "turn_since": head.turn_since, "timeouts": list(head.timeouts)})
    return (folder.name, head.size if head else st.st_size, st.st_mtime_ns, head.sha256 if head else "",
            line, head.status if head else "", ",".join(head.waiting) if head else "", head.since_at if head else "",
            int(bool(head and head.deadline)), fields, wake, free, int(emails), readers)


def _seats(folder: Path) -> tuple[bool, int, int]:
    """Whether the game has players' addresses, its open seats still free, and its readers of a
    daily summary (digest seats and observers), from host.yaml."""
    if not (folder / SETTINGS_NAME).is_file():
        return False, 0, 0
    from pbem.host.settings import load_settings  # start-up speed: only a row made again reads host.yaml

    try:
        settings = load_settings(folder)
    except PbemError:  # settings the host must mend: tick and the mail passes look at it, and say so
        return True, 0, 1
    digest = sum(1 for seat in settings.emails if settings.mail_mode(seat) == "digest")
    return bool(settings.emails), len(settings.waiting()), digest + len(settings.watchers)
