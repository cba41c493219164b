"""`pbem site` over 1,000 finished games: a first build, and the build after a pass of `pbem serve --site`.

    python bench/site.py                      # 1,000 games in bench/.site-games, the site in bench/.site-out
    python bench/site.py --games 200 --cache /tmp/g --out /tmp/site
    python bench/site.py --fresh              # the site's folder emptied first: the first build timed

The games are real: made, opened (P4), played to the end by random bots through the host's
own path and revealed (tests/sitetools.py), 3 seats each from a pool of 12 players.  They are
made once and kept in the cache folder, with the site, as a host keeps its games and its site:
the first build writes every game's pages (every game read, audited, its viewer drawn entry by
entry, shared out over the machine's cores); every run then times a build with nothing changed,
and a pass: one move of a game in play (``league-live``, begun again when it ends) recorded,
then the build.
Targets: the build after a pass over 1,000 games in at most about 10 s; the first build as
short as the machine's cores allow (its figure in docs/benchmarks.md).

    python bench/site.py --host-games 1000 --host-games 10000   # `pbem site` as a process, by folder size

times `pbem site` as a whole process over a host's folder of N games (bench/bench.py's: a tenth
in play, the rest in their opening, one in two with a deadline; past 1,000, hard-linked copies),
the sizes alternated with each other and with the import floor: with nothing changed, and with
one move recorded in a game in play before each run.  The site's first build is made in this
process with each game's card made for real (every log read, replayed, audited) but its pages
written as a few bytes each, so that 10,000 games take a minute, not hours of drawing viewers:
the runs timed then read the index and find what changed, and the one-move run draws that
game's pages for real.
Target: at 10,000 games each run at most 1.5 times its time at 1,000.
"""

from __future__ import annotations

import argparse
import random
import shutil
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sitetools import play_game

from pbem.bots.randombot import bot_actions
from pbem.host.cards import Card
from pbem.host.games import apply_move, load_game
from pbem.host.site import build_site
from pbem.log.moves import after_of
from pbem.log.records import TurnMove
from pbem.log.records.sent import move_of

POOL = ("ann", "bob", "cat", "dan", "eve", "fay", "gus", "hal", "ivy", "jon", "kim", "lea")
HERE = Path(__file__).resolve().parent
LIVE = "league-live"


def make_games(folder: Path, count: int) -> None:
    """``count`` finished games in ``folder``, those already there kept."""
    folder.mkdir(parents=True, exist_ok=True)
    for n in range(count):
        game_id = f"league-{n:04d}"
        log = folder / game_id / "log.yaml"
        if log.is_file() and b'"kind": "reveal"' in log.read_bytes():
            continue
        shutil.rmtree(folder / game_id, ignore_errors=True)  # a game a killed run left half made
        play_game(folder, game_id, tuple(random.Random(n).sample(POOL, 3)), seed=n)
        if n % 50 == 0:
            print(f"made {n + 1} of {count} games", flush=True)


def one_pass(folder: Path) -> None:
    """What a round of `pbem serve` records: one move of the game in play (a new one once it ends)."""
    if (folder / LIVE).is_dir() and load_game(folder / LIVE).over:
        shutil.rmtree(folder / LIVE)
    if not (folder / LIVE).is_dir():
        play_game(folder, LIVE, ("ann", "bob", "cat"), seed=int(time.time()), turns=0)
    game = load_game(folder / LIVE)
    assert game.state is not None and game.state.to_move is not None
    actions = bot_actions(game.state, random.Random(game.last_seq))
    move = TurnMove.write(LIVE, game.state.to_move, after_of(game), [a.to_dict() for a in actions])
    apply_move(folder, move_of(move.to_raw()))


def timed(games: Path, out: Path) -> tuple[float, int, int]:
    start = time.perf_counter()
    built = build_site(games, out)
    return time.perf_counter() - start, built.games, built.pages


