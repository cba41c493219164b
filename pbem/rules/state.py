"""The game state: everything that changes, and nothing secret.

Token identities here are public names (``t07``, PROTOCOL.md P6); faces are
never stored, only asked of the face seam when a token is flipped or looked at.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from enum import StrEnum

from pbem.record import Record, Slots
from pbem.rules.actions import ACTION_TYPES, Action
from pbem.rules.data import Catalogue
from pbem.rules.events import EVENT_TYPES, Event
from pbem.rules.faces import Faces

CUBES_PER_PLAYER = 20  # R1.3
MAX_RATS = 3  # R1.7


class Phase(StrEnum):
    SETUP = "setup"  # R2.5: initial cubes, snake order
    TURN = "turn"  # R3: a normal turn
    FINAL = "final"  # R6.2-R6.3: the final round
    OVER = "over"  # R6.5: scored


# The phases by module names, for the playouts' inner loops: on Python 3.11 ``Phase.TURN``
# goes through ``EnumType.__getattr__``'s hook, several times slower than a module global.
SETUP, TURN, FINAL, OVER = Phase.SETUP, Phase.TURN, Phase.FINAL, Phase.OVER


class Stage(StrEnum):
    """Where a normal turn stands (R3)."""

    MAIN = "main"  # phases A and B and abilities, before phase C
    SPREAD = "spread"  # R4.1: drawn rats still to place
    OUTBREAK = "outbreak"  # R4.2: rats still to flip


class TurnState(Slots):
    """What the player on turn has done so far this turn."""

    __slots__ = (
        "card_taken",
        "flips",
        "knight_cubes",
        "placed",
        "spread_left",
        "stage",
        "used",
        "witch_looked",
        "witch_open",
    )

    def __init__(
        self,
        card_taken: bool = False,
        placed: bool = False,
        used: set[str] | None = None,  # class abilities used (R5)
        witch_looked: list[str] | None = None,  # R5.6 current use
        witch_open: bool = False,  # another look or the swap may still follow
        stage: Stage = Stage.MAIN,
        spread_left: int = 0,
        knight_cubes: bool = False,
        flips: int = 0,
    ) -> None:
        self.card_taken = card_taken
        self.placed = placed
        self.used: set[str] = set() if used is None else used
        self.witch_looked: list[str] = [] if witch_looked is None else witch_looked
        self.witch_open = witch_open
        self.stage = stage
        self.spread_left = spread_left
        self.knight_cubes = knight_cubes
        self.flips = flips

    def begun(self) -> bool:
        """Has the player on turn done anything in this go yet?  Every action of a turn or of
        a final-round go marks it (a card, cubes, an ability, the plague), so a go not begun
        is one whose move file ended with the go before it (R7.5: the last setup placement,
        R2.6, leaves its player at the start of turn 1)."""
        return self.card_taken or self.placed or bool(self.used) or self.stage is not Stage.MAIN

    def copy(self) -> TurnState:
        return TurnState(
            self.card_taken, self.placed, set(self.used), list(self.witch_looked),
            self.witch_open, self.stage, self.spread_left, self.knight_cubes, self.flips,
        )


ActionCheck = Callable[["State", str, Action], None]
Effect = Callable[["State", str, Action, Faces, list[Event]], None]
Generator = Callable[["State", str], list[Action]]
Part = tuple[Phase, Stage]


class ActionRule(Record):
    """One kind of action as the rules take it (R3-R6), declared once: ``check`` raises its
    refusal, ``effect`` applies it (changing nothing until the check has passed), ``generate``
    lists its legal candidates, grouped under ``group`` (the Witch's swap with her looks);
    ``when``: the parts of the game that allow it, ``late``: the refusal elsewhere (its
    sentence, ``N_``, and rule; none: the rule's own), ``card``: the class card whose
    ability it is (R5), if any."""

    action: type[Action]
    card: str | None
    check: ActionCheck
    effect: Effect
    generate: Generator
    group: str
    when: tuple[Part, ...]
    late: tuple[str, str] | None


class Deck(Record):
    """The class cards (R1.5), in the rulebook's order, and every kind of action with its
    rule, in the order the generators list them: everything that differs from one card to
    another, in one place (:data:`pbem.rules.cards.DECK`).  The tables the engine, the
    generators and the readers ask are derived from it once (:meth:`make`)."""

    cards: tuple[str, ...]
    weights: Mapping[str, float]  # a card's worth to the greedy bot (pbem.bots.greedy), by id
    rules: tuple[ActionRule, ...]
    action_types: Mapping[str, type[Action]]  # by the name the log gives it
    event_types: Mapping[str, type[Event]]
    by_type: Mapping[type[Action], ActionRule]
    kinds: Mapping[Part, tuple[type[Action], ...]]  # the kinds each part allows, in listing order
    groups: Mapping[Part, Mapping[str, Generator]]  # each part's generators, by group
    lists: Mapping[Part, tuple[Generator, ...]]  # the same, without their groups (a random playout's)

    @classmethod
    def make(cls, cards: tuple[str, ...], weights: Mapping[str, float], rules: tuple[ActionRule, ...],
             events: tuple[type[Event], ...] = ()) -> Deck:
        """A deck of ``cards``; ``ValueError`` if a weight or an ability names no card of it."""
        named = {r.card for r in rules if r.card is not None} | set(weights)
        if not named <= set(cards) or set(weights) != set(cards) or len(set(cards)) != len(cards):
            raise ValueError(f"a deck's weights and abilities name its cards {cards}, each once")
        declared = {r.action for r in rules}
        types = {k: c for k, c in ACTION_TYPES.items() if c in declared}
        types.update((r.action.kind, r.action) for r in rules if r.action.kind not in types)
        parts = {part for r in rules for part in r.when}
        kinds = {part: tuple(r.action for r in rules if part in r.when) for part in parts}
        groups = {part: {r.group: r.generate for r in rules if part in r.when} for part in parts}
        return cls(tuple(cards), dict(weights), rules, types, {**EVENT_TYPES, **{e.kind: e for e in events}},
                   {r.action: r for r in rules}, kinds, groups,
                   {part: tuple(gens.values()) for part, gens in groups.items()})


class Table(Record):
    """The fixed facts of one game (OpenSpiel's *Game*, apart from its *State*): who plays,
    in seat order (R2.1), the regions in use in map order (R1.2), their neighbours among
    the regions in use, the game's token catalogue when the caller has it, and its
    :class:`Deck`.  Immutable, made once, shared by every state of the game."""

    players: tuple[str, ...]
    regions: tuple[str, ...]
    neighbours: Mapping[str, tuple[str, ...]]
    catalogue: Catalogue | None
    deck: Deck


class State(Slots):
    """What changes during a game; the fixed facts are its :class:`Table`."""

    __slots__ = (
        "cards",
        "cubes",
        "current",
        "flipped",
        "last_player",
        "neighbours",
        "palace",
        "phase",
        "plague",
        "players",
        "queue",
        "rat_supply",
        "rats",
        "regions",
        "removed",
        "supply",
        "table",
        "turn",
        "turn_number",
    )

    def __init__(
        self,
        table: Table,
        rats: dict[str, list[str]],  # region -> face-down tokens, arrival order (R4.2)
        cubes: dict[str, dict[str, int]],  # region -> player -> count (> 0 only)
        palace: dict[str, int],
        supply: dict[str, int],  # cubes in each player's supply (R1.3)
        rat_supply: list[str],  # face-down supply, drawn from the front (R2.3)
        removed: tuple[str, ...],  # out of the game unseen (R2.3)
        flipped: list[str],  # revealed and out of the game (R4.2)
        cards: dict[str, str | None],  # class -> holder (R1.5)
        plague: str,  # R1.6
        phase: Phase,
        current: int,  # index into players of the one to act
        queue: list[int],  # SETUP: seats still to place; FINAL: seats still to act
        turn: TurnState,
        turn_number: int = 0,
        last_player: int | None = None,  # the one who played the last normal turn (R6.2)
    ) -> None:
        self.table = table
        # The table's facts, copied here: the playouts' inner loop reads them constantly.
        self.players: tuple[str, ...] = table.players
        self.regions: tuple[str, ...] = table.regions
        self.neighbours: Mapping[str, tuple[str, ...]] = table.neighbours
        self.rats = rats
        self.cubes = cubes
        self.palace = palace
        self.supply = supply
        self.rat_supply = rat_supply
        self.removed = removed
        self.flipped = flipped
        self.cards = cards
        self.plague = plague
        self.phase = phase
        self.current = current
        self.queue = queue
        self.turn = turn
        self.turn_number = turn_number
        self.last_player = last_player

    @property
    def to_move(self) -> str | None:
        return None if self.phase is OVER else self.players[self.current]

    def holder(self, card: str) -> str | None:
        return self.cards[card]

    def holds(self, player: str, card: str) -> bool:
        return self.cards[card] == player

    def cubes_of(self, region: str, player: str) -> int:
        return self.cubes[region].get(player, 0)

    def scores(self) -> dict[str, int]:
        """R6.5: cubes on the board, the palace included."""
        totals = dict(self.palace)
        for per_player in self.cubes.values():
            for player, n in per_player.items():
                totals[player] += n
        return totals

    def copy(self) -> State:
        return State(
            self.table,
            {r: list(ts) for r, ts in self.rats.items()},
            {r: dict(c) for r, c in self.cubes.items()},
            dict(self.palace), dict(self.supply), list(self.rat_supply), self.removed,
            list(self.flipped), dict(self.cards), self.plague, self.phase, self.current,
            list(self.queue), self.turn.copy(), self.turn_number, self.last_player,
        )


def new_state(
    players: Sequence[str],
    first: str,
    regions: Sequence[str],
    neighbours: Mapping[str, tuple[str, ...]],
    board: Mapping[str, Sequence[str]],
    rat_supply: Sequence[str],
    removed: Sequence[str],
    plague: str,
    catalogue: Catalogue | None,
    deck: Deck,
) -> State:
    """The state after R2.1-R2.4; the first action is R2.5's first placement.

    ``board`` maps each region in use to its starting rats' public names.
    """
    players = tuple(players)
    if not 2 <= len(players) <= 4 or len(set(players)) != len(players):
        raise ValueError("R2: Rattus is for 2 to 4 players with distinct names")
    if first not in players:
        raise ValueError(f"R2.1: first player {first!r} is not one of the players")
    if plague not in regions:
        raise ValueError(f"R1.6: the plague piece must start in a region in use, not {plague!r}")
    n = len(players)
    start = players.index(first)
    order = [(start + i) % n for i in range(n)]
    return State(
        table=Table(players, tuple(regions), neighbours, catalogue, deck),
        rats={r: list(board.get(r, ())) for r in regions},
        cubes={r: {} for r in regions},
        palace=dict.fromkeys(players, 0),
        supply=dict.fromkeys(players, CUBES_PER_PLAYER),
        rat_supply=list(rat_supply),
        removed=tuple(removed),
        flipped=[],
        cards=dict.fromkeys(deck.cards),
        plague=plague,
        phase=Phase.SETUP,
        current=order[0],
        queue=order[1:] + order[::-1],  # R2.5 snake: A B C C B A
        turn=TurnState(),
    )
