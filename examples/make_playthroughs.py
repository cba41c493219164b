"""Regenerate the golden playthroughs: examples/playthrough-bots, examples/playthrough-seats.

    python examples/make_playthroughs.py            # rewrite them
    python examples/make_playthroughs.py --check    # exit 1 if they are not what this script makes

Two games through the host's real path (move files, the host's step, timeouts by
the host's clock, a resignation, a new player), everything fixed so that the output
is the same byte for byte on every run (the bots' seeds, the secret, the nonces, the
clock), each kept with every seat's view at every entry (OpenSpiel's playthroughs):

- ``playthrough-bots``: red plays (random moves, Witch looks among them), green and
  blue are the host's bot seats (random and greedy); red misses two deadlines and the
  stand-in plays for it, and the bot seats answer every kind of entry at once.
- ``playthrough-seats``: four players; blue misses a deadline, yellow resigns (the
  stand-in plays its seat at once, turn after turn), and the host hands yellow's
  seat to a new player, who plays on.

Each folder holds ``log.yaml`` (the public log; its last entry reveals the secret),
``private/SEAT.yaml`` (each seat's Witch looks, as the host mailed them to that seat
only; kept here because the views are rebuilt from them) and ``views.txt``
(:func:`pbem.views.playthrough.playthrough`: each entry's narration, the board, and
every seat's view). ``tests/test_playthroughs.py`` replays the logs and compares
every line. The secret comes from a public string: a test game, never a real one.
"""

from __future__ import annotations

import argparse
import hashlib
import random
import shutil
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from pbem.bots.randombot import bot_actions  # noqa: E402
from pbem.host.create import NewGame, create  # noqa: E402
from pbem.host.games import answer, apply_move, load_game, replace, reveal, timeout  # noqa: E402
from pbem.host.private import PRIVATE_DIR  # noqa: E402
from pbem.log.clock import at_of, pinned, seconds  # noqa: E402
from pbem.log.game import Game  # noqa: E402
from pbem.log.logfile import LOG_NAME, read_log  # noqa: E402
from pbem.log.moves import after_of, parse_move  # noqa: E402
from pbem.log.yamlio import decode, dump_yaml, load_stream  # noqa: E402
from pbem.player.nonces import commit_move, reveal_move  # noqa: E402
from pbem.views.playthrough import playthrough  # noqa: E402

T0 = "2026-11-30T09:00:00Z"
HOUR = 3600
NAMES = ("playthrough-bots", "playthrough-seats")


