"""legal_actions agrees with the engine: every listed action is accepted, every other refused.

Mid-game states come from seeded random play (pbem.sim.simulate, pbem.bots.randombot).  At each
sampled state every legal action is applied with ``step``, and a batch of
plausible actions of every kind (regions in use and not, tokens on the board, in
the supply and flipped, counts around the limits) is tried: each must be refused
with a :class:`RuleError` exactly when it is not in the legal list.
"""

from __future__ import annotations

import ast
import inspect
import random
import textwrap
from collections.abc import Callable, Iterator

import pytest

from pbem.bots.randombot import random_action
from pbem.data import default_board
from pbem.rules import (
    Action,
    EndTurn,
    Flip,
    King,
    KnightCubes,
    KnightMove,
    Merchant,
    Monk,
    MovePlague,
    Phase,
    Place,
    RuleError,
    Spread,
    State,
    TakeCard,
    WitchLook,
    WitchSwap,
    apply_in_place,
    legal_actions,
    legal_by_kind,
    step,
)
from pbem.rules.data import CLASSES
from pbem.rules.faces import Faces
from pbem.sim.simulate import new_random_game

REGIONS = [r.id for r in default_board().regions] + ["atlantis"]


def sampled_states(n_players: int, seed: int, every: int) -> Iterator[tuple[State, Faces]]:
    """Every ``every``-th state of one seeded random game (every state of its setup
    and final round), and the game's faces."""
    state, faces = new_random_game(n_players, seed)
    rng = random.Random(seed)
    k = 0
    while state.to_move is not None:
        if k % every == 0 or state.phase is not Phase.TURN:
            yield state.copy(), faces
        apply_in_place(state, state.to_move, random_action(state, rng), faces)
        k += 1


def tokens_of_interest(state: State) -> list[str]:
    on_board = [t for r in state.regions for t in state.rats[r]]
    return [
        *on_board, *state.rats[state.plague], *state.rat_supply[:2], *state.flipped[-2:],
        *state.removed[:1], "t99",
    ]


def probes(state: State, rng: random.Random, n: int) -> list[Action]:
    """``n`` plausible actions of every kind, legal or not."""
    tokens = tokens_of_interest(state)
    in_use = list(state.regions)

    def region() -> str:
        return rng.choice(in_use) if rng.random() < 0.8 else rng.choice(REGIONS)

    def near(r: str) -> str:
        ns = state.neighbours.get(r, ())
        return rng.choice(ns) if ns and rng.random() < 0.7 else region()

    def path() -> tuple[str, ...]:
        steps = rng.choice([0, 1, 1, 2, 2, 3])
        out: list[str] = []
        here = state.plague
        for _ in range(steps):
            here = near(here)
            out.append(here)
        return tuple(out)

    makers: list[Callable[[], Action]] = [
        lambda: TakeCard(rng.choice([*CLASSES, "jester"])),
        lambda: Place(region(), rng.randint(0, 5)),
        lambda: King(region()),
        lambda: Merchant((src := region()), near(src), rng.randint(0, 4)),
        lambda: Monk(rng.choice(tokens), region()),
        lambda: WitchLook(rng.choice(tokens)),
        lambda: WitchSwap(),
        lambda: MovePlague(path()),
        lambda: Spread(near(state.plague)),
        lambda: KnightCubes(),
        lambda: Flip(rng.choice(tokens)),
        lambda: KnightMove(path()),
        lambda: EndTurn(),
    ]
    out: list[Action] = []
    for make in makers:
        out.extend(make() for _ in range(n))
    return out


def accepted(state: State, player: str, action: Action, faces: Faces) -> bool:
    try:
        step(state, player, action, faces)
    except RuleError:
        return False
    return True


