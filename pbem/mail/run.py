"""`pbem mail`: one run over the inbox, then the deadlines (R8), then delivery of the queue."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from email.message import EmailMessage
from pathlib import Path

from pbem.errors import FormatError
from pbem.mail.host import MailHost, Processed, host_address
from pbem.mail.outbox import MaildirOutbox, SmtpOutbox
from pbem.mail.tick import tick

Send = Callable[[EmailMessage], None]
_log = logging.getLogger("pbem.mail.host")


@dataclass
class Run:
    """What one ``pbem mail`` run did."""

    done: list[Processed]
    sent: int
    kept: int

    @property
    def quarantined(self) -> int:
        return sum(1 for p in self.done if p.quarantined)


def process(
    inbox: Path, games: Path, outbox: Path | None, smtp: str | None, from_address: str | None,
    flush_only: bool = False,
) -> Run:
    """``pbem mail``: one pass over the inbox, then delivery of the queue."""
    if outbox is None and smtp is None:
        raise FormatError("give --outbox MAILDIR or --smtp HOST:PORT for the replies")
    address = host_address(games, from_address)
    if not flush_only and (not (inbox / "new").is_dir() or not (inbox / "cur").is_dir()):
        raise FormatError("the inbox is not a Maildir (it needs new/ and cur/)")
    senders: list[Callable[[bytes, str], None]] = []
    if outbox is not None:
        senders.append(MaildirOutbox(outbox))
    smtp_box = SmtpOutbox(smtp, address) if smtp is not None else None
    if smtp_box is not None:
        senders.append(smtp_box)

    def deliver(data: bytes, to: str) -> None:
        for each in senders:
            each(data, to)

    host = MailHost(games, lambda _msg: None, address)
    assert host.queue is not None
    try:
        done = [] if flush_only else host.run(inbox)
        if not flush_only:  # R8: deadlines, reminders and timeouts, through the same queue
            tick(games, address)
        sent, kept = host.queue.flush(deliver)
    finally:
        if smtp_box is not None:
            smtp_box.close()
    return Run(done, sent, kept)
