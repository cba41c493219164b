"""Every legal next action of the player to move.

:func:`legal_actions` lists them all; :func:`legal_by_kind` gives them grouped
by action kind, each group built only when asked for, so a bot can pick a kind
first without building every Merchant move.  Both agree with
:func:`pbem.rules.apply_in_place`: every listed action is accepted, every
other action refused (``tests/test_legal.py`` checks this).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import partial

from pbem.rules.actions import (
    Action,
    EndTurn,
    Flip,
    King,
    KnightCubes,
    KnightMove,
    Merchant,
    Monk,
    MovePlague,
    Place,
    Spread,
    TakeCard,
    WitchLook,
    WitchSwap,
)
from pbem.rules.checks import can_place, place_counts
from pbem.rules.data import CLASSES
from pbem.rules.state import MAX_RATS, Phase, Stage, State

Generator = Callable[[State, str], list[Action]]


def _can_use(state: State, player: str, card: str) -> bool:
    return state.cards[card] == player and card not in state.turn.used


def _paths(state: State, longest: int) -> list[tuple[str, ...]]:
    start = state.plague
    paths: list[tuple[str, ...]] = []
    for first in state.neighbours[start]:
        paths.append((first,))
        if longest == 2:
            paths.extend((first, second) for second in state.neighbours[first] if second != start)
    return paths


def _take_cards(state: State, player: str) -> list[Action]:
    if state.turn.card_taken:
        return []
    return [TakeCard(c) for c in CLASSES if state.cards[c] != player]


def _places(state: State, player: str) -> list[Action]:
    if state.phase is Phase.SETUP:
        return [Place(r, 2) for r in state.regions]
    if state.phase is Phase.FINAL:
        if _can_use(state, player, "peasant") and state.supply[player] > 0:
            return [Place(r, 1) for r in state.regions]
        return []
    if state.turn.placed:
        return []
    return [Place(r, n) for r in state.regions for n in place_counts(state, player, r)]


def _kings(state: State, player: str) -> list[Action]:
    if not _can_use(state, player, "king"):
        return []
    return [King(r) for r in state.regions if not state.rats[r] and state.cubes[r].get(player)]


def _merchants(state: State, player: str) -> list[Action]:
    if not _can_use(state, player, "merchant"):
        return []
    return [
        Merchant(r, n, k)
        for r in state.regions
        for n in state.neighbours[r]
        for k in range(1, min(3, state.cubes[r].get(player, 0)) + 1)
    ]


def _monks(state: State, player: str) -> list[Action]:
    if not _can_use(state, player, "monk"):
        return []
    return [
        Monk(t, n)
        for r in state.regions
        for t in state.rats[r]
        for n in state.neighbours[r]
        if len(state.rats[n]) < MAX_RATS
    ]


def _witch(state: State, player: str) -> list[Action]:
    turn = state.turn
    on_board = [t for r in state.regions for t in state.rats[r]]
    if turn.witch_open and state.cards["witch"] == player:
        if len(turn.witch_looked) == 1:
            return [WitchLook(t) for t in on_board if t != turn.witch_looked[0]]
        return [WitchSwap()]
    if _can_use(state, player, "witch"):
        return [WitchLook(t) for t in on_board]
    return []


def _move_plague(state: State, player: str) -> list[Action]:
    if not state.turn.placed and can_place(state, player):
        return []
    longest = 2 if state.cards["knight"] == player else 1
    return [MovePlague(p) for p in _paths(state, longest) if p[-1] != state.plague]


def _knight_moves(state: State, player: str) -> list[Action]:
    if not _can_use(state, player, "knight"):
        return []
    return [KnightMove(p) for p in _paths(state, 2) if p[-1] != state.plague]


def _spreads(state: State, player: str) -> list[Action]:
    return [Spread(n) for n in state.neighbours[state.plague] if len(state.rats[n]) < MAX_RATS]


def _outbreak(state: State, player: str) -> list[Action]:
    actions: list[Action] = [Flip(t) for t in state.rats[state.plague]]
    if state.cards["knight"] == player and not state.turn.knight_cubes and not state.turn.flips:
        actions.append(KnightCubes())
    return actions


def _end(state: State, player: str) -> list[Action]:
    return [EndTurn()]


_MAIN: dict[str, Generator] = {
    TakeCard.kind: _take_cards, Place.kind: _places, King.kind: _kings,
    Merchant.kind: _merchants, Monk.kind: _monks, WitchLook.kind: _witch,
    MovePlague.kind: _move_plague,
}
_FINAL: dict[str, Generator] = {
    Place.kind: _places, King.kind: _kings, Merchant.kind: _merchants, Monk.kind: _monks,
    WitchLook.kind: _witch, KnightMove.kind: _knight_moves, EndTurn.kind: _end,
}


def generators(state: State) -> dict[str, Generator]:
    """The action generators that may apply now, by kind (WitchSwap is under witch_look)."""
    if state.phase is Phase.SETUP:
        return {Place.kind: _places}
    if state.phase is Phase.FINAL:
        return _FINAL
    if state.phase is Phase.TURN:
        if state.turn.stage is Stage.SPREAD:
            return {Spread.kind: _spreads}
        if state.turn.stage is Stage.OUTBREAK:
            return {Flip.kind: _outbreak}
        return _MAIN
    return {}


def legal_by_kind(state: State) -> Iterator[tuple[str, Callable[[], list[Action]]]]:
    """Pairs (kind, thunk listing that kind's legal actions) for the player to move."""
    player = state.to_move
    if player is None:
        return
    for kind, gen in generators(state).items():
        yield kind, partial(gen, state, player)


def legal_actions(state: State) -> list[Action]:
    """Every legal next action of the player to move (empty once the game is over)."""
    player = state.to_move
    if player is None:
        return []
    out: list[Action] = []
    for gen in generators(state).values():
        out.extend(gen(state, player))
    return out
