"""`pbem mail`: one run over the inbox (a Maildir, or one message on standard input),
then the deadlines (R8), then delivery of the queue."""

from __future__ import annotations

import logging
import mailbox
import os
import re
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path

from pbem.errors import FormatError, PbemError
from pbem.host.gamesets import changes
from pbem.host.lobby import open_games
from pbem.host.private import PRIVATE_DIR
from pbem.i18n import Msg
from pbem.log.clock import pinned
from pbem.log.logfile import wait_for_lock
from pbem.mail.delivery import MaildirOutbox, SmtpOutbox
from pbem.mail.final import announce_ends
from pbem.mail.host import MailHost, Processed, host_address
from pbem.mail.imap import ImapBox, run_imap
from pbem.mail.outbox import QUEUE_NAME, Delivery, pid_alive
from pbem.mail.resend import resend_lost
from pbem.mail.tick import tick

_log = logging.getLogger("pbem.mail.host")

SEEN_ENDS = "index-seen-ends"  # in the queue's folder: the host's index's version the ends' pass has seen
PIPE_INBOX = "+mail-in"  # in the games folder: the Maildir that --stdin's messages go through


@dataclass
class Run:
    """What one ``pbem mail`` run did."""

    done: list[Processed]
    sent: int
    kept: int
    failed: int = 0
    open: list[str] = field(default_factory=list)  # the games waiting for players, as the host is told of them

    @property
    def quarantined(self) -> int:
        return sum(1 for p in self.done if p.quarantined)


def pipe_inbox(games: Path, message: bytes) -> Path:
    """``pbem mail --stdin``: the message an MTA pipes in, put into the host's own Maildir
    (``GAMES/+mail-in``) so that it is handled as any inbox's message is (the one admission
    path, the quarantine, filed once handled); a message a stopped run left there is
    handled by the next."""
    inbox = games / PIPE_INBOX
    for sub in ("tmp", "new", "cur"):
        (inbox / sub).mkdir(mode=0o700, parents=True, exist_ok=True)
    mailbox.Maildir(str(inbox), create=False).add(message)
    return inbox


def process(
    inbox: Path | None, games: Path, outbox: Path | None, smtp: str | None, from_address: str | None,
    flush_only: bool = False, stdin: bytes | None = None, at: str | None = None,
    imap: ImapBox | None = None, stopping: Callable[[], bool] | None = None, retry_now: bool = False,
) -> Run:
    """``pbem mail``: one pass over the inbox (a Maildir, an IMAP folder or the piped
    message), then delivery of the queue; ``at`` pins the host's clock for the run (``--now``)."""
    if outbox is None and smtp is None:
        raise FormatError(Msg("give --outbox MAILDIR or --smtp HOST:PORT for the replies"))
    if sum(x is not None for x in (stdin, inbox, imap)) > 1:
        raise FormatError(Msg("give one inbox a run: --inbox MAILDIR, --imap HOST[:PORT] or --stdin, not both"))
    if inbox is None and stdin is None and imap is None and not flush_only:
        raise FormatError(Msg("give --inbox MAILDIR, --imap HOST[:PORT] (or --stdin for one piped message)"))
    clock: AbstractContextManager[None] = pinned(at) if at is not None else nullcontext()
    if stdin is not None and not flush_only:  # kept before waiting: a later run handles it if this one dies
        inbox = take_piped(games, from_address, stdin)
    with clock, one_run(games / QUEUE_NAME):
        return _process(inbox, games, outbox, smtp, from_address, flush_only, imap, stopping, retry_now)


def take_piped(games: Path, from_address: str | None, message: bytes) -> Path:
    """The piped message kept in ``GAMES/+mail-in`` (:func:`pipe_inbox`), once the host's
    setup is seen to be whole (its From address): from then on it is the host's to handle."""
    host_address(games, from_address)  # a setup the host must fix: said before the message is taken
    return pipe_inbox(games, message)


EX_TEMPFAIL = 75  # sysexits.h: the MTA keeps the message and delivers it again later


def piped(games: Path, outbox: Path | None, smtp: str | None, from_address: str | None, message: bytes,
          at: str | None, say: Callable[[str], None]) -> tuple[Run | None, int]:
    """``pbem mail --stdin`` as an MTA's pipe expects it (docs/hosting.md): exit 0 once the
    message is safely kept, whatever its verdict (applied, refused, a stranger's quarantined,
    replies kept for a later run: a bounce would help nobody); :data:`EX_TEMPFAIL` only when
    it could not be kept (the host's setup, the disk), so that the MTA tries again."""
    try:
        if outbox is None and smtp is None:
            raise FormatError(Msg("give --outbox MAILDIR or --smtp HOST:PORT for the replies"))
        inbox = take_piped(games, from_address, message)
    except (PbemError, OSError) as err:
        say(f"pbem: the message was not taken; the mail system keeps it and tries again later: {err}")
        return None, EX_TEMPFAIL
    try:
        return process(inbox, games, outbox, smtp, from_address, at=at), 0
    except Exception as err:  # the message is kept in GAMES/+mail-in: the next run handles it
        _log.error("pbem mail --stdin: the message is kept, the next run handles it: %s", err)
        say(f"pbem: the message is kept in GAMES/{PIPE_INBOX}; the next run handles it: {err}")
        return None, 0


