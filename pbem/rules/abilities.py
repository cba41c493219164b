"""The class abilities' rules (R5.1-R5.6), stated once, as :mod:`pbem.rules.checks` states
the rest: each returns ``None`` (allowed) or a :class:`Refusal`, and both the engine and
the generators ask these same functions.  Whose ability and whether already used this
turn is :func:`pbem.rules.checks.ability_refusal`."""

from __future__ import annotations

from pbem.i18n import N_, Msg, Name
from pbem.rules.checks import NEXT_TO_TOKEN, Refusal, ability_refusal, not_next, with_room
from pbem.rules.state import MAX_RATS, State

_HAS_RATS = Refusal("R5.1", lambda s, p, region: Msg("{region} has rats; the King takes from a region without",
                                                     region=Name.region(region)))
_NO_CUBE = Refusal("R5.1", lambda s, p, region: Msg("you have no cube in {region}", region=Name.region(region)))


def king_refusal(state: State, player: str, region: str) -> Refusal | None:
    """R5.1: a cube of the player's from a region without rats."""
    if state.rats[region]:
        return _HAS_RATS
    if not state.cubes[region].get(player):
        return _NO_CUBE
    return None


_MERCHANT_NOT_NEXT = Refusal("R5.2", lambda s, source, target: not_next(s, target, source))


def step_refusal(state: State, source: str, target: str) -> Refusal | None:
    """R5.2: the Merchant's cubes go to a neighbouring region."""
    return None if target in state.neighbours[source] else _MERCHANT_NOT_NEXT


def merchant_counts(state: State, player: str, source: str) -> range:
    """R5.2: 1 to 3 of the player's cubes in ``source``."""
    return range(1, min(3, state.cubes[source].get(player, 0)) + 1)


_MERCHANT_RANGE = Refusal("R5.2", lambda s, p, source, count: Msg("the Merchant moves 1 to 3 cubes, not {count}",
                                                                  count=count))
_MERCHANT_CUBES = Refusal("R5.2", lambda s, p, source, count: Msg.plural(
    "you have only {n} cube in {source}", "you have only {n} cubes in {source}", s.cubes[source].get(p, 0),
    source=Name.region(source)))


def merchant_refusal(state: State, player: str, source: str, count: int) -> Refusal | None:
    if count in merchant_counts(state, player, source):
        return None
    return _MERCHANT_RANGE if not 1 <= count <= 3 else _MERCHANT_CUBES


_MONK_NOT_NEXT = Refusal(
    "R5.3", lambda s, token, source, target: not_next(s, target, source, NEXT_TO_TOKEN, token))
_FULL = Refusal("R1.7", lambda s, token, source, target: Msg.plural(
    "{target} already holds {n} rat", "{target} already holds {n} rats", MAX_RATS, target=Name.region(target)))


def monk_refusal(state: State, token: str, source: str, target: str) -> Refusal | None:
    """R5.3: a rat token to a neighbouring region holding fewer than 3 (R1.7)."""
    if target not in state.neighbours[source]:
        return _MONK_NOT_NEXT
    if target not in with_room(state, (target,)):
        return _FULL
    return None


_NOT_WITCH = Refusal("R5.6", N_("you do not hold the Witch card"))
_SAME_TOKEN = Refusal("R5.6", N_("the second look must be at another token"))
_NO_SWAP = Refusal("R5.6", N_("the Witch swaps only the two tokens just looked at, right after the looks"))


def _second_look(state: State) -> bool:
    return state.turn.witch_open and len(state.turn.witch_looked) == 1


def look_gate(state: State, player: str) -> Refusal | None:
    """R5.6: a first look is the Witch's ability; a second may follow at once (the card
    cannot change hands in between)."""
    if _second_look(state):
        return None if state.cards["witch"] == player else _NOT_WITCH
    return ability_refusal(state, player, "witch", "R5.6")


def look_refusal(state: State, token: str) -> Refusal | None:
    """R5.6: the second look is at another token."""
    turn = state.turn  # _second_look, written out: asked for every token on the board
    return _SAME_TOKEN if turn.witch_open and len(turn.witch_looked) == 1 and token == turn.witch_looked[0] else None


def swap_refusal(state: State, player: str) -> Refusal | None:
    """R5.6: the swap comes right after the two looks."""
    return None if state.turn.witch_open and len(state.turn.witch_looked) == 2 else _NO_SWAP


_AFTER_FLIP = Refusal("R5.4", N_("the Knight declares the neutral cubes after spreading, before the first flip"))
_NOT_KNIGHT = Refusal("R5.4", N_("you do not hold the Knight card"))
_DECLARED = Refusal("R5.4", N_("the neutral cubes are already declared"))


def knight_cubes_refusal(state: State, player: str) -> Refusal | None:
    """R5.4: the Knight's holder may add 2 neutral cubes, once, before the first flip."""
    if state.turn.flips:
        return _AFTER_FLIP
    if state.cards["knight"] != player:
        return _NOT_KNIGHT
    if state.turn.knight_cubes:
        return _DECLARED
    return None


