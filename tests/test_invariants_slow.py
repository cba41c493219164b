"""Seeded random games checked for R1's conservation laws after every action.

``play_random_game(n, seed, check=True)`` runs ``check_invariants`` after each
action: each player's 20 cubes are in supply, regions or palace (R1.3); no region
holds more than 3 rats (R1.7); the 49 tokens are on the board, in the supply,
flipped or removed, each once (R1.4), none flipped twice (R4.2); the plague piece
is on a region in use (R1.6).  It raises if a game does not end (R6.1).  Here, at
the end of each game: the sweep flipped every rat (R6.4) and the winner has the
most cubes (R6.5).
"""

from __future__ import annotations

import pytest

from pbem.rules import Phase
from pbem.sim.simulate import play_random_game


def check_games(n_players: int, games: int, first_seed: int = 0) -> None:
    for seed in range(first_seed, first_seed + games):
        result = play_random_game(n_players, seed, check=True)
        state = result.state
        assert state.phase is Phase.OVER, seed
        assert all(not rats for rats in state.rats.values()), seed  # R6.4: all flipped
        scores = state.scores()
        assert scores[result.winner] == max(scores.values()), seed  # R6.5
        assert all(0 <= n <= 20 for n in state.supply.values()), seed
        assert all(n > 0 for c in state.cubes.values() for n in c.values()), seed


@pytest.mark.parametrize("n_players", [2, 3, 4])
def test_r1_invariants_hold_in_30_random_games(n_players: int) -> None:
    check_games(n_players, 30)


@pytest.mark.slow
@pytest.mark.parametrize("n_players", [2, 3, 4])
def test_r1_invariants_hold_in_2000_random_games(n_players: int) -> None:
    check_games(n_players, 2000, first_seed=10_000)
