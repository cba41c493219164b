"""The composer page's choices: every legal way to finish the seat's turn, as a tree of steps.

The page (:mod:`pbem.views.compose`) knows no rule: at each step it offers the
children of one node of this tree, each a notation line (:mod:`pbem.log.notation`)
leading to the next node.  The tree is walked here, when the page is made, with
the rules' own generators (:func:`pbem.rules.legal.generators`) on copies of the
public state, faces unknown (:class:`pbem.rules.NoFaces`): nothing in it depends
on a hidden face (P10).

The steps come in a fixed order: a Witch's look (after which
the move stops, R7.5, so its holder sees the face before going on), the card,
the Monk, the cubes, the King, the Merchant, the plague, each drawn rat, and last
the outbreak's preferences (the Knight's cubes and a flip order, R4.2, R5.4);
in the final round the abilities and then ``end``.  Each optional step has a
``skip`` child; a child from which the turn cannot be finished is pruned (the
placement is compulsory where possible, R3.2, so its ``skip`` is pruned there).
Equal positions are walked once, and equal subtrees are written once (the
outputs are hash-consed), so the data stays small.
"""

from __future__ import annotations

from typing import Any

from pbem.log.notation import action_line
from pbem.rules import (
    Action,
    EndTurn,
    FaceUnknown,
    King,
    KnightCubes,
    KnightMove,
    Merchant,
    Monk,
    MovePlague,
    NoFaces,
    Phase,
    Place,
    Spread,
    Stage,
    State,
    TakeCard,
    WitchLook,
    WitchSwap,
    legal_of,
)
from pbem.rules.checks import plague_gate
from pbem.rules.engine import apply_legal
from pbem.rules.legal import generators

_NO_FACES = NoFaces()

DONE = -1
"""A child that finishes the move (the turn is over, or the move may stop here)."""

STOP = -2
"""A Witch's look: the move stops here (R7.5); the host shows the face, and the next page goes on."""

# The steps of a normal turn and of the final round, in the page's order: (name, kinds, optional).
TURN_STEPS: tuple[tuple[str, tuple[type[Action], ...], bool], ...] = (
    ("witch", (WitchLook, WitchSwap), True),
    ("card", (TakeCard,), True),
    ("monk", (Monk,), True),
    ("cubes", (Place,), True),
    ("king", (King,), True),
    ("merchant", (Merchant,), True),
    ("plague", (MovePlague,), False),
    ("spread", (Spread,), False),
)
FINAL_STEPS: tuple[tuple[str, tuple[type[Action], ...], bool], ...] = (
    ("witch", (WitchLook, WitchSwap), True),
    ("monk", (Monk,), True),
    ("cubes", (Place,), True),
    ("king", (King,), True),
    ("merchant", (Merchant,), True),
    ("knight", (KnightMove,), True),
    ("end", (EndTurn,), False),
)
SKIP = "skip"
MOVES = ("king", "merchant")
"""Steps that move only the seat's own cubes (R5.1, R5.2) before the plague's: their positions
are keyed by :func:`_moves_key`, the plague's by :func:`_late_key` and the spreads' by
:func:`_spread_key`, each by what decides the rest of the turn from there (a normal turn's
positions only; the final round's and the exact walk's are keyed whole, :func:`_key`)."""


class OverBudget(ValueError):
    """The tree has more positions than its budget (a host making a page for every mail
    stops there rather than spend many seconds on one position)."""


