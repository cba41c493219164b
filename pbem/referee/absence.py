"""R8.5 Absence: a seat's declared days away, read from the log, and the deadlines they extend.

A game may give each seat an allowance of whole days (entry 0 ``options.absence``).  An
``away`` entry records a player's move declaring ``days`` of absence, starting at the
entry's ``at``; it lasts until ``days`` have passed, or until that seat's next turn move
(a ``move`` entry of the seat, or a new player taking the seat, R8.4), whichever comes
first: then the whole days not begun return to the allowance.

Every reader computes the same from the entries' ``at`` alone (:func:`absences`): a turn's
deadline (R8.1) is its time from the entry that began it with the clock stopped while the
seat is away (:func:`due_seconds`), so it moves by the length of the overlap.  An absence is
declared ahead of time: a seat whose turn's deadline has passed can declare none (the
timeout is due), and another seat's absence changes nothing in the mover's turn (a move
written before it still answers the log, :func:`pbem.referee.admit.others_away`).
"""

from __future__ import annotations

import re

from pbem.errors import FormatError, RulesError, StaleError, StateError
from pbem.i18n import Msg
from pbem.log.clock import at_of, seconds
from pbem.log.game import Game
from pbem.log.records import Away, Played, Replace
from pbem.record import Record

DAY = 86400
_DATE = re.compile(r"(\d{4})-(\d{2})-(\d{2})\Z")


