"""A random bot: plays any legal action, chosen at random (R3, R5, R6).

It picks an action kind first, then one action of that kind, using
:func:`pbem.rules.legal_by_kind`, so it never builds lists it does not need.
"""

from __future__ import annotations

import random

from pbem.rules import Action, State, legal_by_kind


def random_action(state: State, rng: random.Random) -> Action:
    """A uniformly chosen legal kind, then a uniformly chosen action of that kind."""
    kinds = list(legal_by_kind(state))
    while kinds:
        _kind, options = kinds.pop(rng.randrange(len(kinds)))
        actions = options()
        if actions:
            return actions[rng.randrange(len(actions))]
    raise RuntimeError("no legal action: the game is over or the state is inconsistent")
