"""Bots that play a seat from that seat's view only (issue 13; PROTOCOL P10).

A bot is asked for a seat's next actions with the public state and the
seat's :class:`~pbem.bots.knowledge.Knowledge` (the public reveals plus its own
Witch looks); it never sees a :class:`pbem.rules.Faces` that can tell a hidden
face.  It answers with actions up to the end of its turn, or up to and
including a Witch look (R5.6), after which it is asked again with the look
learnt.  Levels: ``random``, ``greedy``, ``mcts`` (:func:`make_bot`).
"""

from __future__ import annotations

import random
from typing import Protocol

from pbem.bots.knowledge import Knowledge
from pbem.rules import Action, State

LEVELS = ("random", "greedy", "mcts")
DEFAULT_SECONDS = 1.0


class Bot(Protocol):
    level: str

    def choose(self, state: State, knowledge: Knowledge) -> list[Action]:
        """The seat's next actions: to the end of its turn (the outbreak's flip order
        included, R7.4), or up to and including a Witch look (R5.6)."""
        ...


def make_bot(level: str, rng: random.Random, seconds: float = DEFAULT_SECONDS) -> Bot:
    """A bot of ``level``; ``seconds`` is the mcts bot's budget per decision."""
    if level == "random":
        from pbem.bots.randombot import RandomBot

        return RandomBot(rng)
    if level == "greedy":
        from pbem.bots.greedy import GreedyBot

        return GreedyBot(rng)
    if level == "mcts":
        from pbem.bots.mcts import MctsBot

        return MctsBot(rng, seconds)
    raise ValueError(f"unknown bot level {level!r} (levels: {', '.join(LEVELS)})")


__all__ = ["DEFAULT_SECONDS", "LEVELS", "Bot", "Knowledge", "make_bot"]
