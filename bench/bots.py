"""Bot strength and core speed: the figures recorded in docs/benchmarks.md.

    python bench/bots.py greedy-vs-random --games 1000 --jobs 2
    python bench/bots.py mcts-vs-greedy --games 200 --seconds 1 --jobs 2
    python bench/bots.py core --games 300 --repeat 5
    python bench/bots.py mcts-scaling --games 200 --budgets 0.25,1,4 --jobs 2 --seed 1000

Each prints the command's settings, running standings (every ``--every``
games) and the final standings with 95% Wilson intervals.  ``mcts-scaling``
plays the same deals (seeds ``--seed`` on, the seats rotating) once
for each budget of the mcts seat against three greedy, and prints each budget's
win share with its Wilson interval and, deal by deal, the difference between the
largest and the smallest budget with a 95% interval (a paired normal interval
over the deals).  A budget is the bot's own CPU seconds per decision, so other
work on the machine slows the run but does not weaken the bot.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pbem.sim.simulate import simulate
from pbem.sim.tournament import Z95, Standings, play_all, run, wilson

MATCHES = {
    "greedy-vs-random": ("greedy", "random", "random", "random"),
    "mcts-vs-greedy": ("mcts", "greedy", "greedy", "greedy"),
    "mcts-vs-random": ("mcts", "random", "random", "random"),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("what", choices=[*MATCHES, "core", "mcts-scaling"])
    parser.add_argument("--budgets", default="0.25,1,4", help="mcts-scaling: seconds per decision")
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
    if args.what == "mcts-scaling":
        scaling(args.games, [float(b) for b in args.budgets.split(",")], args.seed, args.jobs, args.every)
        return
    start = time.perf_counter()

    def show(standings: Standings) -> None:
        print(f"--- after {standings.games} games ({time.perf_counter() - start:.0f} s)", flush=True)
        for line in standings.lines():
            print(line, flush=True)

    final = run(args.games, MATCHES[args.what], args.seed, args.seconds, args.jobs, show, args.every)
    print("=== final", flush=True)
    show(final)


def scaling(games: int, budgets: list[float], seed: int, jobs: int, every: int) -> None:
    """mcts against three greedy on the same deals, once per budget (module docstring)."""
    bots = MATCHES["mcts-vs-greedy"]
    won: dict[float, dict[int, bool]] = {}
    for budget in budgets:
        start = time.perf_counter()
        won[budget] = {}
        thinking = decisions = 0.0
        for result in play_all(games, bots, seed, budget, jobs):
            seat = result.players[result.levels.index("mcts")]
            won[budget][result.seed] = result.winner == seat
            thinking += result.seconds[seat]
            decisions += result.decisions[seat]
            if every and len(won[budget]) % every == 0:
                print(f"  {budget:g} s: {sum(won[budget].values())}/{len(won[budget])} after "
                      f"{time.perf_counter() - start:.0f} s", flush=True)
        wins = sum(won[budget].values())
        low, high = wilson(wins, games)
        print(f"mcts at {budget:g} s a decision vs three greedy: wins {wins}/{games} = {wins / games:.1%} "
              f"(95% CI {low:.1%}-{high:.1%}); {thinking / max(decisions, 1):.2f} s of wall clock a turn on average "
              f"(setup and final goes included); {time.perf_counter() - start:.0f} s", flush=True)
    low_budget, high_budget = min(budgets), max(budgets)
    diffs = [won[high_budget][s] - won[low_budget][s] for s in won[low_budget]]
    mean = statistics.fmean(diffs)
    half = Z95 * statistics.stdev(diffs) / len(diffs) ** 0.5 if len(diffs) > 1 else 1.0
    print(f"{high_budget:g} s minus {low_budget:g} s, deal by deal: {mean:+.1%} "
          f"(95% CI {mean - half:+.1%} to {mean + half:+.1%}); deals won only at {high_budget:g} s: "
          f"{sum(d > 0 for d in diffs)}, only at {low_budget:g} s: {sum(d < 0 for d in diffs)}", flush=True)


if __name__ == "__main__":
    main()
