"""A player's side of the opening (PROTOCOL.md P4): make a nonce, commit to it, reveal it.

``pbem nonce GAME --player P`` makes 32 random bytes, keeps them in a local
file (mode 0600, never sent) and writes the commitment move; once every seat
has committed, ``pbem nonce GAME --player P --reveal`` writes the move that
reveals the kept nonce.  Nothing here reads a secret of the host.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path
from typing import Any

from pbem.errors import FormatError, StateError, TamperError, UnknownError
from pbem.fair import protocol
from pbem.files import read_limited
from pbem.i18n import Msg
from pbem.log.game import Game
from pbem.log.moves import after_of
from pbem.log.records import CommitMove, NonceMove, Start
from pbem.log.yamlio import decode, dump_yaml, load_one

NONCE_BYTES = 32


def keep_path(game_id: str, player: str, folder: Path) -> Path:
    """Where a player keeps their nonce by default: ``nonce-GAME-PLAYER.yaml``."""
    return folder / f"nonce-{game_id}-{player}.yaml"


def commit_move(game: Game, player: str, nonce: bytes) -> dict[str, Any]:
    """P4 round 1: the move that records ``H(tag || nonce)``; answers entry 0 (P7)."""
    return CommitMove.write(game.game_id, player, after_of(game, opening=True),
                            protocol.nonce_commitment(nonce)).to_raw()


def reveal_move(game: Game, player: str, nonce: bytes) -> dict[str, Any]:
    """P4 round 2: the move that reveals the nonce; answers entry 0 (P7)."""
    return NonceMove.write(game.game_id, player, after_of(game, opening=True), nonce.hex()).to_raw()


def keep(path: Path, game: Game, player: str) -> bytes:
    """A new nonce, written to ``path`` (mode 0600); refuses to replace a kept one."""
    nonce = secrets.token_bytes(NONCE_BYTES)
    text = (
        "# Your nonce for the game's seed (PROTOCOL P4). Keep this file to yourself until\n"
        "# every seat has committed; then 'pbem nonce ... --reveal' sends the nonce itself.\n"
        + dump_yaml({"game": game.game_id, "player": player, "entry0": game.hashes[0], "nonce": nonce.hex()})
    )
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        raise StateError(
            Msg("{path} already holds a nonce for this game: a commitment cannot be changed (P4); "
                "use --reveal to send it, or --keep to name another file", path=str(path)), "P4",
        ) from None
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(text)
    return nonce


def _read_kept(path: Path) -> dict[str, Any]:
    if not path.exists():
        raise UnknownError(Msg("no kept nonce at {path}: run 'pbem nonce' without --reveal first", path=str(path)),
                           "P4")
    data = load_one(decode(read_limited(path, 4096, Msg("nonce file")), str(path)), str(path))
    if not isinstance(data, dict) or not all(isinstance(data.get(k), str) for k in ("game", "player", "nonce")):
        raise FormatError(Msg("{path} is not a nonce file written by 'pbem nonce'", path=str(path)), "P4")
    return data


def kept(path: Path, game: Game, player: str) -> bytes:
    """The nonce kept in ``path`` for this game (entry 0) and player."""
    data = _read_kept(path)
    if data.get("game") != game.game_id or data.get("player") != player or data.get("entry0") != game.hashes[0]:
        raise StateError(
            Msg("{path} holds a nonce for {player} in another game (or another entry 0 "
                "of game {game}: the game was created again)", path=str(path), player=repr(data.get("player")),
                game=repr(game.game_id)), "P4",
        )
    try:
        return bytes.fromhex(data["nonce"])
    except ValueError:
        raise FormatError(Msg("{path}: the nonce is not hex", path=str(path)), "P4") from None


def check_kept(path: Path, game: Game) -> str:
    """P4, a player's own check: did the start entry use exactly the nonce kept in ``path``?

    Returns the sentence saying so; raises TamperError when it used another nonce for that
    seat, or none (a host may record nonces of its own for an unsigned seat: only the
    player's kept file shows it)."""
    player = str(_read_kept(path)["player"])
    nonce = kept(path, game, player).hex()
    start = next((e for e in game.entries if isinstance(e, Start)), None)
    if start is None:
        raise StateError(Msg("the game has not started: {player}'s nonce is checked against the start entry, "
                             "which comes after the last reveal", player=player), "P4")
    used = start.nonces.get(player, "")
    if used != nonce:
        params = {"seq": start.seq, "player": player, "file": path.name, "kept": nonce[:16]}
        raise TamperError(
            Msg("entry {seq}: the start used no nonce (the seat was waived) for {player}, not the nonce {player} "
                "kept in {file} ({kept}...): this seed is not the one {player}'s nonce was to make", **params)
            if not used else
            Msg("entry {seq}: the start used the nonce {used}... for {player}, not the nonce {player} kept in "
                "{file} ({kept}...): this seed is not the one {player}'s nonce was to make", used=used[:16],
                **params), "P4",
        )
    return Msg("the start (entry {seq}) used exactly the nonce {player} kept in {file} (P4)", seq=start.seq,
               player=player, file=path.name)
