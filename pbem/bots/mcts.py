"""The ``mcts`` level: information-set Monte Carlo search over whole turns.

The root's children are the greedy level's best whole turns (pbem.bots.greedy).
Each round draws one determinization from the seat's :class:`Knowledge` (every
face hidden from the seat drawn from the pool, its own looks kept: a member of
its information set, never the host's faces) and, under it, plays every child
still in the race through the rules core (:func:`pbem.rules.play`: the
outbreak's flips resolved exactly, R4.2-R4.5), then the other seats' replies
(the greedy level with a narrower beam), then scores the position by the seat's
expected cubes against the best opponent's (the greedy estimate; at the end of
the game the real scores and R6.5's winner).  The same draw for every child
(common random numbers) and successive halving spend the budget (``seconds``)
on the children that still might be best; the means are shrunk towards the
greedy estimate, so that a few lucky draws do not decide.
"""

from __future__ import annotations

import random
import time

from pbem.bots.greedy import Estimator, GreedyBot
from pbem.bots.knowledge import Knowledge
from pbem.bots.playout import playout_turn
from pbem.rules import Action, Faces, Phase, RuleError, State, play, winner

CHILDREN = 6
PRIOR = 2.0


class MctsBot:
    level = "mcts"

    def __init__(self, rng: random.Random, seconds: float, depth: int | None = 3,
                 rounds: int | None = None, replies: bool = True) -> None:
        self.rng = rng
        self.seconds = seconds
        self.rounds = rounds  # a fixed number of rounds instead of the clock (reproducible tests)
        self.depth = depth  # playout turns after ours (None: to the end of the game)
        self.greedy = GreedyBot(rng)
        self.reply: GreedyBot | None = GreedyBot(rng, beam=2) if replies else None
        self.iterations = 0  # of the last decision, for benchmarks

    def choose(self, state: State, knowledge: Knowledge) -> list[Action]:
        deadline = time.perf_counter() + self.seconds
        est = Estimator(knowledge)  # one per decision: its answers are kept (pbem.bots.greedy)
        children = self.greedy.candidates(state, knowledge, CHILDREN, est)
        if len(children) == 1 or state.phase is not Phase.TURN:
            self.iterations = 0
            return children[0].actions
        me = state.to_move
        assert me is not None
        # Common random numbers: each round draws one determinization and plays every
        # child still in the race under it; after each round the worse half of the
        # children whose share of rounds is spent drops out (successive halving).
        alive = list(range(len(children)))
        totals = [0.0] * len(children)
        rounds = 0
        budget = 4  # rounds before the next halving
        started, rollouts = time.perf_counter(), 0
        while True:
            faces_seed = self.rng.getrandbits(64)
            for k in alive:
                faces = knowledge.sample(random.Random(faces_seed))
                totals[k] += self._rollout(state, me, children[k].actions, faces, est)
            rounds += 1
            rollouts += len(alive)
            now = time.perf_counter()
            next_round = (now - started) / rollouts * len(alive)  # a round is not cut short
            if (rounds >= self.rounds) if self.rounds is not None else (now + next_round > deadline):
                break
            if rounds >= budget and len(alive) > 2:
                alive.sort(key=lambda i: -totals[i])
                alive = alive[: max(2, len(alive) // 2)]
                budget *= 2
        self.iterations = rounds
        # Shrink each mean towards the greedy estimate (PRIOR pseudo-rounds): with few
        # rounds a noisy mean would otherwise pick the luckiest child, not the best.
        best = max(alive, key=lambda i: ((totals[i] + PRIOR * children[i].score) / (rounds + PRIOR), -i))
        return children[best].actions

    def _rollout(self, state: State, me: str, actions: list[Action], faces: Faces, est: Estimator) -> float:
        try:
            after, _events = play(state, me, actions, faces)
        except RuleError:  # pragma: no cover - the greedy candidates are legal
            return -1e9
        turns = 0
        while after.to_move is not None and (self.depth is None or turns < self.depth):
            if self.reply is not None and turns < len(state.players) - 1:
                # the other seats' replies, by the greedy level with a narrower beam
                player = after.to_move
                while after.to_move == player:
                    reply = self.reply.candidates(after, est.knowledge, 1, est)[0].actions
                    after, _events = play(after, player, reply, faces)
            else:
                playout_turn(after, faces)
            turns += 1
        if after.to_move is None:
            scores = after.scores()
            mine = scores.pop(me)
            return mine - max(scores.values()) + (3.0 if winner(after) == me else 0.0)
        return est.score(after, me)
