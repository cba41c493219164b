"""`pbem demo`: random bots play a whole game the way mailed moves are played.

Every bot move is written as a move file from the public state only (the bot
sees no face), then read, checked and applied exactly like a mailed one; at
the end the host reveals the secret and the log is audited.
"""

from __future__ import annotations

import random
import secrets
import shlex
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from pbem.bots.randombot import bot_actions
from pbem.errors import StateError
from pbem.host.create import NewGame, create
from pbem.host.games import apply_move, game_dir, load_game, reveal
from pbem.i18n import Msg
from pbem.log.game import Game
from pbem.log.moves import after_of, parse_move, read_move
from pbem.log.records import TurnMove
from pbem.log.yamlio import dump_yaml
from pbem.player.nonces import commit_move, reveal_move
from pbem.referee.audit import audit
from pbem.rules import (
    Action,
    winner,
)
from pbem.sim.simulate import PLAYER_NAMES

Echo = Callable[[str], Any]


def open_game(games: Path, game_id: str, nonces: Mapping[str, bytes] | None = None,
              moves_dir: Path | None = None) -> Game:
    """P4: every player commits to a nonce, then reveals it; the last reveal starts the game.

    ``nonces`` (player -> bytes) makes it reproducible; by default each is random.  With
    ``moves_dir`` the move files are kept there, as the players would have mailed them."""
    path = game_dir(games, game_id)
    game = load_game(path)
    chosen = {p: (nonces[p] if nonces is not None else secrets.token_bytes(32)) for p in game.players}
    n = 0
    for make in (commit_move, reveal_move):
        for player in game.players:
            text = dump_yaml(make(game, player, chosen[player]))
            n += 1
            if moves_dir is not None:
                (moves_dir / f"{n:04d}-{player}-{'commit' if make is commit_move else 'nonce'}.yaml").write_text(
                    text, encoding="utf-8")
            apply_move(games, parse_move(text.encode()))
    return load_game(path)


def write_move(game: Game, player: str, actions: list[Action], path: Path, n: int) -> Path:
    move = TurnMove.write(game.game_id, player, after_of(game), [a.to_dict() for a in actions])
    target = path / f"{n:04d}-{player}.yaml"
    target.write_text(dump_yaml(move.to_raw()), encoding="utf-8")
    return target


def play_demo(
    games: Path,
    n_players: int,
    seed: int | None = None,
    echo: Echo | None = print,
    summary: Echo = print,
    game_id: str | None = None,
    secret: bytes | None = None,
    nonces: Mapping[str, bytes] | None = None,
) -> Game:
    """Create, play, reveal and audit one game; returns the final public game.

    ``secret`` (32 bytes) and ``nonces`` (player -> bytes) make the whole game
    reproducible, for recorded examples; by default both are random."""
    rng = random.Random(seed if seed is not None else secrets.randbits(64))
    game_id = game_id or f"demo-{rng.getrandbits(32):08x}"
    players = PLAYER_NAMES[:n_players]
    path = create(games, NewGame(game_id, players, secret=secret))
    moves_dir = path / "moves"
    moves_dir.mkdir()
    say = echo or (lambda _line: None)
    made = "supplied" if secret is not None else "made by the OS"
    say(f"game {game_id}: {', '.join(players)}; secret {made}, committed in entry 0")
    game = open_game(games, game_id, nonces, moves_dir)
    n = 2 * len(players)
    say(f"every player committed to a nonce, then revealed it; the game starts (entry {game.last_seq})")
    while game.state is not None and game.state.to_move is not None:
        player = game.state.to_move
        n += 1
        actions = bot_actions(game.state, rng)
        target = write_move(game, player, actions, moves_dir, n)
        applied = apply_move(games, read_move(target))
        game = applied.game
        say(f"entry {game.last_seq}: {player} - {', '.join(a.to_dict()['action'] for a in actions)}")
    reveal(games, game_id)
    game = load_game(game_dir(games, game_id))
    findings = audit(game)
    if game.state is None:  # pragma: no cover
        raise StateError(Msg("the demo game never started"))
    scores = game.state.scores()
    summary(f"game {game_id} finished after {game.state.turn_number} turns; {game.last_seq + 1} log entries")
    summary(f"it is in {path} (log.yaml, moves/, private/)")
    summary("audit: " + "; ".join(findings))
    summary("final scores: " + ", ".join(f"{p} {scores[p]}" for p in game.players))
    summary(f"winner: {winner(game.state)}")
    summary("try it yourself, from this folder:")
    for command in next_commands(games, game_id):
        summary(f"  {command}")
    return game


def next_commands(games: Path, game_id: str) -> list[str]:
    """The commands that look at the demo game, exactly as they run from where the demo ran."""
    log = shlex.quote(str(games / game_id / "log.yaml"))
    folder = shlex.quote(str(games))
    page = shlex.quote(str(games / f"{game_id}.html"))
    return [
        f"pbem show {game_id} --games {folder}",
        f"pbem history {game_id} --games {folder}",
        f"pbem verify {log}",
        f"pbem audit {log}",
        f"pbem html {log} -o {page}",
    ]
