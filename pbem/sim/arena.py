"""Bots playing whole games in memory (tournaments, benchmarks, tests).

The arena holds the faces (as a host would) and gives each bot only its seat's
:class:`Knowledge`, updated from the events exactly as the seat would learn
them: a flipped rat's face publicly (R4.2, R6.4), a Witch look privately
(R5.6).  A bot's answer is played with :func:`pbem.rules.play`, the rules
core's whole-move path (check, then resolution), so an illegal answer fails.
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from pbem.bots.knowledge import Knowledge, from_public
from pbem.bots.levels import Bot, make_bot
from pbem.data import default_catalogue
from pbem.rules import Faces, State, play, winner
from pbem.rules.data import Catalogue
from pbem.rules.events import Event, TokenFlipped, TokenLooked
from pbem.sim.simulate import PLAYER_NAMES, new_random_game

MAX_DECISIONS = 5_000


@dataclass
class ArenaResult:
    seed: int
    players: tuple[str, ...]
    levels: tuple[str, ...]
    scores: dict[str, int]
    winner: str
    seconds: dict[str, float] = field(default_factory=dict)  # per seat: thinking time
    decisions: dict[str, int] = field(default_factory=dict)  # per seat: bot calls


def learn(knowledge: dict[str, Knowledge], events: Sequence[Event], catalogue: Catalogue) -> None:
    """What each seat learns from a move's events: flips publicly, looks privately."""
    for event in events:
        if isinstance(event, TokenFlipped):
            face = catalogue.by_id(event.token_id)
            for know in knowledge.values():
                know.learn_flip(event.token, face)
        elif isinstance(event, TokenLooked) and event.token_id is not None:
            knowledge[event.player].learn_look(event.token, catalogue.by_id(event.token_id))


def play_turn(state: State, bot: Bot, know: dict[str, Knowledge], faces: Faces,
              catalogue: Catalogue, clock: list[float] | None = None) -> tuple[State, list[Event]]:
    """One seat's whole turn: the bot is asked again after each Witch look (R5.6).
    ``clock[0]`` gets the bot's thinking time added."""
    player = state.to_move
    assert player is not None
    events: list[Event] = []
    while state.to_move == player:
        before = state.turn.witch_looked[:] if state.turn.witch_open else None
        start = time.perf_counter()
        actions = bot.choose(state, know[player])
        if clock is not None:
            clock[0] += time.perf_counter() - start
        state, new = play(state, player, actions, faces)
        learn(know, new, catalogue)
        events.extend(new)
        if not new and state.turn.witch_looked == before:  # pragma: no cover - a bot that does nothing
            raise RuntimeError(f"the {bot.level} bot made no progress")
    return state, events


def play_game(levels: Sequence[str], seed: int, seconds: float = 1.0) -> ArenaResult:
    """One game, seat i played by ``levels[i]``; dealt and decided by ``seed``."""
    n = len(levels)
    catalogue = default_catalogue()
    state, faces = new_random_game(n, seed)
    players = PLAYER_NAMES[:n]
    bots = {p: make_bot(level, random.Random(f"{seed}/{p}"), seconds) for p, level in zip(players, levels, strict=True)}
    know = {p: from_public(p, catalogue, {}, {}) for p in players}
    spent = dict.fromkeys(players, 0.0)
    calls = dict.fromkeys(players, 0)
    while state.to_move is not None:
        player = state.to_move
        clock = [0.0]
        state, _events = play_turn(state, bots[player], know, faces, catalogue, clock)
        spent[player] += clock[0]
        calls[player] += 1
        if sum(calls.values()) > MAX_DECISIONS:  # pragma: no cover
            raise RuntimeError(f"game {seed} did not end")
    return ArenaResult(seed, players, tuple(levels), state.scores(), winner(state), spent, calls)
