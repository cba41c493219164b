"""Shared helpers for the tests of open games, press and observers by mail: a mail from anyone,
a run of the mail host at a pinned moment, the code a lobby mail carries, and who got what."""

from __future__ import annotations

import mailbox
import re
from email.message import EmailMessage
from email.utils import make_msgid, parseaddr
from pathlib import Path

from clitools import ok
from endtools import take
from mailgame import HOST

from pbem.log.clock import at_of, seconds

START = "2026-12-01T09:00:00Z"


def letter(sender: str, subject: str, text: str = "", reply_to: str | None = None) -> bytes:
    """A plain mail from ``sender`` (anyone's address, registered or not, forged or not)."""
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = sender, HOST, subject
    msg["Message-ID"] = make_msgid(domain=sender.split("@")[1])
    if reply_to is not None:
        msg["In-Reply-To"] = msg["References"] = reply_to
    msg.set_content(text or "Thanks.\n")
    return bytes(msg)


class Host:
    """One games folder with its inbox and outbox; each run of ``pbem mail`` at its own moment
    (``hours`` after :data:`START`), so that codes expire and summaries fall due as they would."""

    def __init__(self, tmp: Path) -> None:
        self.games, self.inbox, self.outbox = tmp / "games", tmp / "inbox", tmp / "outbox"
        mailbox.Maildir(str(self.inbox), create=True)
        self.hours = 0

    def send(self, *mails: bytes) -> None:
        for data in mails:
            mailbox.Maildir(str(self.inbox)).add(data)

    def run(self, hours: int = 1) -> tuple[str, list[EmailMessage]]:
        """One run, ``hours`` after the last; its output and the mails it delivered."""
        self.hours += hours
        out = ok("mail", "--inbox", self.inbox, "--outbox", self.outbox, "--games", self.games, "--from", HOST,
                 "--now", at_of(seconds(START) + 3600 * self.hours))
        return out, take(self.outbox)


def to_of(msg: EmailMessage) -> str:
    return parseaddr(str(msg["To"]))[1]


def text_of(msg: EmailMessage) -> str:
    body = msg.get_body(("plain",))
    assert body is not None, msg["Subject"]
    return str(body.get_content()).replace("\r\n", "\n")


def mails_to(mails: list[EmailMessage], address: str) -> list[EmailMessage]:
    return [m for m in mails if to_of(m) == address]


def code_in(msg: EmailMessage) -> str:
    """The one-time code a lobby mail carries ('confirm CODE')."""
    found = re.search(r"^ *confirm ([A-Z2-7]{16})\s*$", text_of(msg), re.MULTILINE)
    assert found is not None, text_of(msg)
    return found.group(1)


def confirmed(host: Host, address: str, word: str, game: str = "og") -> tuple[str, list[EmailMessage]]:
    """``word GAME`` from ``address``, then a Reply with its code: the second run's output and
    every mail of both runs."""
    host.send(letter(address, f"{word} {game}"))
    _out, got = host.run()
    code_mail = next(m for m in mails_to(got, address) if f"confirm {word}" in str(m["Subject"]))
    host.send(letter(address, "Re: " + str(code_mail["Subject"]), f"confirm {code_in(code_mail)}\n",
                     reply_to=str(code_mail["Message-ID"])))
    out, more = host.run()
    return out, got + more
