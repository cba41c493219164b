"""What a player still owes after a move that did not finish their turn, in one sentence.

Shared by the referee's R7.5 refusal of a move that stops too early, ``pbem check``
and the host's reply to a move that stopped after a Witch's look, so all say the same.
Built from the public state only (P10).
"""

from __future__ import annotations

from collections.abc import Callable

from pbem.i18n import N_, Msg, Name, Names
from pbem.rules import Phase, Stage, State
from pbem.rules.checks import plague_gate, spread_refusal


def unfinished(state: State, player: str) -> bool:
    """After ``player``'s accepted move: is their turn (or final-round go) begun and not
    finished?  Setup placements always finish, and the go the snake order gives the same seat
    next (a second placement, or turn 1 after the last one, R2.5-R2.6) has not begun."""
    return state.to_move == player and state.phase is not Phase.SETUP and state.turn.begun()


def owed(state: State, player: str, name: Callable[[str], str]) -> Msg:
    """What ``player`` must still send, e.g. "after the plague reaches Gallia you place 2
    drawn rats: add 2 spread lines (to Anglia, Hispania) (R4.1)" (``name``: a region's name
    in English; another language names it as its players know it)."""
    turn = state.turn

    def region(ident: str) -> Name:
        return Name(name(ident), "region", ident)

    if state.phase is Phase.FINAL:
        return Msg("your part of the final round is not finished: use your class cards if you wish, "
                   "then add the line 'end' (R6.2)")
    if turn.stage is Stage.SPREAD:
        room = Names(region(n) for n in state.neighbours[state.plague] if spread_refusal(state, n) is None)
        return Msg.plural("after the plague reaches {plague} you place {n} drawn rat: add {n} 'spread REGION' "
                          "line (to {room}) (R4.1)",
                          "after the plague reaches {plague} you place {n} drawn rats: add {n} 'spread REGION' "
                          "lines (to {room}) (R4.1)", turn.spread_left, plague=region(state.plague), room=room)
    if turn.stage is Stage.OUTBREAK:
        return Msg("the outbreak in {plague} is next: add the flip order and the Knight's cubes if you wish, "
                   "or mail it as it is (R4.2)", plague=region(state.plague))
    return Msg(_STILL_OWED[turn.witch_open, plague_gate(state, player) is not None])


_STILL_OWED: dict[tuple[bool, bool], str] = {  # (the Witch's look awaits its face, phase B is still owed)
    (False, False): N_("you still owe: move the plague: add a 'plague REGION' line and its 'spread' lines "
                       "(phase C, R3.3)"),
    (False, True): N_("you still owe: place your cubes: add a 'place REGION N' line (phase B, R3.2); move the "
                      "plague: add a 'plague REGION' line and its 'spread' lines (phase C, R3.3)"),
    (True, False): N_("you still owe: the host sends you what your Witch saw; then go on (a second look and the "
                      "swap if you wish, R5.6); move the plague: add a 'plague REGION' line and its 'spread' "
                      "lines (phase C, R3.3)"),
    (True, True): N_("you still owe: the host sends you what your Witch saw; then go on (a second look and the "
                     "swap if you wish, R5.6); place your cubes: add a 'place REGION N' line (phase B, R3.2); "
                     "move the plague: add a 'plague REGION' line and its 'spread' lines (phase C, R3.3)"),
}
"""Each whole sentence of what is still owed (the Witch's look, phase B, phase C), not pieces."""
