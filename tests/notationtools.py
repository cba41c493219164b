"""Shared helpers for the tests of moves by mail in the notation: a table of players who answer
their mails, and each client shape a mail takes."""

from __future__ import annotations

import mailbox
import random
import textwrap
from collections.abc import Callable
from email.message import EmailMessage
from email.utils import make_msgid
from pathlib import Path

from clitools import ok
from mailtools import HOST, attachment, replies, to_of

from pbem.bots.randombot import bot_actions
from pbem.host.games import load_game
from pbem.log.notation_write import action_line

ADDRESSES = {"red": "red@example.org", "green": "green@example.net", "blue": "blue@example.com"}


class Table:
    """A 3-player game hosted by mail; each player only reads the host's mails and writes
    notation lines (no YAML, no pbem on their side)."""

    def __init__(self, tmp: Path) -> None:
        self.games, self.inbox, self.outbox = tmp / "games", tmp / "inbox", tmp / "outbox"
        mailbox.Maildir(str(self.inbox), create=True)
        self.latest: dict[str, EmailMessage] = {}  # the newest mail with a template, per player
        args: list[str | Path] = ["new", "g", "--players", ",".join(ADDRESSES), "--first", "red",
                                  "--games", self.games, "--mail", "every"]
        ok(*args, *(f"--seat-email={p}={a}" for p, a in ADDRESSES.items()))
        self.run()

    def run(self) -> str:
        out = ok("mail", "--inbox", self.inbox, "--outbox", self.outbox, "--games", self.games, "--from", HOST)
        self.sent = replies(self.outbox)  # this run's mails; read once, then the outbox is emptied
        mailbox.Maildir(str(self.outbox)).clear()
        for msg in self.sent:
            player = next(p for p, a in ADDRESSES.items() if a == to_of(msg))
            if attachment(msg, f"-{player}.txt") is not None:
                self.latest[player] = msg
        return out

    def last_mail_to(self, player: str) -> EmailMessage:
        assert player in self.latest, f"no template mailed to {player}"
        return self.latest[player]

    def send(self, player: str, message: EmailMessage | bytes) -> str:
        data = message if isinstance(message, bytes) else bytes(message)
        mailbox.Maildir(str(self.inbox)).add(data)
        return self.run()


def message(player: str, body: str, charset: str = "utf-8") -> EmailMessage:
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = ADDRESSES[player], HOST, "Re: [pbem g] your move"
    msg["Message-ID"] = make_msgid(domain="example.org")
    msg.set_content(body, charset=charset)
    return msg


def template_of(msg: EmailMessage, player: str) -> str:
    data = attachment(msg, f"-{player}.txt")
    assert data is not None
    return data.decode()


def header(template: str) -> list[str]:
    return [line for line in template.splitlines() if line.startswith(("game ", "after "))]


def plain(t: Table, player: str, lines: list[str]) -> EmailMessage:
    return message(player, "Hi,\n\n" + "\n".join(header(template_of(t.last_mail_to(player), player)) + lines)
                   + "\n\nCheers\n-- \nsent from my phone\n")


def quoted_reply(t: Table, player: str, lines: list[str]) -> EmailMessage:
    """Only the actions, written above the quoted report: the header comes from the quote."""
    report = t.last_mail_to(player).get_body(("plain",))
    assert isinstance(report, EmailMessage)
    quoted = "\n".join("> " + line if line else ">" for line in report.get_content().splitlines())
    return message(player, "\n".join(lines) + "\n\nOn Tue, 1 Dec 2026, the host wrote:\n" + quoted + "\n")


def txt_attachment(t: Table, player: str, lines: list[str]) -> EmailMessage:
    msg = message(player, "My turn is attached.\n")
    text = template_of(t.last_mail_to(player), player) + "\n".join(lines) + "\n"
    msg.add_attachment(text.encode(), maintype="text", subtype="plain", filename="turn.txt")
    return msg


def crlf(t: Table, player: str, lines: list[str]) -> bytes:
    return bytes(plain(t, player, lines)).replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")


def flowed(t: Table, player: str, lines: list[str]) -> EmailMessage:
    long = ("Here is my turn; I thought about the Monk for a long time but the plague in the "
            "east worries me more than anything else this week.")
    body = long[:60] + " \n" + long[60:] + "\n\n" + "\n".join(header(template_of(t.last_mail_to(player), player))
                                                               + lines) + "\n"
    msg = message(player, body)
    msg.set_param("format", "flowed")
    return msg


def latin2(t: Table, player: str, lines: list[str]) -> EmailMessage:
    body = "\n".join(header(template_of(t.last_mail_to(player), player)) + lines + ["note Üdv, Ödön"]) + "\n"
    return message(player, body, charset="iso-8859-2")


def wrapped72(t: Table, player: str, lines: list[str]) -> EmailMessage:
    """A client that hard-wraps every line at 72 columns, the quoted report's too (each piece
    quoted again): the prose and the report break, the move's short lines do not."""
    report = t.last_mail_to(player).get_body(("plain",))
    assert isinstance(report, EmailMessage)
    quoted = [piece for line in report.get_content().splitlines()
              for piece in (textwrap.wrap(line, 70) or [""])]
    prose = ("Here is my turn. I thought about the Monk for a long time, but the plague in the east "
             "worries me more than anything else this week, so the cubes go west.")
    body = (textwrap.fill(prose, 72) + "\n\n" + "\n".join(lines) + "\n\nOn Tue, 1 Dec 2026, the host wrote:\n"
            + "\n".join("> " + q if q else ">" for q in quoted) + "\n")
    assert max(map(len, body.splitlines())) <= 72
    return message(player, body)


SHAPES: list[Callable[[Table, str, list[str]], EmailMessage | bytes]] = [
    plain, quoted_reply, txt_attachment, crlf, flowed, latin2, wrapped72,
]


def turn_lines(t: Table, rng: random.Random) -> tuple[str, list[str]]:
    game = load_game(t.games / "g")
    assert game.state is not None and game.state.to_move is not None
    return game.state.to_move, [action_line(a) for a in bot_actions(game.state, rng)]
