"""`pbem mail` on 200 waiting messages across 50 games, two checkouts run alternately.

    git worktree add /tmp/base57 57c751b
    python bench/mail.py /tmp/base57 . --runs 5 [--boards]

Fifty 4-player games are made (by the checkout running this script), each with its
opening done and every player's address in host.yaml; then, for each game, the next
four moves (one a player, in turn) are played once in a scratch copy to learn their
``after`` and put into one Maildir as the players would mail them, round by round, with
the host's clock pinned (``PBEM_NOW``) so the entries come out the same.  With
``--boards`` each game's first message is a move and its other three are `board`
requests from the other seats (the picture of one entry, asked for three times).  Each
run copies the games and the Maildir afresh and times ``pbem mail --inbox --outbox`` as
a whole process of the checkout named (its pbem first on ``sys.path``), alternating the
two checkouts so the machine's noise meets both alike; medians are printed.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from email.message import EmailMessage
from pathlib import Path

GAMES, MOVES, HOST = 50, 4, "rattus@host.example"
PLAYERS = ("red", "green", "blue", "yellow")
NOW = "2026-12-01T12:00:00Z"
ENV = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "PYTHONPATH")}
ENV["PBEM_NOW"] = NOW
RUN = "import sys; sys.path.insert(0, sys.argv.pop(1)); from pbem.cli import run; sys.argv[0] = 'pbem'; run()"


def build(root: Path, boards: bool = False) -> tuple[Path, Path]:
    """The pristine games folder and Maildir (see the module); ``boards``: each game's first
    message is a move and its other three are `board` requests from the other seats."""
    os.environ["PBEM_NOW"] = NOW
    from pbem.bots.randombot import bot_actions
    from pbem.host.create import NewGame, create
    from pbem.host.games import apply_move
    from pbem.log.moves import after_of, parse_move
    from pbem.log.yamlio import dump_yaml
    from pbem.sim.demo import open_game

    games, inbox = root / "games", root / "inbox"
    for sub in ("new", "cur", "tmp"):
        (inbox / sub).mkdir(parents=True)
    emails = {p: f"{p}@example.org" for p in PLAYERS}
    rounds: list[list[bytes]] = [[] for _ in range(MOVES)]
    rng = random.Random(21)
    for g in range(GAMES):
        game_id = f"g{g:03d}"
        create(games, NewGame(game_id, PLAYERS, secret=bytes([g]) * 32, emails=emails))
        game = open_game(games, game_id, {p: bytes([g, k + 1]) * 8 for k, p in enumerate(PLAYERS)})
        scratch = root / "scratch"
        shutil.copytree(games, scratch)
        for n in range(MOVES):
            assert game.state is not None and game.state.to_move is not None
            player = game.state.to_move
            if boards and n:
                asker = PLAYERS[(PLAYERS.index(player) + n) % len(PLAYERS)]
                rounds[n].append(_mail(emails[asker], "board", f"{game_id}-{n}", subject=f"[pbem {game_id}] board"))
                continue
            move = {"game": game_id, "player": player, "kind": "move", "after": after_of(game),
                    "actions": [a.to_dict() for a in bot_actions(game.state, rng)]}
            text = dump_yaml(move)
            rounds[n].append(_mail(emails[player], text, f"{game_id}-{n}"))
            game = apply_move(scratch, parse_move(text.encode())).game
        shutil.rmtree(scratch)
    for n, message in enumerate(m for r in rounds for m in r):
        (inbox / "new" / f"{1_000_000_000 + n}.M0P0Q{n}.bench").write_bytes(message)
    return games, inbox


def _mail(sender: str, text: str, tag: str, subject: str = "my move") -> bytes:
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = sender, HOST, subject
    msg["Message-ID"] = f"<{tag}@example.org>"
    msg.set_content(f"Here it is:\n\n{text}\n")
    return bytes(msg)


def timed(checkout: Path, games: Path, inbox: Path, work: Path) -> tuple[float, str]:
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir()
    shutil.copytree(games, work / "games")
    shutil.copytree(inbox, work / "inbox")
    out = work / "out"
    for sub in ("new", "cur", "tmp"):
        (out / sub).mkdir(parents=True)
    cmd = [sys.executable, "-c", RUN, str(checkout), "mail", "--inbox", str(work / "inbox"), "--outbox", str(out),
           "--games", str(work / "games"), "--from", HOST]
    start = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True, env=ENV, cwd="/", check=False)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{checkout}: pbem mail failed: {done.stderr[-2000:]}")
    sent = len(list((out / "new").iterdir()))
    return elapsed, f"{sent} mails out"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path, nargs="?", default=Path("."))
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--boards", action="store_true",
                        help="each game's messages: one move, then three 'board' requests")
    args = parser.parse_args()
    checkouts = {"before": args.before.resolve(), "after": args.after.resolve()}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        games, inbox = build(root / "pristine", args.boards)
        times: dict[str, list[float]] = {name: [] for name in checkouts}
        said: dict[str, str] = {}
        for _ in range(args.runs):
            for name, checkout in checkouts.items():
                seconds, said[name] = timed(checkout, games, inbox, root / "work")
                times[name].append(seconds)
        for name, values in times.items():
            what = "1 move and 3 board requests a game" if args.boards else "4 moves a game"
            print(f"{name} ({checkouts[name]}): pbem mail on {GAMES * MOVES} messages ({what}) across {GAMES} games: "
                  f"median {statistics.median(values):.2f} s over {args.runs} runs "
                  f"({', '.join(f'{v:.2f}' for v in values)}); {said[name]}")
        ratio = statistics.median(times["after"]) / statistics.median(times["before"])
        print(f"after / before: {ratio:.2f}  (target <= 0.5)")


if __name__ == "__main__":
    main()
