"""The long runs of the hardening checks (``pytest -m slow``; about 2-3 minutes on 2 cores).

- SIGKILL at random moments during 200 ``pbem apply`` processes: after each, the
  log verifies and holds the whole entry or none of it; an exit 0 always left
  its entry (P7: appends are atomic);
- 8 rival processes per turn for 10 turns of one game, and 6 games with a
  process each for 10 rounds: no lost update, no interleaved entry;
- 150 more bot games with every public output checked for leaks (P6).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hardening import LeakCheck, kill_campaign, leak_game_memory, make_game, race_many_games, race_one_game

pytestmark = pytest.mark.slow


def test_sigkill_during_200_appends(tmp_path: Path) -> None:
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    result = kill_campaign(tmp_path / "games", 200, seed=11, inbox=inbox)
    assert (result.torn, result.lost) == (0, 0), result
    assert result.killed >= 60 and result.completed >= 20, result  # both kinds of moment were hit


def test_8_rivals_per_turn_for_10_turns(tmp_path: Path) -> None:
    games, inbox = tmp_path / "games", tmp_path / "inbox"
    inbox.mkdir()
    make_game(games, "rivals", n_players=4, seed=5, moves=6)
    for turn in range(10):
        result = race_one_game(games, "rivals", 8, seed=turn, inbox=inbox)
        assert result.other == [], result
        assert (result.accepted, result.stale, result.lost, result.torn) == (1, 7, 0, 0), result


def test_6_games_at_once_for_10_rounds(tmp_path: Path) -> None:
    games, inbox = tmp_path / "games", tmp_path / "inbox"
    inbox.mkdir()
    ids = [f"many-{i}" for i in range(6)]
    for i, g in enumerate(ids):
        make_game(games, g, n_players=2 + i % 3, seed=i)
    for round_ in range(10):
        result = race_many_games(games, ids, seed=round_, inbox=inbox)
        assert result.other == [], result
        assert (result.accepted, result.lost, result.torn) == (6, 0, 0), result


def test_no_leak_in_150_games(tmp_path: Path) -> None:
    leak = LeakCheck(tmp_path)
    for k in range(150):
        leak_game_memory(tmp_path, f"leak-{k}", 2 + k % 3, seed=1000 + k, leak=leak)
    assert leak.leaks == []
