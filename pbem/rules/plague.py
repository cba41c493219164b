"""R4 Plague: spread, outbreak, and resolving one flipped rat."""

from __future__ import annotations

from pbem.rules.data import Token
from pbem.rules.events import CubeRemoved, Event, TokenFlipped
from pbem.rules.state import MAX_RATS, State

NEUTRAL_CUBES = 2  # R5.4, R6.4


def spread_count(state: State) -> int:
    """R4.1: how many rats the plague region spreads, after the supply and room limits."""
    rats_here = len(state.rats[state.plague])
    wanted = 0 if rats_here == 0 else 1 if rats_here == 1 else 2
    room = sum(MAX_RATS - len(state.rats[n]) for n in state.neighbours[state.plague])
    return min(wanted, len(state.rat_supply), room)


def outbreak_pending(state: State, region: str) -> bool:
    """R4.2: an outbreak goes on while the region holds a player cube and a rat."""
    return bool(state.rats[region]) and any(state.cubes[region].values())


def _remove_cube(state: State, region: str, player: str, symbol: str, out: list[Event]) -> None:
    here = state.cubes[region]
    n = here.get(player, 0)
    if n == 0:
        return
    if n == 1:
        del here[player]
    else:
        here[player] = n - 1
    state.supply[player] += 1  # R4.4
    out.append(CubeRemoved(player, region, symbol))


def resolve_flip(
    state: State, region: str, token: str, face: Token, neutral: int, out: list[Event]
) -> None:
    """R4.3: take ``token`` out of ``region`` face up and let its symbols act.

    ``neutral`` is the number of neutral cubes counted towards the threshold
    (R5.4, R6.4); they are never part of a majority and never removed (R4.4).
    """
    state.rats[region].remove(token)
    state.flipped.append(token)
    here = state.cubes[region]
    count = sum(here.values()) + neutral
    outbreak = count >= face.threshold
    out.append(TokenFlipped(token, face.id, region, count, face.threshold, outbreak))
    if not outbreak:
        return
    symbols = face.symbols
    if "M" in symbols:
        # R4.3.1: the majority is taken once, when the rat is flipped.
        top = max(here.values(), default=0)
        majority = [p for p in state.players if here.get(p, 0) == top and top > 0]
        for symbol in symbols:
            if symbol == "M":
                for player in majority:
                    _remove_cube(state, region, player, "M", out)
    for symbol in symbols:  # R4.3.2, R4.5: the holder of each class symbol
        if symbol in state.cards:  # R1.5: the game's class cards
            holder = state.cards[symbol]
            if holder is not None:
                _remove_cube(state, region, holder, symbol, out)
    if "A" in symbols:
        for symbol in symbols:  # R4.3.3: everyone with a cube there
            if symbol == "A":
                for player in state.players:
                    _remove_cube(state, region, player, "A", out)
