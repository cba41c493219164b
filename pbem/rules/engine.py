"""Applying one action: check it against the state, then change the state.

Each kind has a check and an effect (paired with the kind, its generator and the parts
of the game that allow it in :data:`pbem.rules.cards.DECK`; the engine asks the game's
own deck, ``state.table.deck``).  The check asks the rules of
:mod:`pbem.rules.checks` (the same functions the generators of
:mod:`pbem.rules.legal` enumerate through) in the order a refusal names them;
the effect changes nothing until the check has passed, so a refused action
(:class:`RuleError`) leaves the state exactly as it was.  :func:`step` is the
pure form (a new state); :func:`apply_in_place` the fast one used by replays;
:func:`apply_legal` skips the check for an action a generator has just listed
(random playouts).
"""

from __future__ import annotations

from pbem.rules.abilities import (
    king_refusal,
    knight_cubes_refusal,
    look_gate,
    look_refusal,
    merchant_refusal,
    monk_refusal,
    step_refusal,
    swap_refusal,
)
from pbem.rules.actions import (
    Action,
    Flip,
    King,
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
    ability_refusal,
    board_token,
    card_refusal,
    count_refusal,
    flip_refusal,
    mover_refusal,
    path_refusal,
    path_rule,
    place_gate,
    plague_gate,
    reach,
    region_refusal,
    require,
    spread_refusal,
    token_refusal,
)
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
from pbem.rules.stages import kinds_now, not_now
from pbem.rules.state import FINAL, SETUP, TURN, Phase, Stage, State
from pbem.rules.turnflow import end_setup_placement, end_turn, final_sweep, start_part

# --- checks: each kind's rules, from pbem.rules.checks, in the order they are told ------------

def check_take_card(state: State, player: str, action: Action) -> None:
    assert isinstance(action, TakeCard)
    require(card_refusal, state, player, action.card)


def check_place(state: State, player: str, action: Action) -> None:
    assert isinstance(action, Place)
    require(region_refusal, state, action.region)
    require(place_gate, state, player)
    require(count_refusal, state, player, action.region, action.count)


def check_king(state: State, player: str, action: Action) -> None:
    assert isinstance(action, King)
    require(ability_refusal, state, player, "king", "R5.1")
    require(region_refusal, state, action.region, "R5.1")
    require(king_refusal, state, player, action.region)


def check_merchant(state: State, player: str, action: Action) -> None:
    assert isinstance(action, Merchant)
    require(ability_refusal, state, player, "merchant", "R5.2")
    require(region_refusal, state, action.source, "R5.2")
    require(region_refusal, state, action.target, "R5.2")
    require(step_refusal, state, action.source, action.target)
    require(merchant_refusal, state, player, action.source, action.count)


def check_monk(state: State, player: str, action: Action) -> None:
    assert isinstance(action, Monk)
    require(ability_refusal, state, player, "monk", "R5.3")
    require(token_refusal, state, action.token, "R5.3")
    require(region_refusal, state, action.target, "R5.3")
    require(monk_refusal, state, action.token, board_token(state, action.token), action.target)


def check_witch_look(state: State, player: str, action: Action) -> None:
    assert isinstance(action, WitchLook)
    require(look_gate, state, player)
    require(token_refusal, state, action.token, "R5.6")
    require(look_refusal, state, action.token)


def check_witch_swap(state: State, player: str, action: Action) -> None:
    require(swap_refusal, state, player)


def check_move_plague(state: State, player: str, action: Action) -> None:
    assert isinstance(action, MovePlague)
    require(plague_gate, state, player)
    require(path_refusal, state, action.path, reach(state, player), path_rule(action.path))


def check_spread(state: State, player: str, action: Action) -> None:
    assert isinstance(action, Spread)
    require(region_refusal, state, action.region, "R4.1")
    require(spread_refusal, state, action.region)


def check_knight_cubes(state: State, player: str, action: Action) -> None:
    require(knight_cubes_refusal, state, player)


def check_flip(state: State, player: str, action: Action) -> None:
    assert isinstance(action, Flip)
    require(flip_refusal, state, action.token)


def check_knight_move(state: State, player: str, action: Action) -> None:
    assert isinstance(action, KnightMove)
    require(ability_refusal, state, player, "knight", "R6.3")
    require(path_refusal, state, action.path, 2, "R6.3")


def check_end(state: State, player: str, action: Action) -> None:
    """R6.2: in the final round a player may always end their go."""


# --- effects: what a legal action changes -----------------------------------------------------

def take_card_effect(state: State, player: str, action: Action, faces: Faces, out: list[Event]) -> None:
    assert isinstance(action, TakeCard)
    previous = state.cards[action.card]
    state.cards[action.card] = player
    state.turn.card_taken = True
    out.append(CardTaken(player, action.card, previous))


def place_effect(state: State, player: str, action: Action, faces: Faces, out: list[Event]) -> None:
    assert isinstance(action, Place)
    if state.phase is FINAL:
        state.turn.used.add("peasant")
    elif state.phase is TURN:
        if action.count > min(len(state.rats[action.region]), state.supply[player]):
            state.turn.used.add("peasant")  # R5.5: the extra cube is the Peasant's ability
        state.turn.placed = True
    state.supply[player] -= action.count
    here = state.cubes[action.region]
    here[player] = here.get(player, 0) + action.count
    out.append(CubesPlaced(player, action.region, action.count))


