"""The ``random`` level: uniformly chosen legal actions (pbem/bot.py, pbem/demo.py)."""

from __future__ import annotations

import random

from pbem.bots.knowledge import Knowledge
from pbem.rules import Action, State


class RandomBot:
    level = "random"

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def choose(self, state: State, knowledge: Knowledge) -> list[Action]:
        from pbem.demo import bot_actions  # the demo's bot, which already stops at a look

        return bot_actions(state, self.rng)
