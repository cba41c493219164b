"""P7: appends are serialized.  Rival processes on one game: exactly one move is
accepted, every other is refused as stale (exit 5) and says why; one process per
game on many games: every move lands.  No lost update, no interleaved entry.
(Larger runs, and SIGKILLs during appends: test_stress_slow.py, bench/stress.py.)"""

from __future__ import annotations

from pathlib import Path

from hardening import make_game, race_many_games, race_one_game


def test_rival_moves_for_one_turn_one_wins(tmp_path: Path) -> None:
    games, inbox = tmp_path / "games", tmp_path / "inbox"
    inbox.mkdir()
    make_game(games, "race", n_players=4, seed=3, moves=6)
    result = race_one_game(games, "race", 6, seed=1, inbox=inbox)
    assert result.other == []
    assert (result.accepted, result.stale, result.lost, result.torn) == (1, 5, 0, 0)


def test_one_process_per_game_all_land(tmp_path: Path) -> None:
    games, inbox = tmp_path / "games", tmp_path / "inbox"
    inbox.mkdir()
    ids = [f"g{i}" for i in range(4)]
    for i, g in enumerate(ids):
        make_game(games, g, n_players=2 + i % 3, seed=i, moves=3)
    result = race_many_games(games, ids, seed=5, inbox=inbox)
    assert result.other == []
    assert (result.accepted, result.lost, result.torn) == (4, 0, 0)
