"""Every legal next action of the player to move, enumerated through the rules.

Each generator lists the candidates of one kind (regions in use, tokens on the
board, walks between neighbours, counts from a rule's domain) and keeps those
that the checks of :mod:`pbem.rules.checks` allow: the very functions the
engine refuses with, so the list and the engine cannot disagree
(``tests/test_legal.py`` still checks that they do not).
:func:`legal_actions` lists them all; :func:`legal_by_kind` gives them grouped
by action kind, each group built only when asked for, so a bot can pick a kind
first without building every Merchant move.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from functools import partial
from typing import Any, TypeVar

from pbem.rules.abilities import (
    king_refusal,
    knight_cubes_refusal,
    look_gate,
    look_refusal,
    merchant_counts,
    swap_refusal,
)
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
from pbem.rules.checks import (
    ability_refusal,
    card_gate,
    card_refusal,
    flip_refusal,
    place_domain,
    place_gate,
    plague_gate,
    plague_paths,
    reach,
    with_room,
)
from pbem.rules.stages import kinds_now
from pbem.rules.state import Generator, State

_A = TypeVar("_A")


class _Shared(dict[Any, _A]):
    """One action object per distinct action: actions are immutable records, so a
    generator hands out the same object every time it lists that action instead of building
    a new one per listing (the playouts list actions millions of times; the games are the
    same, tests/test_same_games.py).  Keyed by the action's fields, as a tuple if several."""

    __slots__ = ("_make", "_spread")

    def __init__(self, make: Callable[..., _A], spread: bool = False) -> None:
        super().__init__()
        self._make = make
        self._spread = spread

    def __missing__(self, key: Any) -> _A:
        value = self[key] = self._make(*key) if self._spread else self._make(key)
        return value


_TAKE, _PLACE, _KING = _Shared(TakeCard), _Shared(Place, True), _Shared(King)
_MERCHANT, _MONK, _LOOK = _Shared(Merchant, True), _Shared(Monk, True), _Shared(WitchLook)
_PLAGUE, _KNIGHT, _SPREAD, _FLIP = _Shared(MovePlague), _Shared(KnightMove), _Shared(Spread), _Shared(Flip)
_SWAP, _KNIGHT_CUBES, _END = WitchSwap(), KnightCubes(), EndTurn()
_PLACES: _Shared[tuple[Action, ...]] = _Shared(lambda r, counts: tuple(_PLACE[r, n] for n in counts), True)
"""A region's placements for each tuple of counts (``place_counts``): one lookup a region."""


def take_cards(state: State, player: str) -> list[Action]:
    if card_gate(state) is not None:  # R3.1: one card a turn, asked once, not once a card
        return []
    return [_TAKE[c] for c in state.cards if card_refusal(state, player, c) is None]


def places(state: State, player: str) -> list[Action]:
    if place_gate(state, player) is not None:
        return []
    counts, rats = place_domain(state, player), state.rats  # R2.5, R3.2, R5.5, R6.3
    return [a for r in state.regions for a in _PLACES[r, counts[len(rats[r])]]]


def kings(state: State, player: str) -> list[Action]:
    if ability_refusal(state, player, "king", "R5.1") is not None:
        return []
    return [_KING[r] for r in state.regions if king_refusal(state, player, r) is None]


def merchants(state: State, player: str) -> list[Action]:
    if ability_refusal(state, player, "merchant", "R5.2") is not None:
        return []
    # R5.2: the candidates are the neighbours, the steps step_refusal allows
    return [
        _MERCHANT[r, n, k]
        for r in state.regions
        for counts in [merchant_counts(state, player, r)]
        if counts
        for n in state.neighbours[r]
        for k in counts
    ]


def monks(state: State, player: str) -> list[Action]:
    if ability_refusal(state, player, "monk", "R5.3") is not None:
        return []
    actions: list[Action] = []
    for r in state.regions:
        rats = state.rats[r]
        if rats:  # where a rat may go does not depend on which of the region's rats it is
            targets = with_room(state, state.neighbours[r])  # R5.3, R1.7: the targets monk_refusal allows
            actions += [_MONK[t, n] for t in rats for n in targets]
    return actions


def witch(state: State, player: str) -> list[Action]:
    actions: list[Action] = []
    if look_gate(state, player) is None:
        actions = [_LOOK[t] for r in state.regions for t in state.rats[r] if look_refusal(state, t) is None]
    if swap_refusal(state, player) is None:
        actions.append(_SWAP)
    return actions


def move_plague(state: State, player: str) -> list[Action]:
    if plague_gate(state, player) is not None:
        return []
    return [_PLAGUE[p] for p in plague_paths(state, reach(state, player))]  # R3.3, R5.4


def knight_moves(state: State, player: str) -> list[Action]:
    if ability_refusal(state, player, "knight", "R6.3") is not None:
        return []
    return [_KNIGHT[p] for p in plague_paths(state, 2)]  # R6.3: the paths path_refusal allows


def spreads(state: State, player: str) -> list[Action]:
    return [_SPREAD[n] for n in with_room(state, state.neighbours[state.plague])]  # R4.1: as spread_refusal


def outbreak(state: State, player: str) -> list[Action]:
    actions: list[Action] = [_FLIP[t] for t in state.rats[state.plague] if flip_refusal(state, t) is None]
    if knight_cubes_refusal(state, player) is None:
        actions.append(_KNIGHT_CUBES)
    return actions


def end(state: State, player: str) -> list[Action]:
    return [_END]


_NONE: dict[str, Generator] = {}


def generators(state: State) -> Mapping[str, Generator]:
    """The action generators of the kinds this part of the game allows (the deck's ``kinds``),
    by kind (the swap listed with the looks, the Knight's cubes with the flips)."""
    return state.table.deck.groups.get((state.phase, state.turn.stage), _NONE)


def generator_list(state: State) -> tuple[Generator, ...]:
    """The generators of :func:`generators`, in the same order, without their kinds (a
    random playout's pick of a kind)."""
    return state.table.deck.lists.get((state.phase, state.turn.stage), ())


def legal_by_kind(state: State) -> Iterator[tuple[str, Callable[[], list[Action]]]]:
    """Pairs (kind, thunk listing that kind's legal actions) for the player to move."""
    player = state.to_move
    if player is None:
        return
    for kind, gen in generators(state).items():
        yield kind, partial(gen, state, player)


def legal_of(state: State, kind: type[Action]) -> list[Action]:
    """The legal next actions of one kind (``Place``, ``MovePlague``...), without building
    the other kinds' lists (a bot that only weighs placements need not list every Monk move)."""
    player = state.to_move
    if player is None or kind not in kinds_now(state):
        return []
    return [a for a in state.table.deck.by_type[kind].generate(state, player) if type(a) is kind]


def legal_actions(state: State) -> list[Action]:
    """Every legal next action of the player to move (empty once the game is over)."""
    player = state.to_move
    if player is None:
        return []
    out: list[Action] = []
    for gen in generators(state).values():
        out.extend(gen(state, player))
    return out
