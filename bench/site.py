"""`pbem site` over 1,000 finished games: the first build, and the build after one more pass.

    python bench/site.py                      # 1,000 games, made once into bench/.site-games
    python bench/site.py --games 200 --cache /tmp/g

The games are real: made, opened (P4), played to the end by random bots through the host's
own path and revealed (tests/sitetools.py), 3 seats each from a pool of 12 players; they are
made once and kept in the cache folder (about 1 s a game), so later runs time the site alone.
Prints the first build (every game read, audited and its viewer page made), the build of an
unchanged folder, and the build after one game more: what `pbem serve --site` does after a
pass.  Target: a build after a pass over 1,000 games in at most about 10 s.
"""

from __future__ import annotations

import argparse
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sitetools import play_game

from pbem.host.site import build_site

POOL = ("ann", "bob", "cat", "dan", "eve", "fay", "gus", "hal", "ivy", "jon", "kim", "lea")


def make_games(folder: Path, count: int) -> None:
    """``count`` finished games in ``folder``, those already there kept."""
    folder.mkdir(parents=True, exist_ok=True)
    for n in range(count):
        game_id = f"league-{n:04d}"
        log = folder / game_id / "log.yaml"
        if log.is_file() and b'"kind": "reveal"' in log.read_bytes():
            continue
        shutil.rmtree(folder / game_id, ignore_errors=True)  # a game a killed run left half made
        players = tuple(random.Random(n).sample(POOL, 3))
        play_game(folder, game_id, players, seed=n)
        if n % 50 == 0:
            print(f"made {n + 1} of {count} games", flush=True)


def timed(games: Path, out: Path) -> tuple[float, int]:
    start = time.perf_counter()
    built = build_site(games, out)
    return time.perf_counter() - start, built.pages


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--cache", type=Path, default=Path(__file__).resolve().parent / ".site-games")
    args = parser.parse_args()
    make_games(args.cache, args.games)
    with tempfile.TemporaryDirectory() as tmp:
        games, out = Path(tmp) / "games", Path(tmp) / "site"
        games.mkdir()
        for n in range(args.games):  # a copy: the build writes its caches beside each log
            shutil.copytree(args.cache / f"league-{n:04d}", games / f"league-{n:04d}")
        first, pages = timed(games, out)
        print(f"first build: {args.games} games, {pages} pages written, {first:.1f} s")
        again, pages = timed(games, out)
        print(f"unchanged: {pages} pages written, {again:.2f} s")
        play_game(games, "league-extra", ("ann", "bob", "cat"), seed=args.games)
        after, pages = timed(games, out)
        print(f"after a pass (one game more): {pages} pages written, {after:.2f} s")


if __name__ == "__main__":
    main()
