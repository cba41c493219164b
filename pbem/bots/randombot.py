"""The ``random`` level: uniformly chosen legal actions, up to the end of the turn or a Witch's
look (R3, R5, R6); also the random games of ``pbem simulate`` and ``pbem demo``."""

from __future__ import annotations

import random
from collections.abc import Callable

from pbem.bots.knowledge import Knowledge
from pbem.rules import Action, FaceUnknown, Flip, KnightCubes, NoFaces, Phase, Stage, State, WitchLook, apply_in_place
from pbem.rules.legal import generator_list


class RandomBot:
    level = "random"

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def choose(self, state: State, knowledge: Knowledge) -> list[Action]:
        return bot_actions(state, self.rng)


def random_action(state: State, rng: random.Random) -> Action:
    """A uniformly chosen legal kind, then a uniformly chosen action of that kind.

    The generators of :func:`pbem.rules.legal_by_kind`, called directly (no thunk per
    kind: this is the playouts' inner loop); the same draws from ``rng``.  Each draw is
    ``rng.randrange(n)``'s, written out (a call per draw was a twentieth of a
    random game): ``Random._randbelow(n)`` draws ``getrandbits(n.bit_length())`` until it
    is below ``n``.  A generator drawing otherwise goes through :func:`_by_randbelow`."""
    player = state.to_move
    if player is None:
        raise RuntimeError("no legal action: the game is over")
    if type(rng)._randbelow is not _RANDBELOW:  # type: ignore[attr-defined]
        return _by_randbelow(state, player, rng)
    bits = rng.getrandbits
    kinds = list(generator_list(state))
    while kinds:
        n = len(kinds)
        k = n.bit_length()
        i = bits(k)
        while i >= n:  # rng._randbelow(n), the kind
            i = bits(k)
        actions = kinds.pop(i)(state, player)
        if actions:
            n = len(actions)
            k = n.bit_length()
            i = bits(k)
            while i >= n:  # rng._randbelow(n), the action
                i = bits(k)
            return actions[i]
    raise RuntimeError("no legal action: the state is inconsistent")


_RANDBELOW = random.Random._randbelow  # type: ignore[attr-defined]


def _by_randbelow(state: State, player: str, rng: random.Random) -> Action:
    """:func:`random_action` for a generator with its own ``_randbelow``: the same choices
    (``rng.randrange(n)`` for n > 0 is ``rng._randbelow(n)`` without randrange's checks)."""
    below: Callable[[int], int] = rng._randbelow  # type: ignore[attr-defined]
    kinds = list(generator_list(state))
    while kinds:
        actions = kinds.pop(below(len(kinds)))(state, player)
        if actions:
            return actions[below(len(actions))]
    raise RuntimeError("no legal action: the state is inconsistent")


def bot_actions(state: State, rng: random.Random) -> list[Action]:
    """A bot's move from the public state alone: random legal actions to the end of its
    turn (with, now and then, a random flip order, R4.2), or up to a Witch's look, after
    which it wants to see the face before it goes on."""
    player = state.to_move
    assert player is not None
    trial = state.copy()
    actions: list[Action] = []
    while trial.to_move == player:
        if trial.phase is Phase.TURN and trial.turn.stage is Stage.OUTBREAK:
            if trial.cards["knight"] == player and not trial.turn.knight_cubes and rng.random() < 0.5:
                actions.append(KnightCubes())  # R5.4: the neutral cubes, before the flip order
            here = list(trial.rats[trial.plague])
            rng.shuffle(here)
            actions.extend(Flip(t) for t in here[: rng.randrange(len(here) + 1)])
            break  # the outbreak ends the turn (R7.4)
        phase, turn_number = trial.phase, trial.turn_number
        action = random_action(trial, rng)
        actions.append(action)
        try:
            apply_in_place(trial, player, action, NoFaces())
        except FaceUnknown:
            break  # the final sweep
        if isinstance(action, WitchLook) or trial.phase is not phase or trial.turn_number != turn_number:
            break
        if phase is Phase.SETUP:
            break
    return actions
