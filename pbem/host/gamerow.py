"""A game's row of the host's index (:mod:`pbem.host.index`), made from its files: its log's
head (:mod:`pbem.host.head`: its `pbem list` line, where it stands, its deadline and reminder),
host.yaml's seats (addresses, open seats, readers of a daily summary) and the size and mtime
of each file it was made from; and ``wake``, when `pbem tick` must next look at it (R8.1-R8.2).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pbem.errors import PbemError
from pbem.host.marks import LOG_NAME, SETTINGS_NAME

if TYPE_CHECKING:
    from pbem.host.head import Head


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
    settings = stamp(folder / SETTINGS_NAME)  # before it is read: a change after is seen by the next look
    emails, free, readers = _seats(folder)
    if wake is True:  # as if every seat had an address: host.yaml may gain one before tick looks again
        wake = wake_at(head, True)
    fields = None if head is None else json.dumps(
        {"due": head.due, "remind": head.remind, "turn_since": head.turn_since, "timeouts": list(head.timeouts)})
    return (folder.name, head.size if head else st.st_size, st.st_mtime_ns, head.sha256 if head else "",
            line, head.status if head else "", ",".join(head.waiting) if head else "", head.since_at if head else "",
            int(bool(head and head.deadline)), fields, wake, free, int(emails), readers, settings)


def stamp(path: Path) -> str:
    """A file's size and mtime (ns), "" when there is none: what a row was made from."""
    try:
        st = os.stat(path)
    except OSError:
        return ""
    return f"{st.st_size}:{st.st_mtime_ns}"


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