class Tree:
    """The tree of one position: ``nodes[i]`` is either ``{"step": name, "next": [[line, child], ...]}``
    or the outbreak's ``{"step": "outbreak", "flips": [...], "knight": bool}``; node 0 is the root."""

    def __init__(self, state: State, player: str, exact: bool = False, start: int = 0,
                 budget: int | None = None) -> None:
        self.player = player
        self.budget = budget  # the most positions walked before :class:`OverBudget`
        self.exact = exact  # every position keyed whole (tests: the plague's shorter keys change nothing)
        self.nodes: list[dict[str, Any]] = []
        self._interned: dict[tuple[Any, ...], int] = {}
        self._walked: dict[tuple[Any, ...], int | None] = {}
        self.positions = 0
        root = self._node(state, start) if state.to_move == player else None
        if root is None:
            raise ValueError(f"{player} has no legal move to compose here")
        self.root = root

    def _steps(self, state: State) -> tuple[tuple[str, tuple[type[Action], ...], bool], ...]:
        return FINAL_STEPS if state.phase is Phase.FINAL else TURN_STEPS

    def _node(self, state: State, step: int) -> int | None:
        """The node of ``state`` at ``step``: its id, or None if the turn cannot be finished from it."""
        name = self._steps(state)[step][0]
        if self.exact or state.phase is not Phase.TURN:
            key = (step, _key(state))
        elif name == "spread":
            key = (step, _spread_key(state))
        elif name == "plague":
            key = (step, _late_key(state))
        elif name in MOVES:
            key = (step, _moves_key(state, self.player))
        else:
            key = (step, _key(state))
        if key not in self._walked:
            self._walked[key] = self._walk(state, step)
        return self._walked[key]

    def _walk(self, state: State, step: int) -> int | None:
        self.positions += 1
        if self.budget is not None and self.positions > self.budget:
            raise OverBudget(f"more than {self.budget} positions to walk")
        if state.phase is Phase.TURN and state.turn.stage is Stage.OUTBREAK:
            return self._outbreak(state)
        steps = self._steps(state)
        if state.phase is Phase.SETUP:
            steps = (("cubes", (Place,), False),)
        name, kinds, optional = steps[step]
        if state.phase is Phase.TURN and state.turn.stage is Stage.SPREAD:
            name, kinds, optional = "spread", (Spread,), False
        children: list[list[Any]] = []
        for action in self._legal(state, kinds):
            child = self._after(state, step, action, name)
            if child is not None:
                children.append([action_line(action.to_dict()), child])
        if optional and step + 1 < len(steps):
            skipped = self._node(state, step + 1)
            if skipped is not None:
                children.append([SKIP, skipped])
        return self._intern({"step": name, "next": children}) if children else None

    def _legal(self, state: State, kinds: tuple[type[Action], ...]) -> list[Action]:
        """The step's legal actions, in the generators' order: only the step's own kinds are
        listed (a step of cubes lists no Merchant moves).  The walk's seat is the one to move."""
        out: list[Action] = []
        for kind in kinds:
            out.extend(legal_of(state, kind))
        return out

    def _after(self, state: State, step: int, action: Action, name: str) -> int | None:
        """The child of one action: DONE, STOP, or the node after it."""
        if isinstance(action, WitchLook):
            return STOP
        trial = state.copy()
        try:  # one of _legal's actions of this very state: the generators ran the checks (R7.3)
            apply_legal(trial, self.player, action, _NO_FACES)
        except FaceUnknown:
            return DONE  # the final round's last 'end': the sweep follows (R6.4)
        if trial.to_move != self.player or state.phase is Phase.SETUP or isinstance(action, EndTurn):
            return DONE
        if isinstance(action, WitchSwap) or name == "spread":
            return self._node(trial, step)
        return self._node(trial, step + 1)

    def _outbreak(self, state: State) -> int:
        """The outbreak's preferences: a flip order of the plague region's rats, and the Knight's cubes."""
        flips: list[str] = []
        knight = False
        for gen in generators(state).values():
            for action in gen(state, self.player):
                if isinstance(action, KnightCubes):
                    knight = True
                elif hasattr(action, "token"):
                    flips.append(str(action.token))
        return self._intern({"step": "outbreak", "flips": flips, "knight": knight})

    def _intern(self, node: dict[str, Any]) -> int:
        """The node's id: an equal node (the same step, choices and children) is written once."""
        key = (node["step"], tuple(map(tuple, node.get("next", ()))), tuple(node.get("flips", ())),
               node.get("knight"))
        if key not in self._interned:
            self._interned[key] = len(self.nodes)
            self.nodes.append(node)
        return self._interned[key]

    def data(self) -> dict[str, Any]:
        """The tree as the page's data, compact: the notation lines and the step names once
        each; a choice node ``[step, line, child, line, child, ...]``, the outbreak's
        ``[step, knight (0 or 1), token, token, ...]`` (:func:`nodes_of` reads it back)."""
        lines: dict[str, int] = {}
        steps: dict[str, int] = {}
        out: list[list[Any]] = []
        for node in self.nodes:
            step = steps.setdefault(node["step"], len(steps))
            if node["step"] == "outbreak":
                out.append([step, int(node["knight"]), *node["flips"]])
                continue
            pairs = ((lines.setdefault(line, len(lines)), child) for line, child in node["next"])
            out.append([step, *(x for pair in pairs for x in pair)])
        return {"root": self.root, "lines": list(lines), "steps": list(steps), "nodes": out}


