"""One log entry in plain words: the narration `pbem apply`'s report, `pbem history`
and the `pbem html` page all share.

Built from the public entry alone (its outcome's events, each told by
:func:`pbem.views.text.describe_event`); a face appears only where the log itself has
revealed it (a flip, P6), never one still hidden (P10).
"""

from __future__ import annotations

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
)
from pbem.rules import action_from_dict
from pbem.views.text import describe_action, describe_event, next_step, opening_line


def entry_lines(game: Game, entry: Entry, lang: str = "en") -> list[str]:
    """``entry`` as a headline and, for a move, one indented line per event.

    ``game`` only names the regions (the map of entry 0), so it may be the game as of
    any entry of the same log.
    """
    seq, player, raw = entry.seq, entry.player, entry.raw
    match entry:
        case Create():
            return [f"entry {seq}: the host creates game {raw['game']} for {', '.join(raw['players'])} "
                    "and commits to a secret (P3)"]
        case Move():
            lines = [f"entry {seq}: {player}'s move accepted"]
            lines.extend(f"  {describe_event(game, e)}" for e in entry.outcome if e["event"] != "turn_started")
            return lines
        case Commit():
            return [f"entry {seq}: {player}'s nonce commitment recorded (P4)"]
        case Nonce():
            return [f"entry {seq}: {player}'s nonce revealed; it matches the commitment (P4)"]
        case Waive():
            return [f"entry {seq}: the host waived {player}'s nonce (P4)"]
        case Abandon():
            return [f"entry {seq}: the host abandoned the game before its start (P4)"]
        case Start():
            setup = raw["setup"]
            return [f"entry {seq}: the game starts; first player {setup['first_player']}, "
                    f"plague in {game.board.name_of(setup['plague'])}"]
        case Reveal():
            return [f"entry {seq}: the secret is revealed; anyone can now run 'pbem audit'"]
        case Resign():
            return [f"entry {seq} ({_when(entry.at)}): {player} resigns; from now on the stand-in "
                    "rule plays the seat at once, and its cubes stay and count (R8.4)"]
        case Replace():
            key = " with a new key (P8)" if entry.key else " (moves unsigned)"
            return [f"entry {seq} ({_when(entry.at)}): the host hands {player}'s seat to a new "
                    f"player{key}; cubes, cards and turn order stay (R8.4)"]
        case Standin():
            return _standin_lines(game, entry)
    return [f"entry {seq}: {type(entry).__name__}"]  # pragma: no cover - every record is told above


def _when(at: str) -> str:
    return at.replace("T", " ").replace("Z", " UTC")


def _standin_lines(game: Game, entry: Standin) -> list[str]:
    """A turn the stand-in rule played (R8.3): a timeout (R8.2) or a resigned seat (R8.4)."""
    player = entry.player
    why = (f"{player}'s deadline passed ({_when(entry.due)}): timeout (R8.2)"
           if isinstance(entry, Timeout) else f"{player} resigned (R8.4)")
    done = [describe_action(game, action_from_dict(a)) for a in entry.actions if a["action"] != "end"]
    lines = [f"entry {entry.seq} ({_when(entry.at)}): {why}; the stand-in rule (R8.3) played the turn",
             "  the stand-in: " + ("; ".join(done) if done else "does nothing (R8.3)")]
    lines.extend(f"  {describe_event(game, e)}" for e in entry.outcome if e["event"] != "turn_started")
    return lines


def status_line(game: Game, lang: str = "en") -> str:
    """Where the game stands after its last entry, in a sentence."""
    if game.state is None:
        return opening_line(game)
    if game.over:
        scores = game.state.scores()
        revealed = "; the secret is revealed" if game.secret is not None else "; the host reveals the secret next"
        return "the game is over: " + ", ".join(f"{p} {scores[p]}" for p in game.players) + revealed
    return f"turn {game.state.turn_number}: {next_step(game.state)}"