RUN_LOCK = ".run.lock"
RUN_WAIT = 600.0  # seconds a run waits for the one before it (an MTA pipes messages at once)


@contextmanager
def one_run(queue: Path, timeout: float = RUN_WAIT) -> Iterator[None]:
    """One ``pbem mail`` at a time over a games folder: two runs would read the same new
    messages and deliver the same queued replies.  A run waits for the one before it."""
    queue.mkdir(mode=0o700, parents=True, exist_ok=True)
    fd = os.open(queue / RUN_LOCK, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
    try:
        wait_for_lock(fd, timeout, f"another 'pbem mail' has run for over {timeout:.0f} s; "
                      "its messages and replies are handled by the next run")
        yield
    finally:
        os.close(fd)


_SWEPT: set[Path] = set()  # the games folders this process has swept (a killed run is a process gone)
_TMP_FILE = re.compile(r"^\..+\.(\d+)\.tmp\Z")  # pbem.files.write_atomic's temporary name


def sweep_games(games: Path) -> int:
    """Remove the temporary files (``.NAME.PID.tmp``) a killed run left in the games'
    folders (their bookkeeping: host.yaml, mail-seen.txt, mail-invited.txt, private/);
    a file whose process is still alive is left to it.  Returns how many."""
    removed = 0
    if not games.is_dir():
        return 0
    for child in games.iterdir():
        if not child.is_dir() or child.name.startswith("+"):
            continue
        for folder in (child, child / PRIVATE_DIR):
            if not folder.is_dir():
                continue
            for entry in folder.iterdir():
                found = _TMP_FILE.match(entry.name)
                if found is not None and entry.is_file() and not pid_alive(int(found.group(1))):
                    entry.unlink(missing_ok=True)
                    removed += 1
    return removed


def _process(
    inbox: Path | None, games: Path, outbox: Path | None, smtp: str | None, from_address: str | None,
    flush_only: bool, imap: ImapBox | None = None, stopping: Callable[[], bool] | None = None,
    retry_now: bool = False,
) -> Run:
    address = host_address(games, from_address)
    if not flush_only and inbox is not None and (
            not (inbox / "new").is_dir() or not (inbox / "cur").is_dir()):
        raise FormatError(Msg("the inbox is not a Maildir (it needs new/ and cur/)"))
    senders: list[Callable[[bytes, str], None]] = []
    if outbox is not None:
        senders.append(MaildirOutbox(outbox))
    smtp_box = SmtpOutbox(smtp, address) if smtp is not None else None
    if smtp_box is not None:
        senders.append(smtp_box)

    def every(data: bytes, to: str) -> None:
        for each in senders:
            each(data, to)

    # a Maildir alone is given as itself: the queue syncs each reply there with its journal line
    deliver = senders[0] if len(senders) == 1 and isinstance(senders[0], MaildirOutbox) else every

    host = MailHost(games, lambda _msg: None, address)
    if stopping is not None:
        host.stopping = stopping
    host.queue.sweep()  # what a stopped run left half-written goes first
    if games.resolve() not in _SWEPT:  # once a process: `pbem serve`'s rounds cost what changed, not every game
        sweep_games(games)
        _SWEPT.add(games.resolve())
    try:
        if flush_only:
            done: list[Processed] = []
        elif imap is not None:
            done = run_imap(host, imap)
        else:
            done = [] if inbox is None else host.run(inbox)
        if not flush_only:  # R8: deadlines, reminders and timeouts, through the same queue
            tick(games, address)
            with changes(games, host.queue.path / SEEN_ENDS) as found:  # a timeout may have ended a game (P6)
                announce_ends(games, host.queue, address, None if found is None else found.folders,
                              None if found is None else found.trouble)
        delivery = host.queue.flush(deliver, force=flush_only or retry_now)
        if delivery.failed and resend_lost(games, host.queue, address):  # nothing stalls silently
            again = host.queue.flush(deliver)
            delivery = Delivery(delivery.sent + again.sent, again.kept, delivery.failed + again.failed)
    finally:
        if smtp_box is not None:
            smtp_box.close()
    return Run(done, delivery.sent, delivery.kept, delivery.failed, announced(games))


def announced(games: Path) -> list[str]:
    """The open games (pbem.host.lobby), one line each, as ``pbem mail`` and ``pbem serve`` announce them."""
    return [f"open game {path.name}: {len(settings.waiting())} seat(s) open ({', '.join(settings.waiting())}); "
            f"a mail 'join {path.name}' takes one" for path, settings in open_games(games)]
