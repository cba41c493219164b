"""Which action kinds each part of the game allows (R2.5, R3, R4, R6.2): :func:`kinds_now`, and
:func:`not_now`, why another kind is refused there (each kind's parts and refusal are declared
with it in :data:`pbem.rules.cards.DECK`; the rest of legality: :mod:`pbem.rules.checks`)."""

from __future__ import annotations

from pbem.i18n import Msg, Name
from pbem.rules.actions import Action
from pbem.rules.errors import RuleError
from pbem.rules.state import Phase, State


def kinds_now(state: State) -> tuple[type[Action], ...]:
    """The action kinds the present phase and stage allow (the game's deck says which)."""
    return state.table.deck.kinds.get((state.phase, state.turn.stage), ())


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
    rule = state.table.deck.by_type.get(type(action))
    if rule is None or rule.late is None:
        return RuleError(Msg("'{kind}' is not allowed now", kind=Name.action(action.kind)), action.rule or "R3")
    message, number = rule.late
    return RuleError(Msg(message), number)
