"""pbem's benchmarks, one command printing every figure (docs/benchmarks.md).

    python bench/bench.py            # all figures
    python bench/bench.py --quick    # fewer repetitions

Figures:
- random 4-player games per second in one process (target >= 600);
- `pbem apply` as a whole process on 4-player logs of 50 and 300 entries, each as a
  ratio to `python -c "import yaml, jsonschema, click"` timed in the same run
  (target <= 1.3), and its cost at 300 entries over its cost at 50 (target <= 1.1);
- `pbem list` and `pbem tick` (nothing due) over 1,000 games (``--host-games N``: N games) as
  whole processes, same ratio, and their own work (the time over the floor); one `pbem serve`
  round with nothing to do, in process;
- `pbem audit` of a complete 4-player game, same ratio (target <= 1.6);
- peak memory (max RSS) of `pbem audit` on that game;
- the composer page (`pbem html --compose` and each "your move" mail) for 1,000 positions of
  random 2-, 3- and 4-player games and 100 with the mover holding the Monk, the Merchant and
  the King, in process: positions without a page (target 0), the page's size (target <= 150 KB;
  a mail carries it in base64) and the seconds to build it (target well under one).

Process timings alternate the commands and the floor and take medians, so
machine noise hits them alike.  (`pbem mail` on 200 messages is bench/mail.py: it
compares two checkouts.)
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

from pbem.bots.randombot import bot_actions, random_action
from pbem.host.create import NewGame, create
from pbem.host.games import apply_move, load_game, replace, reveal
from pbem.log.moves import read_move
from pbem.rules import State
from pbem.rules.engine import apply_legal
from pbem.sim.demo import open_game, write_move
from pbem.sim.simulate import PLAYER_NAMES, new_random_game, simulate

FLOOR = [sys.executable, "-c", "import yaml, jsonschema, click"]
# Children run as an installed pbem does: with bytecode caching on.  (pip compiles
# the floor's packages at install time; an environment that sets
# PYTHONDONTWRITEBYTECODE would make pbem alone recompile itself on every run.)
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
PBEM = [sys.executable, "-m", "pbem.cli"]
RUN = "import sys; sys.path.insert(0, sys.argv.pop(1)); from pbem.cli import run; sys.argv[0] = 'pbem'; run()"


def pbem_of(checkout: Path | None) -> list[str]:
    """The `pbem` command of this checkout, or of another one (its pbem first on sys.path)."""
    return PBEM if checkout is None else [sys.executable, "-c", RUN, str(checkout.resolve())]


def check_installed() -> None:
    """The children run `python -m pbem.cli` from temporary folders, so they time the pbem that
    is installed: it must be this checkout's (`pip install -e .`).  The README's first command,
    `pip install .` run outside a venv, leaves a copy in site-packages that replaces it, and a
    stale copy misses the replay cache (its code mark differs) and skews every figure."""
    here = (Path(__file__).resolve().parent.parent / "pbem").resolve()
    found = subprocess.run([sys.executable, "-c", "import pbem; print(pbem.__file__)"], capture_output=True,
                           text=True, check=False, env=ENV, cwd=tempfile.gettempdir()).stdout.strip()
    if not found or Path(found).resolve().parent != here:
        sys.exit(f"bench: the installed pbem is {found or 'missing'}, not this checkout's {here}: "
                 f"run `python3 -m pip install --no-deps -e {here.parent}` first")


def games_per_second(games: int) -> float:
    best = 0.0
    for rep in range(3):
        best = max(best, simulate(games, 4, seed=rep * games).games_per_second)
    return best


def build_long_game(games: Path, min_entries: int, finish: bool, padded: bool = False) -> tuple[Path, list[Path]]:
    """A 4-player game whose moves are one action each (so the log grows long);
    returns the game dir and, if not finished, the next move file to apply.

    One action a move is what a game created by pbem 0.1 allows (R7.5 holds for games from
    0.2 on), so the game is created as by 0.1: the log is as long, the apply path the same.

    ``padded``: a seat is handed over (R8.4, `pbem replace`, an entry of its own) after three
    moves in four.  No game of one-action moves lasts 300 entries (the longest of 80 seeds
    here: 263), so the 50- and 300-entry logs are made alike this way: 3/7 of
    their entries after the opening are hand-overs, 4/7 moves."""
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
        if padded and n % 4 and game.state is not None and game.state.to_move is not None:
            game = replace(games, "bench-4p", player, None, None).game
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


def medians(cmds: dict[str, Callable[[], list[str]]], reps: int) -> dict[str, float]:
    """Each command (and the floor) timed ``reps`` times, alternately; median seconds of each."""
    times: dict[str, list[float]] = {name: [] for name in [*cmds, "floor"]}
    for make in cmds.values():
        run_timed(make())  # warm-up: bytecode caches, disk caches
    for _ in range(reps):
        for name, make in cmds.items():
            times[name].append(run_timed(make())[0])
            times["floor"].append(run_timed(FLOOR)[0])
    return {name: statistics.median(values) for name, values in times.items()}


def ratio(make_cmd: Callable[[], list[str]], reps: int) -> tuple[float, float, float]:
    got = medians({"cmd": make_cmd}, reps)
    return got["cmd"] / got["floor"], got["cmd"], got["floor"]


def build_many(games: Path, count: int, started: int) -> None:
    """``count`` 4-player games, as a host's folder holds them: the first ``started`` have their
    opening done (one in two of those with every address in host.yaml), the others wait for
    their commitments; one in two has a three-day deadline (R8.1), so nothing is due for days."""
    players = PLAYER_NAMES[:4]
    for k in range(count):
        game_id = f"g{k:04d}"
        emails = {p: f"{p}@example.org" for p in players} if k < started and k % 2 else {}
        create(games, NewGame(game_id, players, secret=bytes([k % 256, k // 256]) * 16, emails=emails,
                              deadline=3 * 86400 if k % 2 else None))
        if k < started:
            open_game(games, game_id, {p: bytes([k % 256, k // 256, n]) * 8 for n, p in enumerate(players)})


def apply_figures(tmp: Path, reps: int, before: Path | None = None) -> None:
    made: dict[int, tuple[Path, Path, Path, int]] = {}
    for size in (50, 300):
        games = tmp / f"long{size}"
        path, nxt = build_long_game(games, size, finish=False, padded=True)
        pristine = tmp / f"pristine{size}"
        shutil.copytree(games, pristine)
        made[size] = (games, pristine, nxt[0], len(load_game(path).entries))

    def apply_cmd(size: int, checkout: Path | None = None) -> Callable[[], list[str]]:
        games, pristine, nxt, _n = made[size]

        def make() -> list[str]:
            shutil.rmtree(games)
            shutil.copytree(pristine, games)  # with the host's caches, as the last apply left them
            return [*pbem_of(checkout), "apply", str(nxt).replace(str(pristine), str(games)), "--games", str(games)]
        return make

    cmds = {"50": apply_cmd(50), "300": apply_cmd(300)}
    if before is not None:
        cmds |= {"before 50": apply_cmd(50, before), "before 300": apply_cmd(300, before)}
    got = medians(cmds, reps)
    floor = got["floor"]
    for name in cmds:
        size = int(name.split()[-1])
        log = made[size][1] / "bench-4p" / "log.yaml"
        who = f" by {before}" if name.startswith("before") else ""
        print(f"pbem apply{who} on a {made[size][3]}-entry 4-player log ({log.stat().st_size // 1024} KiB): "
              f"{got[name] * 1000:.0f} ms vs import floor {floor * 1000:.0f} ms: ratio "
              f"{got[name] / floor:.2f}  (target <= 1.3)")
    print(f"pbem apply at 300 entries / at 50: {got['300'] / got['50']:.2f}  (target <= 1.1)")
    if before is not None:
        print(f"  by {before}: {got['before 300'] / got['before 50']:.2f}")


TEMPLATE = 1000  # games made by build_many; a larger folder is made of hard-linked copies of them


def grow(games: Path, count: int) -> None:
    """``games`` (made by :func:`build_many`) grown to ``count`` game folders by copying its games
    under new names, each file hard-linked (a real game's files, a tenth in play, half with a
    deadline, at the cost of a directory entry: 100,000 games in a minute, not hours).  A copy's
    log still names the game it was copied from; the host's index reads it as it reads any log."""
    made = sorted(p for p in games.iterdir() if p.is_dir() and not p.name.startswith("+"))
    for k in range(len(made), count):
        source = made[k % len(made)]
        target = games / f"c{k:06d}"
        target.mkdir(mode=0o700)
        for item in source.iterdir():
            if item.is_file():
                os.link(item, target / item.name)
            elif item.is_dir():
                shutil.copytree(item, target / item.name, copy_function=os.link)


