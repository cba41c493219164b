"""One log entry in plain words: the narration `pbem apply`'s report, `pbem history`
and the `pbem html` page all share.

Built from the public entry alone (its outcome's events, each told by
:func:`pbem.views.text.describe_event`); a face appears only where the log itself has
revealed it (a flip, P6), never one still hidden (P10).
"""

from __future__ import annotations

from typing import assert_never

from pbem.i18n import Msg, translator
from pbem.log.game import Game
from pbem.log.records import (
    Abandon,
    Commit,
    Create,
    Entry,
    Move,
    Nonce,
    Replace,
    Resign,
    Reveal,
    Standin,
    Start,
    Timeout,
    Waive,
    kinded,
)
from pbem.rules import action_from_dict
from pbem.rules.events import TurnStarted
from pbem.views.text import describe_action, describe_event, next_step, opening_line, region_word


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
        case Move():
            lines = [said.say(Msg("entry {seq}: {player}'s move accepted", seq=seq, player=player))]
            lines.extend(f"  {describe_event(game, e, lang)}" for e in entry.outcome if not isinstance(e, TurnStarted))
            return lines
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


def _when(at: str) -> str:
    return at.replace("T", " ").replace("Z", " UTC")


def _standin_lines(game: Game, entry: Standin, lang: str = "en") -> list[str]:
    """A turn the stand-in rule played (R8.3): a timeout (R8.2) or a resigned seat (R8.4)."""
    said = translator(lang)
    player, seq, at = entry.player, entry.seq, _when(entry.at)
    done = [describe_action(game, action_from_dict(a), lang) for a in entry.actions if a["action"] != "end"]
    if isinstance(entry, Timeout):
        head = Msg("entry {seq} ({at}): {player}'s deadline passed ({due}): timeout (R8.2); the stand-in rule (R8.3) "
                   "played the turn", seq=seq, at=at, player=player, due=_when(entry.due))
    else:
        head = Msg("entry {seq} ({at}): {player} resigned (R8.4); the stand-in rule (R8.3) played the turn",
                   seq=seq, at=at, player=player)
    listed = done[0] if done else ""
    for action in done[1:]:  # "a; b; c", with each language's own separator (Greek's is "·")
        listed = said.say(Msg("{actions}; {action}", actions=listed, action=action))
    did = Msg("the stand-in: {actions}", actions=listed) if done else Msg("the stand-in: does nothing (R8.3)")
    lines = [said.say(head), "  " + said.say(did)]
    lines.extend(f"  {describe_event(game, e, lang)}" for e in entry.outcome if not isinstance(e, TurnStarted))
    return lines


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
