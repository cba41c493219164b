"""What a player still owes after a move that did not finish their turn, in one sentence.

Shared by the referee's R7.5 refusal of a move that stops too early, ``pbem check``
and the host's reply to a move that stopped after a Witch's look, so all say the same.
Built from the public state only (P10).
"""

from __future__ import annotations

from collections.abc import Callable

from pbem.rules import Phase, Stage, State
from pbem.rules.checks import plague_gate, spread_refusal


def unfinished(state: State, player: str) -> bool:
    """After ``player``'s accepted move: is it still their turn (or final-round go)?
    Setup placements always finish (the snake order may give the same seat two in a row)."""
    return state.to_move == player and state.phase is not Phase.SETUP


def owed(state: State, player: str, name: Callable[[str], str]) -> str:
    """What ``player`` must still send, e.g. "after the plague reaches Gallia you place 2
    drawn rats: add 2 spread lines (to Anglia, Hispania) (R4.1)"."""
    turn = state.turn
    if state.phase is Phase.FINAL:
        return ("your part of the final round is not finished: use your class cards if you wish, "
                "then add the line 'end' (R6.2)")
    if turn.stage is Stage.SPREAD:
        room = [name(n) for n in state.neighbours[state.plague] if spread_refusal(state, n) is None]
        n = turn.spread_left
        return (f"after the plague reaches {name(state.plague)} you place {n} drawn rat{'s' * (n != 1)}: "
                f"add {n} 'spread REGION' line{'s' * (n != 1)} (to {', '.join(room)}) (R4.1)")
    if turn.stage is Stage.OUTBREAK:
        return (f"the outbreak in {name(state.plague)} is next: add the flip order and the Knight's "
                "cubes if you wish, or mail it as it is (R4.2)")
    parts = []
    if turn.witch_open:
        parts.append("the host sends you what your Witch saw; then go on (a second look and the swap "
                     "if you wish, R5.6)")
    if plague_gate(state, player) is not None:
        parts.append("place your cubes: add a 'place REGION N' line (phase B, R3.2)")
    parts.append("move the plague: add a 'plague REGION' line and its 'spread' lines (phase C, R3.3)")
    return "you still owe: " + "; ".join(parts)
