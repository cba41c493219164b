"""The players' private files: what a Witch saw, for that player's eyes only (R5.6, P6).

Each look is appended to ``private/PLAYER.yaml`` (mode 0600) with its face,
its salt and the commitment it opens, before the entry that caused it goes to
the log; :func:`read_private` shows a player their own looks up to an entry,
never one the log does not hold yet.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from pbem.fair.dealing import HostFaces
from pbem.files import read_limited, write_atomic
from pbem.i18n import Msg
from pbem.log.game import Game
from pbem.log.yamlio import decode, dump_yaml, load_stream
from pbem.referee.seatview import Look, SeatView, looks_of
from pbem.rules.events import Event, TokenLooked

PRIVATE_DIR = "private"


def read_private(path: Path, player: str, up_to: int) -> list[dict[str, Any]]:
    """A player's private reveals for entries up to ``up_to``.

    A reveal of a later entry can only be left by an apply that was killed
    between writing it and appending its entry (the log is written last): it
    never happened, so it is not shown, and the next write drops it.
    """
    target = path / PRIVATE_DIR / f"{player}.yaml"
    if not target.exists():
        return []
    what = Msg("private file")
    docs = load_stream(decode(read_limited(target, 1 << 20, what), what), what)
    return [d for d in docs if isinstance(d, dict) and isinstance(d.get("seq"), int) and d["seq"] <= up_to]


def seat_view(path: Path, game: Game, seat: str) -> SeatView:
    """What ``seat`` may see of the game in folder ``path``: the public game and its own
    Witch looks from its private file (each checked against its commitment, P6).  The one
    place a seat's private file is read for a view (tests/test_seatview.py)."""
    SeatView(game, seat)  # a seat that is not a player is refused before any file is read (R2.1)
    return SeatView(game, seat, looks_of(game, seat, read_private(path, seat, game.last_seq)))


def write_private(
    path: Path, game: Game, events: list[Event], faces: HostFaces | None, seq: int, before: int
) -> list[Path]:
    """R5.6, P6: a Witch's look goes to that player's private file only (before the log)."""
    looks = [e for e in events if isinstance(e, TokenLooked)]
    if not looks or faces is None:
        return []
    written = []
    folder = path / PRIVATE_DIR
    folder.mkdir(mode=0o700, exist_ok=True)
    os.chmod(folder, 0o700)
    for player in sorted({e.player for e in looks}):
        target = folder / f"{player}.yaml"
        docs = [dump_yaml(d) for d in read_private(path, player, before)]
        for look in (e for e in looks if e.player == player):
            token_id = faces.look(look.token)
            assert token_id is not None  # the host's faces know every token
            docs.append(dump_yaml(Look(seq, look.token, token_id, faces.salt(look.token)).doc(game)))
        write_atomic(target, "".join("---\n" + d for d in docs).encode(), 0o600)
        written.append(target)
    return written
