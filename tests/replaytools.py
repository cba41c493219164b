"""Shared helpers for the cache tests: a game played by the host for some moves."""

from __future__ import annotations

import random
from pathlib import Path

from pbem.bots.randombot import bot_actions
from pbem.host.create import NewGame, create
from pbem.host.games import apply_move
from pbem.log.moves import read_move
from pbem.sim.demo import open_game, write_move

PLAYERS = ("red", "green", "blue", "yellow")


def _play(games: Path, moves: int) -> tuple[Path, Path]:
    """A 4-player game with ``moves`` whole turns played through the host; the game's folder
    and the next move file (written, not applied)."""
    path = create(games, NewGame("cached", PLAYERS, secret=bytes(range(32))))
    rng = random.Random(3)
    nonces = {p: bytes([k + 1]) * 16 for k, p in enumerate(PLAYERS)}
    folder = games.parent / f"{games.name}-moves"
    folder.mkdir()
    game = open_game(games, "cached", nonces)
    for n in range(moves + 1):
        assert game.state is not None and game.state.to_move is not None
        target = write_move(game, game.state.to_move, bot_actions(game.state, rng), folder, n)
        if n == moves:
            return path, target
        game = apply_move(games, read_move(target)).game
    raise AssertionError("unreachable")
