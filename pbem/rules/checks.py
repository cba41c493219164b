"""Legality, stated once: every rule that decides whether an action is allowed.

Each rule is one function of the public state returning ``None`` (allowed) or a
:class:`Refusal` (the rule's number and how to say why), or a *domain*: the
values a rule allows (``place_counts``, ``merchant_counts``).  Both consumers
use the same functions: the engine (:mod:`pbem.rules.engine`) raises the
refusal as a :class:`RuleError`; the generators (:mod:`pbem.rules.legal`)
enumerate candidates through them.  A refusal is a module constant, so a
generator that rules out a candidate allocates nothing and formats no message;
the sentence is only written when the engine refuses a player's action.

:data:`KINDS` says which action kinds each phase and stage of a turn allows
(R2.5, R3, R4, R6.2), and :func:`not_now` why another kind is refused there.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

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
from pbem.rules.data import CLASSES
from pbem.rules.errors import RuleError
from pbem.rules.state import MAX_RATS, Phase, Stage, State


class Refusal:
    """Why a rule refuses: its number and the sentence, or a function writing the
    sentence from the checked arguments (called only when an action is refused)."""

    __slots__ = ("rule", "say")

    def __init__(self, rule: str, say: str | Callable[..., str]) -> None:
        self.rule = rule
        self.say = say

    def error(self, state: State, *args: Any) -> RuleError:
        say = self.say
        return RuleError(say if isinstance(say, str) else say(state, *args), self.rule)


RuleCheck = Callable[..., "Refusal | None"]


def require(check: RuleCheck, state: State, *args: Any) -> None:
    """Raise ``check``'s refusal of ``args`` as a :class:`RuleError`, if it refuses."""
    refusal = check(state, *args)
    if refusal is not None:
        raise refusal.error(state, *args)


# --- the phases and stages (R2.5, R3, R4, R6.2) -------------------------------------------

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
    TakeCard: ("taking a card must come before phase C (moving the plague)", "R3.3"),
    Place: ("placing cubes must come before phase C (moving the plague)", "R3.3"),
    King: ("class abilities come before phase C (moving the plague)", "R5"),
    Merchant: ("class abilities come before phase C (moving the plague)", "R5"),
    Monk: ("class abilities come before phase C (moving the plague)", "R5"),
    WitchLook: ("class abilities come before phase C (moving the plague)", "R5"),
    WitchSwap: ("the Witch swaps only the two tokens just looked at, right after the looks", "R5.6"),
    MovePlague: ("the plague piece has already moved this turn", "R3.3"),
    Spread: ("there is no drawn rat to place now", "R4.1"),
    KnightCubes: ("the Knight declares the neutral cubes after spreading, before the first flip", "R5.4"),
    Flip: ("there is no outbreak to flip rats for now", "R4.2"),
    EndTurn: ("a turn ends by moving the plague (phase C), not with 'end'", "R3.4"),
    KnightMove: ("knight_move is the final round's; in a turn use move_plague", "R6.3"),
}


def kinds_now(state: State) -> tuple[type[Action], ...]:
    """The action kinds the present phase and stage allow (:data:`KINDS`)."""
    return KINDS.get((state.phase, state.turn.stage), ())


def not_now(state: State, action: Action) -> RuleError:
    """The refusal of an action of a kind this part of the game does not allow (R7.3)."""
    if state.phase is Phase.OVER:
        return RuleError("the game is over", "R6.5")
    if state.phase is Phase.SETUP:
        return RuleError("during setup each player only places their 2 initial cubes", "R2.5")
    if state.phase is Phase.FINAL:
        return RuleError(
            f"'{action.kind}' is not allowed in the final round: only class abilities (R6.2-R6.3) and 'end'",
            "R6.2",
        )
    message, rule = _WRONG_STAGE.get(type(action), (f"'{action.kind}' is not allowed now", action.rule or "R3"))
    return RuleError(message, rule)


# --- regions, neighbours, tokens, abilities ---------------------------------------------

def _unknown_region(state: State, region: str) -> str:
    import difflib  # lazily: only a refusal needs it (pbem apply's start-up speed)

    close = difflib.get_close_matches(region, state.regions, n=1, cutoff=0.6)
    hint = f"; did you mean {close[0]}?" if close else f" (regions in use: {', '.join(state.regions)})"
    return f"{region!r} is not a region in use in this game{hint}"


def not_next(state: State, region: str, of: str, what: str = "") -> str:
    """A refusal's sentence for a region that is not a neighbour, listing the neighbours."""
    return (f"{region} is not a neighbour of {what}{of} (its neighbours: "
            f"{', '.join(state.neighbours[of])})")


_RULES = ("R1.2", "R3.3", "R4.1", "R5.1", "R5.2", "R5.3", "R5.4", "R5.6", "R6.3")


