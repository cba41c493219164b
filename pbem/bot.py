"""A random bot: plays any legal action, chosen at random (R3, R5, R6).

It picks an action kind first, then one action of that kind, using
:func:`pbem.rules.legal_by_kind`'s generators, so it never builds lists it does not need.
"""

from __future__ import annotations

import random

from pbem.rules import Action, State
from pbem.rules.legal import generators


def random_action(state: State, rng: random.Random) -> Action:
    """A uniformly chosen legal kind, then a uniformly chosen action of that kind.

    The generators of :func:`pbem.rules.legal_by_kind`, called directly (no thunk per
    kind: this is the playouts' inner loop); the same draws from ``rng``."""
    player = state.to_move
    if player is not None:
        kinds = list(generators(state).values())
        while kinds:
            actions = kinds.pop(rng.randrange(len(kinds)))(state, player)
            if actions:
                return actions[rng.randrange(len(actions))]
    raise RuntimeError("no legal action: the game is over or the state is inconsistent")
