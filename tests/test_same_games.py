"""The rules core's pure-Python speed-ups change no game: every action chosen and every event
of 100 seeded random 4-player games hash exactly as they did before them.

The hash was computed by the code of main at 57c751b (before the speed-ups) and is written
here; a change to the random draws, the legal-action order or an effect shows as a new hash.
"""

from __future__ import annotations

import hashlib
import json
import random

from pbem.bots.randombot import random_action
from pbem.rules.engine import apply_legal
from pbem.sim.simulate import new_random_game

BEFORE_SPEEDUPS = "d3245ab7a4d8be3b3a2a824516a229df3d5a4569c5cc387366190d841cb066ec"
"""SHA-256 over the 100 games of :func:`games_digest`, by the code before the core's speed-ups."""


def games_digest(games: int = 100, players: int = 4, generator: type[random.Random] = random.Random) -> str:
    """Every action (as its move-file dict) and every event (as its log dict) of ``games``
    random games with seeds 0, 1, ..., played as ``pbem simulate`` plays them."""
    digest = hashlib.sha256()
    for seed in range(games):
        state, faces = new_random_game(players, seed)
        rng = generator(seed)
        while state.to_move is not None:
            player = state.to_move
            action = random_action(state, rng)
            events = apply_legal(state, player, action, faces)
            digest.update(json.dumps([player, action.to_dict(), [e.to_dict() for e in events]],
                                     sort_keys=True).encode())
        digest.update(json.dumps(state.scores(), sort_keys=True).encode())
    return digest.hexdigest()


def test_100_seeded_random_games_are_the_games_they_were_before_the_speed_ups() -> None:
    assert games_digest() == BEFORE_SPEEDUPS


class _OwnRandbelow(random.Random):
    """A generator with a ``_randbelow`` of its own (drawing as Random's does)."""

    def _randbelow(self, n: int) -> int:
        return super()._randbelow(n)  # type: ignore[misc, no-any-return]


def test_random_action_draws_as_randrange_with_a_generator_of_its_own_too() -> None:
    """random_action writes Random's draw out; a generator with its own ``_randbelow`` goes
    through that instead, to the same games."""
    assert games_digest(10, generator=_OwnRandbelow) == games_digest(10)