def king_effect(state: State, player: str, action: Action, faces: Faces, out: list[Event]) -> None:
    assert isinstance(action, King)
    state.turn.used.add("king")
    here = state.cubes[action.region]
    here[player] -= 1
    if not here[player]:
        del here[player]
    state.palace[player] += 1
    out.append(CubeToPalace(player, action.region))


def merchant_effect(state: State, player: str, action: Action, faces: Faces, out: list[Event]) -> None:
    assert isinstance(action, Merchant)
    state.turn.used.add("merchant")
    src, dst = state.cubes[action.source], state.cubes[action.target]
    src[player] -= action.count
    if not src[player]:
        del src[player]
    dst[player] = dst.get(player, 0) + action.count
    out.append(CubesMoved(player, action.source, action.target, action.count))


def monk_effect(state: State, player: str, action: Action, faces: Faces, out: list[Event]) -> None:
    assert isinstance(action, Monk)
    source = board_token(state, action.token)
    assert source is not None
    state.turn.used.add("monk")
    state.rats[source].remove(action.token)
    state.rats[action.target].append(action.token)  # arrives last (R4.2)
    out.append(RatMoved(action.token, source, action.target))


def witch_look_effect(state: State, player: str, action: Action, faces: Faces, out: list[Event]) -> None:
    assert isinstance(action, WitchLook)
    turn = state.turn
    seen = faces.look(action.token)
    if not turn.witch_open:
        turn.used.add("witch")
        turn.witch_open = True
        turn.witch_looked = []
    turn.witch_looked.append(action.token)
    out.append(TokenLooked(player, action.token, seen))


def witch_swap_effect(state: State, player: str, action: Action, faces: Faces, out: list[Event]) -> None:
    turn = state.turn
    first, second = turn.witch_looked
    region_a, region_b = board_token(state, first), board_token(state, second)
    assert region_a is not None and region_b is not None
    rats_a, rats_b = state.rats[region_a], state.rats[region_b]
    ia, ib = rats_a.index(first), rats_b.index(second)
    rats_a[ia], rats_b[ib] = second, first  # each takes the other's place (R4.2)
    turn.witch_open = False
    out.append(TokensSwapped(first, second))


def move_plague_effect(state: State, player: str, action: Action, faces: Faces, out: list[Event]) -> None:
    assert isinstance(action, MovePlague)
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


def spread_effect(state: State, player: str, action: Action, faces: Faces, out: list[Event]) -> None:
    assert isinstance(action, Spread)
    token = state.rat_supply.pop(0)
    state.rats[action.region].append(token)
    state.turn.spread_left -= 1
    out.append(RatDrawn(token, action.region))
    _after_spread(state, out)


def knight_cubes_effect(state: State, player: str, action: Action, faces: Faces, out: list[Event]) -> None:
    state.turn.knight_cubes = True
    out.append(KnightCubesDeclared(player, state.plague))


def flip_effect(state: State, player: str, action: Action, faces: Faces, out: list[Event]) -> None:
    assert isinstance(action, Flip)
    face = faces.face(action.token)  # first: a face the seam cannot tell changes nothing
    neutral = NEUTRAL_CUBES if state.turn.knight_cubes else 0
    state.turn.flips += 1
    resolve_flip(state, state.plague, action.token, face, neutral, out)
    if not outbreak_pending(state, state.plague):
        end_turn(state, out)


def knight_move_effect(state: State, player: str, action: Action, faces: Faces, out: list[Event]) -> None:
    assert isinstance(action, KnightMove)
    state.turn.used.add("knight")
    state.plague = action.path[-1]
    out.append(PlagueMoved(action.path, 0))


def end_effect(state: State, player: str, action: Action, faces: Faces, out: list[Event]) -> None:
    if state.queue:
        start_part(state, state.queue.pop(0), Phase.FINAL, out)
    else:
        final_sweep(state, faces, out)


# --- entry points --------------------------------------------------------------

def apply_in_place(state: State, player: str, action: Action, faces: Faces) -> list[Event]:
    """Apply ``action`` by ``player`` to ``state`` itself; :class:`RuleError` if illegal.

    On refusal ``state`` is unchanged.  On success it returns the events, in order.
    """
    require(mover_refusal, state, player)
    if type(action) not in kinds_now(state):
        raise not_now(state, action)
    state.table.deck.by_type[type(action)].check(state, player, action)
    return apply_legal(state, player, action, faces)


def apply_legal(state: State, player: str, action: Action, faces: Faces) -> list[Event]:
    """Apply an action already known to be legal (one of :func:`pbem.rules.legal_actions`
    of this very state, e.g. a random playout's): :func:`apply_in_place` without the
    checks, which the generator ran.  Anything else must go through :func:`apply_in_place`."""
    out: list[Event] = []
    setup = state.phase is SETUP
    kind = type(action)
    state.table.deck.by_type[kind].effect(state, player, action, faces, out)
    if setup:
        end_setup_placement(state, out)
    elif kind is not WitchLook and kind is not WitchSwap:
        state.turn.witch_open = False  # R5.6 ruling: any other action ends the Witch's use
    return out


def step(state: State, player: str, action: Action, faces: Faces) -> tuple[State, list[Event]]:
    """The pure form: a new state and the events; ``state`` is never changed."""
    new = state.copy()
    events = apply_in_place(new, player, action, faces)
    return new, events
