"""Shared helpers for the one-history tests (P9): a signed game, a forked copy of it, and a
refusal's words."""

from __future__ import annotations

import random
import shutil
from pathlib import Path
from typing import Any

import pytest
from clitools import cli, ok

from pbem.bots.randombot import bot_actions
from pbem.errors import Exit
from pbem.host.games import load_game
from pbem.log.logfile import LOG_NAME
from pbem.log.notation_write import action_line
from pbem.rules import action_from_dict

GAME = "h1"


def new_game(games: Path, *new_args: str | Path) -> Path:
    """A started 2-player game (red, blue) in ``games``; returns its log.

    The one place that knows how a game starts (P4): the host waives both seats'
    nonces, and the last waiver starts the game."""
    ok("new", GAME, "--players", "red,blue", "--first", "red", "--games", games, *new_args)
    ok("waive", GAME, "--player", "red", "--games", games)
    ok("waive", GAME, "--player", "blue", "--games", games)
    return games / GAME / LOG_NAME


def play(games: Path, moves: int, rng: random.Random) -> None:
    """``moves`` bot moves, each through `pbem template` and `pbem apply`."""
    for _ in range(moves):
        apply_actions(games, bot_actions_now(games, rng))


def bot_actions_now(games: Path, rng: random.Random) -> list[dict[str, Any]]:
    game = load_game(games / GAME)
    assert game.state is not None and game.state.to_move is not None, "the game is over"
    return [a.to_dict() for a in bot_actions(game.state, rng)]


def apply_actions(games: Path, actions: list[dict[str, Any]]) -> None:
    path = games.parent / f"{games.name}-move.yaml"
    path.unlink(missing_ok=True)
    ok("template", GAME, "--out", path, "--games", games)
    lines = "".join(action_line(action_from_dict(a)) + "\n" for a in actions)
    path.write_text(path.read_text() + lines)  # the notation
    ok("apply", path, "--games", games)


def extends(new: Path, old: Path) -> tuple[int, str, str]:
    """`pbem verify NEW --extends OLD`: exit code, stdout, stderr."""
    result = cli("verify", new, "--extends", old)
    return result.exit_code, result.stdout, result.stderr


def refused(new: Path, old: Path) -> tuple[str, str]:
    """NEW verifies on its own, but not as a continuation of OLD: exit 7, naming P9."""
    ok("verify", new)
    code, out, err = extends(new, old)
    assert code == Exit.TAMPERED, (code, out, err)
    assert err.startswith("pbem: log does not verify (P9): "), err
    assert len(err.strip().splitlines()) == 1, err  # one paragraph
    return out, err


@pytest.fixture()
def forked(tmp_path: Path) -> tuple[Path, Path, str]:
    """A host-signed game played a few moves, copied, then a different legal move
    applied in each copy: the host signed two entries for one position."""
    ok("keygen", "--out", tmp_path / "host.key")
    a, b = tmp_path / "a", tmp_path / "b"
    new_game(a, "--host-key", tmp_path / "host.key")
    play(a, 3, random.Random(3))
    shutil.copytree(a, b)
    rng = random.Random(4)
    first = bot_actions_now(a, rng)
    second = next(x for x in (bot_actions_now(b, rng) for _ in range(200)) if x != first)
    apply_actions(a, first)
    apply_actions(b, second)
    host = (tmp_path / "host.key.pub").read_text().strip()
    return a / GAME / LOG_NAME, b / GAME / LOG_NAME, host
