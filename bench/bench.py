"""pbem's benchmarks, one command printing every figure (README "Benchmarks").

    python bench/bench.py            # all figures
    python bench/bench.py --quick    # fewer repetitions

Figures:
- random 4-player games per second in one process (target >= 300);
- `pbem apply` as a whole process on a 4-player log of >= 150 entries, as a
  ratio to `python -c "import yaml, jsonschema, click"` timed in the same run
  (target <= 1.3);
- `pbem audit` of a complete 4-player game, same ratio (target <= 1.6);
- peak memory (max RSS) of `pbem audit` on that game.

Process timings alternate the command and the floor and take medians, so
machine noise hits both alike.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from pbem.host.create import NewGame, create
from pbem.host.games import apply_move, load_game, reveal
from pbem.log.moves import read_move
from pbem.sim.demo import open_game, write_move
from pbem.bots.randombot import bot_actions
from pbem.sim.simulate import PLAYER_NAMES, simulate

FLOOR = [sys.executable, "-c", "import yaml, jsonschema, click"]
# Children run as an installed pbem does: with bytecode caching on.  (pip compiles
# the floor's packages at install time; an environment that sets
# PYTHONDONTWRITEBYTECODE would make pbem alone recompile itself on every run.)
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
PBEM = [sys.executable, "-m", "pbem.cli"]


def games_per_second(games: int) -> float:
    best = 0.0
    for rep in range(3):
        best = max(best, simulate(games, 4, seed=rep * games).games_per_second)
    return best


def build_long_game(games: Path, min_entries: int, finish: bool) -> tuple[Path, list[Path]]:
    """A 4-player game whose moves are one action each (so the log grows long);
    returns the game dir and, if not finished, the next move file to apply.

    One action a move is what a game created by pbem 0.1 allows (R7.5 holds for games from
    0.2 on), so the game is created as by 0.1: the log is as long, the apply path the same."""
    rng = random.Random(7)
    import pbem.host.create as creating

    made_by, creating.__version__ = creating.__version__, "0.1.0"  # type: ignore[attr-defined]
    try:
        path = create(games, NewGame("bench-4p", PLAYER_NAMES[:4], secret=bytes(range(32))))
    finally:
        creating.__version__ = made_by  # type: ignore[attr-defined]
    moves = path / "moves"
    moves.mkdir()
    # P4: every player commits to a nonce, then reveals it (the last reveal starts the game)
    nonces = {player: bytes([k + 1]) * 16 for k, player in enumerate(PLAYER_NAMES[:4])}
    game = open_game(games, "bench-4p", nonces, moves_dir=moves)
    n = 0
    while game.state is not None and game.state.to_move is not None:
        if not finish and len(game.entries) >= min_entries:
            player = game.state.to_move
            nxt = write_move(game, player, bot_actions(game.state, rng)[:1], moves, n + 1)
            return path, [nxt]
        player = game.state.to_move
        n += 1
        target = write_move(game, player, bot_actions(game.state, rng)[:1], moves, n)
        game = apply_move(games, read_move(target)).game
    reveal(games, "bench-4p")
    return path, []


def run_timed(cmd: list[str]) -> tuple[float, int]:
    """Wall time and the child's max RSS (KiB) of one process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    start = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, check=False, env=ENV)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"benchmark command failed: {' '.join(cmd)}\n{done.stderr.decode()}")
    return elapsed, max(before, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)


def ratio(make_cmd: Callable[[], list[str]], reps: int) -> tuple[float, float, float]:
    ours, floor = [], []
    run_timed(make_cmd())  # warm-up: bytecode caches, disk caches
    for _ in range(reps):
        cmd = make_cmd()
        ours.append(run_timed(cmd)[0])
        floor.append(run_timed(FLOOR)[0])
    a, b = statistics.median(ours), statistics.median(floor)
    return a / b, a, b


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    reps = 5 if args.quick else 15
    print(f"python {sys.version.split()[0]} on {sys.platform}")

    gps = games_per_second(100 if args.quick else 300)
    print(f"random 4-player games per second (one process): {gps:.0f}  (target >= 300)")

    with tempfile.TemporaryDirectory() as tmp:
        games = Path(tmp) / "long"
        path, nxt = build_long_game(games, 150, finish=False)
        entries = len(load_game(path).entries)
        pristine = Path(tmp) / "pristine"
        shutil.copytree(games, pristine)

        def apply_cmd() -> list[str]:
            shutil.rmtree(games)
            shutil.copytree(pristine, games)
            return [*PBEM, "apply", str(nxt[0]).replace(str(pristine), str(games)), "--games", str(games)]

        r, a, b = ratio(apply_cmd, reps)
        print(f"pbem apply on a {entries}-entry 4-player log: {a * 1000:.0f} ms vs import floor "
              f"{b * 1000:.0f} ms: ratio {r:.2f}  (target <= 1.3)")

        done = Path(tmp) / "done"
        path, _ = build_long_game(done, 0, finish=True)
        log = path / "log.yaml"
        entries = len(load_game(path).entries)
        r, a, b = ratio(lambda: [*PBEM, "audit", str(log)], reps)
        print(f"pbem audit of a complete 4-player game ({entries} entries): {a * 1000:.0f} ms vs "
              f"floor {b * 1000:.0f} ms: ratio {r:.2f}  (target <= 1.6)")
        # Peak memory in a fresh child so the figure is the audit's own.
        rss = subprocess.run(
            [sys.executable, "-c",
             "import resource, subprocess, sys; subprocess.run(sys.argv[1:], capture_output=True);"
             "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)",
             *PBEM, "audit", str(log)],
            capture_output=True, text=True, check=True, env=ENV,
        ).stdout.strip()
        print(f"peak memory of pbem audit: {int(rss) / 1024:.1f} MiB (max RSS)")


if __name__ == "__main__":
    main()