def make_games(games: Path, template: Path, count: int) -> None:
    """``count`` games in ``games``: the first 1,000 of ``template`` (made once by :func:`build_many`
    and copied, hard-linked), the rest grown from them (:func:`grow`); then the host's index of
    them made from every log, timed."""
    start = time.perf_counter()
    if not template.is_dir():
        build_many(template, TEMPLATE, TEMPLATE // 10)
        print(f"({TEMPLATE} games made in {time.perf_counter() - start:.0f} s: a tenth in play, the rest in their "
              "opening, one in two with a deadline)")
    start = time.perf_counter()
    games.mkdir()
    for source in sorted(template.iterdir())[:count]:
        if source.is_dir() and not source.name.startswith("+"):
            shutil.copytree(source, games / source.name, copy_function=os.link)
    grow(games, count)
    grown = time.perf_counter()
    subprocess.run([*PBEM, "list", "--check", "--games", str(games)], capture_output=True, check=True, env=ENV)
    print(f"({count} games: hard-linked copies of those in {grown - start:.0f} s; the host's index made from every "
          f"log by `pbem list --check` in {time.perf_counter() - grown:.0f} s)")


def serve_round(games: Path, rounds: int) -> float:
    """Median seconds of one `pbem serve` round with nothing in the inbox and nothing due (in
    process, after a first round: what a running host pays between two messages)."""
    from pbem.mail.serve import Server

    inbox, outbox = games.parent / "serve-in", games.parent / "serve-out"
    for sub in ("new", "cur", "tmp"):
        (inbox / sub).mkdir(parents=True, exist_ok=True)
        (outbox / sub).mkdir(parents=True, exist_ok=True)
    server = Server(games, inbox, None, outbox, None, "rattus@host.example", 0.0, lambda _line: None)
    server.one_round()
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        assert server.one_round()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def host_figures(tmp: Path, reps: int, count: int, before: Path | None = None) -> None:
    games = tmp / f"many{count}"
    make_games(games, tmp / "template", count)

    def cmd(name: str, checkout: Path | None = None) -> Callable[[], list[str]]:
        extra = ["--from", "rattus@host.example"] if name == "tick" else []
        return lambda: [*pbem_of(checkout), name, "--games", str(games), *extra]

    cmds = {"list": cmd("list"), "tick": cmd("tick")}
    if before is not None:
        cmds |= {"before list": cmd("list", before), "before tick": cmd("tick", before)}
    got = medians(cmds, reps)
    for name in cmds:
        who = f" by {before}" if name.startswith("before") else ""
        what = name.split()[-1]
        print(f"pbem {what}{who}{' (nothing due)' if what == 'tick' else ''} over {count} games: "
              f"{got[name] * 1000:.0f} ms vs import floor {got['floor'] * 1000:.0f} ms: ratio "
              f"{got[name] / got['floor']:.2f}, its own work {(got[name] - got['floor']) * 1000:.0f} ms")
    print(f"pbem serve, one round with nothing to do over {count} games (in process, median of {reps}): "
          f"{serve_round(games, reps) * 1000:.1f} ms")
    shutil.rmtree(games)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--only", choices=["games", "apply", "host", "audit", "compose"], action="append",
                        help="only these figures (repeatable); default: all")
    parser.add_argument("--host-games", type=int, action="append", metavar="N",
                        help="the host figures over a folder of N games (repeatable; default 1000)")
    parser.add_argument("--before", type=Path, help="also time this checkout's apply, list and tick, "
                        "alternated with ours (git worktree add /tmp/base57 57c751b)")
    args = parser.parse_args()
    reps = 5 if args.quick else 15
    only = set(args.only or ["games", "apply", "host", "audit", "compose"])
    print(f"python {sys.version.split()[0]} on {sys.platform}, {os.cpu_count()} cores, load average "
          f"{os.getloadavg()[0]:.1f}")
    check_installed()

    if "games" in only:
        gps = games_per_second(100 if args.quick else 300)
        print(f"random 4-player games per second (one process): {gps:.0f}  (target >= 600)")

    with tempfile.TemporaryDirectory() as tmp:
        if "compose" in only:
            compose_figures(Path(tmp), 200 if args.quick else 1000)
        if "apply" in only:
            apply_figures(Path(tmp), reps, args.before)
        if "host" in only:
            for count in args.host_games or [1000]:
                host_figures(Path(tmp), reps, count, args.before)
        if "audit" in only:
            audit_figures(Path(tmp), reps)


