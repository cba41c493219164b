"""Small boards for the rule tests: a State built directly, a few rats, cubes and cards.

A test names its own rat tokens (``"g1"``, ``"h1"``...) and gives them faces
with :func:`tok`; :func:`faces` wraps them in the rules' face seam.  Nothing
here is dealt from a seed: what is on the board is what the test says.

    state = board(rats={"gallia": ["g1"]}, cubes={"gallia": {"green": 2}},
                  cards={"merchant": "green"}, plague="anglia")
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TypeVar

from pbem.data import default_board
from pbem.rules import DECK, Action, Deck, Event, MappingFaces, Phase, RuleError, State, apply_in_place
from pbem.rules import new_state as _new_state
from pbem.rules.data import Board, Token
from pbem.rules.state import TurnState

E = TypeVar("E", bound=Event)

FOUR = ("red", "green", "blue", "yellow")
THREE = FOUR[:3]
TWO = FOUR[:2]


def tok(threshold: int, *symbols: str, start: bool = False, tid: str = "") -> Token:
    """A token face: ``tok(2, "M", "merchant")``."""
    return Token(tid or f"{threshold}:{'+'.join(symbols)}", start, threshold, symbols)


def faces(**by_name: Token) -> MappingFaces:
    """The face seam for the tokens a test put on its board: ``faces(g1=tok(1, "A"))``."""
    return MappingFaces(by_name)


NO_FACES = faces()
"""For tests where no token may be looked at or flipped: asking raises FaceUnknown."""


def tiny_board() -> Board:
    """A six-region map: four light regions in a ring, one middle, one dark.

    north - west - south - east - north, south -> isle (arrow), isle - marsh.
    2 players use the ring, 3 add the isle, 4 add the marsh.
    """
    return Board.from_data({
        "regions": [
            {"id": "north", "name": "North", "shade": "light"},
            {"id": "west", "name": "West", "shade": "light"},
            {"id": "east", "name": "East", "shade": "light"},
            {"id": "south", "name": "South", "shade": "light"},
            {"id": "isle", "name": "Isle", "shade": "middle"},
            {"id": "marsh", "name": "Marsh", "shade": "dark"},
        ],
        "links": [
            ["north", "west", "border"],
            ["north", "east", "border"],
            ["west", "south", "border"],
            ["east", "south", "border"],
            ["south", "isle", "arrow"],
            ["isle", "marsh", "border"],
            ["west", "marsh", "arrow"],
        ],
        "players": {"2": ["light"], "3": ["light", "middle"], "4": ["light", "middle", "dark"]},
    })


def board(
    *,
    plague: str,
    players: Sequence[str] = FOUR,
    current: str | None = None,
    map_: Board | None = None,
    rats: Mapping[str, Sequence[str]] | None = None,
    cubes: Mapping[str, Mapping[str, int]] | None = None,
    cards: Mapping[str, str] | None = None,
    rat_supply: Sequence[str] = ("s1", "s2", "s3", "s4", "s5", "s6"),
    palace: Mapping[str, int] | None = None,
    supply: Mapping[str, int] | None = None,
    placed: bool = False,
    deck: Deck = DECK,
) -> State:
    """A state in phase A/B of ``current``'s turn (the first player's by default);
    with ``placed``, phase B is already done, so the plague may move at once.

    ``cubes`` are taken from their owners' supplies (so each player still has
    20, R1.3); ``supply`` then overrides a supply outright where a test needs
    a nearly empty one.
    """
    map_ = map_ or default_board()
    in_use = map_.regions_in_use(len(players))
    state = _new_state(
        players=players,
        first=players[0],
        regions=in_use,
        neighbours=map_.adjacency(in_use),
        board=rats or {},
        rat_supply=rat_supply,
        removed=(),
        plague=plague,
        deck=deck,
    )
    for region, per_player in (cubes or {}).items():
        for player, n in per_player.items():
            if n:
                state.cubes[region][player] = n
                state.supply[player] -= n
    for player, n in (palace or {}).items():
        state.palace[player] = n
        state.supply[player] -= n
    for player, n in (supply or {}).items():
        state.supply[player] = n
    for card, holder in (cards or {}).items():
        state.cards[card] = holder
    state.phase = Phase.TURN
    state.queue = []
    state.current = state.players.index(current or players[0])
    state.turn = TurnState(placed=placed)
    state.turn_number = 1
    return state


def final_round(state: State, last: str, order: Sequence[str]) -> State:
    """``state`` turned into the final round (R6.2): ``last`` played the last turn,
    ``order`` are the players still to act, the first of them now."""
    state.phase = Phase.FINAL
    state.last_player = state.players.index(last)
    seats = [state.players.index(p) for p in order]
    state.current = seats[0]
    state.queue = seats[1:]
    state.turn = TurnState()
    return state


def play(state: State, player: str, actions: Iterable[Action], seam: MappingFaces = NO_FACES) -> list[Event]:
    """Apply ``actions`` one by one, in place; the events of all of them."""
    events: list[Event] = []
    for action in actions:
        events.extend(apply_in_place(state, player, action, seam))
    return events


def refused(state: State, player: str, action: Action, seam: MappingFaces = NO_FACES) -> RuleError:
    """Apply ``action`` expecting a refusal; check nothing changed; the error."""
    before = state.copy()
    try:
        apply_in_place(state, player, action, seam)
    except RuleError as err:
        assert state == before, f"refused {action} but the state changed"
        return err
    raise AssertionError(f"{action} by {player} was accepted, but should be refused")


def kinds(events: Iterable[Event]) -> list[str]:
    return [e.kind for e in events]


def of_kind(events: Iterable[Event], cls: type[E]) -> list[E]:
    return [e for e in events if isinstance(e, cls)]
