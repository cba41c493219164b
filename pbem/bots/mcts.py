"""The ``mcts`` level: information-set Monte Carlo tree search over whole turns.

As Cowling, Powley and Whitehouse's single-observer ISMCTS (2012; OpenSpiel's
``is_mcts``): every iteration draws one *determinization* from the seat's
:class:`Knowledge` (each face hidden from the seat drawn from the pool, its own
looks kept: a member of its information set, never the host's faces) and walks
one tree shared by every seat under it.  A node is a point of the game reached by
a sequence of whole turns (R3, R2.5's placements); its edges are whole turns of
the seat to move there, proposed by the greedy level (:mod:`pbem.bots.greedy`,
best first) and played through the rules core (:func:`pbem.rules.play`: each
outbreak's flips resolved exactly under the drawn faces, R4.2-R4.5).

* **The root** (the bot's own turn) races its turns by sequential halving
  (Karnin, Koren and Somekh 2013; as Gumbel MuZero's root): each round draws one
  determinization and sends one iteration down every turn still in the race
  under it (common random numbers: the turns meet the same faces); when the
  race's share of rounds is spent, its worse half drops out.  The turns join in
  :func:`root_turns` order (the best of each card choice first, R3.1), as many
  as the budget can give :data:`ARM_ITERATIONS` iterations each: a longer search
  looks at more of them (progressive widening at the root).
* **Below the root** each seat picks, at its own nodes, the edge with the best
  upper confidence bound of *its* reward (max^n for a game of several players),
  the greedy estimate counting as :data:`PRIOR` visits.  A node offers one edge
  (the greedy level's turn: the tree's default policy) and one more each time
  its visits / :data:`WIDEN` pass the next square (progressive widening).  An
  edge that the drawn faces make illegal (cubes an earlier outbreak took, R3.2)
  is not available in that iteration.
* **The opponent model**: another seat's node widens :data:`WIDEN_OTHERS` / :data:`WIDEN`
  times slower than the bot's own.  Its first edge, the greedy level's turn from the
  public knowledge, is what a greedy seat plays there (the greedy level never looks with
  the Witch, so its knowledge is the public one), and the iterations that would try the
  others' less likely turns go to the bot's own choices instead (its measured effect:
  CHANGELOG.md, docs/benchmarks.md).  The others' nodes still widen with visits, so against a seat that plays
  otherwise a long search still looks at its other turns.
* **Expansion**: one new node per iteration, whose turns are made on its second
  visit, so a line grows by one turn per visit and reaches the end of the game
  when the budget allows.  A walk that ends at the end of the game is scored by
  R6.5's winner and the lead in cubes; one that stops at a new node by the
  greedy level's estimate of the cubes each seat keeps.
* **Decision**: the turn left in the race with the best mean.

A budget of ``seconds`` is the bot's own CPU time (``time.process_time``), so a
busy machine makes it slower, not weaker; a budget of ``rounds`` iterations is
deterministic for a given seed.  The bot sees only its seat's view: nothing here
touches a face that the seat's :class:`Knowledge` does not hold.
"""

from __future__ import annotations

import math
import random
import time

from pbem.bots.greedy import Candidate, Estimator, GreedyBot, card_of
from pbem.bots.knowledge import Knowledge
from pbem.rules import Action, Faces, Phase, RuleError, State, play, winner

HALVING_ROUNDS = 4
"""Rounds of the root's first race before its worse half drops out; doubled each time."""
ROOT_WIDTH = 6
"""Turns in the root's race whatever the budget."""
CANDIDATES = 16
"""The most edges a node below the root can ever offer (greedy's best, in its order)."""
ROOT_CANDIDATES = 48
"""The root's turns (root_turns): greedy's best, and those of its best PER_CARD placements
for each card choice."""
PER_CARD = 1
ARM_ITERATIONS = 24
"""Iterations the budget must give each turn in the root's race for one more to join it."""
WIDEN = 16
"""A node below the root offers one more edge each time its visits / this pass a square."""
WIDEN_OTHERS = 256
"""The same for the other seats' nodes: the opponent model (module docstring).  Their first
edge is the greedy level's turn, which a greedy seat plays; they widen this much slower."""
PRIOR = 2.0
"""The greedy estimate's weight, in visits, in an edge's mean."""
EXPLORE = 0.35
"""The exploration constant of the upper confidence bound (rewards are in [0, 1])."""
MARGIN_SCALE = 2.5
"""Cubes of lead that make a reward of about 0.73 (a logistic curve of the lead)."""
WIN_WEIGHT = 0.7
"""At the end of the game: this much for R6.5's winner, the rest by the lead in cubes."""


