"""Random 4-player games per second of two checkouts, run alternately (docs/benchmarks.md).

    git worktree add /tmp/pbem-before COMMIT
    python bench/compare.py /tmp/pbem-before . --runs 8 --games 150

On a shared machine single runs of the same code vary by a factor of two; runs
alternated between the two checkouts meet the same noise, so their best and
median compare fairly.  Each run is a fresh ``python -S`` process that imports
pbem from the checkout named (not from an installed pbem) and the other
packages from this interpreter's site-packages.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import sysconfig
from pathlib import Path

CODE = (
    "import sys; sys.path[:0] = [sys.argv[1]]; sys.path.append(sys.argv[2]); import pbem; "
    "assert pbem.__file__.startswith(sys.argv[1]), pbem.__file__; "
    "from pbem.sim.simulate import simulate; print(simulate(int(sys.argv[3]), 4, seed=1).games_per_second)"
)


def rate(checkout: Path, games: int) -> float:
    done = subprocess.run(
        [sys.executable, "-S", "-c", CODE, str(checkout), sysconfig.get_paths()["purelib"], str(games)],
        capture_output=True, text=True, cwd="/", check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"{checkout}: {done.stderr.strip()}")
    return float(done.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path, nargs="?", default=Path("."))
    parser.add_argument("--runs", type=int, default=8)
    parser.add_argument("--games", type=int, default=150)
    args = parser.parse_args()
    checkouts = {"before": args.before.resolve(), "after": args.after.resolve()}
    rates: dict[str, list[float]] = {name: [] for name in checkouts}
    for _ in range(args.runs):
        for name, checkout in checkouts.items():
            rates[name].append(rate(checkout, args.games))
    for name, values in rates.items():
        print(f"{name} ({checkouts[name]}): best {max(values):.0f}, median {statistics.median(values):.0f} "
              f"random 4-player games per second over {args.runs} runs of {args.games} games "
              f"({', '.join(f'{v:.0f}' for v in values)})")


if __name__ == "__main__":
    main()
