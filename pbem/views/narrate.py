"""One log entry in plain words: the narration `pbem apply`'s report, `pbem history`
and the `pbem html` page all share.

Built from the public entry alone (its outcome's events, each told by
:func:`pbem.views.text.describe_event`); a face appears only where the log itself has
revealed it (a flip, P6), never one still hidden (P10).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, assert_never

from pbem.i18n import Msg, translator
from pbem.log.clock import at_of, seconds
from pbem.log.game import Game
from pbem.log.records import (
    Abandon,
    Away,
    Commit,
    Create,
    Entry,
    Nonce,
    Played,
    Replace,
    Resign,
    Reveal,
    Standin,
    Start,
    Timeout,
    Waive,
    kinded,
)
from pbem.rules import EndTurn, KnightMove, MovePlague, Spread, TakeCard, winner
from pbem.rules.events import CubeRemoved, CubesPlaced, Event, GameEnding, TokenFlipped, TurnStarted
from pbem.views.text import describe_event, face_text, next_step, region_word
from pbem.views.trust import opening_line

if TYPE_CHECKING:
    from pbem.referee.seatview import SeatView


def entry_lines(game: Game, entry: Entry, lang: str = "en") -> list[str]:
    """``entry`` as a headline and, for a move, one indented line per event.

    ``game`` only names the regions (the map of entry 0), so it may be the game as of
    any entry of the same log.
    """
    said = translator(lang)
    seq, player = entry.seq, entry.player
    entry = kinded(entry)  # the closed set of kinds: a kind left out fails mypy below
    match entry:
        case Create():
            return [said.say(Msg("entry {seq}: the host creates game {game} for {players} and commits to a secret (P3)",
                                 seq=seq, game=entry.game_id, players=", ".join(entry.players)))]
        case Played():
            lines = [said.say(Msg("entry {seq}: {player}'s move accepted", seq=seq, player=player))]
            return lines + event_lines(game, entry.outcome, lang)
        case Commit():
            return [said.say(Msg("entry {seq}: {player}'s nonce commitment recorded (P4)", seq=seq, player=player))]
        case Nonce():
            return [said.say(Msg("entry {seq}: {player}'s nonce revealed; it matches the commitment (P4)",
                                 seq=seq, player=player))]
        case Waive():
            return [said.say(Msg("entry {seq}: the host waived {player}'s nonce (P4)", seq=seq, player=player))]
        case Abandon():
            return [said.say(Msg("entry {seq}: the host abandoned the game before its start (P4)", seq=seq))]
        case Start():
            setup = entry.setup
            return [said.say(Msg("entry {seq}: the game starts; first player {player}, plague in {region}", seq=seq,
                                 player=setup.first_player, region=said.say(region_word(game, setup.plague))))]
        case Reveal():
            return [said.say(Msg("entry {seq}: the secret is revealed; anyone can now run 'pbem audit'", seq=seq))]
        case Resign():
            return [said.say(Msg("entry {seq} ({at}): {player} resigns; from now on the stand-in rule plays the seat "
                                 "at once, and its cubes stay and count (R8.4)", seq=seq, at=_when(entry.at),
                                 player=player))]
        case Away():
            return [said.say(Msg.plural(
                "entry {seq} ({at}): {player} is away for {n} day, until {until} at the latest; {player}'s "
                "deadlines wait, and {player}'s next turn move ends the absence (R8.5)",
                "entry {seq} ({at}): {player} is away for {n} days, until {until} at the latest; {player}'s "
                "deadlines wait, and {player}'s next turn move ends the absence (R8.5)", entry.days, seq=seq,
                at=_when(entry.at), player=player, until=_when(at_of(seconds(entry.at) + entry.days * 86400))))]
        case Replace():
            if entry.key:
                return [said.say(Msg("entry {seq} ({at}): the host hands {player}'s seat to a new player with a new "
                                     "key (P8); cubes, cards and turn order stay (R8.4)", seq=seq, at=_when(entry.at),
                                     player=player))]
            return [said.say(Msg("entry {seq} ({at}): the host hands {player}'s seat to a new player (moves "
                                 "unsigned); cubes, cards and turn order stay (R8.4)", seq=seq, at=_when(entry.at),
                                 player=player))]
        case Standin():
            return _standin_lines(game, entry, lang)
        case unknown:
            assert_never(unknown)


def event_lines(game: Game, outcome: Sequence[Event], lang: str = "en") -> list[str]:
    """A move's events, one indented line each; an outbreak that takes no cube says so, and
    why (R4.3), so that "the plague breaks out" is never left without its outcome."""
    said = translator(lang)
    lines = []
    events = [e for e in outcome if not isinstance(e, TurnStarted)]
    for i, event in enumerate(events):
        lines.append(f"  {describe_event(game, event, lang)}")
        took = i + 1 < len(events) and isinstance(events[i + 1], CubeRemoved)
        if isinstance(event, TokenFlipped) and event.outbreak and not took:
            lines.append("  " + said.say(Msg("nobody loses a cube: no symbol of this rat hits a cube there (R4.3)")))
    return lines


def _when(at: str) -> str:
    return at.replace("T", " ").replace("Z", " UTC")


_TOLD_BY_EVENTS = (MovePlague, KnightMove, Spread, TakeCard)
"""A stand-in's actions whose events tell them, with what they drew (the rats that spread, each rat drawn);
its placement is told as the stand-in's, and its event left out: each thing the stand-in did is told once."""