class Absence(Record):
    """One declared absence: the seat, the entry that declared it, its start and declared days
    (seconds since 1970), and its end: the declared one, or the seat's next turn move."""

    player: str
    seq: int
    start: int
    days: int
    end: int

    @property
    def used(self) -> int:
        """The whole days it took from the allowance: the days begun before its end."""
        return min(self.days, -(-(self.end - self.start) // DAY))


def moment_text(secs: int) -> str:
    """``2026-12-06 19:08 UTC``: a moment of an absence, in a refusal."""
    return at_of(secs)[:16].replace("T", " ") + " UTC"


def absences(game: Game, player: str | None = None) -> list[Absence]:
    """Every absence the log records (of ``player`` only, if given), in the order declared."""
    if game.facts.absence is None:
        return []
    found: list[Absence] = []
    running: dict[str, int] = {}  # seat -> index in found of its absence not yet ended early
    for entry in game.entries:
        who = entry.player
        if who is None or (player is not None and who != player):
            continue
        if isinstance(entry, Away):
            start = seconds(entry.at)
            running[who] = len(found)
            found.append(Absence(who, entry.seq, start, entry.days, start + entry.days * DAY))
        elif isinstance(entry, Played | Replace) and who in running:
            index = running.pop(who)
            was, at = found[index], seconds(entry.at)
            if at < was.end:  # the seat is back early: the days not begun return (R8.5)
                found[index] = Absence(was.player, was.seq, was.start, was.days, at)
    return found


def days_left(game: Game, player: str) -> int:
    """R8.5: what is left of ``player``'s allowance (an absence still running counts whole)."""
    allowance = game.facts.absence or 0
    return allowance - sum(a.used for a in absences(game, player))


def away_at(game: Game, player: str, at: str) -> Absence | None:
    """The absence of ``player`` running at ``at``, if any."""
    moment = seconds(at)
    return next((a for a in absences(game, player) if a.start <= moment < a.end), None)


def away_now(game: Game, at: str) -> list[Absence]:
    """The absences running at ``at``, one a seat, in seat order."""
    moment = seconds(at)
    running = {a.player: a for a in absences(game) if a.start <= moment < a.end}
    return [running[p] for p in game.players if p in running]


def due_seconds(game: Game, player: str, since: int, deadline: int) -> int:
    """R8.1 with R8.5: when the turn of ``player`` begun at entry ``since`` is due: ``deadline``
    seconds of the turn while the seat is not away; an absence begun after the time ran out
    makes it due when the absence ends (no timeout while absent)."""
    clock, left = seconds(game.at_of(since)), deadline
    for absence in absences(game, player):
        if absence.end <= clock:
            continue
        begins = max(absence.start, clock)
        if begins >= clock + left:
            clock, left = absence.end, 0
        else:
            clock, left = absence.end, left - (begins - clock)
    return clock + left


def extended_due(game: Game, player: str, since: int) -> str:
    """The ``at`` the turn of ``player`` begun at entry ``since`` is due (the game has a deadline)."""
    assert game.deadline is not None
    return at_of(due_seconds(game, player, since, game.deadline))


def remind_seconds(game: Game, player: str, due: int, reminder: int) -> int:
    """When the reminder of a turn due at ``due`` is due: ``reminder`` before it, or once the
    seat is back if it falls in an absence (R8.5: no reminder while absent)."""
    moment = due - reminder
    for absence in absences(game, player):
        if absence.start <= moment < absence.end:
            moment = min(absence.end, due)
    return moment


def check_away(game: Game, player: str, days: int, at: str) -> None:
    """R8.5: may ``player`` declare ``days`` of absence at ``at``?  Only in a game in play that
    gives an allowance, not while already away, not once its turn's deadline has passed, and
    within what is left of it."""
    allowance = game.facts.absence
    if allowance is None:
        raise RulesError(Msg("game {game} gives its seats no absence allowance (entry 0 sets none), so no "
                             "absence can be declared; nothing was changed", game=game.game_id), "R8.5")
    if game.state is None:
        raise StateError(Msg("the game has not started: an absence is declared in a game in play, and no "
                             "deadline runs before the start (P4); nothing was changed"), "R8.5")
    if game.over:
        raise StateError(Msg("the game is over: there is no deadline left to extend"), "R8.5")
    if player in game.resigned:
        raise RulesError(Msg("{player} resigned: the stand-in plays the seat at once, and no deadline waits "
                             "for it; nothing was changed", player=player), "R8.4")
    running = away_at(game, player, at)
    if running is not None:
        raise StaleError(Msg("{player} is away already, until {until}; that absence ends then, or at "
                             "{player}'s next turn move, and a new one can be declared after it; nothing "
                             "was changed", player=player, until=moment_text(running.end)), "R8.5")
    if game.facts.absence_ruling and game.deadline is not None and game.state.to_move == player:
        due = due_seconds(game, player, game.turn_since, game.deadline)
        if seconds(at) >= due:  # the ruling on R8.5: declared ahead of time, never to dodge a timeout
            raise RulesError(Msg("{player}'s turn was due at {due}, so the timeout (R8.2) is due now: an absence is "
                                 "declared ahead of time, and a seat whose turn's deadline (as extended so far) has "
                                 "passed can no longer declare one; nothing was changed", player=player,
                                 due=moment_text(due)), "R8.5")
    left = days_left(game, player)
    if days > left:
        raise RulesError(Msg.plural(
            "{player}'s absence of {days} d is longer than what is left of the game's allowance of {allowance} d: "
            "{n} day is left, and an absence is whole days up to what is left; nothing was changed",
            "{player}'s absence of {days} d is longer than what is left of the game's allowance of {allowance} d: "
            "{n} days are left, and an absence is whole days up to what is left; nothing was changed",
            left, player=player, days=days, allowance=allowance), "R8.5")


def days_asked(words: list[str], at: str) -> int:
    """R8.5: the whole days of ``away 3`` (``["3"]``) or ``away until 2026-12-10`` (the days from
    ``at``'s date to that date, UTC); :class:`FormatError` naming the form otherwise."""
    import datetime

    if len(words) == 1 and words[0].isascii() and words[0].isdigit() and 1 <= int(words[0]) <= 366:
        return int(words[0])
    found = _DATE.match(words[1]) if len(words) == 2 and words[0].lower() == "until" else None
    if found is not None:
        try:
            until = datetime.date(*(int(g) for g in found.groups()))
        except ValueError:
            until = None
        today = datetime.date.fromisoformat(at[:10])
        if until is not None and 1 <= (until - today).days <= 366:
            return (until - today).days
    raise FormatError(Msg("away {words}: give whole days from 1 to 366 ('away 3'), or a later date within a "
                          "year ('away until 2026-12-10', counted in whole days from today, UTC); an absence "
                          "starts when it is recorded", words=" ".join(words)), "R8.5")
