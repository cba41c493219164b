"""The board picture drawn once per entry (issue 21): every mail of an entry reuses it.

Drawing the board's PNG is most of what a mailed move costs the host (about 80-110 ms
here, for the report mails and each ``board`` command).  The picture of the game as of
its last entry is kept beside the log in ``board.cache``, under the entry's hash (the hash
of the whole public log up to it, P7), sealed by the host (:mod:`pbem.host.caches`: a
picture from other code, another key or another entry is drawn again).  Only the latest
entry's picture is kept.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from pbem.host.caches import read_sealed, write_sealed
from pbem.log.game import Game

PICTURE_NAME = "board.cache"
PICTURE_LIMIT = 4 << 20


def board_picture_of(game: Game, folder: Path, draw: Callable[[Game], bytes | None]) -> bytes | None:
    """The board as a PNG as of ``game``'s last entry: kept, or drawn by ``draw`` and kept."""
    key = game.last_hash.encode() + b"\n"
    kept = read_sealed(folder, PICTURE_NAME, PICTURE_LIMIT)
    if kept is not None and kept.startswith(key):
        return kept[len(key):]
    picture = draw(game)
    if picture is not None:
        write_sealed(folder, PICTURE_NAME, key + picture)
    return picture
