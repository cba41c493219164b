"""Legality, stated once: every rule that decides whether an action is allowed.

Each rule is one function of the public state returning ``None`` (allowed) or a
:class:`Refusal` (the rule's number and how to say why), or a *domain*: the
values a rule allows (``place_counts``, ``merchant_counts``).  Both consumers
use the same functions: the engine (:mod:`pbem.rules.engine`) raises the
refusal as a :class:`RuleError`; the generators (:mod:`pbem.rules.legal`)
enumerate candidates through them.  A refusal is a module constant, so a
generator that rules out a candidate allocates nothing and formats no message;
the sentence is only written when the engine refuses a player's action.

The action kinds each phase and stage of a turn allows, and why another kind is refused
there, are :mod:`pbem.rules.stages`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cache
from typing import Any

from pbem.i18n import N_, Msg, Name, Names
from pbem.rules.data import N_TOKENS
from pbem.rules.errors import RuleError
from pbem.rules.state import FINAL, MAX_RATS, TURN, Phase, State


class Refusal:
    """Why a rule refuses: its number and the sentence (marked with ``N_`` for the
    catalogs), or a function writing the sentence (a :class:`pbem.i18n.Msg`) from the
    checked arguments (called only when an action is refused)."""

    __slots__ = ("rule", "say")

    def __init__(self, rule: str, say: str | Callable[..., str]) -> None:
        self.rule = rule
        self.say = say

    def error(self, state: State, *args: Any) -> RuleError:
        say = self.say
        return RuleError(Msg(say) if isinstance(say, str) else say(state, *args), self.rule)


RuleCheck = Callable[..., "Refusal | None"]


def require(check: RuleCheck, state: State, *args: Any) -> None:
    """Raise ``check``'s refusal of ``args`` as a :class:`RuleError`, if it refuses."""
    refusal = check(state, *args)
    if refusal is not None:
        raise refusal.error(state, *args)


# --- regions, neighbours, tokens, abilities ---------------------------------------------

def _unknown_region(state: State, region: str) -> Msg:
    import difflib  # lazily: only a refusal needs it (pbem apply's start-up speed)

    from pbem.i18n.names import closest  # lazily: the names read catalogs (start-up speed)

    close = difflib.get_close_matches(region, state.regions, n=1, cutoff=0.6) or [
        near for near in [closest(region, "region", frozenset(state.regions))] if near is not None]
    if close:  # the nearest id, or the region whose name in any language is nearest ("lengyelorszg")
        return Msg("{region} is not a region in use in this game; did you mean {close}?",
                   region=repr(region), close=Name.region(close[0]))
    return Msg("{region} is not a region in use in this game (regions in use: {regions})",
               region=repr(region), regions=Names.regions(state.regions))


NEXT_TO = N_("{region} is not a neighbour of {of} (its neighbours: {neighbours})")
NEXT_TO_PLAGUE = N_("{region} is not a neighbour of the plague region {of} (its neighbours: {neighbours})")
NEXT_TO_TOKEN = N_("{region} is not a neighbour of {token}'s region {of} (its neighbours: {neighbours})")


def not_next(state: State, region: str, of: str, msgid: str = NEXT_TO, token: str = "") -> Msg:
    """A refusal's sentence for a region that is not a neighbour of ``of``, listing the
    neighbours: ``msgid`` is :data:`NEXT_TO`, :data:`NEXT_TO_PLAGUE` or :data:`NEXT_TO_TOKEN`."""
    return Msg(msgid, region=Name.region(region), of=Name.region(of),
               neighbours=Names.regions(state.neighbours[of]), token=token)


_RULES = ("R1.2", "R3.3", "R4.1", "R5.1", "R5.2", "R5.3", "R5.4", "R5.6", "R6.3")


def _per_rule(say: Callable[..., str]) -> dict[str, Refusal]:
    """One refusal per rule number, sharing a sentence (a check several rules use)."""
    return {rule: Refusal(rule, say) for rule in _RULES}


_REGION = _per_rule(lambda s, region, *_: _unknown_region(s, region))
_OFF_BOARD = _per_rule(lambda s, token, *_: Msg("token {token} is not face down on the board", token=repr(token)))


class _PerCard(dict[tuple[str, str], Refusal]):
    """One refusal per card and rule number, made the first time it is asked for (whichever
    cards the game's deck holds)."""

    __slots__ = ("_say",)

    def __init__(self, say: Callable[[str], str]) -> None:
        super().__init__()
        self._say = say

    def __missing__(self, key: tuple[str, str]) -> Refusal:
        card, rule = key
        value = self[key] = Refusal(rule, lambda s, *_: self._say(card))
        return value


_NOT_HOLDER = _PerCard(lambda card: Msg("you do not hold the {card} card", card=Name.card(card)))
_USED = _PerCard(lambda card: Msg("the {card}'s ability was already used this turn", card=Name.card(card)))


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


