"""Applying one action: check it against the state, then change the state.

Every handler checks first and changes nothing until every check has passed,
so a refused action (:class:`RuleError`) leaves the state exactly as it was.
:func:`step` is the pure form (a new state); :func:`apply_in_place` the fast
one used by replays and simulations.
"""

from __future__ import annotations

from collections.abc import Callable

from pbem.gamedata import CLASSES
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
from pbem.rules.events import (
    CardTaken,
    CubesMoved,
    CubesPlaced,
    CubeToPalace,
    Event,
    GameEnding,
    GameOver,
    KnightCubesDeclared,
    PlagueMoved,
    RatDrawn,
    RatMoved,
    TokenLooked,
    TokensSwapped,
    TurnStarted,
)
from pbem.rules.faces import Faces
from pbem.rules.plague import NEUTRAL_CUBES, outbreak_pending, resolve_flip, spread_count
from pbem.rules.state import MAX_RATS, Phase, Stage, State, TurnState

Handler = Callable[[State, str, Action, Faces, list[Event]], None]


# --- shared checks -----------------------------------------------------------

def _region(state: State, region: str, rule: str = "R1.2") -> None:
    if region not in state.cubes:
        raise RuleError(rule, f"{region!r} is not a region in use in this game")


def _ability(state: State, player: str, card: str, rule: str) -> None:
    """R5: only the card's holder, once per turn, before phase C."""
    if state.cards[card] != player:
        raise RuleError(rule, f"you do not hold the {card.capitalize()} card")
    if card in state.turn.used:
        raise RuleError(rule, f"the {card.capitalize()}'s ability was already used this turn")
    if state.phase is Phase.TURN and state.turn.stage is not Stage.MAIN:
        raise RuleError("R5", "class abilities come before phase C (moving the plague)")


def _before_phase_c(state: State, what: str, rule: str) -> None:
    if state.phase is not Phase.TURN:
        raise RuleError(rule, f"{what} is not allowed in the {state.phase.value} phase")
    if state.turn.stage is not Stage.MAIN:
        raise RuleError("R3.3", f"{what} must come before phase C (moving the plague)")


def _board_token(state: State, token: str, rule: str) -> str:
    for region, tokens in state.rats.items():
        if token in tokens:
            return region
    raise RuleError(rule, f"token {token!r} is not face down on the board")


def _path(state: State, path: tuple[str, ...], longest: int, rule: str) -> None:
    if not 1 <= len(path) <= longest:
        steps = "one step" if longest == 1 else "one or two steps"
        raise RuleError(rule, f"the plague piece moves {steps}, not {len(path)}")
    here = state.plague
    for region in path:
        _region(state, region, rule)
        if region not in state.neighbours[here]:
            raise RuleError(rule, f"{region} is not a neighbour of {here}")
        here = region
    if here == state.plague:
        raise RuleError(rule, f"the plague piece may not end where it started ({here})")


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


# --- handlers ------------------------------------------------------------------

def _take_card(state: State, player: str, action: Action, faces: Faces, out: list[Event]) -> None:
    assert isinstance(action, TakeCard)
    _before_phase_c(state, "taking a card", "R3.1")
    if action.card not in CLASSES:
        raise RuleError("R1.5", f"there is no class card {action.card!r}")
    if state.turn.card_taken:
        raise RuleError("R3.1", "you have already taken a card this turn")
    previous = state.cards[action.card]
    if previous == player:
        raise RuleError("R3.1", f"you already hold the {action.card.capitalize()} card")
    state.cards[action.card] = player
    state.turn.card_taken = True
    out.append(CardTaken(player, action.card, previous))


