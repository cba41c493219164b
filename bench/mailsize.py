"""The size of the mails a player gets (a phone can carry them).

    python bench/mailsize.py            # a 3-player and a 4-player game, 40 turns each
    python bench/mailsize.py --turns 15 # shorter

Plays games by mail through `pbem mail` (a Maildir in, a Maildir out), every player
answering the host's template in the notation, and prints the median and the largest
mail, the median report to a player not to move (a small PNG of the map) and the median
"your move" mail (the composer page instead of the PNG), with what each part weighs.
Target: a median of at most about 60 KB.
"""

from __future__ import annotations

import argparse
import mailbox
import random
import statistics
import sys
import tempfile
from email import message_from_bytes, policy
from email.message import EmailMessage
from email.utils import make_msgid, parseaddr
from pathlib import Path

from click.testing import CliRunner

from pbem.bots.randombot import bot_actions
from pbem.cli import main as pbem
from pbem.fair.protocol import nonce_commitment
from pbem.host.games import load_game
from pbem.log.notation import action_line

HOST = "host@pbem.example"


def run(*args: str | Path) -> str:
    result = CliRunner().invoke(pbem, [str(a) for a in args], catch_exceptions=False)
    if result.exit_code != 0:
        raise SystemExit(f"pbem {' '.join(map(str, args))} failed:\n{result.output}")
    return result.output


class Table:
    """One game by mail; every mail the host sends is kept with its size."""

    def __init__(self, folder: Path, players: list[str]) -> None:
        self.games, self.inbox, self.outbox = folder / "games", folder / "inbox", folder / "outbox"
        mailbox.Maildir(str(self.inbox), create=True)
        self.address = {p: f"{p}@example.org" for p in players}
        self.sent: list[EmailMessage] = []
        run("new", "g", "--players", ",".join(players), "--first", players[0], "--games", self.games,
            *(f"--email={p}={a}" for p, a in self.address.items()))
        self.host_run()

    def host_run(self) -> None:
        run("mail", "--inbox", self.inbox, "--outbox", self.outbox, "--games", self.games, "--from", HOST)
        box = mailbox.Maildir(str(self.outbox))
        for key in box.iterkeys():
            msg = message_from_bytes(box.get_bytes(key), policy=policy.default)
            assert isinstance(msg, EmailMessage)
            self.sent.append(msg)
        box.clear()

    def header(self, player: str) -> list[str]:
        """The 'game' and 'after' lines of the newest template mailed to ``player``."""
        for msg in reversed(self.sent):
            if parseaddr(str(msg["To"]))[1] != self.address[player]:
                continue
            for part in msg.iter_attachments():
                if (part.get_filename() or "").endswith(f"-{player}.txt"):
                    text = part.get_content()
                    return [line for line in text.splitlines() if line.startswith(("game ", "after "))]
        raise SystemExit(f"no template was mailed to {player}")

    def send(self, player: str, lines: list[str]) -> None:
        msg = EmailMessage()
        msg["From"], msg["To"], msg["Subject"] = self.address[player], HOST, "Re: [pbem g] your move"
        msg["Message-ID"] = make_msgid(domain="example.org")
        msg.set_content("\n".join(self.header(player) + lines) + "\n")
        mailbox.Maildir(str(self.inbox)).add(bytes(msg))
        self.host_run()


def play(players: list[str], turns: int, seed: int) -> list[EmailMessage]:
    with tempfile.TemporaryDirectory() as tmp:
        table = Table(Path(tmp), players)
        nonces = {p: bytes([i + 1]) * 32 for i, p in enumerate(players)}
        for p in players:
            table.send(p, [f"commit {nonce_commitment(nonces[p])}"])
        for p in players:
            table.send(p, [f"nonce {nonces[p].hex()}"])
        if not load_game(table.games / "g").started:
            raise SystemExit("the opening by mail did not start the game")
        rng = random.Random(seed)
        for _ in range(turns):
            game = load_game(table.games / "g")
            if game.over or game.state is None or game.state.to_move is None:
                break
            player = game.state.to_move
            table.send(player, [action_line(a.to_dict()) for a in bot_actions(game.state, rng)])
        return table.sent


def parts(msg: EmailMessage) -> str:
    out = []
    for part in msg.walk():
        if part.is_multipart():
            continue
        name = part.get_filename() or part.get_content_type()
        out.append(f"{name.rsplit('-', 1)[-1] if part.get_filename() else name} {len(part.as_bytes()) / 1024:.0f}")
    return ", ".join(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=40)
    args = parser.parse_args()
    print(f"python {sys.version.split()[0]}; mails of two games by mail, {args.turns} turns each")
    sizes: list[int] = []
    reports: list[int] = []
    moves: list[int] = []
    biggest: EmailMessage | None = None
    for seed, players in ((1, ["red", "green", "blue"]), (2, ["red", "green", "blue", "yellow"])):
        for msg in play(players, args.turns, seed):
            size = len(bytes(msg))
            sizes.append(size)
            (moves if "your move" in str(msg["Subject"]) else reports).append(size)
            if biggest is None or size > len(bytes(biggest)):
                biggest = msg
    print(f"mails: {len(sizes)}; median {statistics.median(sizes) / 1024:.1f} KB, "
          f"largest {max(sizes) / 1024:.1f} KB  (target: median <= about 60 KB)")
    if reports:
        print(f"  reports to a player not to move: {len(reports)}, median {statistics.median(reports) / 1024:.1f} KB")
    if moves:
        print(f"  'your move' mails (the page attached): {len(moves)}, median {statistics.median(moves) / 1024:.1f} KB")
    if biggest is not None:
        print(f"  the largest: {parseaddr(str(biggest['To']))[1]}, {biggest['Subject']}: {parts(biggest)} (KB)")


if __name__ == "__main__":
    main()
