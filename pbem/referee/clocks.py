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

from pbem.i18n import Msg, say
from pbem.log.clock import at_of, seconds
from pbem.log.records import Entry, Timeout

ALLOWANCE = 600
"""Seconds a host's clock may run ahead of the reader's before a reader names it."""


def ahead(entries: Sequence[Entry], now: str, lang: str = "en") -> list[str]:
    """The entries stamped later than the reader's clock ``now`` plus the allowance (each a
    :class:`pbem.i18n.Msg` in English; said in ``lang`` otherwise)."""
    limit = seconds(now) + ALLOWANCE
    late = [e for e in entries if seconds(e.at) > limit]
    if not late:
        return []
    first = late[0]
    params = {"seq": first.seq, "at": first.at, "now": now, "minutes": ALLOWANCE // 60}
    if len(late) == 1:
        msg = Msg.plural(  # n: the minutes the host's clock may run ahead
            "warning (P7): entry {seq} is stamped {at}, later than your clock ({now}) by more than {n} minute: the "
            "host's clock runs ahead of yours, and a deadline measured by it can end early (R8.2)",
            "warning (P7): entry {seq} is stamped {at}, later than your clock ({now}) by more than {n} minutes: the "
            "host's clock runs ahead of yours, and a deadline measured by it can end early (R8.2)",
            ALLOWANCE // 60, **{k: v for k, v in params.items() if k != "minutes"})
    else:
        msg = Msg.plural(
            "warning (P7): entry {seq} (and {n} later entry) is stamped {at}, later than your clock ({now}) "
            "by more than {minutes} minutes: the host's clock runs ahead of yours, and a deadline "
            "measured by it can end early (R8.2)",
            "warning (P7): entry {seq} (and {n} later entries) is stamped {at}, later than your clock ({now}) "
            "by more than {minutes} minutes: the host's clock runs ahead of yours, and a deadline "
            "measured by it can end early (R8.2)", len(late) - 1, **params)
    return [_said(msg, lang)]


def _said(msg: Msg, lang: str) -> str:
    return msg if lang == "en" else say(msg, lang)


def early_timeouts(entries: Sequence[Entry], kept_last: int, kept_time: int, got_time: int,
                   deadline: int | None, lang: str = "en") -> list[str]:
    """Timeouts beyond the kept log (last entry ``kept_last``, which the reader had at
    ``kept_time``) of a turn begun by that entry, in a log the reader had at ``got_time``
    (seconds since 1970): named when less than the turn's time ran between the two (each a
    :class:`pbem.i18n.Msg` in English; said in ``lang`` otherwise).  The turn's time is the
    deadline with what an absence of the seat added to it (R8.5): the timeout's ``due``, which
    the replay has checked against the log's absences, less the deadline, is that addition."""
    if deadline is None:
        return []
    found: list[str] = []
    for e in entries:
        if not (isinstance(e, Timeout) and e.seq > kept_last and e.since == kept_last):
            continue
        extension = max(0, seconds(e.due) - seconds(entries[e.since].at) - deadline)  # R8.5
        if got_time + ALLOWANCE >= kept_time + deadline + extension:
            continue
        found.append(_said(Msg("warning (R8.2): entry {seq} times {player} out, but by your clock you had entry "
                               "{kept_last}, which began that turn, at {kept_at} and this log at {got_at}: "
                               "less than the deadline apart; the host's clock ran ahead of yours", seq=e.seq,
                               player=e.player, kept_last=kept_last, kept_at=at_of(kept_time),
                               got_at=at_of(got_time)), lang))
    return found
