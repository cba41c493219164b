"""The host's clock (PROTOCOL.md P7): every entry's ``at``, RFC 3339 UTC to the second.

``PBEM_NOW`` (an ``at``-style time, e.g. ``2026-11-30T09:15:00Z``) sets the clock,
so tests and recorded examples never depend on the real time and never sleep;
:func:`pinned` does the same for one command (``pbem tick --now``).
"""

from __future__ import annotations

import calendar
import os
import re
import time
from collections.abc import Iterator
from contextlib import contextmanager

from pbem.errors import FormatError
from pbem.i18n import Msg

AT_RE = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z\Z")
"""P7: ``at`` is RFC 3339 UTC to the second, with a capital T and Z."""

CLOCK_ENV = "PBEM_NOW"


def is_at(text: object) -> bool:
    """Is ``text`` a well-formed ``at`` naming a real moment?

    The fixed-width form means that two ``at`` strings compare as their times do.
    (Checked by hand: ``time.strptime`` would cost every replay milliseconds at start-up.)"""
    if not isinstance(text, str) or not AT_RE.match(text):
        return False
    year, month, day = int(text[0:4]), int(text[5:7]), int(text[8:10])
    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    days = (31, 29 if leap else 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)
    return (
        1 <= month <= 12 and 1 <= day <= days[month - 1]
        and int(text[11:13]) < 24 and int(text[14:16]) < 60 and int(text[17:19]) < 60
    )


_pinned: list[str] = []  # the innermost pinned() time, for one command (``--now``)


@contextmanager
def pinned(at: str) -> Iterator[None]:
    """Within the block, :func:`now` is ``at`` (``pbem tick --now``, ``pbem mail --now``)."""
    if not is_at(at):
        raise FormatError(Msg("--now {at} is not a time like 2026-11-30T09:15:00Z", at=repr(at)), "P7")
    _pinned.append(at)
    try:
        yield
    finally:
        _pinned.pop()


def now() -> str:
    """The current time as an ``at`` (a pinned time, else ``PBEM_NOW`` when set)."""
    if _pinned:
        return _pinned[-1]
    forced = os.environ.get(CLOCK_ENV)
    if forced is not None:
        if not is_at(forced):
            raise FormatError(Msg("{name}={value} is not a time like 2026-11-30T09:15:00Z",
                                  name=CLOCK_ENV, value=repr(forced)), "P7")
        return forced
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def stamp(previous: str | None) -> str:
    """The ``at`` of a new entry: now, but never earlier than the entry before (P7)."""
    current = now()
    return previous if previous is not None and previous > current else current


def seconds(at: str) -> int:
    """An ``at`` as seconds since 1970 (UTC).  A well-formed ``at`` is read by hand (for start-up
    speed: ``time.strptime`` loads its module and builds its patterns on first use, milliseconds
    of every `pbem apply`); anything else as ``time.strptime`` reads it, or refuses it."""
    if is_at(at):
        return calendar.timegm((int(at[0:4]), int(at[5:7]), int(at[8:10]), int(at[11:13]), int(at[14:16]),
                                int(at[17:19]), 0, 0, 0))
    return calendar.timegm(time.strptime(at, "%Y-%m-%dT%H:%M:%SZ"))


def at_of(secs: int) -> str:
    """Seconds since 1970 (UTC) as an ``at``."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(secs))
