"""Where a move file may stop, and what may close a turn, at the edges of a game's life.

R7.5 at the end of setup: the snake order (R2.5) gives the first player the last placement
and then turn 1 (R2.6), so every game meets this boundary.  A move file there may hold the
placement alone (a go ends with it) or the placement and the whole of turn 1; one that
stops anywhere inside turn 1 (but right after a Witch's look) is refused whole.

R4.2 in a game created before R7.5 (pbem 0.1, half turns allowed): a flip order may close
any turn, also in a move file that goes on from the plague's move of an earlier one.

Each on a six-region board (tests/boards.py's ``tiny_board``), two players, the ring of
four light regions: north - west - south - east - north, one starting rat on each.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from boards import tiny_board
from clitools import cli, ok, snapshot

import pbem.host.create
from pbem.errors import Exit
from pbem.host.create import NewGame, create
from pbem.host.games import apply_move, load_game
from pbem.log import notation_write
from pbem.log.game import Game
from pbem.log.moves import after_of, parse_move
from pbem.referee.seatview import SeatView
from pbem.rules import Phase
from pbem.sim.demo import open_game
from pbem.views.template import template

NONCES = {"red": bytes(16), "green": bytes([1]) * 16}


def tiny_game(games: Path) -> Game:
    """A started two-player game on the tiny board, red first; the plague starts in north."""
    create(games, NewGame("t", ("red", "green"), first="red", secret=bytes(32), board=tiny_board()))
    game = open_game(games, "t", nonces=NONCES)
    assert game.state is not None and game.state.plague == "north"
    assert all(len(game.state.rats[r]) == 1 for r in game.state.regions)
    return game


def send(games: Path, game: Game, body: list[str]) -> Game:
    apply_move(games, parse_move(move_text(game, body).encode()))
    return load_game(games / "t")


def move_text(game: Game, body: list[str]) -> str:
    after = after_of(game)
    return "\n".join([*notation_write.header_lines("t", game.to_move or "", after["seq"], after["hash"]), *body]) + "\n"


def at_last_placement(games: Path) -> Game:
    """Red's last setup placement (A B B A): red, green, green placed 2 cubes on north."""
    game = tiny_game(games)
    for _ in range(3):
        game = send(games, game, ["place north 2"])
    assert game.state is not None and game.state.phase is Phase.SETUP and not game.state.queue
    assert game.to_move == "red"
    return game


def refused_by_check_and_apply(games: Path, game: Game, body: list[str], *says: str) -> str:
    """`pbem check` and `pbem apply` refuse the move with the same one paragraph naming the
    rule; no file changes."""
    path = games.parent / "move.txt"
    path.write_text(move_text(game, body))
    before = snapshot(games)
    checked = cli("check", path, "--log", games / "t" / "log.yaml")
    applied = cli("apply", path, "--games", games)
    assert snapshot(games) == before, "a refused move changed a file"
    for result in (checked, applied):
        assert result.exit_code == Exit.RULES, (result.exit_code, result.stderr)
        assert result.stdout == "" and len(result.stderr.strip().splitlines()) == 1, result.stderr
        for needle in says:
            assert needle in result.stderr, result.stderr
    assert checked.stderr == applied.stderr  # the host's words, offline (P10)
    return applied.stderr


# --- R7.5 at the end of setup ------------------------------------------------------------------

def test_r7_5_the_last_placement_and_a_card_of_turn_1_is_refused_whole(tmp_path: Path) -> None:
    """`place west 2` then `take king`: turn 1 has begun and stops before phase C."""
    games = tmp_path / "games"
    game = at_last_placement(games)
    refused_by_check_and_apply(games, game, ["place west 2", "take king"],
                               "(R7.5)", "refused whole and nothing was recorded", "move the plague")


def test_r7_5_the_last_placement_and_turn_1_short_of_its_spreads_is_refused_whole(tmp_path: Path) -> None:
    """Turn 1 reaches the plague's move, which draws a rat (east holds one), and stops
    before the spread it owes (R4.1)."""
    games = tmp_path / "games"
    game = at_last_placement(games)
    refused_by_check_and_apply(games, game, ["place west 2", "place south 1", "plague east"],
                               "(R7.5)", "after the plague reaches East you place 1 drawn rat")


def test_r7_5_the_last_placement_alone_ends_a_go(tmp_path: Path) -> None:
    """The placement is a whole go: accepted, and nobody is told red's turn is unfinished;
    red's template then offers turn 1."""
    games = tmp_path / "games"
    game = at_last_placement(games)
    path = tmp_path / "move.txt"
    path.write_text(move_text(game, ["place west 2"]))
    assert "the turn is complete: mail it" in ok("check", path, "--log", games / "t" / "log.yaml")
    out = ok("apply", path, "--games", games)
    assert "accepted" in out and "not finished" not in out
    game = load_game(games / "t")
    assert game.state is not None and game.state.phase is Phase.TURN and game.to_move == "red"
    assert "# plague REGION (R3.3)" in template(SeatView(game, "red"))