@pytest.mark.parametrize("n_players", [2, 3, 4])
def test_r7_3_legal_actions_are_exactly_the_accepted_actions(n_players: int) -> None:
    rng = random.Random(n_players)
    states = 0
    seen_phases: set[tuple[Phase, str]] = set()
    for seed in range(20):
        for state, faces in sampled_states(n_players, 100 * n_players + seed, every=5):
            player = state.to_move
            assert player is not None
            before = state.copy()
            legal = legal_actions(state)
            assert legal, "a game not over always has a legal action"
            assert len(set(legal)) == len(legal), "legal_actions lists an action twice"
            by_kind = [a for _kind, thunk in legal_by_kind(state) for a in thunk()]
            assert set(by_kind) == set(legal)
            for action in legal:
                assert accepted(state, player, action, faces), (action, state.phase)
            legal_set = set(legal)
            for action in probes(state, rng, 6):
                assert accepted(state, player, action, faces) == (action in legal_set), action
            other = state.players[(state.current + 1) % len(state.players)]
            assert not accepted(state, other, legal[0], faces)  # R3: not their turn
            assert state == before, "step changed the state it was given"
            states += 1
            seen_phases.add((state.phase, state.turn.stage.value))
    # setup, phases A/B, spread, outbreak and the final round were all met
    assert states > 50 and len(seen_phases) >= 5, seen_phases


# --- one source of legality -----------------------------------------------------

RULE_MODULES = ("pbem.rules.checks", "pbem.rules.abilities", "pbem.rules.cards")  # a card may keep its rule there


def _rule_names() -> set[str]:
    import importlib

    names: set[str] = set()
    for module in RULE_MODULES:
        names |= {n for n, v in vars(importlib.import_module(module)).items()
                  if inspect.isfunction(v) and v.__module__ == module}
    return names


def _asks_only_the_rules(func: Callable[..., object], rules: set[str]) -> list[str]:
    """What in ``func`` decides legality by itself instead of asking a rule function: any
    comparison other than ``rule(...) is None`` / ``is not None``, any other condition than
    such a comparison, a rule's answer or an emptiness guard, and any and/or/not."""
    source = textwrap.dedent(inspect.getsource(func))
    faults: list[str] = []

    def asks_rule(node: ast.expr) -> bool:
        return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in rules

    def condition(node: ast.expr) -> None:
        if isinstance(node, ast.Compare):
            ok = (len(node.ops) == 1 and isinstance(node.ops[0], ast.Is | ast.IsNot)
                  and isinstance(node.comparators[0], ast.Constant) and node.comparators[0].value is None
                  and asks_rule(node.left))
        else:
            ok = asks_rule(node) or isinstance(node, ast.Name)
        if not ok:
            faults.append(f"{func.__name__}: `{ast.unparse(node)}`")

    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.If | ast.IfExp | ast.While):
            condition(node.test)
        elif isinstance(node, ast.comprehension):
            for test in node.ifs:
                condition(test)
        elif isinstance(node, ast.BoolOp) or (isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not)):
            faults.append(f"{func.__name__}: `{ast.unparse(node)}`")
    return faults


def test_legality_is_stated_once_generators_and_engine_checks_only_ask_the_rules() -> None:
    """Every generator of legal actions and every check of the engine decides only by asking
    the rule functions of pbem.rules.checks and pbem.rules.abilities (the ones that return
    None or a Refusal): no condition of their own, so the two cannot drift apart."""
    from pbem.rules import DECK

    rules = _rule_names()
    generators = {rule.generate for rule in DECK.rules}
    checks = {rule.check for rule in DECK.rules}
    assert len(checks) == len(DECK.rules) >= 13 and len(generators) >= 11  # the looks and the swap share one
    funcs: list[Callable[..., object]] = [*generators, *checks]
    faults = [f for func in funcs for f in _asks_only_the_rules(func, rules)]
    assert not faults, "conditions stated outside the rules:\n" + "\n".join(faults)


def test_the_check_above_catches_a_rule_restated_in_a_generator() -> None:
    """The structural check is not vacuous: the generators as they were before (each rule
    written out again beside the engine's checks) fail it."""
    def _kings(state: State, player: str) -> list[Action]:
        if state.cards["king"] != player or "king" in state.turn.used:
            return []
        return [King(r) for r in state.regions if not state.rats[r] and state.cubes[r].get(player)]

    assert len(_asks_only_the_rules(_kings, _rule_names())) >= 2
