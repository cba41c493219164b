"""A fast playout policy for the mcts level: one cheap, sensible turn, with no search.

No card is taken and no ability used (as R8.3's stand-in); phase B places on
the region in use with the fewest rats (at least one), the fewest cubes on a
tie (R3.2); the plague goes one step to the neighbour where the other players
have the most cubes more than this one (R3.3); each drawn rat goes where it
threatens this player least (R4.1); rats flip oldest first (R4.2); in the final
round the seat does nothing (R6.2).  Played straight on the state through
:func:`pbem.rules.apply_in_place` (the rules core itself), so it stays exact.
"""

from __future__ import annotations

from pbem.rules import EndTurn, Faces, MovePlague, Phase, Place, Spread, Stage, State, apply_in_place
from pbem.rules.checks import place_counts, plague_gate, spread_refusal
from pbem.rules.play import default_flips


def _edge(state: State, region: str, player: str) -> int:
    """The other players' cubes in ``region`` minus ``player``'s."""
    here = state.cubes[region]
    return sum(here.values()) - 2 * here.get(player, 0)


def playout_turn(state: State, faces: Faces) -> None:
    """The player to move plays one whole turn (or final-round go) on ``state`` itself."""
    player = state.to_move
    assert player is not None
    if state.phase is Phase.SETUP:
        region = min(state.regions, key=lambda r: sum(state.cubes[r].values()))
        apply_in_place(state, player, Place(region, 2), faces)
        return
    if state.phase is Phase.FINAL:
        apply_in_place(state, player, EndTurn(), faces)
        return
    if state.turn.stage is Stage.MAIN:
        if plague_gate(state, player) is not None:  # phase B first (R3.2 ruling)
            best: tuple[int, int, str, int] | None = None
            for region in state.regions:
                counts = place_counts(state, player, region)
                if counts and state.rats[region]:
                    key = (len(state.rats[region]), sum(state.cubes[region].values()), region, counts[0])
                    if best is None or key[:2] < best[:2]:
                        best = key
            if best is None:  # only the Peasant's cube on a region without rats (R5.5)
                region = state.regions[0]
                best = (0, 0, region, place_counts(state, player, region)[0])
            apply_in_place(state, player, Place(best[2], best[3]), faces)
        target = max(state.neighbours[state.plague], key=lambda r: _edge(state, r, player) if state.rats[r] else -99)
        apply_in_place(state, player, MovePlague((target,)), faces)
    while state.to_move == player and state.phase is Phase.TURN and state.turn.stage is Stage.SPREAD:
        options = [n for n in state.neighbours[state.plague] if spread_refusal(state, n) is None]
        apply_in_place(state, player, Spread(max(options, key=lambda r: _edge(state, r, player))), faces)
    if state.to_move == player and state.phase is Phase.TURN and state.turn.stage is Stage.OUTBREAK:
        default_flips(state, player, faces)
