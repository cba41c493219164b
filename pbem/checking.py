"""`pbem check`: the host's verdict on a move, offline, from the public log alone (P10).

It asks the same referee the host asks (``pbem.referee``), in the same order,
so every refusal is the host's word for word.  What only the host can add is
the resolution with the faces, which never refuses.
"""

from __future__ import annotations

from pathlib import Path

from pbem import referee
from pbem.logfile import read_log
from pbem.owed import owed
from pbem.replay import replay
from pbem.yamlio import MOVE_LIMIT, read_limited


def check_move(move_file: Path, log: Path) -> list[str]:
    """The referee's verdict on ``move_file`` against ``log``; refusals raise."""
    move = referee.read(read_limited(move_file, MOVE_LIMIT, "move file"), f"move file {move_file.name}")
    entries, hashes = read_log(log)
    game = replay(entries, hashes)
    verdict = referee.judge(game, move)
    if move.kind == "commit":
        return [f"ok: {move.player}'s nonce commitment would be recorded (P4); keep your nonce secret "
                "until every seat has committed"]
    if move.kind == "nonce":
        return [f"ok: {move.player}'s nonce matches the commitment and would be recorded (P4)"]
    head = f"ok: the host would accept all {len(verdict.actions)} action(s) against entry {game.last_seq} (P10)"
    if verdict.complete or verdict.state is None:
        return [head, "the turn is complete: mail it"]
    return [head, f"the turn is not finished: {owed(verdict.state, move.player, game.board.name_of)}; "
                  "add those lines, or mail this and send the rest in another move file"]