def _reward(margin: float) -> float:
    return 1.0 / (1.0 + math.exp(-margin / MARGIN_SCALE))


def root_turns(candidates: list[Candidate], first: int) -> list[Candidate]:
    """The root's turns in the order they join the race: the greedy level's ``first`` best,
    then the best turn of each other card choice (R3.1: none or a card; the greedy level's
    best turns are mostly one card's variants), the choices by their best, then each
    choice's next best, and so on."""
    out = candidates[:first]
    groups: dict[Action | None, list[Candidate]] = {}
    for cand in candidates[first:]:  # best first
        groups.setdefault(card_of(cand), []).append(cand)
    for rank in range(max((len(g) for g in groups.values()), default=0)):
        out.extend(g[rank] for g in groups.values() if rank < len(g))
    return out


class Edge:
    """A whole turn of the node's seat, with its statistics for that seat."""

    __slots__ = ("actions", "child", "prior", "total", "visits")

    def __init__(self, candidate: Candidate) -> None:
        self.actions: list[Action] = candidate.actions
        self.prior = _reward(candidate.score)
        self.visits = 0
        self.total = 0.0
        self.child: Node | None = None

    def mean(self) -> float:
        """The mean reward, the greedy estimate counting as PRIOR visits."""
        return (self.total + PRIOR * self.prior) / (self.visits + PRIOR)

    def value(self, parent_visits: int) -> float:
        return self.mean() + EXPLORE * math.sqrt(math.log(parent_visits + 1) / (self.visits + 1))


