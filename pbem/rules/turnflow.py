"""Whose part of the game comes next: setup placements (R2.5-R2.6), the end of a turn and the
end conditions (R3.4, R6.1 and its ruling), the final round (R6.2), the final sweep (R6.4)
and the winner (R6.5)."""

from __future__ import annotations

from collections.abc import Callable

from pbem.rules.actions import (
    Action,
)
from pbem.rules.events import (
    EndReason,
    Event,
    GameEnding,
    GameOver,
    TurnStarted,
)
from pbem.rules.faces import Faces
from pbem.rules.plague import NEUTRAL_CUBES, resolve_flip
from pbem.rules.state import SETUP, TURN, Phase, State, TurnState

Handler = Callable[[State, str, Action, Faces, list[Event]], None]
_PHASE_NAMES = {phase: phase.value for phase in Phase}  # Phase.value is a property on Python 3.11


def start_part(state: State, seat: int, phase: Phase, out: list[Event]) -> None:
    state.current = seat
    state.phase = phase
    state.turn = TurnState()
    if phase is TURN:
        state.turn_number += 1
    out.append(TurnStarted(state.players[seat], _PHASE_NAMES[phase]))


def end_setup_placement(state: State, out: list[Event]) -> None:
    if state.queue:
        start_part(state, state.queue.pop(0), SETUP, out)
    else:  # R2.6: the first player (the last to place) takes the first turn
        start_part(state, state.current, TURN, out)


def end_turn(state: State, out: list[Event]) -> None:
    """R3.4, R6.1 (and its ruling): the turn ends; check the end conditions; next player or final round."""
    n = len(state.players)
    reason = None
    if not state.rat_supply:
        reason = EndReason.RAT_SUPPLY
    elif 0 in state.supply.values():
        reason = EndReason.CUBE_SUPPLY
    elif not any(state.rats[r] for r in state.regions):  # R6.1 ruling: nothing can threaten a cube again
        reason = EndReason.NO_RATS
    if reason is None:
        start_part(state, (state.current + 1) % n, TURN, out)
        return
    state.last_player = state.current
    state.queue = [(state.current - k) % n for k in range(1, n)]  # R6.2: backwards
    out.append(GameEnding(reason, tuple(state.players[s] for s in state.queue)))
    start_part(state, state.queue.pop(0), Phase.FINAL, out)


def final_sweep(state: State, faces: Faces, out: list[Event]) -> None:
    """R6.4: every rat flipped, region by region in map order, in arrival order."""
    # Every face first: if the seam cannot tell one, nothing has changed yet.
    sweep = [(r, t, faces.face(t)) for r in state.regions for t in list(state.rats[r])]
    state.phase = Phase.OVER
    state.turn = TurnState()
    state.queue = []
    for region, token, face in sweep:
        neutral = NEUTRAL_CUBES if region == state.plague else 0
        resolve_flip(state, region, token, face, neutral, out)
    out.append(GameOver(tuple(state.scores().items()), winner(state)))


def winner(state: State) -> str:
    """R6.5: most cubes; ties to whoever would have played soonest after the last turn."""
    scores = state.scores()
    n = len(state.players)
    last = state.last_player if state.last_player is not None else state.current
    order = [state.players[(last + k) % n] for k in range(1, n + 1)]
    return max(order, key=lambda p: (scores[p], -order.index(p)))


