"""One log entry in plain words: the narration `pbem apply`'s report, `pbem history`
and the `pbem html` page all share.

Built from the public entry alone (its outcome's events, each told by
:func:`pbem.views.text.describe_event`); a face appears only where the log itself has
revealed it (a flip, P6), never one still hidden (P10).
"""

from __future__ import annotations

from typing import Any

from pbem.log.game import Game
from pbem.rules import action_from_dict
from pbem.views.text import describe_action, describe_event, next_step, opening_line


def entry_lines(game: Game, entry: dict[str, Any]) -> list[str]:
    """``entry`` as a headline and, for a move, one indented line per event.

    ``game`` only names the regions (the map of entry 0), so it may be the game as of
    any entry of the same log.
    """
    seq, kind = entry["seq"], entry["kind"]
    player = entry.get("player")
    if kind == "create":
        return [f"entry {seq}: the host creates game {entry['game']} for {', '.join(entry['players'])} "
                "and commits to a secret (P3)"]
    if kind == "move":
        lines = [f"entry {seq}: {player}'s move accepted"]
        lines.extend(f"  {describe_event(game, e)}" for e in entry["outcome"] if e["event"] != "turn_started")
        return lines
    if kind == "commit":
        return [f"entry {seq}: {player}'s nonce commitment recorded (P4)"]
    if kind == "nonce":
        return [f"entry {seq}: {player}'s nonce revealed; it matches the commitment (P4)"]
    if kind == "waive":
        return [f"entry {seq}: the host waived {player}'s nonce (P4)"]
    if kind == "abandon":
        return [f"entry {seq}: the host abandoned the game before its start (P4)"]
    if kind == "start":
        setup = entry["setup"]
        return [f"entry {seq}: the game starts; first player {setup['first_player']}, "
                f"plague in {game.board.name_of(setup['plague'])}"]
    if kind == "reveal":
        return [f"entry {seq}: the secret is revealed; anyone can now run 'pbem audit'"]
    if kind == "resign":
        return [f"entry {seq} ({_when(entry)}): {player} resigns; from now on the stand-in "
                "rule plays the seat at once, and its cubes stay and count (R8.4)"]
    if kind == "replace":
        key = " with a new key (P8)" if entry.get("key") else " (moves unsigned)"
        return [f"entry {seq} ({_when(entry)}): the host hands {player}'s seat to a new "
                f"player{key}; cubes, cards and turn order stay (R8.4)"]
    if kind in ("timeout", "standin"):
        return _standin_lines(game, entry)
    return [f"entry {seq}: {kind}"]


def _when(entry: dict[str, Any]) -> str:
    return str(entry.get("at", "")).replace("T", " ").replace("Z", " UTC")


def _standin_lines(game: Game, entry: dict[str, Any]) -> list[str]:
    """A turn the stand-in rule played (R8.3): a timeout (R8.2) or a resigned seat (R8.4)."""
    player = entry["player"]
    why = (f"{player}'s deadline passed ({_when({'at': entry['due']})}): timeout (R8.2)"
           if entry["kind"] == "timeout" else f"{player} resigned (R8.4)")
    done = [describe_action(game, action_from_dict(a)) for a in entry["actions"] if a["action"] != "end"]
    lines = [f"entry {entry['seq']} ({_when(entry)}): {why}; the stand-in rule (R8.3) played the turn",
             "  the stand-in: " + ("; ".join(done) if done else "does nothing (R8.3)")]
    lines.extend(f"  {describe_event(game, e)}" for e in entry["outcome"] if e["event"] != "turn_started")
    return lines


def status_line(game: Game) -> str:
    """Where the game stands after its last entry, in a sentence."""
    if game.state is None:
        return opening_line(game)
    if game.over:
        scores = game.state.scores()
        revealed = "; the secret is revealed" if game.secret is not None else "; the host reveals the secret next"
        return "the game is over: " + ", ".join(f"{p} {scores[p]}" for p in game.players) + revealed
    return f"turn {game.state.turn_number}: {next_step(game.state)}"
