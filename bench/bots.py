"""Bot strength and core speed (issue 13): the figures recorded in README.md.

    python bench/bots.py greedy-vs-random --games 1000 --jobs 2
    python bench/bots.py mcts-vs-greedy --games 200 --seconds 1 --jobs 2
    python bench/bots.py core --games 300 --repeat 5

Each prints the command's settings, running standings (every ``--every``
games) and the final standings with 95% Wilson intervals.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pbem.sim.simulate import simulate
from pbem.sim.tournament import Standings, run

MATCHES = {
    "greedy-vs-random": ("greedy", "random", "random", "random"),
    "mcts-vs-greedy": ("mcts", "greedy", "greedy", "greedy"),
    "mcts-vs-random": ("mcts", "random", "random", "random"),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("what", choices=[*MATCHES, "core"])
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--seconds", type=float, default=1.0)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--every", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    print(" ".join(["python bench/bots.py", *sys.argv[1:]]), flush=True)
    if args.what == "core":
        rates = []
        for _ in range(args.repeat):
            rates.append(simulate(args.games, 4, seed=1).games_per_second)
            print(f"random 4-player games per second: {rates[-1]:.0f}", flush=True)
        print(f"best {max(rates):.0f}, median {statistics.median(rates):.0f}, worst {min(rates):.0f} "
              f"over {args.repeat} runs of {args.games} games", flush=True)
        return
    start = time.perf_counter()

    def show(standings: Standings) -> None:
        print(f"--- after {standings.games} games ({time.perf_counter() - start:.0f} s)", flush=True)
        for line in standings.lines():
            print(line, flush=True)

    final = run(args.games, MATCHES[args.what], args.seed, args.seconds, args.jobs, show, args.every)
    print("=== final", flush=True)
    show(final)


if __name__ == "__main__":
    main()
