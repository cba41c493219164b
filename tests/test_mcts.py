"""The mcts level is an information-set tree search over the turns of every seat.

A small board is not needed here: the positions are real 4-player deals after the opening
placements (R2.5), played by the greedy level, and the bot is asked with a fixed number
of iterations so that every figure is exact.
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterator

import pytest

import pbem.bots.mcts as mcts
from pbem.bots.greedy import Candidate, Estimator, GreedyBot, card_of
from pbem.bots.knowledge import Knowledge, from_public
from pbem.bots.mcts import Edge, MctsBot, Node
from pbem.data import default_catalogue
from pbem.rules import Faces, Flip, Phase, Place, RuleError, State, play
from pbem.sim.simulate import new_random_game

CATALOGUE = default_catalogue()


def first_turn(seed: int) -> tuple[State, Knowledge, Faces]:
    """A 4-player deal after the opening (R2.5) placed by greedy: the first real turn (R3)."""
    state, faces = new_random_game(4, seed)
    greedy = GreedyBot(random.Random(seed))
    know = {p: from_public(p, CATALOGUE, {}, {}) for p in state.players}
    while state.phase is Phase.SETUP:
        player = state.to_move
        assert player is not None
        state, _ = play(state, player, greedy.choose(state, know[player]), faces)
    assert state.to_move is not None
    return state, know[state.to_move], faces


def nodes(root: Node) -> Iterator[tuple[int, Node]]:
    """Every node of the tree with its depth in whole turns."""
    todo = [(0, root)]
    while todo:
        depth, node = todo.pop()
        yield depth, node
        for edge in node.edges or []:
            if edge.child is not None:
                todo.append((depth + 1, edge.child))


def test_the_same_seed_and_number_of_iterations_give_the_same_turn() -> None:
    state, know, _ = first_turn(3)
    turns = [MctsBot(random.Random(7), seconds=0.0, rounds=60).choose(state.copy(), know) for _ in range(2)]
    assert turns[0] == turns[1]
    other = MctsBot(random.Random(8), seconds=0.0, rounds=60)
    other.choose(state.copy(), know)
    assert other.iterations == 60


def test_one_tree_holds_the_turns_of_every_seat_not_the_bots_alone() -> None:
    """R3: the seats take turns; the tree below the bot's turn holds the next seats' turns,
    each node belonging to the seat to move there, and the bot's own next turn below them."""
    state, know, _ = first_turn(5)
    bot = MctsBot(random.Random(1), seconds=0.0, rounds=200)
    bot.choose(state.copy(), know)
    assert bot.root is not None and bot.root.visits == 200
    seen = {(depth, node.player) for depth, node in nodes(bot.root)}
    order = [state.players[(state.current + k) % 4] for k in range(5)]
    for depth in range(5):
        assert (depth, order[depth]) in seen, (depth, sorted(seen))
    assert all(node.player == order[depth] for depth, node in nodes(bot.root) if depth < 5)
    # each visit of a node passes to one of its edges, or ends there (its first visit)
    for _depth, node in nodes(bot.root):
        if node.edges is not None:
            assert sum(e.visits for e in node.edges) in (node.visits, node.visits - 1)


def test_progressive_widening_offers_more_turns_as_a_node_is_visited_more() -> None:
    node = Node("red")
    node.edges = [Edge(Candidate([], float(-k))) for k in range(16)]
    widths = []
    for visits in (0, 1, mcts.WIDEN - 1, mcts.WIDEN, 4 * mcts.WIDEN, 9 * mcts.WIDEN, 10_000):
        node.visits = visits
        widths.append(node.width(mcts.WIDEN))
    assert widths == [1, 1, 1, 2, 3, 4, 16]  # an opponent's first answer is the greedy level's


def test_a_longer_search_races_more_of_the_bots_turns_and_every_card_choice_joins() -> None:
    """R3.1: a turn begins with taking a card or not; the greedy level's best turns are
    mostly one card's variants. A short search races greedy's best ROOT_WIDTH turns; a
    longer one as many as its budget gives ARM_ITERATIONS iterations each, the best turn of
    every other card choice among them."""
    state, know, _ = first_turn(5)
    greedy = GreedyBot(random.Random(1)).candidates(state, know, 999, Estimator(know))
    each_card = GreedyBot(random.Random(1)).candidates(state, know, 999, Estimator(know), per_card=1)
    raced = {}
    for rounds in (30, 600):
        bot = MctsBot(random.Random(1), seconds=0.0, rounds=rounds)
        bot.choose(state.copy(), know)
        assert bot.root is not None and bot.root.edges is not None
        raced[rounds] = [e.actions for e in bot.root.edges if e.visits]
    assert raced[30] == [c.actions for c in greedy[: mcts.ROOT_WIDTH]]
    assert len(raced[600]) == 600 // mcts.ARM_ITERATIONS
    assert {card_of(c) for c in greedy} == {card_of(greedy[0])}  # greedy's best: one card's variants
    choices = {card_of(c) for c in each_card}
    assert len(choices) >= 5 and None in choices
    assert {card_of(Candidate(a, 0.0)) for a in raced[600]} == choices


