"""Shared helpers for the deadline tests (R8): a game with a deadline, moves at chosen times, a
log with a timeout in it."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from clitools import ok

from pbem.bots.randombot import bot_actions
from pbem.host.create import NewGame, create
from pbem.host.games import apply_move, load_game
from pbem.host.settings import Settings, save_settings
from pbem.log.clock import at_of, pinned, seconds
from pbem.log.game import Game
from pbem.log.logfile import LOG_NAME, read_docs
from pbem.log.moves import after_of, parse_move
from pbem.log.yamlio import dump_yaml
from pbem.referee.deadlines import parse_duration
from pbem.sim.demo import open_game

PLAYERS = ("red", "green", "blue", "yellow")


T0 = "2026-12-01T09:00:00Z"


HOUR = 3600


def at(hours: float) -> str:
    return at_of(seconds(T0) + int(hours * HOUR))


def new_game(games: Path, deadline: str = "72h", reminder: str | None = "24h", emails: bool = False,
             absence: int | None = None) -> Game:
    """A started game of four seats, red first, made at T0 (``absence``: each seat's allowance
    in days, R8.5)."""
    with pinned(T0):
        create(games, NewGame("g", PLAYERS, first="red", secret=bytes(range(32)),
                              deadline=parse_duration(deadline, "--deadline"),
                              reminder=parse_duration(reminder, "--reminder") if reminder else None,
                              absence=absence))
        if emails:
            save_settings(games / "g", Settings({p: f"{p}@example.org" for p in PLAYERS}, None, "host@example.org"))
        return open_game(games, "g", {p: bytes([i + 1]) * 16 for i, p in enumerate(PLAYERS)})


def move(games: Path, game: Game, when: str, actions: list[Any] | None = None, seed: int = 0) -> Game:
    assert game.state is not None
    player = game.to_move
    chosen = actions if actions is not None else bot_actions(game.state, random.Random(seed))
    data = {"game": game.game_id, "player": player, "kind": "move", "after": after_of(game),
            "actions": [a.to_dict() for a in chosen]}
    with pinned(when):
        return apply_move(games, parse_move(dump_yaml(data).encode())).game


def timed_out_log(tmp_path: Path) -> list[dict[str, Any]]:
    new_game(tmp_path / "games")
    ok("tick", "--now", at(72), "--games", tmp_path / "games")
    entries, _ = read_docs(tmp_path / "games" / "g" / LOG_NAME)
    assert entries[-1]["kind"] == "timeout"
    return entries


def away(games: Path, game: Game, player: str, when: str, days: int) -> Game:
    """``player`` declares ``days`` of absence (R8.5), recorded at ``when``."""
    data = {"game": game.game_id, "player": player, "kind": "away", "after": after_of(game), "days": days}
    with pinned(when):
        return apply_move(games, parse_move(dump_yaml(data).encode())).game


def moved_past_absences(games: Path) -> Path:
    """R8.5: green and blue go away during red's turn, then red's move written before both is
    recorded (another seat's absence leaves a move fresh); the log's path."""
    game = new_game(games, absence=7)
    written = after_of(game)
    away(games, game, "green", at(1), 2)
    away(games, load_game(games / "g"), "blue", at(2), 1)
    assert game.state is not None
    data = {"game": "g", "player": "red", "kind": "move", "after": written,
            "actions": [a.to_dict() for a in bot_actions(game.state, random.Random(0))]}
    with pinned(at(3)):
        apply_move(games, parse_move(dump_yaml(data).encode()))
    return games / "g" / LOG_NAME