def stubbed_first_build(games: Path, out: Path) -> float:
    """The site's first build with every game's card made for real and its pages a few bytes each."""
    import pbem.host.sitepages as sitepages

    def few_bytes(todo: list[tuple[Path, Card, bytes, str]]) -> int:
        for folder, card, _data, _lang in todo:
            for name in (f"{card.game_id}.html", f"{card.game_id}-viewer.html", f"{card.game_id}.log.yaml"):
                (folder / name).write_bytes(b"-")
        return 3 * len(todo)

    drawn, sitepages._all_pages = sitepages._all_pages, few_bytes
    start = time.perf_counter()
    try:
        build_site(games, out)
    finally:
        sitepages._all_pages = drawn
    return time.perf_counter() - start


def moved(games: Path) -> None:
    """One move recorded in the first game in play (a bot's, from its seat's view)."""
    for folder in sorted(games.glob("g*")):
        game = load_game(folder)
        if game.state is not None and game.state.to_move is not None:
            actions = bot_actions(game.state, random.Random(game.last_seq))
            move = TurnMove.write(folder.name, game.state.to_move, after_of(game), [a.to_dict() for a in actions])
            apply_move(games, move_of(move.to_raw()))
            return
    raise SystemExit("bench: no game in play to move")


def site_process_figures(tmp: Path, counts: list[int], reps: int) -> None:
    """`pbem site` over each of ``counts`` games, as a process: nothing changed, and one move
    before each run; the sizes' runs alternated with each other and with the floor, so that the
    machine's load hits every figure alike."""
    import statistics

    from bench import ENV, FLOOR, PBEM, make_games, run_timed

    commands: dict[int, list[str]] = {}
    for count in counts:
        games, out = tmp / f"many{count}", tmp / f"site{count}"
        make_games(games, tmp / "template", count)
        print(f"({count} games: the site's first build, pages stubbed, in {stubbed_first_build(games, out):.0f} s)",
              flush=True)
        commands[count] = [*PBEM, "site", "--games", str(games), "--site", str(out)]
        assert subprocess.run(commands[count], capture_output=True, check=True, env=ENV).stdout  # warm-up
    times: dict[str, list[float]] = {"floor": []}
    for _ in range(reps):
        for count, command in commands.items():
            times.setdefault(f"nothing {count}", []).append(run_timed(command)[0])
            times["floor"].append(run_timed(FLOOR)[0])
            moved(tmp / f"many{count}")
            times.setdefault(f"one {count}", []).append(run_timed(command)[0])
            times["floor"].append(run_timed(FLOOR)[0])
    got = {name: statistics.median(values) for name, values in times.items()}
    floor = got["floor"]
    for what, words in (("nothing", "nothing changed"), ("one", "one move recorded since")):
        for count in counts:
            ms = got[f"{what} {count}"]
            print(f"pbem site over {count} games, {words}: {ms * 1000:.0f} ms vs import floor {floor * 1000:.0f} ms: "
                  f"ratio {ms / floor:.2f}; {ms / got[f'{what} {counts[0]}']:.2f} times its time at {counts[0]}",
                  flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--cache", type=Path, default=HERE / ".site-games")
    parser.add_argument("--out", type=Path, default=HERE / ".site-out")
    parser.add_argument("--fresh", action="store_true", help="empty the site's folder first: time a first build")
    parser.add_argument("--host-games", type=int, action="append", metavar="N",
                        help="time `pbem site` as a process over a host's folder of N games (repeatable)")
    parser.add_argument("--reps", type=int, default=7, help="runs of each `pbem site` figure (median)")
    args = parser.parse_args()
    if args.host_games:
        import os
        import tempfile

        print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}")
        with tempfile.TemporaryDirectory() as tmp:
            site_process_figures(Path(tmp), args.host_games, args.reps)
        return
    make_games(args.cache, args.games)
    if args.fresh:
        shutil.rmtree(args.out, ignore_errors=True)
    seconds, games, pages = timed(args.cache, args.out)
    print(f"bring the site up to date{' (a first build)' if args.fresh else ''}: {games} games, {pages} pages "
          f"written, {seconds:.1f} s")
    seconds, games, pages = timed(args.cache, args.out)
    print(f"nothing changed: {games} games, {pages} pages written, {seconds:.2f} s")
    one_pass(args.cache)
    seconds, games, pages = timed(args.cache, args.out)
    print(f"after a pass (one move recorded): {games} games, {pages} pages written, {seconds:.2f} s")


if __name__ == "__main__":
    main()
