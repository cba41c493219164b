"""The host's bot seats: a seat's view from the game folder, its
decision as a move, and the host's thinking time.

A bot seat is named in entry 0 (``options.bots``: seat -> level), so every
reader knows the host holds it (pbem.views.trust.notices says so in every verdict).
The host's step (:mod:`pbem.host.step`) plays it at once after each recorded entry,
as ordinary moves of that seat, admitted by the referee: a bot's view is the public
log plus the seat's own private file (``private/SEAT.yaml``, its Witch looks), never
the secret.  A look is applied on its own, the private file written, and the bot asked
again with the look learnt (R5.6).  A bot's move is deterministic: its random stream
is seeded from the log's last hash and the seat.

P4: a bot seat's nonce is made by the host, as a hash of the game's secret and
the seat: it adds no fairness (the host chose it), which is why the trust
model's rule that the host holds no seat is said to be broken in every output.

:func:`bot_move` is also ``pbem bot``'s: a player's own tool, a bot's suggestion for a seat.
"""

from __future__ import annotations

import random
import secrets
from pathlib import Path
from typing import Any

from pbem.bots import DEFAULT_SECONDS
from pbem.bots.knowledge import Knowledge, from_view
from pbem.errors import StateError, UnknownError
from pbem.fair import protocol
from pbem.host.private import seat_view
from pbem.host.secret import read_secret
from pbem.host.settings import load_settings
from pbem.i18n import Msg
from pbem.log.game import Game, Opening
from pbem.log.moves import after_of, parse_move
from pbem.log.records import TurnMove
from pbem.log.records.sent import MoveFile
from pbem.log.yamlio import dump_yaml
from pbem.player.nonces import commit_move, reveal_move


def seat_knowledge(path: Path, game: Game, player: str) -> Knowledge:
    """The seat's knowledge: the log's reveals and its own private file, nothing else."""
    return from_view(seat_view(path, game, player))


def bot_move(path: Path, game: Game, player: str, level: str, seconds: float = DEFAULT_SECONDS,
             rng: random.Random | None = None) -> dict[str, Any]:
    """``player``'s next move (a move file's data) by a bot of ``level``, from the seat's view."""
    if player not in game.players:
        raise UnknownError(Msg("{player} is not a player in game {game}", player=repr(player), game=repr(game.game_id)),
                           "R2.1")
    if game.state is None:
        raise StateError(Msg("the game has not started: each seat first commits to a nonce (pbem nonce, P4)"), "P4")
    if game.state.to_move != player:
        if game.state.to_move is None:
            raise StateError(Msg("{player} is not to move: the game is over (R3)", player=player), "R3")
        raise StateError(Msg("{player} is not to move: it is {seat}'s turn (R3)", player=player,
                             seat=game.state.to_move), "R3")
    from pbem.bots.levels import make_bot  # start-up speed: only a bot's decision loads the bots

    bot = make_bot(level, rng or random.Random(secrets.randbits(64)), seconds)
    actions = bot.choose(game.state, seat_knowledge(path, game, player))
    return TurnMove.write(game.game_id, player, after_of(game), [a.to_dict() for a in actions]).to_raw()


def bot_nonce(secret: bytes, player: str) -> bytes:
    """P4: a bot seat's nonce, made by the host (see the module's note)."""
    return bytes.fromhex(protocol.sha256_hex(b"pbem bot nonce\0" + secret + player.encode()))


def next_bot_move(path: Path, game: Game, seconds: float) -> MoveFile | None:
    """The next bot seat's decision, as a move for the referee; None when a human seat is
    awaited (or nobody: the game is over)."""
    data = _next_data(path, game, seconds)
    return None if data is None else parse_move(dump_yaml(data).encode(), "bot move")


def _next_data(path: Path, game: Game, seconds: float) -> dict[str, Any] | None:
    opening = game.opening
    if opening in (Opening.COMMIT, Opening.REVEAL):
        for player in game.awaited:
            if player in game.bots:
                nonce = bot_nonce(read_secret(path)[0], player)
                return (commit_move if opening is Opening.COMMIT else reveal_move)(game, player, nonce)
        return None
    to_move = game.to_move
    if to_move is None or to_move not in game.bots:
        return None
    seed = int(protocol.sha256_hex(f"{game.last_hash}/{to_move}".encode())[:16], 16)
    return bot_move(path, game, to_move, game.bots[to_move], seconds, random.Random(seed))


def bot_seconds(path: Path) -> float:
    """The bot seats' thinking time per decision: the host's (``pbem new --bot-seconds``,
    host.yaml) or the default.  Read before an entry is written, so that a damaged host.yaml
    refuses the input instead of failing after it."""
    return load_settings(path).bot_seconds or DEFAULT_SECONDS
