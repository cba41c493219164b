"""Bots on the real path: a seat's view from the game folder, its move as a move file,
and the host playing its bot seats (issue 13 items 1 and 3).

A bot seat is named in entry 0 (``options.bots``: seat -> level), so every
reader knows the host holds it (pbem.views.text.notices says so in every verdict).
The host plays it at once after each applied entry, as ordinary moves of that
seat through :func:`pbem.host.games.apply_move` (the referee, then the faces): a bot's
view is the public log plus the seat's own private file (``private/SEAT.yaml``,
its Witch looks), never the secret.  A look is applied on its own, the private
file written, and the bot asked again with the look learnt (R5.6).

P4: a bot seat's nonce is made by the host, as a hash of the game's secret and
the seat: it adds no fairness (the host chose it), which is why the trust
model's rule that the host holds no seat is said to be broken in every output.
"""

from __future__ import annotations

import random
import secrets
from pathlib import Path
from typing import Any

from pbem.bots import DEFAULT_SECONDS
from pbem.bots.knowledge import Knowledge, from_view
from pbem.errors import InternalError, PbemError, StaleError, StateError, UnknownError
from pbem.fair import protocol
from pbem.host.games import Applied, apply_move, game_dir
from pbem.host.private import seat_view
from pbem.host.secret import read_secret
from pbem.host.settings import load_settings
from pbem.log.game import Game, Opening
from pbem.log.moves import after_of, parse_move
from pbem.log.yamlio import dump_yaml
from pbem.player.nonces import commit_move, reveal_move

MAX_BOT_MOVES = 10_000


def seat_knowledge(path: Path, game: Game, player: str) -> Knowledge:
    """The seat's knowledge: the log's reveals and its own private file, nothing else."""
    return from_view(seat_view(path, game, player))


def bot_move(path: Path, game: Game, player: str, level: str, seconds: float = DEFAULT_SECONDS,
             rng: random.Random | None = None) -> dict[str, Any]:
    """``player``'s next move (a move file's data) by a bot of ``level``, from the seat's view."""
    if player not in game.players:
        raise UnknownError(f"{player!r} is not a player in game {game.game_id!r}", "R2.1")
    if game.state is None:
        raise StateError("the game has not started: each seat first commits to a nonce (pbem nonce, P4)", "P4")
    if game.state.to_move != player:
        whose = "the game is over" if game.state.to_move is None else f"it is {game.state.to_move}'s turn"
        raise StateError(f"{player} is not to move: {whose} (R3)", "R3")
    from pbem.bots.levels import make_bot  # start-up speed: a game without bot seats never loads a bot

    bot = make_bot(level, rng or random.Random(secrets.randbits(64)), seconds)
    actions = bot.choose(game.state, seat_knowledge(path, game, player))
    return {
        "game": game.game_id, "player": player, "kind": "move", "after": after_of(game),
        "actions": [a.to_dict() for a in actions],
    }


def bot_nonce(secret: bytes, player: str) -> bytes:
    """P4: a bot seat's nonce, made by the host (see the module's note)."""
    return bytes.fromhex(protocol.sha256_hex(b"pbem bot nonce\0" + secret + player.encode()))


def _next_bot_move(path: Path, game: Game, seconds: float) -> dict[str, Any] | None:
    opening = game.opening
    if opening in (Opening.COMMIT, Opening.REVEAL):
        for player in game.awaited:
            if player in game.bots:
                nonce = bot_nonce(read_secret(path)[0], player)
                return (commit_move if opening is Opening.COMMIT else reveal_move)(game, player, nonce)
        return None
    to_move = game.to_move()
    if to_move is None or to_move not in game.bots:
        return None
    player = to_move
    seed = int(protocol.sha256_hex(f"{game.last_hash}/{player}".encode())[:16], 16)
    return bot_move(path, game, player, game.bots[player], seconds, random.Random(seed))


def bot_seconds(path: Path) -> float:
    """The bot seats' thinking time per decision: the host's (``pbem new --bot-seconds``,
    host.yaml) or the default.  Read before a move is applied, so that a damaged host.yaml
    refuses the move instead of failing after it."""
    return load_settings(path).bot_seconds or DEFAULT_SECONDS


def play_bots(games: Path, game: Game, applied: list[Applied], seconds: float | None = None) -> list[Applied]:
    """After an applied entry: the host plays the bot seats until a human seat is awaited."""
    path = game_dir(games, game.game_id)
    seconds = bot_seconds(path) if seconds is None else seconds
    for _ in range(MAX_BOT_MOVES):
        data = _next_bot_move(path, game, seconds)
        if data is None:
            return applied
        try:
            done = apply_move(games, parse_move(dump_yaml(data).encode(), "bot move"))
        except StaleError:  # another process played this bot seat first
            return applied
        except PbemError as err:  # pragma: no cover - a bot's move refused would be a bug in pbem
            raise InternalError(f"the host's bot for {data['player']} made a move the "
                                f"referee refused ({err}); the moves before it are recorded") from err
        applied.append(done)
        game = done.game
    raise StateError("the bot seats did not hand the turn back", "R3")  # pragma: no cover


def apply_and_answer(games: Path, move: Any) -> Applied:
    """A submitted move applied by the host (``pbem apply``, ``pbem mail``), then the game's bot
    seats' answers until a human seat is awaited, as one :class:`Applied` (issue 13)."""
    seconds = bot_seconds(game_dir(games, move.game))  # before the move: nothing half done
    applied = apply_move(games, move)
    if not applied.game.bots:
        return applied
    steps = play_bots(games, applied.game, [applied], seconds)
    return Applied(
        [e for a in steps for e in a.entries], [e for a in steps for e in a.events],
        [p for a in steps for p in a.private], steps[-1].game,
    )
