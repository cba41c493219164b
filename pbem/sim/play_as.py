"""`pbem demo --play-as SEAT`: a game against the host's bots, ready for your first move.

The game is an ordinary one (log, secret, private files) whose other seats are
bot seats (entry 0 ``options.bots``): the host plays them after every applied
entry (the host's step, pbem.host.step), so each ``pbem apply`` of your move file comes back when
it is your turn again.  Your nonce (P4) is made and kept for you in the games
folder, as ``pbem nonce`` would.
"""

from __future__ import annotations

import random
import secrets
import shlex
from pathlib import Path

from pbem.errors import FormatError
from pbem.host.create import NewGame, create
from pbem.host.games import answer, apply_move, game_dir, load_game
from pbem.i18n import Msg
from pbem.log.moves import parse_move
from pbem.log.yamlio import dump_yaml
from pbem.player.nonces import commit_move, keep, keep_path, kept, reveal_move
from pbem.referee.seatview import SeatView
from pbem.sim.simulate import PLAYER_NAMES
from pbem.views.template import template


def play_as(games: Path, n_players: int, seat: str, level: str, seed: int | None = None) -> list[str]:
    """Create the game, open it, let the bots play up to ``seat``'s turn; what to do next."""
    players = PLAYER_NAMES[:n_players]
    if seat not in players:
        raise FormatError(Msg.plural("--play-as {seat}: with {n} player the seats are {seats}",
                                     "--play-as {seat}: with {n} players the seats are {seats}", n_players,
                                     seat=repr(seat), seats=", ".join(players)), "R2.1")
    rng = random.Random(seed if seed is not None else secrets.randbits(64))
    game_id = f"play-{rng.getrandbits(32):08x}"
    games.mkdir(parents=True, exist_ok=True)
    path = create(games, NewGame(game_id, players, bots={p: level for p in players if p != seat}))

    answer(games, game_id)  # the bots commit (P4)
    where = keep_path(game_id, seat, games)
    nonce = keep(where, load_game(path), seat)
    apply_move(games, parse_move(dump_yaml(commit_move(load_game(path), seat, nonce)).encode()))
    game = load_game(path)
    applied = apply_move(games, parse_move(dump_yaml(reveal_move(game, seat, kept(where, game, seat))).encode()))
    game = applied.game
    move_file = games / f"{game_id}-{seat}-move.txt"
    move_file.write_text(template(SeatView(game, seat)), encoding="utf-8")
    g = shlex.quote(str(games))
    bots = ", ".join(f"{p} ({level})" for p in players if p != seat)
    return [
        f"game {game_id} in {game_dir(games, game_id)}: you are {seat}; the host's bots play {bots}",
        f"the opening is done (your nonce is kept in {where}); the bots have played up to your turn",
        f"see the board:    pbem show {game_id} --games {g} --as {seat}",
        f"write your move:  {move_file} (it lists your legal choices; add your lines below it, one action a line)",
        f"then send it:     pbem apply {shlex.quote(str(move_file))} --games {g}",
        "each apply lets the bots answer until it is your turn again; for the next move file:",
        f"                  pbem template {game_id} --games {g} --player {seat} > {shlex.quote(str(move_file))}",
        f"a bot's advice:   pbem bot {game_id} --games {g} --player {seat} --level greedy",
    ]
