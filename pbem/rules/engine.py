"""Applying one action: check it against the state, then change the state.

Every handler checks first and changes nothing until every check has passed,
so a refused action (:class:`RuleError`) leaves the state exactly as it was.
:func:`step` is the pure form (a new state); :func:`apply_in_place` the fast
one used by replays and simulations.
"""

from __future__ import annotations

from collections.abc import Callable

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
from pbem.rules.checks import (
    board_token,
    can_place,
    check_ability,
    check_before_phase_c,
    check_path,
    check_region,
    not_next,
    place_counts,
)
from pbem.rules.data import CLASSES
from pbem.rules.errors import RuleError
from pbem.rules.events import (
    CardTaken,
    CubesMoved,
    CubesPlaced,
    CubeToPalace,
    Event,
    KnightCubesDeclared,
    PlagueMoved,
    RatDrawn,
    RatMoved,
    TokenLooked,
    TokensSwapped,
)
from pbem.rules.faces import Faces
from pbem.rules.plague import NEUTRAL_CUBES, outbreak_pending, resolve_flip, spread_count
from pbem.rules.state import MAX_RATS, Phase, Stage, State
from pbem.rules.turnflow import end_setup_placement, end_turn, final_sweep, start_part

Handler = Callable[[State, str, Action, Faces, list[Event]], None]



# --- handlers ------------------------------------------------------------------

def _take_card(state: State, player: str, action: Action, faces: Faces, out: list[Event]) -> None:
    assert isinstance(action, TakeCard)
    check_before_phase_c(state, "taking a card", "R3.1")
    if action.card not in CLASSES:
        raise RuleError(f"there is no class card {action.card!r}", "R1.5")
    if state.turn.card_taken:
        raise RuleError("you have already taken a card this turn", "R3.1")
    previous = state.cards[action.card]
    if previous == player:
        raise RuleError(f"you already hold the {action.card.capitalize()} card", "R3.1")
    state.cards[action.card] = player
    state.turn.card_taken = True
    out.append(CardTaken(player, action.card, previous))


def _place(state: State, player: str, action: Action, faces: Faces, out: list[Event]) -> None:
    assert isinstance(action, Place)
    check_region(state, action.region)
    if state.phase is Phase.SETUP:
        if action.count != 2:
            raise RuleError("each initial placement is exactly 2 cubes", "R2.5")
    elif state.phase is Phase.FINAL:
        check_ability(state, player, "peasant", "R6.3")
        if action.count != 1:
            raise RuleError("in the final round the Peasant places exactly one cube", "R6.3")
        if state.supply[player] < 1:
            raise RuleError("your supply has no cube left", "R1.3")
        state.turn.used.add("peasant")
    else:
        check_before_phase_c(state, "placing cubes", "R3.2")
        if state.turn.placed:
            raise RuleError("you have already placed cubes this turn (phase B)", "R3.2")
        allowed = place_counts(state, player, action.region)
        if action.count not in allowed:
            rats = len(state.rats[action.region])
            if not allowed:
                reason = (
                    "your supply is empty" if state.supply[player] == 0
                    else f"{action.region} has no rats (only the Peasant may place there, R5.5)"
                )
                raise RuleError(f"you cannot place cubes on {action.region}: {reason}", "R3.2")
            raise RuleError(
                f"{action.region} has {rats} rat(s) and your supply {state.supply[player]} "
                f"cube(s): place {' or '.join(map(str, allowed))} there, not {action.count}",
                "R3.2",
            )
        if action.count > min(len(state.rats[action.region]), state.supply[player]):
            state.turn.used.add("peasant")  # R5.5: the extra cube is the Peasant's ability
        state.turn.placed = True
    state.supply[player] -= action.count
    here = state.cubes[action.region]
    here[player] = here.get(player, 0) + action.count
    out.append(CubesPlaced(player, action.region, action.count))


def _king(state: State, player: str, action: Action, faces: Faces, out: list[Event]) -> None:
    assert isinstance(action, King)
    check_ability(state, player, "king", "R5.1")
    check_region(state, action.region, "R5.1")
    if state.rats[action.region]:
        raise RuleError(f"{action.region} has rats; the King takes from a region without", "R5.1")
    if state.cubes_of(action.region, player) < 1:
        raise RuleError(f"you have no cube in {action.region}", "R5.1")
    state.turn.used.add("king")
    here = state.cubes[action.region]
    here[player] -= 1
    if not here[player]:
        del here[player]
    state.palace[player] += 1
    out.append(CubeToPalace(player, action.region))


def _merchant(state: State, player: str, action: Action, faces: Faces, out: list[Event]) -> None:
    assert isinstance(action, Merchant)
    check_ability(state, player, "merchant", "R5.2")
    check_region(state, action.source, "R5.2")
    check_region(state, action.target, "R5.2")
    if action.target not in state.neighbours[action.source]:
        raise RuleError(not_next(state, action.target, action.source), "R5.2")
    if not 1 <= action.count <= 3:
        raise RuleError(f"the Merchant moves 1 to 3 cubes, not {action.count}", "R5.2")
    if state.cubes_of(action.source, player) < action.count:
        raise RuleError(
            f"you have only {state.cubes_of(action.source, player)} cube(s) in {action.source}", "R5.2"
        )
    state.turn.used.add("merchant")
    src, dst = state.cubes[action.source], state.cubes[action.target]
    src[player] -= action.count
    if not src[player]:
        del src[player]
    dst[player] = dst.get(player, 0) + action.count
    out.append(CubesMoved(player, action.source, action.target, action.count))