_OVER = Refusal("R6.5", N_("the game is over"))
_NOT_PLAYING = Refusal("R2.1", lambda s, p: Msg("{player} is not a player in this game", player=repr(p)))
_NOT_YOUR_TURN = Refusal("R3", lambda s, p: Msg("it is {current}'s turn, not {player}'s",
                                                current=s.players[s.current], player=p))


# --- R3.1 phase A: a class card --------------------------------------------------------------

_NO_CARD = Refusal("R1.5", lambda s, p, card: Msg("there is no class card {card}", card=repr(card)))
_CARD_TAKEN = Refusal("R3.1", N_("you have already taken a card this turn"))
_OWN_CARD = Refusal("R3.1", lambda s, p, card: Msg("you already hold the {card} card", card=Name.card(card)))


def card_refusal(state: State, player: str, card: str) -> Refusal | None:
    """R3.1: one card a turn, unowned or another player's (R1.5: the five classes)."""
    if card not in state.cards:
        return _NO_CARD
    if state.turn.card_taken:
        return _CARD_TAKEN
    if state.cards[card] == player:
        return _OWN_CARD
    return None


def card_gate(state: State) -> Refusal | None:
    """R3.1: one card a turn (:func:`card_refusal`'s refusal that no card escapes, asked
    once by the generator instead of once a card)."""
    return _CARD_TAKEN if state.turn.card_taken else None


# --- R2.5, R3.2, R5.5, R6.3: placing cubes ---------------------------------------------

_PLACED = Refusal("R3.2", N_("you have already placed cubes this turn (phase B)"))
_NO_SUPPLY = Refusal("R1.3", N_("your supply has no cube left"))


def place_gate(state: State, player: str) -> Refusal | None:
    """R3.2: phase B once a turn; R6.3: in the final round only the Peasant's cube."""
    phase = state.phase
    if phase is FINAL:
        refusal = ability_refusal(state, player, "peasant", "R6.3")
        if refusal is None and state.supply[player] < 1:
            return _NO_SUPPLY
        return refusal
    if phase is TURN and state.turn.placed:
        return _PLACED
    return None


def place_counts(state: State, player: str, region: str) -> tuple[int, ...]:
    """The cube counts ``player`` may place on ``region`` now: 2 in setup (R2.5), the
    Peasant's 1 in the final round (R6.3), and in phase B one a rat (R3.2), all that is
    left if fewer, and with the Peasant one more (R5.5)."""
    return place_domain(state, player)[len(state.rats[region])]


def place_domain(state: State, player: str) -> tuple[tuple[int, ...], ...]:
    """:func:`place_counts` of a region by the number of rats on it (index 0 to 49): the
    counts depend on that number and three facts of the player's, looked up once here for
    every region (the generator's and :func:`can_place`'s)."""
    return _count_rows(state.phase, state.supply[player], _peasant_open(state, player))


def _peasant_open(state: State, player: str) -> bool:
    """R5.5: the player holds the Peasant and has not used it this turn."""
    return state.cards["peasant"] == player and "peasant" not in state.turn.used


@cache
def _count_rows(phase: Phase, supply: int, peasant: bool) -> tuple[tuple[int, ...], ...]:
    """:func:`place_domain`, worked out once for each (phase, supply, Peasant open): a few
    dozen small tables, where the playouts ask millions of times."""
    return tuple(_counts(phase, supply, peasant, rats) for rats in range(N_TOKENS + 1))


def _counts(phase: Phase, supply: int, peasant: bool, rats: int) -> tuple[int, ...]:
    """:func:`place_counts` from the facts it depends on."""
    if phase is Phase.SETUP:
        return (2,)
    if phase is Phase.FINAL:
        return (1,)
    if not supply:
        return ()
    normal = rats if rats < supply else supply  # R3.2: all that is left, if fewer
    if peasant:
        extra = rats + 1 if rats < supply else supply  # R5.5: one more
        return (normal, extra) if rats and normal != extra else (extra,)
    return (normal,) if rats else ()


def _wrong_count(state: State, player: str, region: str, count: int) -> Msg:
    if state.phase is Phase.SETUP:
        return Msg("each initial placement is exactly 2 cubes")
    if state.phase is Phase.FINAL:
        return Msg("in the final round the Peasant places exactly one cube")
    allowed = place_counts(state, player, region)
    where = Name.region(region)
    if not allowed:
        if state.supply[player] == 0:
            return Msg("you cannot place cubes on {region}: your supply is empty", region=where)
        return Msg("you cannot place cubes on {region}: {region} has no rats (only the Peasant may place there, R5.5)",
                   region=where)
    rats, facts = len(state.rats[region]), {"region": where, "supply": state.supply[player], "count": count}
    if len(allowed) == 1:
        return Msg.plural("{region} has {n} rat, and the cubes in your supply: {supply}; place {allowed} there, not "
                          "{count}", "{region} has {n} rats, and the cubes in your supply: {supply}; place {allowed} "
                          "there, not {count}", rats, allowed=allowed[0], **facts)
    return Msg.plural("{region} has {n} rat, and the cubes in your supply: {supply}; place {allowed} or {more} there, "
                      "not {count}", "{region} has {n} rats, and the cubes in your supply: {supply}; place {allowed} "
                      "or {more} there, not {count}", rats, allowed=allowed[0], more=allowed[1], **facts)


