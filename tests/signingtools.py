"""Shared helpers for the signing tests (P8): a game with keys, and a signed commitment file."""

from __future__ import annotations

from pathlib import Path

import pytest
from clitools import ok


@pytest.fixture()
def keys(tmp_path: Path) -> Path:
    for name in ("host", "red", "blue", "mallory"):
        ok("keygen", "--out", tmp_path / f"{name}.key")
    return tmp_path


def commit_file(games: Path, game_id: str, player: str, folder: Path) -> Path:
    """P4 round 1: the commitment move `pbem nonce` writes (the nonce is kept in ``folder``)."""
    out = folder / f"{player}-commit.yaml"
    ok("nonce", game_id, "--player", player, "--keep", folder / f"nonce-{game_id}-{player}.yaml",
       "--out", out, "--games", games)
    return out


def new_signed_game(keys: Path, host_key: bool = True) -> Path:
    games = keys / "games"
    args: list[str | Path] = ["new", "g", "--players", "red,blue", "--first", "red", "--games", games,
            "--seat-key", f"red={keys / 'red.key.pub'}"]
    if host_key:
        args += ["--host-key", keys / "host.key"]
    ok(*args)
    return games