def _place(state: State, player: str, action: Action, faces: Faces, out: list[Event]) -> None:
    assert isinstance(action, Place)
    _region(state, action.region)
    if state.phase is Phase.SETUP:
        if action.count != 2:
            raise RuleError("R2.5", "each initial placement is exactly 2 cubes")
    elif state.phase is Phase.FINAL:
        _ability(state, player, "peasant", "R6.3")
        if action.count != 1:
            raise RuleError("R6.3", "in the final round the Peasant places exactly one cube")
        if state.supply[player] < 1:
            raise RuleError("R1.3", "your supply has no cube left")
        state.turn.used.add("peasant")
    else:
        _before_phase_c(state, "placing cubes", "R3.2")
        if state.turn.placed:
            raise RuleError("R3.2", "you have already placed cubes this turn (phase B)")
        allowed = place_counts(state, player, action.region)
        if action.count not in allowed:
            rats = len(state.rats[action.region])
            if not allowed:
                reason = (
                    "your supply is empty" if state.supply[player] == 0
                    else f"{action.region} has no rats (only the Peasant may place there, R5.5)"
                )
                raise RuleError("R3.2", f"you cannot place cubes on {action.region}: {reason}")
            raise RuleError(
                "R3.2",
                f"{action.region} has {rats} rat(s) and your supply {state.supply[player]} "
                f"cube(s): place {' or '.join(map(str, allowed))} there, not {action.count}",
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
    _ability(state, player, "king", "R5.1")
    _region(state, action.region, "R5.1")
    if state.rats[action.region]:
        raise RuleError("R5.1", f"{action.region} has rats; the King takes from a region without")
    if state.cubes_of(action.region, player) < 1:
        raise RuleError("R5.1", f"you have no cube in {action.region}")
    state.turn.used.add("king")
    here = state.cubes[action.region]
    here[player] -= 1
    if not here[player]:
        del here[player]
    state.palace[player] += 1
    out.append(CubeToPalace(player, action.region))


def _merchant(state: State, player: str, action: Action, faces: Faces, out: list[Event]) -> None:
    assert isinstance(action, Merchant)
    _ability(state, player, "merchant", "R5.2")
    _region(state, action.source, "R5.2")
    _region(state, action.target, "R5.2")
    if action.target not in state.neighbours[action.source]:
        raise RuleError("R5.2", f"{action.target} is not a neighbour of {action.source}")
    if not 1 <= action.count <= 3:
        raise RuleError("R5.2", f"the Merchant moves 1 to 3 cubes, not {action.count}")
    if state.cubes_of(action.source, player) < action.count:
        raise RuleError(
            "R5.2", f"you have only {state.cubes_of(action.source, player)} cube(s) in {action.source}"
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
    _ability(state, player, "monk", "R5.3")
    source = _board_token(state, action.token, "R5.3")
    _region(state, action.target, "R5.3")
    if action.target not in state.neighbours[source]:
        raise RuleError("R5.3", f"{action.target} is not a neighbour of {source}")
    if len(state.rats[action.target]) >= MAX_RATS:
        raise RuleError("R1.7", f"{action.target} already holds {MAX_RATS} rats")
    state.turn.used.add("monk")
    state.rats[source].remove(action.token)
    state.rats[action.target].append(action.token)  # arrives last (R4.2)
    out.append(RatMoved(action.token, source, action.target))


def _witch_look(state: State, player: str, action: Action, faces: Faces, out: list[Event]) -> None:
    assert isinstance(action, WitchLook)
    turn = state.turn
    if turn.witch_open and len(turn.witch_looked) == 1:
        if state.cards["witch"] != player:  # the card cannot change hands mid-use
            raise RuleError("R5.6", "you do not hold the Witch card")
        _board_token(state, action.token, "R5.6")
        if action.token == turn.witch_looked[0]:
            raise RuleError("R5.6", "the second look must be at another token")
    else:
        _ability(state, player, "witch", "R5.6")
        _board_token(state, action.token, "R5.6")
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
            "R5.6", "the Witch swaps only the two tokens just looked at, right after the looks"
        )
    first, second = turn.witch_looked
    region_a = _board_token(state, first, "R5.6")
    region_b = _board_token(state, second, "R5.6")
    rats_a, rats_b = state.rats[region_a], state.rats[region_b]
    ia, ib = rats_a.index(first), rats_b.index(second)
    rats_a[ia], rats_b[ib] = second, first  # each takes the other's place (R4.2)
    turn.witch_open = False
    out.append(TokensSwapped(first, second))


def _move_plague(state: State, player: str, action: Action, faces: Faces, out: list[Event]) -> None:
    assert isinstance(action, MovePlague)
    if state.phase is not Phase.TURN:
        raise RuleError("R6.2", "the plague piece does not move in the final round (but see R6.3)")
    if state.turn.stage is not Stage.MAIN:
        raise RuleError("R3.3", "the plague piece has already moved this turn")
    if not state.turn.placed and can_place(state, player):
        raise RuleError(
            "R3.2", "place your cubes (phase B) before moving the plague: it is compulsory "
            "while you have cubes and a region to place them on"
        )
    knight = state.cards["knight"] == player
    _path(state, action.path, 2 if knight else 1, "R5.4" if len(action.path) > 1 else "R3.3")
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
        _end_turn(state, out)


def _spread(state: State, player: str, action: Action, faces: Faces, out: list[Event]) -> None:
    assert isinstance(action, Spread)
    if state.phase is not Phase.TURN or state.turn.stage is not Stage.SPREAD:
        raise RuleError("R4.1", "there is no drawn rat to place now")
    _region(state, action.region, "R4.1")
    if action.region not in state.neighbours[state.plague]:
        raise RuleError("R4.1", f"{action.region} is not a neighbour of the plague region {state.plague}")
    if len(state.rats[action.region]) >= MAX_RATS:
        raise RuleError("R4.1", f"{action.region} already holds {MAX_RATS} rats; choose another neighbour")
    token = state.rat_supply.pop(0)
    state.rats[action.region].append(token)
    state.turn.spread_left -= 1
    out.append(RatDrawn(token, action.region))
    _after_spread(state, out)


def _knight_cubes(state: State, player: str, action: Action, faces: Faces, out: list[Event]) -> None:
    if state.phase is not Phase.TURN or state.turn.stage is not Stage.OUTBREAK or state.turn.flips:
        raise RuleError("R5.4", "the Knight declares the neutral cubes after spreading, before the first flip")
    if state.cards["knight"] != player:
        raise RuleError("R5.4", "you do not hold the Knight card")
    if state.turn.knight_cubes:
        raise RuleError("R5.4", "the neutral cubes are already declared")
    state.turn.knight_cubes = True
    out.append(KnightCubesDeclared(player, state.plague))


def _flip(state: State, player: str, action: Action, faces: Faces, out: list[Event]) -> None:
    assert isinstance(action, Flip)
    if state.phase is not Phase.TURN or state.turn.stage is not Stage.OUTBREAK:
        raise RuleError("R4.2", "there is no outbreak to flip rats for now")
    if action.token not in state.rats[state.plague]:
        raise RuleError("R4.2", f"{action.token} is not a face-down rat in the plague region {state.plague}")
    face = faces.face(action.token)
    neutral = NEUTRAL_CUBES if state.turn.knight_cubes else 0
    state.turn.flips += 1
    resolve_flip(state, state.plague, action.token, face, neutral, out)
    if not outbreak_pending(state, state.plague):
        _end_turn(state, out)


def _knight_move(state: State, player: str, action: Action, faces: Faces, out: list[Event]) -> None:
    assert isinstance(action, KnightMove)
    if state.phase is not Phase.FINAL:
        raise RuleError("R6.3", "knight_move is the final round's; in a turn use move_plague")
    _ability(state, player, "knight", "R6.3")
    _path(state, action.path, 2, "R6.3")
    state.turn.used.add("knight")
    state.plague = action.path[-1]
    out.append(PlagueMoved(action.path, 0))


def _end(state: State, player: str, action: Action, faces: Faces, out: list[Event]) -> None:
    if state.phase is not Phase.FINAL:
        raise RuleError("R3.4", "a turn ends by moving the plague (phase C), not with 'end'")
    if state.queue:
        _start(state, state.queue.pop(0), Phase.FINAL, out)
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


# --- turn flow -----------------------------------------------------------------

def _start(state: State, seat: int, phase: Phase, out: list[Event]) -> None:
    state.current = seat
    state.phase = phase
    state.turn = TurnState()
    if phase is Phase.TURN:
        state.turn_number += 1
    out.append(TurnStarted(state.players[seat], phase.value))


def _end_setup_placement(state: State, out: list[Event]) -> None:
    if state.queue:
        _start(state, state.queue.pop(0), Phase.SETUP, out)
    else:  # R2.6: the first player (the last to place) takes the first turn
        _start(state, state.current, Phase.TURN, out)


def _end_turn(state: State, out: list[Event]) -> None:
    """R3.4, R6.1 (and its ruling): the turn ends; check the end conditions; next player or final round."""
    n = len(state.players)
    reason = None
    if not state.rat_supply:
        reason = "the rat supply ran out"
    elif any(v == 0 for v in state.supply.values()):
        reason = "a player has no cube left in their supply"
    elif not any(state.rats[r] for r in state.regions):  # R6.1 ruling: nothing can threaten a cube again
        reason = "no rat is left on the board"
    if reason is None:
        _start(state, (state.current + 1) % n, Phase.TURN, out)
        return
    state.last_player = state.current
    state.queue = [(state.current - k) % n for k in range(1, n)]  # R6.2: backwards
    out.append(GameEnding(reason, tuple(state.players[s] for s in state.queue)))
    _start(state, state.queue.pop(0), Phase.FINAL, out)


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


# --- entry points --------------------------------------------------------------

def apply_in_place(state: State, player: str, action: Action, faces: Faces) -> list[Event]:
    """Apply ``action`` by ``player`` to ``state`` itself; :class:`RuleError` if illegal.

    On refusal ``state`` is unchanged.  On success it returns the events, in order.
    """
    if state.phase is Phase.OVER:
        raise RuleError("R6.5", "the game is over")
    if player not in state.players:
        raise RuleError("R2.1", f"{player!r} is not a player in this game")
    if player != state.players[state.current]:
        raise RuleError(
            "R3", f"it is {state.players[state.current]}'s turn, not {player}'s"
        )
    handler = HANDLERS.get(type(action))
    if handler is None or type(action) not in ALLOWED[state.phase]:
        raise RuleError(*_not_now(state, action))
    out: list[Event] = []
    setup = state.phase is Phase.SETUP
    handler(state, player, action, faces, out)
    if setup:
        _end_setup_placement(state, out)
    elif not isinstance(action, WitchLook | WitchSwap):
        state.turn.witch_open = False  # R5.6 ruling: any other action ends the Witch's use
    return out


def _not_now(state: State, action: Action) -> tuple[str, str]:
    """The rule and sentence for an action of a kind the phase does not allow (R7.3)."""
    if state.phase is Phase.SETUP:
        return "R2.5", "during setup each player only places their 2 initial cubes"
    if state.phase is Phase.FINAL:
        return "R6.2", (
            f"'{action.kind}' is not allowed in the final round: only class abilities "
            "(R6.2-R6.3) and 'end'"
        )
    if isinstance(action, EndTurn):
        return "R3.4", "a turn ends by moving the plague (phase C), not with 'end'"
    if isinstance(action, KnightMove):
        return "R6.3", "knight_move is the final round's; in a turn use move_plague"
    return action.rule or "R3", f"'{action.kind}' is not allowed now"


def step(state: State, player: str, action: Action, faces: Faces) -> tuple[State, list[Event]]:
    """The pure form: a new state and the events; ``state`` is never changed."""
    new = state.copy()
    events = apply_in_place(new, player, action, faces)
    return new, events
