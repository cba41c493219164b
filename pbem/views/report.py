"""The public report of what an accepted step added, as lines (the CLI prints them,
the mail host sends them to every player)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pbem.log.game import Game
from pbem.views.text import describe_event, next_step, opening_line, trust_lines


def report_lines(
    game: Game, entries: Sequence[dict[str, Any]], private: Sequence[Path] = (), private_hint: bool = True
) -> list[str]:
    """What ``pbem apply`` prints: the new entries, then what comes next.

    With ``private_hint`` the host is told where a Witch's private reveal was
    written (the CLI); a mail to every player leaves that out.
    """
    lines: list[str] = []
    for entry in entries:
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
        for path in private:
            lines.append(
                f"private reveal for {path.stem} written to {path} (send it to {path.stem} only)"
            )
    if game.state is not None:
        lines.append(f"next: {next_step(game.state)}")
    else:
        lines.append(f"next: {opening_line(game)}")
    lines.append(f"log now ends at entry {game.last_seq} ({game.last_hash[:16]})")
    lines.extend(trust_lines(game))
    return lines
