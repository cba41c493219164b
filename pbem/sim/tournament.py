"""`pbem tournament`: bots play many in-memory games; win shares with 95% intervals.

Seats rotate: in game ``g`` seat ``i`` is played by the entry ``(i + g) mod n``
of the bot list, so every entry plays every seat equally often (R2.1's first
player is drawn from each game's seed, P5).  Games are independent, so they
run in parallel processes (``jobs``).
"""

from __future__ import annotations

import math
import multiprocessing
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

from pbem.sim.arena import ArenaResult, play_game

Z95 = 1.959963984540054


def wilson(wins: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval for a share of ``wins`` out of ``n``."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def seating(bots: Sequence[str], game: int) -> tuple[str, ...]:
    n = len(bots)
    return tuple(bots[(i + game) % n] for i in range(n))


@dataclass
class LevelStats:
    seats: int  # how many entries of the list play this level
    wins: int = 0
    games: int = 0  # seat-games played
    cubes: int = 0
    seconds: float = 0.0
    decisions: int = 0


@dataclass
class Standings:
    bots: tuple[str, ...]
    games: int = 0
    levels: dict[str, LevelStats] = field(default_factory=dict)

    def add(self, result: ArenaResult) -> None:
        self.games += 1
        for player, level in zip(result.players, result.levels, strict=True):
            stats = self.levels.setdefault(level, LevelStats(self.bots.count(level)))
            stats.games += 1
            stats.wins += result.winner == player
            stats.cubes += result.scores[player]
            stats.seconds += result.seconds[player]
            stats.decisions += result.decisions[player]

    def lines(self) -> list[str]:
        out = [f"{self.games} games, {len(self.bots)} players, bots {', '.join(self.bots)} (seats rotate)"]
        for level, s in sorted(self.levels.items(), key=lambda kv: -kv[1].wins / max(kv[1].games, 1)):
            low, high = wilson(s.wins, s.games)
            per_move = s.seconds / s.decisions if s.decisions else 0.0
            out.append(
                f"{level:>7} ({s.seats} seat{'s' if s.seats > 1 else ''}): wins {s.wins}/{s.games} "
                f"= {s.wins / max(s.games, 1):.1%} per seat (95% CI {low:.1%}-{high:.1%}); "
                f"average cubes left {s.cubes / max(s.games, 1):.2f}; {per_move * 1000:.1f} ms per turn"
            )
        out.append(f"chance share per seat: {1 / len(self.bots):.1%}")
        return out


def _one(job: tuple[tuple[str, ...], int, float]) -> ArenaResult:
    levels, seed, seconds = job
    return play_game(levels, seed, seconds)


def play_all(
    games: int, bots: Sequence[str], seed: int = 0, seconds: float = 1.0, jobs: int = 1
) -> Iterator[ArenaResult]:
    """The ``games`` games (seeds ``seed``, ``seed + 1``, ..., seats rotating), as they end."""
    work = [(seating(bots, g), seed + g, seconds) for g in range(games)]
    yield from _results(work, jobs)


def run(
    games: int, bots: Sequence[str], seed: int = 0, seconds: float = 1.0, jobs: int = 1,
    progress: Callable[[Standings], None] | None = None, every: int = 0,
) -> Standings:
    """Play ``games`` games (seeds ``seed``, ``seed + 1``, ...) and tally them."""
    standings = Standings(tuple(bots))
    for result in play_all(games, bots, seed, seconds, jobs):
        standings.add(result)
        if progress is not None and every and standings.games % every == 0:
            progress(standings)
    return standings


def _results(work: list[tuple[tuple[str, ...], int, float]], jobs: int) -> Iterator[ArenaResult]:
    if jobs <= 1:
        yield from map(_one, work)
        return
    with multiprocessing.get_context("spawn").Pool(jobs) as pool:
        yield from pool.imap_unordered(_one, work)
