"""The public report of what an accepted step added, as lines (the CLI prints them,
the mail host sends them to every player)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from pbem.log.game import Game
from pbem.log.records import Entry, Move
from pbem.referee.deadlines import phrase
from pbem.referee.owed import owed, unfinished
from pbem.views.narrate import entry_lines
from pbem.views.text import next_step, opening_line, trust_lines


def report_lines(
    game: Game, entries: Sequence[Entry], private: Sequence[Path] = (), private_hint: bool = True,
    lang: str = "en",
) -> list[str]:
    """What ``pbem apply`` prints: the new entries, then what comes next.

    With ``private_hint`` the host is told where a Witch's private reveal was
    written (the CLI); a mail to every player leaves that out.
    """
    lines: list[str] = []
    for entry in entries:
        lines.extend(entry_lines(game, entry))
    if private_hint:
        for path in private:
            lines.append(
                f"private reveal for {path.stem} written to {path} (send it to {path.stem} only)"
            )
    mover = entries[-1].player if entries else None
    if game.state is not None and isinstance(entries[-1], Move) and isinstance(mover, str) \
            and unfinished(game.state, mover):
        lines.append(f"{mover}'s turn is not finished: {owed(game.state, mover, game.board.name_of)}")
    if game.state is not None:
        lines.append(f"next: {next_step(game.state)}")
        due = phrase(game)
        if due is not None:
            lines.append(f"deadline: {due} (R8.1)")
    else:
        lines.append(f"next: {opening_line(game)}")
    lines.append(f"log now ends at entry {game.last_seq} ({game.last_hash[:16]})")
    lines.extend(trust_lines(game))
    return lines
