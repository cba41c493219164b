"""R2.5-R2.6: the answer to the last initial placement says that the setup is over and the
first turn began (the snake order gives it to the last placer), never that the placer's turn
is unfinished or what it still owes."""

from __future__ import annotations

from pathlib import Path

from pbem.host.create import NewGame, create
from pbem.host.games import apply_move, load_game
from pbem.log import notation_write
from pbem.log.moves import after_of, parse_move
from pbem.rules import Phase
from pbem.sim.demo import open_game
from pbem.views.report import report_lines


def place(games: Path, player: str, region: str) -> list[str]:
    game = load_game(games / "s")
    after = after_of(game)
    text = "\n".join([*notation_write.header_lines("s", player, after["seq"], after["hash"]), f"place {region} 2"]) + "\n"
    applied = apply_move(games, parse_move(text.encode()))
    return report_lines(applied.game, applied.entries, private_hint=False)


def test_r2_5_the_last_initial_placement_is_answered_with_the_first_turn_not_an_unfinished_one(
        tmp_path: Path) -> None:
    create(tmp_path, NewGame("s", ("red", "green", "blue"), secret=bytes(32), first="red"))
    game = open_game(tmp_path, "s", nonces={p: bytes([i + 1]) * 16 for i, p in enumerate(("red", "green", "blue"))})
    assert game.state is not None and game.state.phase is Phase.SETUP
    said: list[str] = []
    for player in ("red", "green", "blue", "blue", "green"):  # the snake: A B C C B, then A
        said = place(tmp_path, player, "gallia")
        assert not any("not finished" in line or "still owe" in line for line in said), said
    said = place(tmp_path, "red", "anglia")
    text = "\n".join(said)
    assert "not finished" not in text and "still owe" not in text, text
    assert "the setup is over (R2.5): red placed the last initial cubes and plays the first turn now" in text, text
    assert "next: red takes a card (optional), places cubes, then moves the plague (R3)" in text, text
