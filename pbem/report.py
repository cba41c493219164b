"""The public report of what an accepted step added, as lines (the CLI prints them,
the mail host sends them to every player)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pbem.owed import owed, unfinished
from pbem.view import describe_event, next_step, opening_line, trust_lines

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
        kind = entry["kind"]
        if kind == "move":
            lines.append(f"entry {entry['seq']}: {entry['player']}'s move accepted")
            for event in entry["outcome"]:
                if event["event"] != "turn_started":
                    lines.append(f"  {describe_event(game, event)}")
        elif kind == "commit":
            lines.append(f"entry {entry['seq']}: {entry['player']}'s nonce commitment recorded (P4)")
        elif kind == "nonce":
            lines.append(f"entry {entry['seq']}: {entry['player']}'s nonce revealed; it matches the commitment (P4)")
        elif kind == "waive":
            lines.append(f"entry {entry['seq']}: the host waived {entry['player']}'s nonce (P4)")
        elif kind == "abandon":
            lines.append(f"entry {entry['seq']}: the host abandoned the game before its start (P4)")
        elif kind == "start":
            setup = entry["setup"]
            lines.append(
                f"entry {entry['seq']}: the game starts; first player {setup['first_player']}, "
                f"plague in {game.board.name_of(setup['plague'])}"
            )
        elif kind == "reveal":
            lines.append(
                f"entry {entry['seq']}: the secret is revealed; anyone can now run 'pbem audit'"
            )
    if private_hint:
        for path in applied.private:
            lines.append(
                f"private reveal for {path.stem} written to {path} (send it to {path.stem} only)"
            )
    mover = applied.entries[-1].get("player") if applied.entries else None
    if game.state is not None and applied.entries[-1]["kind"] == "move" and isinstance(mover, str) \
            and unfinished(game.state, mover):
        lines.append(f"{mover}'s turn is not finished: {owed(game.state, mover, game.board.name_of)}")
    if game.state is not None:
        lines.append(f"next: {next_step(game.state)}")
    else:
        lines.append(f"next: {opening_line(game)}")
    lines.append(f"log now ends at entry {game.last_seq} ({game.last_hash[:16]})")
    lines.extend(trust_lines(game))
    return lines