def _monk(state: State, player: str, action: Action, faces: Faces, out: list[Event]) -> None:
    assert isinstance(action, Monk)
    check_ability(state, player, "monk", "R5.3")
    source = board_token(state, action.token, "R5.3")
    check_region(state, action.target, "R5.3")
    if action.target not in state.neighbours[source]:
        raise RuleError(not_next(state, action.target, source, f"{action.token}'s region "), "R5.3")
    if len(state.rats[action.target]) >= MAX_RATS:
        raise RuleError(f"{action.target} already holds {MAX_RATS} rats", "R1.7")
    state.turn.used.add("monk")
    state.rats[source].remove(action.token)
    state.rats[action.target].append(action.token)  # arrives last (R4.2)
    out.append(RatMoved(action.token, source, action.target))


def _witch_look(state: State, player: str, action: Action, faces: Faces, out: list[Event]) -> None:
    assert isinstance(action, WitchLook)
    turn = state.turn
    if turn.witch_open and len(turn.witch_looked) == 1:
        if state.cards["witch"] != player:  # the card cannot change hands mid-use
            raise RuleError("you do not hold the Witch card", "R5.6")
        board_token(state, action.token, "R5.6")
        if action.token == turn.witch_looked[0]:
            raise RuleError("the second look must be at another token", "R5.6")
    else:
        check_ability(state, player, "witch", "R5.6")
        board_token(state, action.token, "R5.6")
    seen = faces.look(action.token)
    if not turn.witch_open:
        turn.used.add("witch")
        turn.witch_open = True
        turn.witch_looked = []
    turn.witch_looked.append(action.token)
    out.append(TokenLooked(player, action.token, seen))


def _witch_swap(state: State, player: str, action: Action, faces: Faces, out: list[Event]) -> None:
    turn = state.turn
    if not (turn.witch_open and len(turn.witch_looked) == 2):
        raise RuleError(
            "the Witch swaps only the two tokens just looked at, right after the looks", "R5.6"
        )
    first, second = turn.witch_looked
    region_a = board_token(state, first, "R5.6")
    region_b = board_token(state, second, "R5.6")
    rats_a, rats_b = state.rats[region_a], state.rats[region_b]
    ia, ib = rats_a.index(first), rats_b.index(second)
    rats_a[ia], rats_b[ib] = second, first  # each takes the other's place (R4.2)
    turn.witch_open = False
    out.append(TokensSwapped(first, second))


def _move_plague(state: State, player: str, action: Action, faces: Faces, out: list[Event]) -> None:
    assert isinstance(action, MovePlague)
    if state.phase is not Phase.TURN:
        raise RuleError("the plague piece does not move in the final round (but see R6.3)", "R6.2")
    if state.turn.stage is not Stage.MAIN:
        raise RuleError("the plague piece has already moved this turn", "R3.3")
    if not state.turn.placed and can_place(state, player):
        raise RuleError(
            "place your cubes (phase B) before moving the plague: it is compulsory "
            "while you have cubes and a region to place them on", "R3.2"
        )
    knight = state.cards["knight"] == player
    check_path(state, action.path, 2 if knight else 1, "R5.4" if len(action.path) > 1 else "R3.3")
    if len(action.path) == 2:
        state.turn.used.add("knight")
    state.plague = action.path[-1]
    count = spread_count(state)
    out.append(PlagueMoved(action.path, count))
    state.turn.spread_left = count
    state.turn.stage = Stage.SPREAD
    _after_spread(state, out)


def _after_spread(state: State, out: list[Event]) -> None:
    if state.turn.spread_left:
        return
    if outbreak_pending(state, state.plague):
        state.turn.stage = Stage.OUTBREAK
    else:
        end_turn(state, out)


def _spread(state: State, player: str, action: Action, faces: Faces, out: list[Event]) -> None:
    assert isinstance(action, Spread)
    if state.phase is not Phase.TURN or state.turn.stage is not Stage.SPREAD:
        raise RuleError("there is no drawn rat to place now", "R4.1")
    check_region(state, action.region, "R4.1")
    if action.region not in state.neighbours[state.plague]:
        raise RuleError(not_next(state, action.region, state.plague, "the plague region "), "R4.1")
    if len(state.rats[action.region]) >= MAX_RATS:
        raise RuleError(f"{action.region} already holds {MAX_RATS} rats; choose another neighbour", "R4.1")
    token = state.rat_supply.pop(0)
    state.rats[action.region].append(token)
    state.turn.spread_left -= 1
    out.append(RatDrawn(token, action.region))
    _after_spread(state, out)


