"""The bot levels, one constructor: :func:`make_bot`."""

from __future__ import annotations

import random
from typing import Protocol

from pbem.bots import DEFAULT_SECONDS
from pbem.bots.greedy import GreedyBot
from pbem.bots.knowledge import Knowledge
from pbem.bots.mcts import MctsBot
from pbem.bots.randombot import RandomBot
from pbem.log.game import BOT_LEVELS
from pbem.rules import Action, State

LEVELS = BOT_LEVELS


class Bot(Protocol):
    level: str

    def choose(self, state: State, knowledge: Knowledge) -> list[Action]:
        """The seat's next actions: to the end of its turn (the outbreak's flip order
        included, R7.4), or up to and including a Witch look (R5.6)."""
        ...


def make_bot(level: str, rng: random.Random, seconds: float = DEFAULT_SECONDS) -> Bot:
    """A bot of ``level``; ``seconds`` is the mcts bot's budget per decision."""
    if level == "random":
        return RandomBot(rng)
    if level == "greedy":
        return GreedyBot(rng)
    if level == "mcts":
        return MctsBot(rng, seconds)
    raise ValueError(f"unknown bot level {level!r} (levels: {', '.join(LEVELS)})")


__all__ = ["DEFAULT_SECONDS", "LEVELS", "Bot", "make_bot"]