def nodes_of(data: dict[str, Any]) -> list[dict[str, Any]]:
    """:meth:`Tree.data`'s nodes as ``{"s": step, "n": [[line, child], ...]}`` or, for the
    outbreak, ``{"s": "outbreak", "k": bool, "f": [token, ...]}`` (the page's script does the same)."""
    out: list[dict[str, Any]] = []
    for node in data["nodes"]:
        step = data["steps"][node[0]]
        if step == "outbreak":
            out.append({"s": step, "k": bool(node[1]), "f": list(node[2:])})
        else:
            out.append({"s": step, "n": [[node[i], node[i + 1]] for i in range(1, len(node), 2)]})
    return out


def _late_key(state: State) -> tuple[Any, ...]:
    """:func:`_key` for the plague's step: the cubes only as R4.2 and R6.1 see them;
    of the cards and the abilities used, only the Knight's (the only ones left after the plague's
    move: the page takes the card and the other abilities before it)."""
    turn = state.turn
    return (
        state.phase, state.current, state.plague, state.turn_number, tuple(state.queue),
        tuple(tuple(ts) for ts in state.rats.values()), tuple(bool(c) for c in state.cubes.values()),
        tuple(n == 0 for n in state.supply.values()), plague_gate(state, state.players[state.current]) is None,
        state.cards["knight"], len(state.rat_supply),  # of the cards and abilities, only the Knight's
        "knight" in turn.used, turn.stage, turn.spread_left, turn.knight_cubes, turn.flips,  # are left (R5.4)
    )


def _moves_key(state: State, player: str) -> tuple[Any, ...]:
    """:func:`_late_key` for the King's and the Merchant's steps (:data:`MOVES`), with what they
    read and change: the seat's own cubes in each region (R5.1, R5.2), whether another player
    has a cube there (the plague's steps see only whether a region holds any cube), and the two
    cards and their use this turn.  The other players' counts, the palace and the other cards
    decide nothing from here to the turn's end."""
    turn = state.turn
    cubes = state.cubes.values()
    return (
        _late_key(state), tuple(c.get(player, 0) for c in cubes),
        tuple(any(n for p, n in c.items() if p != player) for c in cubes),
        state.cards["king"], state.cards["merchant"], frozenset(turn.used),
    )


def _spread_key(state: State) -> tuple[Any, ...]:
    """:func:`_late_key` once the plague has moved: how many rats each neighbour of the plague
    region holds (where the drawn rats may go, R4.1, R1.7), the plague region's own rats (the
    outbreak's flips, R4.2; no drawn rat goes there) and whether it holds a player cube (an
    outbreak follows) decide the rest; the rats and cubes elsewhere and the supplies no longer
    do (the turn's end is a leaf)."""
    turn = state.turn
    rats, plague = state.rats, state.plague
    return (
        state.phase, state.current, plague, state.turn_number, tuple(state.queue),
        tuple(len(rats[r]) for r in state.neighbours[plague]), tuple(rats[plague]),
        any(state.cubes[plague].values()),
        state.cards["knight"], len(state.rat_supply),  # the Knight's cubes (R5.4): nothing else is left
        "knight" in turn.used, turn.stage, turn.spread_left, turn.knight_cubes, turn.flips,
    )


def _key(state: State) -> tuple[Any, ...]:
    """What of a state decides the rest of the turn: everything but the fixed table."""
    turn = state.turn
    return (
        state.phase, state.current, state.plague, state.turn_number, tuple(state.queue),
        tuple(tuple(ts) for ts in state.rats.values()),
        tuple(tuple(sorted(c.items())) for c in state.cubes.values()),
        tuple(state.palace.values()), tuple(state.supply.values()),  # keyed by the players, in one order
        tuple(state.cards.values()), len(state.rat_supply),  # keyed by the classes, in one order
        turn.card_taken, turn.placed, frozenset(turn.used), tuple(turn.witch_looked), turn.witch_open,
        turn.stage, turn.spread_left, turn.knight_cubes, turn.flips,
    )

