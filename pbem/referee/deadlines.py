"""R8.1 Deadlines: when the player to move must have moved, in times and in words.

A game's deadline (and the reminder before it) is fixed in entry 0's
``options`` (``pbem new --deadline 72h --reminder 24h``), in seconds.  A turn's
deadline runs from the ``at`` of the entry that made it that player's turn
(``Game.turn_since``, kept by the replay); a Witch look does not restart it.
During the opening (P4) no deadline runs: the game has no turn yet.  A seat's declared
absence (R8.5) stops its turn's clock while it lasts (:mod:`pbem.referee.absence`).

:func:`due` and :func:`phrase` are what ``show``, templates, reports, ``tick``
and ``list`` say, e.g. "red to move, due Tue 2 Dec 09:15 UTC, in 14 hours".
"""

from __future__ import annotations

import re

from pbem.errors import FormatError
from pbem.i18n import Msg, translator
from pbem.log.clock import at_of, now, seconds
from pbem.log.game import Game
from pbem.referee.absence import away_now, days_left, extended_due, remind_seconds

_DURATION = re.compile(r"^(?:(\d{1,4})d)?(?:(\d{1,5})h)?(?:(\d{1,6})m)?\Z")
SHORTEST = 60  # a minute: shorter would make every mail round trip a timeout
LONGEST = 366 * 86400

_DAYS = (Msg("Mon"), Msg("Tue"), Msg("Wed"), Msg("Thu"), Msg("Fri"), Msg("Sat"), Msg("Sun"))
_MONTHS = (Msg("Jan"), Msg("Feb"), Msg("Mar"), Msg("Apr"), Msg("May"), Msg("Jun"), Msg("Jul"), Msg("Aug"),
           Msg("Sep"), Msg("Oct"), Msg("Nov"), Msg("Dec"))


def parse_duration(text: str, option: str) -> int:
    """``72h``, ``3d``, ``1d12h``, ``90m`` -> seconds; :class:`FormatError` otherwise (R8.1)."""
    found = _DURATION.match(text.strip().lower())
    if not text.strip() or found is None or not any(found.groups()):
        raise FormatError(Msg("{option} {text}: write a duration such as 72h, 3d, 1d12h or 90m",
                              option=option, text=repr(text)), "R8.1")
    days, hours, minutes = (int(g or 0) for g in found.groups())
    total = days * 86400 + hours * 3600 + minutes * 60
    if not SHORTEST <= total <= LONGEST:
        raise FormatError(Msg("{option} {text}: a duration from 1 minute to 366 days, please",
                              option=option, text=repr(text)), "R8.1")
    return total


def duration_text(secs: int, lang: str = "en") -> str:
    """Seconds as the shortest of ``3d``, ``72h``-style text: ``3d``, ``1d12h``, ``90m``
    (what ``--deadline`` reads); in another language its units as its readers write them
    (``3 nap``, ``1 ημ. 12 ώρ.``), space-separated."""
    days, rest = divmod(secs, 86400)
    hours, rest = divmod(rest, 3600)
    minutes = rest // 60
    if lang == "en":
        return "".join(f"{n}{u}" for n, u in ((days, "d"), (hours, "h"), (minutes, "m")) if n) or "0m"
    said = translator(lang)
    parts = [said.say(m) for n, m in ((days, Msg.plural("{n} day", "{n} days", days)),
                                     (hours, Msg.plural("{n} hour", "{n} hours", hours)),
                                     (minutes, Msg.plural("{n} minute", "{n} minutes", minutes))) if n]
    return " ".join(parts) or said.say(Msg.plural("{n} minute", "{n} minutes", 0))


def due(game: Game) -> tuple[str, str] | None:
    """(player to move, the ``at`` their deadline passes), or None: no deadline, the game
    not started (P4: no deadline in the opening), over, or its seat resigned (played at once)."""
    if game.deadline is None or game.state is None:
        return None
    player = game.state.to_move
    if player is None or player in game.resigned:
        return None
    return player, extended_due(game, player, game.turn_since)


