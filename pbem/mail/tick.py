"""`pbem tick`: deadlines kept by the clock, safe to run from cron as often as one likes.

For each game in the games folder whose deadline runs (R8.1):

* when the deadline of the player to move has passed, a **timeout** entry is
  recorded, whose turn the stand-in rule plays (R8.2, R8.3; ``pbem.host.games.timeout``),
  and every player is mailed what the stand-in did, the player now to move with
  their template;
* when the reminder time of the current turn has come, the player to move is
  reminded, once.

Mail goes through the mail host's durable outbox (``GAMES/+mail-queue``, delivered
by ``pbem mail`` or ``pbem mail --flush``).  What was queued is recorded per game in
``mail-notices.txt`` (``remind SEQ`` for the turn begun at entry SEQ, ``notice SEQ``
for the timeout or stand-in entry SEQ), under the game's lock, so a second run at
the same moment changes nothing, and a run stopped between recording a timeout and
queueing its notice queues it next time.
"""

from __future__ import annotations

from pathlib import Path

from pbem.host.index import open_index
from pbem.log.clock import now
from pbem.mail.notices import NOTICES_NAME, Tick, notices_sent

__all__ = ["NOTICES_NAME", "Tick", "notices_sent", "tick"]


def tick(games: Path, from_address: str | None = None) -> Tick:
    """One pass over the games whose reminder or deadline has come, as the host's index
    (:mod:`pbem.host.index`) says, or over every game where no index can be kept (one game's
    trouble stops no other game's deadlines)."""
    result = Tick()
    if not games.is_dir():
        return result
    index = open_index(games)
    try:
        if index is not None:
            index.sync()
            folders: list[Path] | None = [games / game_id for game_id in index.due(now())]
            if not folders:
                return result
        else:
            folders = None
        from pbem.mail.deadlinemail import tick_games  # start-up speed: a tick with nothing due loads no mail code

        tick_games(games, folders, from_address, result, index)
    finally:
        if index is not None:
            index.db.close()
    return result