class Node:
    """A point of the game after a sequence of whole turns; ``player`` is to move there."""

    __slots__ = ("edges", "player", "visits")

    def __init__(self, player: str) -> None:
        self.player = player
        self.visits = 0
        self.edges: list[Edge] | None = None  # made on the second visit

    def width(self, every: int) -> int:
        """Progressive widening: one edge, one more as visits / ``every`` passes a square."""
        assert self.edges is not None
        return min(len(self.edges), 1 + math.isqrt(self.visits // every))


class MctsBot:
    level = "mcts"

    def __init__(self, rng: random.Random, seconds: float, rounds: int | None = None) -> None:
        self.rng = rng
        self.seconds = seconds
        self.rounds = rounds  # a fixed number of iterations instead of the clock (reproducible)
        self.greedy = GreedyBot(rng)
        self.iterations = 0  # of the last decision, for benchmarks and tests
        self.nodes = 0
        self.root: Node | None = None
        self.me = ""

    def choose(self, state: State, knowledge: Knowledge) -> list[Action]:
        est = Estimator(knowledge)  # one per decision: its answers are kept (pbem.bots.greedy)
        if state.phase is Phase.FINAL:  # R6.2: one go of the greedy level's ability uses
            self.iterations = 0
            return self.greedy.candidates(state, knowledge, 1, est)[0].actions
        me = state.to_move
        assert me is not None
        self.me = me
        root = self.root = Node(me)
        # greedy's best turns (its beam), and the best turns of every card choice (R3.1)
        made = time.process_time()
        turns = self.greedy.candidates(state, knowledge, ROOT_CANDIDATES, est)
        made = time.process_time() - made  # about an iteration's cost: one node's turns
        seen = {tuple(c.actions) for c in turns}
        turns += [c for c in self.greedy.candidates(state, knowledge, ROOT_CANDIDATES, est, per_card=PER_CARD)
                  if tuple(c.actions) not in seen]
        turns.sort(key=lambda c: -c.score)  # stable: greedy's own order among equals
        edges = root.edges = [Edge(c) for c in root_turns(turns, ROOT_WIDTH)[:ROOT_CANDIDATES]]
        if len(edges) == 1:
            self.iterations = 0
            return edges[0].actions
        self.nodes = 1
        deadline = time.process_time() + self.seconds
        iterations = 0

        def spent() -> bool:
            if self.rounds is not None:
                return iterations >= self.rounds
            return time.process_time() >= deadline

        # The root's race (module docstring): sequential halving with common random numbers.
        alive = list(range(min(ROOT_WIDTH, len(edges))))
        rounds, budget = 0, HALVING_ROUNDS
        while not spent():
            faces = self._faces(knowledge)
            for k in alive:
                self._iterate(root, state, knowledge, est, faces, edges[k])
                iterations += 1
                if spent():
                    break
            rounds += 1
            if rounds == 1 and not spent():
                # Progressive widening at the root: as many turns in the race as the budget
                # can give ARM_ITERATIONS iterations each, in root_turns' order; those that
                # join now play the first round's faces too.  An iteration costs about one
                # node's turns (the first round's cost nothing yet: their nodes are new).
                expected = self.rounds if self.rounds is not None else int(self.seconds / max(made, 1e-4))
                joining = range(len(alive), min(len(edges), expected // ARM_ITERATIONS))
                for k in joining:
                    self._iterate(root, state, knowledge, est, faces, edges[k])
                    iterations += 1
                alive.extend(joining)
            if rounds >= budget and len(alive) > 2:
                alive.sort(key=lambda i: (-edges[i].mean(), i))
                alive = alive[: max(2, len(alive) // 2)]
                budget *= 2
        self.iterations = iterations
        best = max(alive, key=lambda i: (edges[i].mean(), -i))
        return edges[best].actions

    def _faces(self, knowledge: Knowledge) -> Faces:
        return knowledge.sample(random.Random(self.rng.getrandbits(64)))

    # --- one iteration -------------------------------------------------------------

    def _iterate(self, root: Node, state: State, knowledge: Knowledge, est: Estimator, faces: Faces,
                 first: Edge) -> None:
        """One walk down the tree under ``faces`` through the root's edge ``first``, the
        rewards where it stops (:meth:`_score`), and the rewards back up the path."""
        path: list[tuple[Node, Edge]] = []
        node: Node | None = root
        s = state
        while node is not None:
            if node is not root and node.visits == 0:
                break  # a new node: its first visit is scored where it stands
            if node.edges is None:
                node.edges = [Edge(c) for c in self.greedy.candidates(s, knowledge, CANDIDATES, est)]
            step = self._play(root, first, s, faces) if node is root else self._select(node, s, faces, knowledge, est)
            if step is None:
                break  # no edge is legal under these faces: score the position as it is
            edge, s = step
            path.append((node, edge))
            player = s.to_move
            if player is None:
                node = None  # the game is over
            elif edge.child is None:
                node = edge.child = Node(player)
                self.nodes += 1
            elif edge.child.player == player:
                node = edge.child
            else:  # pragma: no cover - the turn order hangs on no face
                node = None
        if node is not None and node is not root:
            node.visits += 1  # where the walk stopped (the nodes it passed count below)
        rewards = self._score(s, est)
        for parent, edge in path:
            parent.visits += 1
            edge.visits += 1
            edge.total += rewards[parent.player]

    def _select(self, node: Node, s: State, faces: Faces,
                knowledge: Knowledge, est: Estimator) -> tuple[Edge, State] | None:
        """The available edge of the best bound for the node's seat, played under ``faces``.

        An edge the drawn faces make illegal (R3.2, R5: an earlier outbreak took the cubes it
        moves) is not available; if none of the offered edges is, the next ones are tried in
        the greedy order, and if none at all is, the greedy level's turns for this very
        position become new edges."""
        assert node.edges is not None
        width = node.width(WIDEN if node.player == self.me else WIDEN_OTHERS)
        offered = sorted(node.edges[:width], key=lambda e: -e.value(node.visits))
        for edge in [*offered, *node.edges[width:]]:
            found = self._play(node, edge, s, faces)
            if found is not None:
                return found
        known = {tuple(e.actions) for e in node.edges}
        fresh = [Edge(c) for c in self.greedy.candidates(s, knowledge, CANDIDATES, est)
                 if tuple(c.actions) not in known]
        node.edges.extend(fresh)
        for edge in fresh:
            found = self._play(node, edge, s, faces)
            if found is not None:
                return found
        return None  # pragma: no cover - the greedy level's turns of this position are legal

    @staticmethod
    def _play(node: Node, edge: Edge, s: State, faces: Faces) -> tuple[Edge, State] | None:
        try:
            after, _events = play(s, node.player, edge.actions, faces)
        except RuleError:
            return None
        return edge, after

    @staticmethod
    def _score(s: State, est: Estimator) -> dict[str, float]:
        """Each seat's reward in [0, 1] where the walk stopped: at the end of the game R6.5's
        winner and the lead in cubes; elsewhere the lead in the greedy level's estimate of the
        cubes each seat keeps (board and palace, minus the expected losses, R4.3-R4.5)."""
        if s.to_move is None:
            scores = s.scores()
            champion = winner(s)
            return {p: WIN_WEIGHT * (p == champion) + (1 - WIN_WEIGHT) * _reward(
                mine - max(v for q, v in scores.items() if q != p)) for p, mine in scores.items()}
        values = est.values(s, None)
        return {p: _reward(v - max(w for q, w in values.items() if q != p)) for p, v in values.items()}
