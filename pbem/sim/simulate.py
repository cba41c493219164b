"""Complete random games, for invariants, statistics and the benchmark (`pbem simulate`)."""

from __future__ import annotations

import random
import time
from collections import Counter
from dataclasses import dataclass

from pbem.bots.randombot import random_action
from pbem.data import default_board, default_catalogue
from pbem.fair import protocol
from pbem.fair.dealing import HostFaces, start_state
from pbem.rules import Event, State
from pbem.rules.data import N_TOKENS, Board, Catalogue
from pbem.rules.engine import apply_legal
from pbem.rules.events import GameOver
from pbem.rules.faces import Faces
from pbem.rules.state import CUBES_PER_PLAYER

PLAYER_NAMES = ("red", "green", "blue", "yellow")


@dataclass(frozen=True, slots=True)
class GameResult:
    state: State
    events: int
    actions: int
    winner: str


def new_random_game(
    n_players: int, seed: int, board: Board | None = None, catalogue: Catalogue | None = None
) -> tuple[State, Faces]:
    """A dealt game (P5 draws from a seed derived from ``seed``) and its faces."""
    board = board or default_board()
    catalogue = catalogue or default_catalogue()
    players = PLAYER_NAMES[:n_players]
    secret = bytes.fromhex(protocol.sha256_hex(f"simulate/{seed}".encode()))  # 32 bytes from the seed
    drbg_seed = protocol.derive_seed(secret, "simulate", [b""] * n_players)
    deal = protocol.deal(drbg_seed, players, None, board, catalogue)
    return start_state(deal, board, players, catalogue), HostFaces(drbg_seed, deal, catalogue)


MAX_ACTIONS = 10_000
"""A random game that has not ended after this many actions is reported as stuck."""


def play_random_game(
    n_players: int, seed: int, check: bool = False, board: Board | None = None
) -> GameResult:
    """Play one complete game with random legal actions; ``check`` runs the invariants."""
    state, faces = new_random_game(n_players, seed, board)
    rng = random.Random(seed)
    n_events = n_actions = 0
    last: Event | None = None
    while (player := state.to_move) is not None:
        if n_actions >= MAX_ACTIONS:
            raise AssertionError(f"R6.1: game {seed} has not ended after {n_actions} actions")
        events = apply_legal(state, player, random_action(state, rng), faces)  # listed as legal just now
        n_actions += 1
        n_events += len(events)
        if events:
            last = events[-1]
        if check:
            check_invariants(state)
    assert isinstance(last, GameOver)
    return GameResult(state, n_events, n_actions, last.winner)


def check_invariants(state: State) -> None:
    """The conservation laws of R1: each player's cubes, <= 3 rats a region, every token,
    none flipped twice, the plague piece on a region in use."""
    for player in state.players:
        on_board = sum(c.get(player, 0) for c in state.cubes.values())
        total = state.supply[player] + on_board + state.palace[player]
        if total != CUBES_PER_PLAYER:
            raise AssertionError(f"R1.3: {player} has {total} cubes, not {CUBES_PER_PLAYER}")
    for region, rats in state.rats.items():
        if len(rats) > 3:
            raise AssertionError(f"R1.7: {region} holds {len(rats)} rats")
    tokens = [t for r in state.rats.values() for t in r]
    tokens += [*state.rat_supply, *state.flipped, *state.removed]
    if len(tokens) != N_TOKENS or len(set(tokens)) != N_TOKENS:
        raise AssertionError(f"R1.4: {len(tokens)} tokens accounted for ({len(set(tokens))} distinct)")
    if len(set(state.flipped)) != len(state.flipped):
        raise AssertionError("R4.2: a token was flipped twice")
    if state.plague not in state.regions:
        raise AssertionError(f"R1.6: the plague piece is on {state.plague}, not a region in use")


@dataclass(frozen=True, slots=True)
class SimulationSummary:
    games: int
    players: int
    seconds: float
    average_turns: float
    wins_by_seat: tuple[float, ...]
    average_surviving_cubes: float

    @property
    def games_per_second(self) -> float:
        return self.games / self.seconds if self.seconds else float("inf")

    def lines(self) -> list[str]:
        shares = ", ".join(
            f"seat {i + 1}: {share:.1%}" for i, share in enumerate(self.wins_by_seat)
        )
        return [
            f"games played: {self.games} ({self.players} players)",
            f"games per second: {self.games_per_second:.1f}",
            f"average game length: {self.average_turns:.1f} turns",
            f"win share by seat: {shares}",
            f"average surviving cubes per player: {self.average_surviving_cubes:.2f}",
        ]


def simulate(games: int, players: int, seed: int = 0, check: bool = False) -> SimulationSummary:
    """Play ``games`` random games with seeds ``seed``, ``seed + 1``, ...; summarize them."""
    wins: Counter[int] = Counter()
    turns = surviving = 0
    start = time.perf_counter()
    for k in range(games):
        result = play_random_game(players, seed + k, check=check)
        turns += result.state.turn_number
        wins[result.state.players.index(result.winner)] += 1
        surviving += sum(result.state.scores().values())
    seconds = time.perf_counter() - start
    return SimulationSummary(
        games=games,
        players=players,
        seconds=seconds,
        average_turns=turns / games if games else 0.0,
        wins_by_seat=tuple(wins[i] / games if games else 0.0 for i in range(players)),
        average_surviving_cubes=surviving / (games * players) if games else 0.0,
    )
