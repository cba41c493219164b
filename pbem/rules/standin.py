"""R8.3 The stand-in rule: a seat's turn played mechanically, from public information only.

:func:`standin_actions` takes the public state (no face seam at all, and never a
seat's Witch looks) and returns the actions R8.3 prescribes for the player to
move, for the rest of their turn (R8.2: "or what is left of it").  The outbreak
is left to the default flip order (R4.2 ruling), so no ``flip`` is named; the
host resolves it with the faces like any move, and every reader recomputes
these actions from the log and compares (``pbem.referee.seats``).

Each part cites R8.3:

* no card is taken and no ability is used;
* phase B, when compulsory (R3.2 ruling), places the required cubes on the
  region in use with the fewest rats (at least one), the first in map order on
  a tie; with only the Peasant able to place, one cube on the first region in
  map order;
* the plague moves one step to the first neighbour in map order whose cubes of
  this seat are fewest;
* each drawn rat goes to the first neighbour in map order that can take it;
* rats flip in the default order;
* in the final round a stand-in does nothing (it ends its go).

**Ruling of this engine** (R8.3 names no initial placement): during the
initial placements (R2.5) the stand-in places its 2 cubes by R8.3's phase-B
choice, on the region in use with the fewest rats (at least one), the first in
map order on a tie, or on the first region in map order when no region holds a rat.
"""

from __future__ import annotations

from pbem.rules.actions import Action, EndTurn, MovePlague, Place, Spread
from pbem.rules.checks import plague_gate, spread_refusal
from pbem.rules.engine import apply_in_place
from pbem.rules.errors import RuleError
from pbem.rules.play import NoFaces
from pbem.rules.state import Phase, Stage, State

__all__ = ["placement", "plague_step", "spread_target", "standin_actions"]


def _map_order(state: State, regions: tuple[str, ...] | list[str]) -> list[str]:
    order = {r: i for i, r in enumerate(state.regions)}
    return sorted(regions, key=order.__getitem__)


def placement(state: State, player: str) -> Place | None:
    """R8.3 phase B: the stand-in's placement, or None when phase B is not compulsory
    (R3.2 ruling: the supply is empty, or no region holds a rat and the seat lacks the Peasant)."""
    if state.phase is Phase.SETUP:  # ruling of this engine: R8.3's choice for R2.5's 2 cubes
        with_rats = [r for r in state.regions if state.rats[r]]
        if not with_rats:
            return Place(state.regions[0], 2)
        fewest = min(len(state.rats[r]) for r in with_rats)
        return Place(next(r for r in with_rats if len(state.rats[r]) == fewest), 2)
    if plague_gate(state, player) is None:  # R3.2 ruling: phase B done, or nothing to place
        return None
    with_rats = [r for r in state.regions if state.rats[r]]  # R8.3: "(at least one)"
    if not with_rats:
        # R8.3: "with only the Peasant able to place, one cube on the first region in map order"
        return Place(state.regions[0], 1)
    fewest = min(len(state.rats[r]) for r in with_rats)
    region = next(r for r in with_rats if len(state.rats[r]) == fewest)  # R8.3: first in map order
    return Place(region, min(fewest, state.supply[player]))  # R3.2: the required cubes, no Peasant extra


def plague_step(state: State, player: str) -> MovePlague:
    """R8.3 phase C: one step, to the first neighbour in map order whose cubes of this seat are fewest."""
    near = _map_order(state, list(state.neighbours[state.plague]))
    fewest = min(state.cubes_of(r, player) for r in near)
    return MovePlague((next(r for r in near if state.cubes_of(r, player) == fewest),))


def spread_target(state: State) -> str:
    """R8.3 (R4.1): the first neighbour of the plague region, in map order, that can take a rat."""
    for region in _map_order(state, list(state.neighbours[state.plague])):
        if spread_refusal(state, region) is None:
            return region
    raise RuleError("no neighbour of the plague region can take a rat", "R4.1")  # spread_count prevents it


def standin_actions(state: State) -> list[Action]:
    """R8.3: the actions of the stand-in for the player to move, up to the outbreak
    (whose rats then flip in the default order) or, in the final round, its 'end'.

    Public state in, actions out: no face is consulted (the state is played forward
    with a seam that cannot tell one) and no Witch look is used."""
    player = state.to_move
    if player is None:
        return []
    if state.phase is Phase.FINAL:
        return [EndTurn()]  # R8.3: in the final round a stand-in does nothing
    trial = state.copy()
    actions: list[Action] = []
    seam = NoFaces()

    def act(action: Action) -> None:
        apply_in_place(trial, player, action, seam)
        actions.append(action)

    if trial.phase is Phase.SETUP:
        place = placement(trial, player)
        assert place is not None
        act(place)
        return actions
    if trial.turn.stage is Stage.MAIN:
        place = placement(trial, player)
        if place is not None:
            act(place)
        act(plague_step(trial, player))
    while trial.to_move == player and trial.phase is Phase.TURN and trial.turn.stage is Stage.SPREAD:
        act(Spread(spread_target(trial)))
    return actions  # R8.3: the rats flip in the default order (R4.2 ruling)
