"""The checks several actions share: regions in use, neighbours, abilities, phase C, tokens on
the board, plague paths, and what phase B may place (R1.2, R3.2, R3.3, R5, R5.4)."""

from __future__ import annotations

from collections.abc import Callable

from pbem.rules.actions import (
    Action,
)
from pbem.rules.errors import RuleError
from pbem.rules.events import (
    Event,
)
from pbem.rules.faces import Faces
from pbem.rules.state import Phase, Stage, State

Handler = Callable[[State, str, Action, Faces, list[Event]], None]




def check_region(state: State, region: str, rule: str = "R1.2") -> None:
    if region not in state.cubes:
        import difflib  # lazily: only a refusal needs it (pbem apply's start-up speed)

        close = difflib.get_close_matches(region, state.regions, n=1, cutoff=0.6)
        hint = f"; did you mean {close[0]}?" if close else f" (regions in use: {', '.join(state.regions)})"
        raise RuleError(f"{region!r} is not a region in use in this game{hint}", rule)


def not_next(state: State, region: str, of: str, what: str = "") -> str:
    """A refusal's sentence for a region that is not a neighbour, listing the neighbours."""
    return (f"{region} is not a neighbour of {what}{of} (its neighbours: "
            f"{', '.join(state.neighbours[of])})")


def check_ability(state: State, player: str, card: str, rule: str) -> None:
    """R5: only the card's holder, once per turn, before phase C."""
    if state.cards[card] != player:
        raise RuleError(f"you do not hold the {card.capitalize()} card", rule)
    if card in state.turn.used:
        raise RuleError(f"the {card.capitalize()}'s ability was already used this turn", rule)
    if state.phase is Phase.TURN and state.turn.stage is not Stage.MAIN:
        raise RuleError("class abilities come before phase C (moving the plague)", "R5")


def check_before_phase_c(state: State, what: str, rule: str) -> None:
    if state.phase is not Phase.TURN:
        raise RuleError(f"{what} is not allowed in the {state.phase.value} phase", rule)
    if state.turn.stage is not Stage.MAIN:
        raise RuleError(f"{what} must come before phase C (moving the plague)", "R3.3")


def board_token(state: State, token: str, rule: str) -> str:
    for region, tokens in state.rats.items():
        if token in tokens:
            return region
    raise RuleError(f"token {token!r} is not face down on the board", rule)


def check_path(state: State, path: tuple[str, ...], longest: int, rule: str) -> None:
    if not 1 <= len(path) <= longest:
        steps = "one step" if longest == 1 else "one or two steps"
        raise RuleError(f"the plague piece moves {steps}, not {len(path)}", rule)
    here = state.plague
    for region in path:
        check_region(state, region, rule)
        if region not in state.neighbours[here]:
            raise RuleError(not_next(state, region, here), rule)
        here = region
    if here == state.plague:
        raise RuleError(f"the plague piece may not end where it started ({here})", rule)


def can_place(state: State, player: str) -> bool:
    """R3.2 ruling: phase B is compulsory when at least one cube can be placed."""
    if state.supply[player] == 0:
        return False
    return state.cards["peasant"] == player or any(state.rats[r] for r in state.regions)


def place_counts(state: State, player: str, region: str) -> tuple[int, ...]:
    """R3.2, R5.5: the cube counts ``player`` may place on ``region`` in phase B."""
    supply = state.supply[player]
    if not supply:
        return ()
    rats = len(state.rats[region])
    normal = rats if rats < supply else supply  # R3.2: all that is left, if fewer
    if state.cards["peasant"] == player and "peasant" not in state.turn.used:
        extra = rats + 1 if rats < supply else supply  # R5.5: one more
        return (normal, extra) if rats and normal != extra else (extra,)
    return (normal,) if rats else ()