class Host:
    """One example game on the host's real path, with its own clock (P7, R8.1)."""

    def __init__(self, games: Path, game_id: str, players: tuple[str, ...], bots: dict[str, str], seed: int) -> None:
        self.games, self.game_id, self.clock, self.rng = games, game_id, seconds(T0), random.Random(seed)
        secret = hashlib.sha256(f"pbem playthrough secret, public on purpose: {game_id}".encode()).digest()
        with pinned(T0):
            self.path = create(games, NewGame(game_id, players, first=players[0], secret=secret, deadline=HOUR,
                                              emails={p: f"{p}@example.org" for p in players if p not in bots},
                                              bots=bots))
            answer(games, game_id)  # the host's step: the bot seats commit (P4)

    def at(self, minutes: int) -> Any:
        self.clock += minutes * 60
        return pinned(at_of(self.clock))

    @property
    def game(self) -> Game:
        return load_game(self.path)

    def send(self, data: dict[str, Any]) -> Game:
        with self.at(10):
            return apply_move(self.games, parse_move(dump_yaml(data).encode())).game

    def open(self) -> None:
        """P4: each human seat commits, then reveals (the host's step answers for the bot seats)."""
        for make in (commit_move, reveal_move):
            for player in self.game.awaited:
                nonce = hashlib.sha256(f"pbem playthrough nonce: {self.game_id}/{player}".encode()).digest()[:16]
                self.send(make(self.game, player, nonce))

    def move(self) -> Game:
        game = self.game
        assert game.state is not None and game.state.to_move is not None
        return self.send({"game": self.game_id, "player": game.state.to_move, "kind": "move",
                          "after": after_of(game), "actions": [a.to_dict() for a in bot_actions(game.state, self.rng)]})

    def miss(self) -> None:
        """The player to move sends nothing: the deadline passes and the host records a timeout."""
        with self.at(HOUR // 60 + 1):
            assert timeout(self.games, self.game_id) is not None

    def resign(self, seat: str) -> None:
        self.send({"game": self.game_id, "player": seat, "kind": "resign", "after": after_of(self.game)})

    def hand_over(self, seat: str) -> None:
        with self.at(5):
            replace(self.games, self.game_id, seat, f"new-{seat}@example.org", None)

    def finish(self, script: Callable[[Host, int], None]) -> None:
        """Play to the end, ``script(host, turn)`` deciding each human decision; then the reveal."""
        turn = 0
        while self.game.to_move is not None:
            turn += 1
            script(self, turn)
        with self.at(10):
            reveal(self.games, self.game_id)


def bots_game(games: Path, seed: int = 16) -> Path:  # a seed whose game has Witch looks (P10 test)
    host = Host(games, NAMES[0], ("red", "green", "blue"), {"green": "random", "blue": "greedy"}, seed=seed)
    host.open()

    def red(h: Host, turn: int) -> None:
        h.miss() if turn in (4, 9) else h.move()

    host.finish(red)
    return host.path


def seats_game(games: Path) -> Path:
    host = Host(games, NAMES[1], ("red", "green", "blue", "yellow"), {}, seed=12)
    host.open()
    resigned = missed = False

    def humans(h: Host, turn: int) -> None:
        nonlocal resigned, missed
        game = h.game
        if turn >= 7 and not missed and game.to_move == "blue":
            h.miss()
            missed = True
        elif turn >= 12 and not resigned and game.to_move == "yellow":
            h.resign("yellow")  # R8.4: the stand-in plays yellow's turn in the same step
            resigned = True
        elif resigned and turn == 30:
            h.hand_over("yellow")
            h.move()
        else:
            h.move()

    host.finish(humans)
    return host.path


def private_docs(path: Path, players: tuple[str, ...]) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for player in players:
        target = path / PRIVATE_DIR / f"{player}.yaml"
        if target.exists():
            docs = load_stream(decode(target.read_bytes(), "private file"), "private file")
            out[player] = [d for d in docs if isinstance(d, dict)]
    return out


def views_text(folder: Path) -> str:
    """The playthrough of the game kept in ``folder`` (its log and private files)."""
    entries, hashes = read_log(folder / LOG_NAME)
    players = load_game_players(entries)
    return "\n".join(playthrough(entries, hashes, private_docs(folder, players))) + "\n"


def load_game_players(entries: list[Any]) -> tuple[str, ...]:
    return tuple(entries[0].players)


def make(out: Path) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        for make_game in (bots_game, seats_game):
            path = make_game(Path(tmp))
            target = out / path.name
            target.mkdir(parents=True)
            shutil.copy(path / LOG_NAME, target / LOG_NAME)
            if (path / PRIVATE_DIR).is_dir():
                shutil.copytree(path / PRIVATE_DIR, target / PRIVATE_DIR)
            (target / "views.txt").write_text(views_text(target), encoding="utf-8")


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare with the playthroughs on disk")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        fresh = Path(tmp)
        make(fresh)
        made = {p.relative_to(fresh) for p in fresh.rglob("*") if p.is_file()}
        if args.check:
            kept = {p.relative_to(HERE) for name in NAMES for p in (HERE / name).rglob("*") if p.is_file()}
            differ = sorted(str(p) for p in made ^ kept) + sorted(
                str(p) for p in made & kept if (fresh / p).read_bytes() != (HERE / p).read_bytes())
            for name in differ:
                print(f"differs: examples/{name}")
            return 1 if differ else 0
        for name in NAMES:
            if (HERE / name).is_dir():
                shutil.rmtree(HERE / name)
            shutil.copytree(fresh / name, HERE / name)
        print("wrote " + ", ".join(f"examples/{name}" for name in NAMES))
    return 0


if __name__ == "__main__":
    sys.exit(main())
