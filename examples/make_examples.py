"""Regenerate the recorded example games: examples/rattus-2p, rattus-3p, rattus-4p.

    python examples/make_examples.py            # rewrite the examples
    python examples/make_examples.py --check    # exit 1 if they are not what this script makes

Each game is played by the random bots of ``pbem demo`` through the real path
(move files, apply, reveal), with everything fixed so that the output is the
same byte for byte on every run: the bots' seed, the secret and the nonces.
The secret is derived from a public string, which is fine for an example and
never for a real game (a real game's secret comes from the OS, P1).

Only the public material is kept: ``log.yaml`` (its last entry reveals the
secret, so the log audits on its own) and ``moves/`` (the move files as sent).
The host's ``secret.yaml``, the players' ``private/`` Witch reveals and the
``.lock`` file stay behind.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from pbem.sim.demo import play_demo  # noqa: E402

EXAMPLE_CLOCK = "2026-11-30T09:00:00Z"
from pbem.rules import winner  # noqa: E402
from pbem.sim.simulate import PLAYER_NAMES  # noqa: E402

BOT_SEEDS = {2: 2, 3: 3, 4: 4}


def example_secret(game_id: str) -> bytes:
    return hashlib.sha256(f"pbem example secret, public on purpose: {game_id}".encode()).digest()


def example_nonce(game_id: str, player: str) -> bytes:
    return hashlib.sha256(f"pbem example nonce: {game_id}/{player}".encode()).digest()[:16]


def make(out: Path) -> list[str]:
    """Play the three games into ``out``; returns the README lines about them."""
    lines = []
    os.environ["PBEM_NOW"] = EXAMPLE_CLOCK  # every entry's 'at' (P7), for byte-identical output
    with tempfile.TemporaryDirectory() as tmp:
        for n, seed in BOT_SEEDS.items():
            game_id = f"rattus-{n}p"
            players = PLAYER_NAMES[:n]
            game = play_demo(
                Path(tmp), n, seed, echo=None, summary=lambda _line: None, game_id=game_id,
                secret=example_secret(game_id),
                nonces={p: example_nonce(game_id, p) for p in players},
            )
            target = out / game_id
            target.mkdir(parents=True)
            shutil.copy(Path(tmp) / game_id / "log.yaml", target / "log.yaml")
            shutil.copytree(Path(tmp) / game_id / "moves", target / "moves")
            assert game.state is not None
            scores = game.state.scores()
            moves = len(list((target / "moves").iterdir()))
            lines.append(
                f"| `{game_id}/` | {', '.join(players)} | {game.state.turn_number} | "
                f"{game.last_seq + 1} | {moves} | "
                f"{', '.join(f'{p} {scores[p]}' for p in players)} | {winner(game.state)} |"
            )
    return lines


README_HEAD = """\
# Recorded example games

Three complete games of Rattus played by the random bots of `pbem demo`, for
2, 3 and 4 players, kept as a player or an auditor would receive them:

- `log.yaml`: the public log, from the create entry (P3) through the players'
  nonce commitments and then their nonces (P4), the start entry with its 49
  commitments, every move with its outcome, to the final reveal of the secret
  (P6). The log alone audits.
- `moves/`: the move files as the players sent them, numbered in the order the
  host applied them (`0001-red-commit.yaml`, ..., `0004-red-nonce.yaml`, ...).
  Each is the `move` field of one log entry.

Try:

    pbem verify examples/rattus-3p/log.yaml   # the chain, every reveal, a full replay
    pbem audit examples/rattus-3p/log.yaml    # recompute the seed, the deal and all commitments

These games are reproducible: `python examples/make_examples.py` plays them
again with a fixed bot seed, fixed nonces, a fixed clock (`PBEM_NOW`, so every
entry's `at` is the same) and a secret derived from a public string (so the
entry 0 records it as `made: supplied`, and every verdict calls it a test
game). That is fine for an example and never for a real game, whose secret
comes from the OS (P1).

Two more games are golden playthroughs (`python examples/make_playthroughs.py`):
`playthrough-bots/` (red against the host's bot seats green and blue, with Witch
looks and two timeouts) and `playthrough-seats/` (four players, a timeout, a
resignation played by the stand-in, and a new player for the seat). Beside each
`log.yaml` are the seats' private files (`private/`, their Witch looks) and
`views.txt`: every seat's view at every entry. `tests/test_playthroughs.py`
replays the logs and compares every line.

| folder | players (seat order) | turns | log entries | move files | final scores | winner |
|---|---|---|---|---|---|---|
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare with the examples on disk")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        fresh = Path(tmp) / "examples"
        rows = make(fresh)
        (fresh / "README.md").write_text(README_HEAD + "\n".join(rows) + "\n", encoding="utf-8")
        names = ["README.md"] + [f"rattus-{n}p" for n in BOT_SEEDS]
        if args.check:
            differ = [
                str(p.relative_to(fresh)) for p in sorted(fresh.rglob("*"))
                if p.is_file() and (
                    not (HERE / p.relative_to(fresh)).is_file()
                    or (HERE / p.relative_to(fresh)).read_bytes() != p.read_bytes()
                )
            ]
            for name in names[1:]:
                extra = {q.relative_to(HERE) for q in (HERE / name).rglob("*") if q.is_file()}
                extra -= {q.relative_to(fresh) for q in (fresh / name).rglob("*") if q.is_file()}
                differ += sorted(str(q) for q in extra)
            for name in differ:
                print(f"differs: examples/{name}")
            return 1 if differ else 0
        for name in names:
            old = HERE / name
            if old.is_dir():
                shutil.rmtree(old)
            if old.is_dir() or (fresh / name).is_dir():
                shutil.copytree(fresh / name, old)
            else:
                shutil.copy(fresh / name, old)
        print("wrote " + ", ".join(f"examples/{name}" for name in names))
    return 0


if __name__ == "__main__":
    sys.exit(main())
