"""R8.1 Deadlines: when the player to move must have moved, in times and in words.

A game's deadline (and the reminder before it) is fixed in entry 0's
``options`` (``pbem new --deadline 72h --reminder 24h``), in seconds.  A turn's
deadline runs from the ``at`` of the entry that made it that player's turn
(``Game.turn_since``, kept by the replay); a Witch look does not restart it.
During the opening (P4) no deadline runs: the game has no turn yet.

:func:`due` and :func:`phrase` are what ``show``, templates, reports, ``tick``
and ``list`` say, e.g. "red to move, due Tue 2 Dec 09:15 UTC, in 14 h".
"""

from __future__ import annotations

import re

from pbem.errors import FormatError
from pbem.log.clock import at_of, now, seconds
from pbem.log.game import Game

_DURATION = re.compile(r"^(?:(\d{1,4})d)?(?:(\d{1,5})h)?(?:(\d{1,6})m)?\Z")
SHORTEST = 60  # a minute: shorter would make every mail round trip a timeout
LONGEST = 366 * 86400

_DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def parse_duration(text: str, option: str) -> int:
    """``72h``, ``3d``, ``1d12h``, ``90m`` -> seconds; :class:`FormatError` otherwise (R8.1)."""
    found = _DURATION.match(text.strip().lower())
    if not text.strip() or found is None or not any(found.groups()):
        raise FormatError(f"{option} {text!r}: write a duration such as 72h, 3d, 1d12h or 90m", "R8.1")
    days, hours, minutes = (int(g or 0) for g in found.groups())
    total = days * 86400 + hours * 3600 + minutes * 60
    if not SHORTEST <= total <= LONGEST:
        raise FormatError(f"{option} {text!r}: a duration from 1 minute to 366 days, please", "R8.1")
    return total


def duration_text(secs: int, lang: str = "en") -> str:
    """Seconds as the shortest of ``3d``, ``72h``-style text: ``3d``, ``1d12h``, ``90m``."""
    days, rest = divmod(secs, 86400)
    hours, rest = divmod(rest, 3600)
    minutes = rest // 60
    return "".join(f"{n}{u}" for n, u in ((days, "d"), (hours, "h"), (minutes, "m")) if n) or "0m"


def due(game: Game) -> tuple[str, str] | None:
    """(player to move, the ``at`` their deadline passes), or None: no deadline, the game
    not started (P4: no deadline in the opening), over, or its seat resigned (played at once)."""
    if game.deadline is None or game.state is None:
        return None
    player = game.state.to_move
    if player is None or player in game.resigned:
        return None
    return player, at_of(seconds(game.at_of(game.turn_since)) + game.deadline)


def remind_at(game: Game) -> str | None:
    """When the reminder for the current turn is due (None: no reminder, or no deadline)."""
    found = due(game)
    if found is None or game.reminder is None:
        return None
    return at_of(seconds(found[1]) - game.reminder)


def when_text(at: str) -> str:
    """``2026-12-02T09:15:00Z`` -> ``Wed 2 Dec 09:15 UTC``."""
    import time

    t = time.gmtime(seconds(at))
    return f"{_DAYS[t.tm_wday]} {t.tm_mday} {_MONTHS[t.tm_mon - 1]} {t.tm_hour:02d}:{t.tm_min:02d} UTC"


def _span(secs: int) -> str:
    if secs < 3600:
        return f"{max(secs // 60, 1)} min"
    if secs < 48 * 3600:
        return f"{secs // 3600} h"
    return f"{secs // 86400} d {secs % 86400 // 3600} h"


def phrase(game: Game, at: str | None = None, lang: str = "en") -> str | None:
    """"red to move, due Tue 2 Dec 09:15 UTC, in 14 h" (or "..., 3 h overdue"), as of
    ``at`` (default: now); None when no deadline runs."""
    found = due(game)
    if found is None:
        return None
    player, due_at = found
    left = seconds(due_at) - seconds(at or now())
    when = f"in {_span(left)}" if left > 0 else f"{_span(-left)} overdue: the host may record a timeout (R8.2)"
    return f"{player} to move, due {when_text(due_at)}, {when}"


def rule_text(game: Game) -> str | None:
    """The game's deadline rule in a sentence, or None."""
    if game.deadline is None:
        return None
    reminder = f", a reminder {duration_text(game.reminder)} before" if game.reminder else ""
    return (f"deadline: {duration_text(game.deadline)} a turn from the entry that makes it the "
            f"player's turn{reminder}; then the stand-in rule plays it (R8.1-R8.3)")