def _standin_lines(game: Game, entry: Standin, lang: str = "en") -> list[str]:
    """A turn the stand-in rule played (R8.3): a timeout (R8.2) or a resigned seat (R8.4)."""
    from pbem.views.standin_acts import standin_did  # start-up speed: most logs a command tells have no stand-in

    said = translator(lang)
    player, seq, at = entry.player, entry.seq, _when(entry.at)
    acts = [a for a in entry.actions if not isinstance(a, EndTurn)]
    done = [standin_did(game, a, lang) for a in acts if not isinstance(a, _TOLD_BY_EVENTS)]
    if isinstance(entry, Timeout):
        head = Msg("entry {seq} ({at}): {player}'s deadline passed ({due}): timeout (R8.2); the stand-in rule (R8.3) "
                   "played the turn", seq=seq, at=at, player=player, due=_when(entry.due))
    else:
        head = Msg("entry {seq} ({at}): {player} resigned (R8.4); the stand-in rule (R8.3) played the turn",
                   seq=seq, at=at, player=player)
    did = done if acts else [said.say(Msg("the stand-in does nothing (R8.3)"))]  # what it did, never an order
    lines = [said.say(head), *(f"  {line}" for line in did)]
    return lines + event_lines(game, [e for e in entry.outcome if not isinstance(e, CubesPlaced)], lang)


def status_line(game: Game, lang: str = "en") -> str:
    """Where the game stands after its last entry, in a sentence."""
    said = translator(lang)
    if game.state is None:
        return opening_line(game, lang)
    if game.over:
        scores = game.state.scores()
        listed = ", ".join(f"{p} {scores[p]}" for p in game.players)
        if game.secret is not None:
            return said.say(Msg("the game is over: {scores}; the secret is revealed", scores=listed))
        return said.say(Msg("the game is over: {scores}; the host reveals the secret next", scores=listed))
    return said.say(Msg("turn {turn}: {step}", turn=game.state.turn_number, step=next_step(game.state, lang)))


def look_lines(view: SeatView, since: int, lang: str = "en") -> list[str]:
    """What the view's seat's Witch saw in the entries from ``since`` on (R5.6), in words and in
    its language, with where each rat is now: for that seat's eyes only, from its own view
    (P10: never another seat's look, never a face it did not see)."""
    said = translator(lang)
    state = view.game.state
    where = {t: r for r, tokens in state.rats.items() for t in tokens} if state is not None else {}
    lines = []
    for look in view.looks:
        if look.seq < since:
            continue
        face = face_text(view.game, look.token_id, lang)
        if look.token in where:
            lines.append(said.say(Msg("Your Witch saw rat {token} (now in {region}): {face_id}, {face} (R5.6).",
                                      token=look.token, region=region_word(view.game, where[look.token]),
                                      face_id=look.token_id, face=face)))
        else:
            lines.append(said.say(Msg("Your Witch saw rat {token}: {face_id}, {face} (R5.6).", token=look.token,
                                      face_id=look.token_id, face=face)))
    return lines


def final_round_lines(game: Game, lang: str = "en", room: int = 30, since: int | None = None) -> list[str]:
    """How a game ended, as the last page of its story: the entries from the one that met the
    end condition (R6.1) through the final round (R6.2) (from entry ``since``, if earlier), in
    words, in at most ``room`` lines (the rest one 'history' away); none before the end."""
    start = next((e.seq for e in reversed(game.entries) if isinstance(e, Played | Standin)
                  and any(isinstance(ev, GameEnding) for ev in e.outcome)), None)
    if start is None or not game.over:
        return []
    ended, start = start, start if since is None else min(start, since)
    lines = [line for entry in game.entries[start:] if not isinstance(entry, Reveal)
             for line in entry_lines(game, entry, lang)]
    if len(lines) > room:  # how the end came and how it finished kept; the middle one 'history' away
        said = translator(lang)
        kept = _with_the_ending(game, ended, lines, room // 2, room - room // 2 - 1, lang)
        tail = room - len(kept) - 1
        lines = [*kept, "  " + said.say(Msg.plural(
            "({n} line more here: send 'history' for the whole game)",
            "({n} lines more here: send 'history' for the whole game)", len(lines) - len(kept) - tail)),
            *lines[-tail:]]
    return lines


def _with_the_ending(game: Game, ended: int, lines: list[str], head: int, tail: int, lang: str) -> list[str]:
    """The first ``head`` lines of the end's story, and always the line saying why the game ends
    (R6.1), however many lines of that turn come before it (a long outbreak's flips), unless the
    last ``tail`` lines, which the page keeps, hold it."""
    ending = next(ev for ev in game.entries[ended].outcome if isinstance(ev, GameEnding))  # entry ``ended`` met it
    told = event_lines(game, [ending], lang)
    at = next((i for i, line in enumerate(lines) if told and told[0].strip() in line), 0)
    if at < head or at >= len(lines) - tail:
        return lines[:head]
    return [*lines[:head - 1], lines[at]]


def result_lines(game: Game, lang: str = "en") -> list[str]:
    """The final scores and the winner, with how a tie was broken (R6.5); none before the end."""
    if game.state is None or not game.over:
        return []
    said = translator(lang)
    scores = game.state.scores()
    best = winner(game.state)
    tied = [p for p in game.players if scores[p] == scores[best] and p != best]
    if tied:
        why = Msg("{winner} wins the tie with {tied} on {score}: a tie goes to whoever "
                  "would have played soonest after the last turn (R6.5).", winner=best, tied=", ".join(tied),
                  score=scores[best])
    else:
        why = Msg("{winner} wins with the highest score, {score} (R6.5).", winner=best, score=scores[best])
    return [said.say(Msg("Final scores: {scores}.", scores=", ".join(f"{p} {scores[p]}" for p in game.players))),
            said.say(why)]