def remind_at(game: Game) -> str | None:
    """When the reminder for the current turn is due (None: no reminder, or no deadline); not
    while the seat is away (R8.5)."""
    found = due(game)
    if found is None or game.reminder is None:
        return None
    return at_of(remind_seconds(game, found[0], seconds(found[1]), game.reminder))


def when_text(at: str, lang: str = "en") -> str:
    """``2026-12-02T09:15:00Z`` -> ``Wed 2 Dec 09:15 UTC`` (in ``lang``: its day and month
    names, in its order: ``dec. 2., sze. 09:15 UTC``)."""
    import time

    t = time.gmtime(seconds(at))
    return translator(lang).say(Msg("{weekday} {day} {month} {time} UTC", weekday=_DAYS[t.tm_wday], day=t.tm_mday,
                                    month=_MONTHS[t.tm_mon - 1], time=f"{t.tm_hour:02d}:{t.tm_min:02d}"))


def _span(secs: int, lang: str = "en") -> str:
    said = translator(lang)
    if secs < 3600:
        minutes = max(secs // 60, 1)
        return said.say(Msg.plural("{n} minute", "{n} minutes", minutes))
    if secs < 48 * 3600:
        return said.say(Msg.plural("{n} hour", "{n} hours", secs // 3600))
    return said.say(Msg("{days} d {hours} h", days=secs // 86400, hours=secs % 86400 // 3600))


def phrase(game: Game, at: str | None = None, lang: str = "en") -> str | None:
    """"red to move, due Tue 2 Dec 09:15 UTC, in 14 hours" (or "..., 3 hours overdue"), as of
    ``at`` (default: now); None when no deadline runs."""
    found = due(game)
    if found is None:
        return None
    player, due_at = found
    left = seconds(due_at) - seconds(at or now())
    said = translator(lang)
    when = when_text(due_at, lang)
    away = [a for a in away_now(game, at or now()) if a.player == player]
    if away:  # R8.5: the deadline waits for the seat's return
        return said.say(Msg("{player} to move, due {when}, in {span}; {player} is away until {until} (R8.5)",
                            player=player, when=when, span=_span(left, lang), until=when_text(at_of(away[0].end),
                                                                                              lang)))
    if left > 0:
        return said.say(Msg("{player} to move, due {when}, in {span}", player=player, when=when,
                            span=_span(left, lang)))
    return said.say(Msg("{player} to move, due {when}, {span} overdue: the host may record a timeout (R8.2)",
                        player=player, when=when, span=_span(-left, lang)))


def rule_text(game: Game, lang: str = "en") -> str | None:
    """The game's deadline rule in a sentence, or None."""
    if game.deadline is None:
        return None
    said = translator(lang)
    deadline = duration_text(game.deadline, lang)
    if game.reminder:
        return said.say(Msg("deadline: {deadline} a turn from the entry that makes it the player's turn, a reminder "
                            "{reminder} before; then the stand-in rule plays it (R8.1-R8.3)",
                            deadline=deadline, reminder=duration_text(game.reminder, lang)))
    return said.say(Msg("deadline: {deadline} a turn from the entry that makes it the player's turn; "
                        "then the stand-in rule plays it (R8.1-R8.3)", deadline=deadline))


def away_lines(game: Game, at: str | None = None, lang: str = "en") -> list[str]:
    """R8.5: the game's absence allowance, what each seat has left, and who is away until when
    (as of ``at``, default now); nothing for a game without an allowance."""
    allowance = game.facts.absence
    if allowance is None:
        return []
    said = translator(lang)
    left = ", ".join(f"{p} {days_left(game, p)}" for p in game.players)
    out = [said.say(Msg.plural("absence allowance (R8.5): {n} day a seat; days left: {left}",
                               "absence allowance (R8.5): {n} days a seat; days left: {left}", allowance, left=left))]
    for absence in away_now(game, at or now()):
        out.append(said.say(Msg("{player} is away until {until}; the seat's deadlines wait, and its next turn "
                                "move ends the absence (R8.5)", player=absence.player,
                                until=when_text(at_of(absence.end), lang))))
    return out