def _per_rule(say: Callable[..., str]) -> dict[str, Refusal]:
    """One refusal per rule number, sharing a sentence (a check several rules use)."""
    return {rule: Refusal(rule, say) for rule in _RULES}


_REGION = _per_rule(lambda s, region, *_: _unknown_region(s, region))
_OFF_BOARD = _per_rule(lambda s, token, *_: f"token {token!r} is not face down on the board")
_NOT_HOLDER = {(card, rule): Refusal(rule, f"you do not hold the {card.capitalize()} card")
               for card in CLASSES for rule in _RULES}
_USED = {(card, rule): Refusal(rule, f"the {card.capitalize()}'s ability was already used this turn")
         for card in CLASSES for rule in _RULES}


def region_refusal(state: State, region: str, rule: str = "R1.2") -> Refusal | None:
    """R1.2: only the regions in use in this game."""
    return None if region in state.cubes else _REGION[rule]


def board_token(state: State, token: str) -> str | None:
    """The region where ``token`` lies face down, or None."""
    for region, tokens in state.rats.items():
        if token in tokens:
            return region
    return None


def token_refusal(state: State, token: str, rule: str) -> Refusal | None:
    """R5.3, R5.6: the token must lie face down on the board."""
    return None if board_token(state, token) is not None else _OFF_BOARD[rule]


def ability_refusal(state: State, player: str, card: str, rule: str) -> Refusal | None:
    """R5: a class ability is its card holder's, once per turn (the stage: :data:`KINDS`)."""
    if state.cards[card] != player:
        return _NOT_HOLDER[card, rule]
    if card in state.turn.used:
        return _USED[card, rule]
    return None


def mover_refusal(state: State, player: str) -> Refusal | None:
    """R6.5, R2.1, R3: an action is the turn's player's, while the game lasts."""
    if state.phase is Phase.OVER:
        return _OVER
    if player not in state.players:
        return _NOT_PLAYING
    if player != state.players[state.current]:
        return _NOT_YOUR_TURN
    return None


_OVER = Refusal("R6.5", "the game is over")
_NOT_PLAYING = Refusal("R2.1", lambda s, p: f"{p!r} is not a player in this game")
_NOT_YOUR_TURN = Refusal("R3", lambda s, p: f"it is {s.players[s.current]}'s turn, not {p}'s")


# --- R3.1 phase A: a class card --------------------------------------------------------------

_NO_CARD = Refusal("R1.5", lambda s, p, card: f"there is no class card {card!r}")
_CARD_TAKEN = Refusal("R3.1", "you have already taken a card this turn")
_OWN_CARD = Refusal("R3.1", lambda s, p, card: f"you already hold the {card.capitalize()} card")


def card_refusal(state: State, player: str, card: str) -> Refusal | None:
    """R3.1: one card a turn, unowned or another player's (R1.5: the five classes)."""
    if card not in state.cards:
        return _NO_CARD
    if state.turn.card_taken:
        return _CARD_TAKEN
    if state.cards[card] == player:
        return _OWN_CARD
    return None


# --- R2.5, R3.2, R5.5, R6.3: placing cubes ---------------------------------------------

_PLACED = Refusal("R3.2", "you have already placed cubes this turn (phase B)")
_NO_SUPPLY = Refusal("R1.3", "your supply has no cube left")


def place_gate(state: State, player: str) -> Refusal | None:
    """R3.2: phase B once a turn; R6.3: in the final round only the Peasant's cube."""
    if state.phase is Phase.FINAL:
        refusal = ability_refusal(state, player, "peasant", "R6.3")
        if refusal is None and state.supply[player] < 1:
            return _NO_SUPPLY
        return refusal
    if state.phase is Phase.TURN and state.turn.placed:
        return _PLACED
    return None


def place_counts(state: State, player: str, region: str) -> tuple[int, ...]:
    """The cube counts ``player`` may place on ``region`` now: 2 in setup (R2.5), the
    Peasant's 1 in the final round (R6.3), and in phase B one a rat (R3.2), all that is
    left if fewer, and with the Peasant one more (R5.5)."""
    if state.phase is Phase.SETUP:
        return (2,)
    if state.phase is Phase.FINAL:
        return (1,)
    supply = state.supply[player]
    if not supply:
        return ()
    rats = len(state.rats[region])
    normal = rats if rats < supply else supply  # R3.2: all that is left, if fewer
    if state.cards["peasant"] == player and "peasant" not in state.turn.used:
        extra = rats + 1 if rats < supply else supply  # R5.5: one more
        return (normal, extra) if rats and normal != extra else (extra,)
    return (normal,) if rats else ()


