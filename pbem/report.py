"""The public report of what an accepted step added, as lines (the CLI prints them,
the mail host sends them to every player)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pbem.game import Game
from pbem.view import describe_action, describe_event, next_step, opening_line, trust_lines

if TYPE_CHECKING:
    from pbem.host import Applied


def report_lines(applied: Applied, private_hint: bool = True) -> list[str]:
    """What ``pbem apply`` prints: the new entries, then what comes next.

    With ``private_hint`` the host is told where a Witch's private reveal was
    written (the CLI); a mail to every player leaves that out.
    """
    game = applied.game
    lines: list[str] = []
    for entry in applied.entries:
        lines.extend(entry_lines(game, entry))
    if private_hint:
        for path in applied.private:
            lines.append(
                f"private reveal for {path.stem} written to {path} (send it to {path.stem} only)"
            )
    if game.state is not None:
        lines.append(f"next: {next_step(game.state)}")
        from pbem.deadlines import phrase

        due = phrase(game)
        if due is not None:
            lines.append(f"deadline: {due} (R8.1)")
    else:
        lines.append(f"next: {opening_line(game)}")
    lines.append(f"log now ends at entry {game.last_seq} ({game.last_hash[:16]})")
    lines.extend(trust_lines(game))
    return lines


def _when(entry: dict[str, Any]) -> str:
    return str(entry.get("at", "")).replace("T", " ").replace("Z", " UTC")


def entry_lines(game: Game, entry: dict[str, Any]) -> list[str]:
    """One log entry narrated in plain words, its events indented (reports, mail, history).

    Built from the public entry alone (P10)."""
    kind, seq = entry["kind"], entry["seq"]
    lines: list[str] = []
    if kind == "move":
        lines.append(f"entry {seq}: {entry['player']}'s move accepted")
    elif kind == "commit":
        lines.append(f"entry {seq}: {entry['player']}'s nonce commitment recorded (P4)")
    elif kind == "nonce":
        lines.append(f"entry {seq}: {entry['player']}'s nonce revealed; it matches the commitment (P4)")
    elif kind == "waive":
        lines.append(f"entry {seq}: the host waived {entry['player']}'s nonce (P4)")
    elif kind == "abandon":
        lines.append(f"entry {seq}: the host abandoned the game before its start (P4)")
    elif kind == "start":
        setup = entry["setup"]
        lines.append(
            f"entry {seq}: the game starts; first player {setup['first_player']}, "
            f"plague in {game.board.name_of(setup['plague'])}"
        )
    elif kind == "reveal":
        lines.append(f"entry {seq}: the secret is revealed; anyone can now run 'pbem audit'")
    elif kind == "resign":
        lines.append(f"entry {seq} ({_when(entry)}): {entry['player']} resigns; from now on the stand-in "
                     "rule plays the seat at once, and its cubes stay and count (R8.4)")
    elif kind == "replace":
        key = " with a new key (P8)" if entry.get("key") else " (moves unsigned)"
        lines.append(f"entry {seq} ({_when(entry)}): the host hands {entry['player']}'s seat to a new "
                     f"player{key}; cubes, cards and turn order stay (R8.4)")
    elif kind in ("timeout", "standin"):
        why = (f"{entry['player']}'s deadline passed ({_when({'at': entry['due']})}): timeout (R8.2)"
               if kind == "timeout" else f"{entry['player']} resigned (R8.4)")
        lines.append(f"entry {seq} ({_when(entry)}): {why}; the stand-in rule (R8.3) played the turn")
        from pbem.rules import action_from_dict

        done = [describe_action(game, action_from_dict(a)) for a in entry["actions"] if a["action"] != "end"]
        lines.append("  the stand-in: " + ("; ".join(done) if done else "does nothing (R8.3)"))
    if kind in ("move", "timeout", "standin"):
        for event in entry["outcome"]:
            if event["event"] != "turn_started":
                lines.append(f"  {describe_event(game, event)}")
    return lines