def compose_positions(count: int, seed: int) -> list[State]:
    """``count`` positions of random 2-, 3- and 4-player games (random legal actions), drawn
    from every part of the game (tests/rulesjstools.py draws the same way)."""
    rng = random.Random(seed)
    every: list[State] = []
    game = 0
    while len(every) < 4 * count:
        state, faces = new_random_game(2 + game % 3, seed * 1000 + game)
        game += 1
        while (player := state.to_move) is not None:
            every.append(state.copy())
            apply_legal(state, player, random_action(state, rng), faces)
    return rng.sample(every, count)


def three_cards(states: list[State]) -> list[State]:
    """The positions of a normal turn's start, with the mover given the Monk, the Merchant and the
    King (the most ways to finish a turn: R5.1-R5.3)."""
    out = []
    for state in states:
        if state.phase.value == "turn" and state.turn.stage.value == "main" and not state.turn.begun():
            held = state.copy()
            for card in ("monk", "merchant", "king"):
                held.cards[card] = state.players[state.current]
            out.append(held)
    return out


def compose_figures(tmp: Path, count: int) -> None:
    """The composer page for random positions, each put in a real game of its player count (its
    log gives the page its header and the last entry's marks)."""
    from dataclasses import replace as replaced

    from pbem.referee.seatview import SeatView
    from pbem.sim.demo import play_demo
    from pbem.views.compose import compose_page
    from pbem.views.packed import readable
    from pbem.views.timeline import game_at, read_checked

    games = {}
    for n in (2, 3, 4):
        play_demo(tmp / f"demo{n}", n, seed=n, echo=None, summary=lambda _line: None, game_id="g")
        entries, hashes = read_checked(tmp / f"demo{n}" / "g" / "log.yaml")
        games[n] = game_at(entries, hashes, len(entries) // 2)
    plain = compose_positions(count, seed=1)
    held = three_cards(compose_positions(20 * count // 10, seed=2))[:count // 10]
    for label, states in (("random positions", plain), ("the mover with the Monk, Merchant and King", held)):
        sizes, times, missing = [], [], 0
        for state in states:
            game = replaced(games[len(state.players)], state=state)
            start = time.perf_counter()
            try:
                page = compose_page(SeatView(game, state.players[state.current]), "host@example.org")
            except Exception:  # a position without a page: counted, the figure's point
                missing += 1
                continue
            times.append(time.perf_counter() - start)
            sizes.append(len(page.encode("utf-8")))
            missing += '"mine":true' not in readable(page)  # its data, packed inside the page
        print(f"composer pages, {len(states)} {label}: {missing} without a page (target 0); size median "
              f"{statistics.median(sizes) / 1000:.1f} KB, largest {max(sizes) / 1000:.1f} KB (target <= 150 KB); "
              f"built in median {statistics.median(times) * 1000:.0f} ms, slowest {max(times) * 1000:.0f} ms")


def audit_figures(tmp: Path, reps: int) -> None:
    done = tmp / "done"
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