_COUNT = {phase: Refusal(rule, _wrong_count)
          for phase, rule in ((Phase.SETUP, "R2.5"), (Phase.FINAL, "R6.3"), (Phase.TURN, "R3.2"))}


def count_refusal(state: State, player: str, region: str, count: int) -> Refusal | None:
    return None if count in place_counts(state, player, region) else _COUNT[state.phase]


def can_place(state: State, player: str) -> bool:
    """R3.2 ruling: phase B is compulsory when at least one cube can be placed."""
    counts, rats = place_domain(state, player), state.rats
    return any(counts[len(rats[r])] for r in state.regions)


# --- R3.3 phase C and R5.4 the Knight: the plague's moves ------------------------------------

_PLACE_FIRST = Refusal("R3.2", N_("place your cubes (phase B) before moving the plague: it is compulsory "
                                  "while you have cubes and a region to place them on"))


def plague_gate(state: State, player: str) -> Refusal | None:
    """R3.2 ruling: phase B comes first while a cube can be placed."""
    return _PLACE_FIRST if not state.turn.placed and can_place(state, player) else None


def reach(state: State, player: str) -> int:
    """R3.3: one step; R5.4: two with the Knight."""
    return 2 if state.cards["knight"] == player else 1


def walks(state: State, longest: int) -> list[tuple[str, ...]]:
    """Every walk of 1 to ``longest`` steps between neighbours from the plague region
    (the candidates :func:`plague_paths` keeps)."""
    start = state.plague
    out: list[tuple[str, ...]] = []
    for first in state.neighbours[start]:
        out.append((first,))
        if longest == 2:
            out.extend((first, second) for second in state.neighbours[first])
    return out


def plague_paths(state: State, longest: int) -> list[tuple[str, ...]]:
    """R3.3, R5.4, R6.3: the plague piece's paths from where it stands, in :func:`walks`
    order: one step (two with the Knight) between neighbours, regions in use (the
    neighbours are, R1.2 ruling), not back to where it started.  The domain
    :func:`path_refusal` allows, and the generators' plague moves."""
    start = state.plague
    near = state.neighbours
    out: list[tuple[str, ...]] = []
    for first in near[start]:
        if first != start:
            out.append((first,))
        if longest == 2:
            out.extend([(first, second) for second in near[first] if second != start])
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


def _say_path(state: State, path: tuple[str, ...], longest: int, rule: str) -> Msg:
    fault, region, here = _path_fault(state, path, longest) or ("", "", "")
    if fault == "length":
        if longest == 1:
            return Msg("the plague piece moves one step, not {count}", count=len(path))
        return Msg("the plague piece moves one or two steps, not {count}", count=len(path))
    if fault == "region":
        return _unknown_region(state, region)
    if fault == "not_next":
        return not_next(state, region, here)
    return Msg("the plague piece may not end where it started ({region})", region=Name.region(region))


_PATH = _per_rule(_say_path)


def path_refusal(state: State, path: tuple[str, ...], longest: int, rule: str) -> Refusal | None:
    """R3.3, R5.4, R6.3: one of the :func:`plague_paths` (:func:`_path_fault` says what
    is wrong with any other)."""
    return None if tuple(path) in plague_paths(state, longest) else _PATH[rule]


def path_rule(path: tuple[str, ...]) -> str:
    return "R5.4" if len(path) > 1 else "R3.3"


# --- R4 the plague: spreading and the outbreak -------------------------------------------

_SPREAD_NOT_NEXT = Refusal("R4.1", lambda s, region: not_next(s, region, s.plague, NEXT_TO_PLAGUE))
_SPREAD_FULL = Refusal("R4.1", lambda s, region: Msg.plural(
    "{region} already holds {n} rat; choose another neighbour", "{region} already holds {n} rats; choose another "
    "neighbour", MAX_RATS, region=Name.region(region)))


def spread_refusal(state: State, region: str) -> Refusal | None:
    """R4.1: each drawn rat to a neighbour of the plague region holding fewer than 3."""
    if region not in state.neighbours[state.plague]:
        return _SPREAD_NOT_NEXT
    if region not in with_room(state, (region,)):
        return _SPREAD_FULL
    return None


def with_room(state: State, regions: Sequence[str]) -> list[str]:
    """R1.7: those of ``regions`` holding fewer than 3 rats, in their order (where a drawn
    rat, R4.1, or the Monk's, R5.3, may go: the generators ask it once for all neighbours)."""
    rats = state.rats
    return [r for r in regions if len(rats[r]) < MAX_RATS]


_NOT_THERE = Refusal("R4.2", lambda s, token: Msg("{token} is not a face-down rat in the plague region {plague}",
                                                  token=token, plague=Name.region(s.plague)))


def flip_refusal(state: State, token: str) -> Refusal | None:
    """R4.2: the outbreak flips the plague region's rats."""
    return None if token in state.rats[state.plague] else _NOT_THERE