def _knight_cubes(state: State, player: str, action: Action, faces: Faces, out: list[Event]) -> None:
    if state.phase is not Phase.TURN or state.turn.stage is not Stage.OUTBREAK or state.turn.flips:
        raise RuleError("the Knight declares the neutral cubes after spreading, before the first flip", "R5.4")
    if state.cards["knight"] != player:
        raise RuleError("you do not hold the Knight card", "R5.4")
    if state.turn.knight_cubes:
        raise RuleError("the neutral cubes are already declared", "R5.4")
    state.turn.knight_cubes = True
    out.append(KnightCubesDeclared(player, state.plague))


def _flip(state: State, player: str, action: Action, faces: Faces, out: list[Event]) -> None:
    assert isinstance(action, Flip)
    if state.phase is not Phase.TURN or state.turn.stage is not Stage.OUTBREAK:
        raise RuleError("there is no outbreak to flip rats for now", "R4.2")
    if action.token not in state.rats[state.plague]:
        raise RuleError(f"{action.token} is not a face-down rat in the plague region {state.plague}", "R4.2")
    face = faces.face(action.token)
    neutral = NEUTRAL_CUBES if state.turn.knight_cubes else 0
    state.turn.flips += 1
    resolve_flip(state, state.plague, action.token, face, neutral, out)
    if not outbreak_pending(state, state.plague):
        end_turn(state, out)


def _knight_move(state: State, player: str, action: Action, faces: Faces, out: list[Event]) -> None:
    assert isinstance(action, KnightMove)
    if state.phase is not Phase.FINAL:
        raise RuleError("knight_move is the final round's; in a turn use move_plague", "R6.3")
    check_ability(state, player, "knight", "R6.3")
    check_path(state, action.path, 2, "R6.3")
    state.turn.used.add("knight")
    state.plague = action.path[-1]
    out.append(PlagueMoved(action.path, 0))


def _end(state: State, player: str, action: Action, faces: Faces, out: list[Event]) -> None:
    if state.phase is not Phase.FINAL:
        raise RuleError("a turn ends by moving the plague (phase C), not with 'end'", "R3.4")
    if state.queue:
        start_part(state, state.queue.pop(0), Phase.FINAL, out)
    else:
        final_sweep(state, faces, out)


HANDLERS: dict[type[Action], Handler] = {
    TakeCard: _take_card, Place: _place, King: _king, Merchant: _merchant, Monk: _monk,
    WitchLook: _witch_look, WitchSwap: _witch_swap, MovePlague: _move_plague, Spread: _spread,
    KnightCubes: _knight_cubes, Flip: _flip, KnightMove: _knight_move, EndTurn: _end,
}

ALLOWED: dict[Phase, frozenset[type[Action]]] = {
    Phase.SETUP: frozenset({Place}),
    Phase.TURN: frozenset(HANDLERS) - {KnightMove, EndTurn},
    Phase.FINAL: frozenset({Place, King, Merchant, Monk, WitchLook, WitchSwap, KnightMove, EndTurn}),
    Phase.OVER: frozenset(),
}


# --- entry points --------------------------------------------------------------

def apply_in_place(state: State, player: str, action: Action, faces: Faces) -> list[Event]:
    """Apply ``action`` by ``player`` to ``state`` itself; :class:`RuleError` if illegal.

    On refusal ``state`` is unchanged.  On success it returns the events, in order.
    """
    if state.phase is Phase.OVER:
        raise RuleError("the game is over", "R6.5")
    if player not in state.players:
        raise RuleError(f"{player!r} is not a player in this game", "R2.1")
    if player != state.players[state.current]:
        raise RuleError(
            f"it is {state.players[state.current]}'s turn, not {player}'s", "R3"
        )
    handler = HANDLERS.get(type(action))
    if handler is None or type(action) not in ALLOWED[state.phase]:
        raise _not_now(state, action)
    out: list[Event] = []
    setup = state.phase is Phase.SETUP
    handler(state, player, action, faces, out)
    if setup:
        end_setup_placement(state, out)
    elif not isinstance(action, WitchLook | WitchSwap):
        state.turn.witch_open = False  # R5.6 ruling: any other action ends the Witch's use
    return out


def _not_now(state: State, action: Action) -> RuleError:
    """The refusal of an action of a kind the phase does not allow (R7.3)."""
    if state.phase is Phase.SETUP:
        return RuleError("during setup each player only places their 2 initial cubes", "R2.5")
    if state.phase is Phase.FINAL:
        return RuleError(
            f"'{action.kind}' is not allowed in the final round: only class abilities (R6.2-R6.3) and 'end'",
            "R6.2",
        )
    if isinstance(action, EndTurn):
        return RuleError("a turn ends by moving the plague (phase C), not with 'end'", "R3.4")
    if isinstance(action, KnightMove):
        return RuleError("knight_move is the final round's; in a turn use move_plague", "R6.3")
    return RuleError(f"'{action.kind}' is not allowed now", action.rule or "R3")


def step(state: State, player: str, action: Action, faces: Faces) -> tuple[State, list[Event]]:
    """The pure form: a new state and the events; ``state`` is never changed."""
    new = state.copy()
    events = apply_in_place(new, player, action, faces)
    return new, events
