"""Real games for the site's tests and bench/site.py: made, opened (P4), played by random bots
and revealed through the host's own path (:func:`pbem.host.games.apply_move`, as a mailed move
is), under the players' own names, so that standings over them mean something."""

from __future__ import annotations

import random
from pathlib import Path

from pbem.bots.randombot import bot_actions
from pbem.host.create import NewGame, create
from pbem.host.games import apply_move, game_dir, load_game, reveal
from pbem.log.game import Game
from pbem.log.moves import after_of
from pbem.log.records import TurnMove
from pbem.log.records.sent import move_of
from pbem.rules import winner
from pbem.sim.demo import open_game


def play_game(games: Path, game_id: str, players: tuple[str, ...], seed: int, turns: int | None = None,
              finish: bool = True) -> Game:
    """A real game of ``players`` (seat order), random moves from ``seed``: ``turns`` turns, or to
    the end (R6) and then, with ``finish``, the secret revealed (P6)."""
    rng = random.Random(seed)
    secret = random.Random(f"secret/{game_id}/{seed}").randbytes(32)
    create(games, NewGame(game_id, players, secret=secret))
    nonces = {p: random.Random(f"nonce/{game_id}/{p}/{seed}").randbytes(32) for p in players}
    game = open_game(games, game_id, nonces)
    played = 0
    while game.state is not None and game.state.to_move is not None and (turns is None or played < turns):
        player = game.state.to_move
        move = TurnMove.write(game_id, player, after_of(game), [a.to_dict() for a in bot_actions(game.state, rng)])
        game = apply_move(games, move_of(move.to_raw())).game  # the record, as parse_move makes it
        played += 1
    if game.over and finish:
        reveal(games, game_id)
        game = load_game(game_dir(games, game_id))
    return game


def won_by(games: Path, game_id: str, players: tuple[str, ...], champion: str, seed: int = 0) -> Game:
    """A finished game that ``champion`` won (R6.5): played from seed after seed in a folder
    beside ``games`` until the champion wins one, which is then moved in."""
    import shutil

    tries = games.parent / f"{games.name}-tries"
    tries.mkdir(exist_ok=True)
    for n in range(seed, seed + 50):
        game = play_game(tries, game_id, players, n)
        assert game.state is not None
        if winner(game.state) == champion:
            (tries / game_id).rename(games / game_id)
            return game
        shutil.rmtree(tries / game_id)
    raise AssertionError(f"{champion} won none of 50 games")


def tampered_copy(source: Path, target: Path) -> None:
    """``source``'s game folder copied to ``target`` with its log rewritten by a host who changed
    the salt of the first flipped rat and re-chained every entry after it (the stronger cheat)."""
    import copy
    import shutil

    from tampering import flip_salt, rechain, write

    from pbem.log.logfile import read_docs

    shutil.copytree(source, target)
    entries = copy.deepcopy(read_docs(target / "log.yaml")[0])
    flip_salt(entries)
    write(target / "log.yaml", rechain(entries))
    for cache in target.glob("*.cache"):
        cache.unlink()


def open_seats(games: Path, game_id: str, players: tuple[str, ...], taken: dict[str, str]) -> None:
    """A game whose seats not in ``taken`` (seat: address) are open to strangers, as `pbem new
    --open N` writes it: the seats in host.yaml's ``open_seats``, with no address yet (and the
    game's row in the host's index made from it, as `pbem new` makes it)."""
    from pbem.host.index import settled

    create(games, NewGame(game_id, players, emails=taken))
    free = [p for p in players if p not in taken]
    with (games / game_id / "host.yaml").open("a", encoding="utf-8") as settings:
        settings.write(f"open_seats: [{', '.join(free)}]\n")
    settled(games / game_id)
