"""Which action kinds each part of the game allows (R2.5, R3, R4, R6.2): :data:`KINDS`, and
:func:`not_now`, why another kind is refused there (the rest of legality:
:mod:`pbem.rules.checks`)."""

from __future__ import annotations

from pbem.i18n import N_, Msg, Name
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
from pbem.rules.errors import RuleError
from pbem.rules.state import Phase, Stage, State

_MAIN = (TakeCard, Place, King, Merchant, Monk, WitchLook, WitchSwap, MovePlague)
KINDS: dict[tuple[Phase, Stage], tuple[type[Action], ...]] = {
    (Phase.SETUP, Stage.MAIN): (Place,),  # R2.5
    (Phase.TURN, Stage.MAIN): _MAIN,  # R3.1-R3.3, R5
    (Phase.TURN, Stage.SPREAD): (Spread,),  # R4.1
    (Phase.TURN, Stage.OUTBREAK): (Flip, KnightCubes),  # R4.2, R5.4
    (Phase.FINAL, Stage.MAIN): (Place, King, Merchant, Monk, WitchLook, WitchSwap, KnightMove, EndTurn),  # R6.2
}
"""The action kinds each part of the game allows, in the order the generators list them."""

_WRONG_STAGE: dict[type[Action], tuple[str, str]] = {
    TakeCard: (N_("taking a card must come before phase C (moving the plague)"), "R3.3"),
    Place: (N_("placing cubes must come before phase C (moving the plague)"), "R3.3"),
    King: (N_("class abilities come before phase C (moving the plague)"), "R5"),
    Merchant: (N_("class abilities come before phase C (moving the plague)"), "R5"),
    Monk: (N_("class abilities come before phase C (moving the plague)"), "R5"),
    WitchLook: (N_("class abilities come before phase C (moving the plague)"), "R5"),
    WitchSwap: (N_("the Witch swaps only the two tokens just looked at, right after the looks"), "R5.6"),
    MovePlague: (N_("the plague piece has already moved this turn"), "R3.3"),
    Spread: (N_("there is no drawn rat to place now"), "R4.1"),
    KnightCubes: (N_("the Knight declares the neutral cubes after spreading, before the first flip"), "R5.4"),
    Flip: (N_("there is no outbreak to flip rats for now"), "R4.2"),
    EndTurn: (N_("a turn ends by moving the plague (phase C), not with 'end'"), "R3.4"),
    KnightMove: (N_("'knight REGION' is for the final round; in a turn write 'plague REGION'"), "R6.3"),
}


def kinds_now(state: State) -> tuple[type[Action], ...]:
    """The action kinds the present phase and stage allow (:data:`KINDS`)."""
    return KINDS.get((state.phase, state.turn.stage), ())


def not_now(state: State, action: Action) -> RuleError:
    """The refusal of an action of a kind this part of the game does not allow (R7.3)."""
    if state.phase is Phase.OVER:
        return RuleError(Msg("the game is over"), "R6.5")
    if state.phase is Phase.SETUP:
        return RuleError(Msg("during setup each player only places their 2 initial cubes"), "R2.5")
    if state.phase is Phase.FINAL:
        return RuleError(
            Msg("'{kind}' is not allowed in the final round: only class abilities (R6.2-R6.3) and 'end'",
                kind=Name.action(action.kind)),
            "R6.2",
        )
    if type(action) not in _WRONG_STAGE:
        return RuleError(Msg("'{kind}' is not allowed now", kind=Name.action(action.kind)), action.rule or "R3")
    message, rule = _WRONG_STAGE[type(action)]
    return RuleError(Msg(message), rule)
