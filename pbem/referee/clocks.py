"""A reader's own clock against the host's (P7): warnings, never refusals.

Every ``at`` is the host's clock. A host clock a little fast is not tampering, but a
host that moves its clock ahead (``pbem tick --now 2031-...``) can time a player out at
once. So ``pbem verify`` and ``pbem audit`` name what the reader's own clock
(:func:`pbem.log.clock.now`) contradicts:

- an entry stamped later than the reader's clock plus :data:`ALLOWANCE`;
- with ``pbem verify NEW --extends KEPT``: a timeout, beyond the kept log, of a turn that
  began with the kept log's last entry, when the reader got NEW (its file's time) less
  than the deadline (less :data:`ALLOWANCE`) after the reader got KEPT (its file's time).
  The reader's two files are the reader's own record of when each entry arrived: keep
  each log as the mail brings it.
"""

from __future__ import annotations

from collections.abc import Sequence

from pbem.log.clock import at_of, seconds
from pbem.log.records import Entry, Timeout

ALLOWANCE = 600
"""Seconds a host's clock may run ahead of the reader's before a reader names it."""


def ahead(entries: Sequence[Entry], now: str) -> list[str]:
    """The entries stamped later than the reader's clock ``now`` plus the allowance."""
    limit = seconds(now) + ALLOWANCE
    late = [e for e in entries if seconds(e.at) > limit]
    if not late:
        return []
    first = late[0]
    more = f" (and {len(late) - 1} later entr{'y' if len(late) == 2 else 'ies'})" if len(late) > 1 else ""
    return [
        f"warning (P7): entry {first.seq}{more} is stamped {first.at}, later than your clock ({now}) "
        f"by more than {ALLOWANCE // 60} minutes: the host's clock runs ahead of yours, and a deadline "
        "measured by it can end early (R8.2)"
    ]


def early_timeouts(entries: Sequence[Entry], kept_last: int, kept_time: int, got_time: int,
                   deadline: int | None) -> list[str]:
    """Timeouts beyond the kept log (last entry ``kept_last``, which the reader had at
    ``kept_time``) of a turn begun by that entry, in a log the reader had at ``got_time``
    (seconds since 1970): named when less than the deadline ran between the two."""
    if deadline is None or got_time + ALLOWANCE >= kept_time + deadline:
        return []
    return [
        f"warning (R8.2): entry {e.seq} times {e.player} out, but by your clock you had entry "
        f"{kept_last}, which began that turn, at {at_of(kept_time)} and this log at {at_of(got_time)}: "
        "less than the deadline apart; the host's clock ran ahead of yours"
        for e in entries
        if isinstance(e, Timeout) and e.seq > kept_last and e.since == kept_last
    ]