def _wrong_count(state: State, player: str, region: str, count: int) -> str:
    if state.phase is Phase.SETUP:
        return "each initial placement is exactly 2 cubes"
    if state.phase is Phase.FINAL:
        return "in the final round the Peasant places exactly one cube"
    allowed = place_counts(state, player, region)
    if not allowed:
        reason = (
            "your supply is empty" if state.supply[player] == 0
            else f"{region} has no rats (only the Peasant may place there, R5.5)"
        )
        return f"you cannot place cubes on {region}: {reason}"
    return (f"{region} has {len(state.rats[region])} rat(s) and your supply {state.supply[player]} "
            f"cube(s): place {' or '.join(map(str, allowed))} there, not {count}")


_COUNT = {phase: Refusal(rule, _wrong_count)
          for phase, rule in ((Phase.SETUP, "R2.5"), (Phase.FINAL, "R6.3"), (Phase.TURN, "R3.2"))}


def count_refusal(state: State, player: str, region: str, count: int) -> Refusal | None:
    return None if count in place_counts(state, player, region) else _COUNT[state.phase]


def can_place(state: State, player: str) -> bool:
    """R3.2 ruling: phase B is compulsory when at least one cube can be placed."""
    return any(place_counts(state, player, region) for region in state.regions)


# --- R3.3 phase C and R5.4 the Knight: the plague's moves ------------------------------------

_PLACE_FIRST = Refusal("R3.2", "place your cubes (phase B) before moving the plague: it is compulsory "
                               "while you have cubes and a region to place them on")


def plague_gate(state: State, player: str) -> Refusal | None:
    """R3.2 ruling: phase B comes first while a cube can be placed."""
    return _PLACE_FIRST if not state.turn.placed and can_place(state, player) else None


def reach(state: State, player: str) -> int:
    """R3.3: one step; R5.4: two with the Knight."""
    return 2 if state.cards["knight"] == player else 1


def walks(state: State, longest: int) -> list[tuple[str, ...]]:
    """Every walk of 1 to ``longest`` steps between neighbours from the plague region
    (the candidates :func:`path_refusal` judges)."""
    start = state.plague
    out: list[tuple[str, ...]] = []
    for first in state.neighbours[start]:
        out.append((first,))
        if longest == 2:
            out.extend((first, second) for second in state.neighbours[first])
    return out


def _path_fault(state: State, path: tuple[str, ...], longest: int) -> tuple[str, str, str] | None:
    """The first thing wrong with a plague path: (fault, region, from), or None."""
    if not 1 <= len(path) <= longest:
        return ("length", "", "")
    here = state.plague
    for region in path:
        if region not in state.cubes:
            return ("region", region, here)
        if region not in state.neighbours[here]:
            return ("not_next", region, here)
        here = region
    return ("back", here, here) if here == state.plague else None


def _say_path(state: State, path: tuple[str, ...], longest: int, rule: str) -> str:
    fault, region, here = _path_fault(state, path, longest) or ("", "", "")
    if fault == "length":
        steps = "one step" if longest == 1 else "one or two steps"
        return f"the plague piece moves {steps}, not {len(path)}"
    if fault == "region":
        return _unknown_region(state, region)
    if fault == "not_next":
        return not_next(state, region, here)
    return f"the plague piece may not end where it started ({region})"


_PATH = _per_rule(_say_path)


def path_refusal(state: State, path: tuple[str, ...], longest: int, rule: str) -> Refusal | None:
    """R3.3, R5.4, R6.3: one step (two with the Knight) between neighbours, not back
    to where the plague started."""
    return None if _path_fault(state, path, longest) is None else _PATH[rule]


def path_rule(path: tuple[str, ...]) -> str:
    return "R5.4" if len(path) > 1 else "R3.3"


# --- R4 the plague: spreading and the outbreak -------------------------------------------

_SPREAD_NOT_NEXT = Refusal("R4.1", lambda s, region: not_next(s, region, s.plague, "the plague region "))
_SPREAD_FULL = Refusal("R4.1", lambda s, region: f"{region} already holds {MAX_RATS} rats; choose another neighbour")


def spread_refusal(state: State, region: str) -> Refusal | None:
    """R4.1: each drawn rat to a neighbour of the plague region holding fewer than 3."""
    if region not in state.neighbours[state.plague]:
        return _SPREAD_NOT_NEXT
    if len(state.rats[region]) >= MAX_RATS:
        return _SPREAD_FULL
    return None


_NOT_THERE = Refusal("R4.2", lambda s, token: f"{token} is not a face-down rat in the plague region {s.plague}")


def flip_refusal(state: State, token: str) -> Refusal | None:
    """R4.2: the outbreak flips the plague region's rats."""
    return None if token in state.rats[state.plague] else _NOT_THERE