def test_a_turn_the_drawn_faces_make_illegal_is_passed_over() -> None:
    """R3.2: a placement needs the player's cubes; under another draw of the faces an earlier
    outbreak may leave a turn impossible. The node offers its next turn instead."""
    state, know, faces = first_turn(2)
    me = state.to_move
    assert me is not None
    bot = MctsBot(random.Random(1), seconds=0.0, rounds=1)
    legal = bot.greedy.candidates(state, know, 1)[0]
    impossible = Candidate([Flip("t99"), *legal.actions], 9.0)  # no such rat: refused (R4.2)
    with pytest.raises(RuleError):
        play(state, me, impossible.actions, faces)
    node = Node(me)
    node.edges = [Edge(impossible), Edge(legal)]
    chosen = bot._select(node, state, faces, know, Estimator(know))
    assert chosen is not None and chosen[0].actions == legal.actions


def test_the_budget_is_the_bots_own_cpu_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """A busy machine slows the bot but does not cut its search: it counts CPU seconds."""
    clock = [0.0]

    def cpu() -> float:
        clock[0] += 0.01
        return clock[0]

    monkeypatch.setattr(time, "process_time", cpu)
    monkeypatch.setattr(time, "perf_counter", lambda: pytest.fail("wall clock read"))
    state, know, _ = first_turn(4)
    bot = MctsBot(random.Random(1), seconds=0.25)
    bot.choose(state.copy(), know)
    assert 15 <= bot.iterations <= 25  # 0.25 s of a clock that ticks 0.01 s a reading


def test_its_turn_is_legal_on_the_public_facts_and_a_setup_placement_is_searched_too() -> None:
    """R7.4: the move is checked before any face is consulted; R2.5: the opening placements
    are turns of the tree too."""
    state, _faces = new_random_game(4, 9)
    me = state.to_move
    assert me is not None
    bot = MctsBot(random.Random(1), seconds=0.0, rounds=30)
    move = bot.choose(state, from_public(me, CATALOGUE, {}, {}))
    assert len(move) == 1 and isinstance(move[0], Place) and bot.iterations == 30
    play(state, me, move)
    turn, know, _ = first_turn(9)
    play(turn, turn.to_move or "", bot.choose(turn, know))


def test_the_other_seats_are_expected_to_play_the_greedy_levels_turn() -> None:
    """The opponent model: the greedy level never looks with the Witch (R5.6), so a greedy
    seat's turn is the greedy level's turn from the public knowledge, the first edge of its
    node. Another seat's node offers that turn alone until WIDEN_OTHERS visits; the bot's own
    nodes widen at WIDEN, and a longer search tries more of its own later turns."""
    assert mcts.WIDEN_OTHERS > mcts.WIDEN
    node = Node("red")
    node.edges = [Edge(Candidate([], float(-k))) for k in range(16)]
    node.visits = mcts.WIDEN_OTHERS - 1
    assert node.width(mcts.WIDEN_OTHERS) == 1 and node.width(mcts.WIDEN) > 1
    state, know, _ = first_turn(5)
    me = state.to_move
    bot = MctsBot(random.Random(1), seconds=0.0, rounds=400)
    bot.choose(state.copy(), know)
    assert bot.root is not None
    first = later = own_later = 0
    for depth, n in nodes(bot.root):
        if depth == 0 or not n.edges:
            continue
        if n.player == me:
            own_later += sum(1 for e in n.edges[1:] if e.visits)
        else:  # at 400 iterations none has WIDEN_OTHERS visits
            first += n.edges[0].visits
            later += sum(e.visits for e in n.edges[1:])
    assert first > 100
    assert later <= first // 20  # only where the drawn faces make greedy's turn illegal
    assert own_later > 0  # the bot's own later turns widen