def test_r7_5_the_last_placement_and_the_whole_of_turn_1_is_one_move(tmp_path: Path) -> None:
    games = tmp_path / "games"
    game = at_last_placement(games)
    path = tmp_path / "move.txt"
    path.write_text(move_text(game, ["place west 2", "place south 1", "plague east", "spread south"]))
    assert "the turn is complete: mail it" in ok("check", path, "--log", games / "t" / "log.yaml")
    ok("apply", path, "--games", games)
    assert load_game(games / "t").to_move == "green"


def test_r7_5_the_last_placement_and_turn_1_up_to_a_witch_look_may_stop_there(tmp_path: Path) -> None:
    games = tmp_path / "games"
    game = at_last_placement(games)
    path = tmp_path / "move.txt"
    path.write_text(move_text(game, ["place west 2", "take witch", "look t03"]))
    out = ok("check", path, "--log", games / "t" / "log.yaml")
    assert "the turn is not finished" in out and "what your Witch saw" in out


def test_r7_5_the_template_of_the_last_placement_says_turn_1_follows_whole(tmp_path: Path) -> None:
    """Red's template for the last placement: the placement alone, or with all of turn 1."""
    games = tmp_path / "games"
    game = at_last_placement(games)
    text = template(SeatView(game, "red"))
    flat = " ".join(line.lstrip("# ") for line in text.splitlines() if line.startswith("#"))
    assert "turn 1" in flat and "whole" in flat and "(R7.5)" in flat, text
    assert all(len(line) < 40 for line in text.splitlines())
    earlier = tiny_game(tmp_path / "other")  # red's first placement: turn 1 is not next
    assert "turn 1" not in template(SeatView(earlier, "red"))


def test_r7_5_a_game_created_by_pbem_0_2_replays_its_first_turn_as_its_host_recorded_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A pbem 0.2 host took the last placement with part of turn 1 (`place west 2`, `take
    king`) as a whole move, so a game whose entry 0 names pbem 0.2 keeps that reading: its
    log verifies, and the same move in a game from pbem 0.3 on is refused whole (R7.5)."""
    monkeypatch.setattr(pbem.host.create, "__version__", "0.2.0")
    games = tmp_path / "games"
    game = at_last_placement(games)
    assert game.facts.whole_turns and not game.facts.whole_first_turn
    game = send(games, game, ["place west 2", "take king"])
    assert game.to_move == "red" and "game t:" in ok("verify", games / "t" / "log.yaml")
    monkeypatch.setattr(pbem.host.create, "__version__", "0.3.0")
    newer = tmp_path / "newer"
    game = at_last_placement(newer)
    assert game.facts.whole_first_turn
    refused_by_check_and_apply(newer, game, ["place west 2", "take king"], "(R7.5)")


# --- R4.2 in a game made before R7.5 -------------------------------------------------------------

@pytest.fixture
def made_by_0_1(monkeypatch: pytest.MonkeyPatch) -> None:
    """Games created here say pbem 0.1 in entry 0: half turns allowed (R7.5 does not hold)."""
    monkeypatch.setattr(pbem.host.create, "__version__", "0.1.0")


@pytest.mark.usefixtures("made_by_0_1")
def test_r4_2_a_flip_order_closes_a_turn_whose_plague_moved_in_an_earlier_move_file(tmp_path: Path) -> None:
    """Red moves the plague to east (one rat, no cube: one rat drawn, no outbreak) in one
    file and sends `spread south`, `flip t03` in the next: the flip order has no effect and
    closes the turn (R4.2's ruling), as it would have in one file."""
    games = tmp_path / "games"
    game = at_last_placement(games)
    assert not game.facts.whole_turns
    game = send(games, game, ["place west 2"])
    game = send(games, game, ["place south 1", "plague east"])  # a half turn: 1 rat owed
    assert game.state is not None and game.state.turn.spread_left == 1 and game.to_move == "red"
    path = tmp_path / "rest.txt"
    path.write_text(move_text(game, ["spread south", "flip t03"]))
    assert "the turn is complete: mail it" in ok("check", path, "--log", games / "t" / "log.yaml")
    ok("apply", path, "--games", games)
    game = load_game(games / "t")
    assert game.to_move == "green"
    assert "game t:" in ok("verify", games / "t" / "log.yaml")


@pytest.mark.usefixtures("made_by_0_1")
def test_r4_2_what_follows_such_a_turn_is_still_refused(tmp_path: Path) -> None:
    """After the spread that ends the turn, only the Knight's cubes and a flip order may
    follow, each rat named once (R4.2, R7.4)."""
    games = tmp_path / "games"
    game = at_last_placement(games)
    game = send(games, game, ["place west 2"])
    game = send(games, game, ["place south 1", "plague east"])
    refused_by_check_and_apply(games, game, ["spread south", "flip t03 t03"], "(R4.2)", "named twice")
    refused_by_check_and_apply(games, game, ["spread south", "take king"], "(R7.4)",
                               "your turn ended with the action before it")
