"""The durable outbox and the Maildir: replies spooled to disk before a message leaves ``new/``,
delivered apart (a Maildir or SMTP), each exactly once; and the Maildir's own details."""

from __future__ import annotations

import fcntl
import hashlib
import logging
import os
import re
import secrets
import shutil
import smtplib
import time
from collections.abc import Callable
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser
from pathlib import Path

from pbem.errors import PbemError
from pbem.files import sync_all, sync_folder, write_atomic, write_folder
from pbem.log.clock import at_of, now, seconds
from pbem.log.game import Game
from pbem.mail.delivery import MaildirOutbox
from pbem.record import Record

_log = logging.getLogger("pbem.mail.host")



QUEUE_NAME = "+mail-queue"  # in the games folder; '+' is never part of a game id


# --- the queue: replies spooled before the message leaves new/, delivered apart -----------

class Delivery(Record):
    """What one :meth:`Queue.flush` did: replies sent, kept for a later run (a temporary
    failure, or not yet due after one), and given up for good (moved to ``failed/``)."""

    sent: int
    kept: int
    failed: int


FAILED = "failed"  # beside the batches: replies refused for good, and failed.log
SENT_LOG = "sent.log"  # the delivery journal: "sending MID" before, "sent MID" after
FLUSH_LOCK = ".flush.lock"  # held by the one delivery under way (Queue.flush)
TMP_AGE = 3600  # seconds after which a leftover temporary batch is stale whatever its PID
BACKOFF = (300, 900, 3600, 3 * 3600, 6 * 3600)  # seconds before retry 1, 2, ...; then the last


def permanent(err: BaseException) -> bool:
    """A refusal for good: SMTP 5xx to this reply's transaction (its sender, its one
    recipient, its data).  A 5xx to the login or the greeting is the host's setup, not the
    reply's: kept, as a temporary failure, for the host to fix."""
    if isinstance(err, smtplib.SMTPRecipientsRefused):
        codes = [code for code, _msg in err.recipients.values()]
        return bool(codes) and all(code >= 500 for code in codes)
    if isinstance(err, (smtplib.SMTPDataError, smtplib.SMTPSenderRefused)):
        return err.smtp_code >= 500
    return False


def pid_alive(pid: int) -> bool:
    """Whether another process of that id is alive (this process's own counts as gone)."""
    if pid == os.getpid():  # this very process starts no delivery while it writes a batch
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True
    return True


class Queue:
    """Replies on disk, one folder a handled message (``BATCH/NN.eml``, ``BATCH/key``),
    written whole (a temporary folder renamed) before the message is filed.

    Delivery (:meth:`flush`) journals each reply's Message-ID in ``sent.log``
    ("sending" before, "sent" once the server took it) before it renames the reply
    ``NN.eml.sent``: a run stopped in between never sends it again.  A temporary failure
    (4xx, no connection) keeps the reply, with its next try in ``NN.eml.retry``; a
    permanent one (5xx) moves it to ``failed/`` and writes one line to ``failed/failed.log``."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def batch_id(self, ident: str) -> str:
        return hashlib.sha256(ident.encode("utf-8", "surrogatepass")).hexdigest()[:32]

    def game_batch(self, what: str, game: Game, *more: object) -> str:
        """The batch of a mail a game owes (``invite``, ``notice``, ``remind``, ``final``), named
        for the game's identity, the hash of its first entry (P7), not its id alone: the queue
        outlives a game's folder, and a game made again under an old id owes all its mail anew."""
        return self.batch_id(":".join([what, game.game_id, game.hashes[0], *map(str, more)]))

    def message_id(self, batch: str, index: int, from_address: str) -> str:
        """Stable: the same reply has the same Message-ID on every try."""
        return f"<pbem.{batch}.{index}@{from_address.rsplit('@', 1)[1]}>"

    def spooled(self, batch: str) -> bool:
        """Whether replies to the message ``batch`` names were ever spooled."""
        return (self.path / batch).exists()

    def handled(self, batch: str, key: str) -> bool:
        marker = self.path / batch / "key"
        return marker.is_file() and marker.read_text("utf-8").strip() == key

    def put(self, batch: str, key: str, messages: list[EmailMessage]) -> bool:
        """Spool the replies to one message as the batch ``batch``; False (and nothing written)
        when that batch is spooled already, by this run or by another transport at the same
        moment (``pbem mail`` and ``pbem apply MSG.eml`` on one message): never twice."""
        self.path.mkdir(mode=0o700, parents=True, exist_ok=True)
        os.chmod(self.path, 0o700)
        final = self.path / batch
        if final.exists():  # spooled already (a run stopped before noting it): never twice; a
            return False  # message received again is answered in a batch of its own (MailHost._handle)
        tmp = self.path / f".{batch}.{os.getpid()}.{secrets.token_hex(4)}.tmp"  # one a call: threads too
        tmp.mkdir(mode=0o700)
        try:
            files = {f"{index:03d}.eml": msg.as_bytes(policy=_wire_policy(msg)) for index, msg in enumerate(messages)}
            write_folder(tmp, {**files, "key": key.encode() + b"\n"})  # every reply and the key on the disk,
            os.rename(tmp, final)  # before the batch has its name
        except OSError:
            shutil.rmtree(tmp, ignore_errors=True)
            if final.is_dir():  # another transport spooled the same batch in between: its replies stand
                return False
            raise
        sync_folder(self.path)  # and the name, before the caller files the message as handled
        return True

    def sweep(self) -> int:
        """Remove the temporary batches (``.BATCH.PID.RANDOM.tmp``) a stopped run left: their PID is
        gone (or is this process's), or they are older than an hour.  Returns how many."""
        if not self.path.is_dir():
            return 0
        removed = 0
        for entry in self.path.iterdir():
            match = _TMP.match(entry.name)
            if match is None or not entry.is_dir():
                continue
            old = time.time() - entry.stat().st_mtime > TMP_AGE
            if old or not pid_alive(int(match.group(1))):
                shutil.rmtree(entry, ignore_errors=True)
                removed += 1
        return removed

    def pending(self) -> list[Path]:
        if not self.path.is_dir():
            return []
        batches = sorted((p for p in self.path.iterdir()
                          if p.is_dir() and not p.name.startswith(".") and p.name != FAILED),
                         key=lambda p: (p.stat().st_mtime_ns, p.name))
        return [eml for batch in batches for eml in sorted(batch.glob("*.eml"))]

    def journal(self) -> dict[str, str]:
        """Message-ID -> its last delivery state ("sending", "sent" or "unsent")."""
        states: dict[str, str] = {}
        log = self.path / SENT_LOG
        if log.is_file():
            for line in log.read_text("utf-8", "replace").splitlines():
                state, _, mid = line.partition(" ")
                if mid:
                    states[mid] = state
        return states

    def _note(self, state: str, mid: str, sync: bool = True, also: int | None = None) -> None:
        """One journal line, on disk before delivery goes on (record, then move); ``sync=False``
        (a "sent" line) leaves it to the journal's next synced line, or :meth:`_sync_journal`;
        ``also``: another open file synced with it, in the same commit."""
        fd = os.open(self.path / SENT_LOG, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(fd, f"{state} {mid}\n".encode("utf-8", "replace"))
            if sync:
                sync_all([fd] if also is None else [fd, also])
        finally:
            os.close(fd)

    def _send(self, deliver: Callable[[bytes, str], None], data: bytes, to: str, mid: str) -> None:
        """The journal's "sending" line on the disk, then the delivery.  A Maildir's reply is
        written to its ``tmp/`` first and synced with that line, in one commit, then linked into
        ``new/`` (its delivery): the line is still on the disk before the reply is delivered."""
        if not isinstance(deliver, MaildirOutbox):
            self._note("sending", mid)
            deliver(data, to)
            return
        with deliver.staged(data) as staged:
            self._note("sending", mid, also=staged.fd)
            staged.deliver()

    def _sync_journal(self) -> None:
        fd = os.open(self.path / SENT_LOG, os.O_WRONLY | os.O_APPEND)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)

    def flush(self, deliver: Callable[[bytes, str], None], at: str | None = None,
              force: bool = False) -> Delivery:
        """Deliver what is queued and due at ``at`` (the host's clock by default); ``force``
        tries a reply kept after a temporary failure even before its next try is due.

        One delivery at a time, under the queue's lock (:data:`FLUSH_LOCK`): two transports
        given the same message at once (`pbem mail` and an MTA's `pbem apply`) both deliver,
        and a "sending" line is a stopped run's only when no live delivery holds the lock;
        without it, one run's reply in the server's hands looked like a stopped run's to the
        other, was given up, and its seat was mailed its turn again."""
        if not self.path.is_dir():  # nothing was ever queued
            return Delivery(sent=0, kept=0, failed=0)
        fd = os.open(self.path / FLUSH_LOCK, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)  # the other delivery first; then what it left, and ours
            return self._flush(deliver, at, force)
        finally:
            os.close(fd)

    def _flush(self, deliver: Callable[[bytes, str], None], at: str | None, force: bool) -> Delivery:
        self.sweep()
        moment = seconds(at or now())
        journal = self.journal()
        sent = kept = failed = 0
        unsynced = False  # a "sent" line not yet on the disk: the next "sending" line's sync takes it
        try:
            for path in self.pending():
                data = path.read_bytes()
                head = BytesParser(policy=policy.default).parsebytes(_head(data), headersonly=True)
                to = str(head.get("To", ""))
                mid = str(head.get("Message-ID", "")).strip() or f"<{path.parent.name}/{path.name}>"
                state = journal.get(mid)
                if state == "sent":  # a run stopped after the server took it: bookkeeping only
                    self._done(path)
                    continue
                if state == "sending":  # stopped while the server had it: it may have arrived
                    self._fail(path, mid, to, "a run stopped while delivering it, so the server may "
                               "already have it; pbem never sends a reply twice (resend it by hand "
                               "if it never arrived)")
                    failed += 1
                    continue
                retry = _retry_of(path)
                if retry is not None and moment < retry[1] and not force:
                    kept += 1
                    continue
                try:
                    self._send(deliver, data, to, mid)
                    unsynced = False  # the "sending" line's sync took the "sent" lines before it
                except (smtplib.SMTPException, OSError) as err:
                    self._note("unsent", mid)
                    if permanent(err):
                        self._fail(path, mid, to, f"refused for good: {_why(err)}")
                        failed += 1
                        continue
                    tries = (retry[0] if retry is not None else 0) + 1
                    wait = BACKOFF[min(tries, len(BACKOFF)) - 1]
                    write_atomic(path.with_name(path.name + ".retry"),
                                 f"{tries} {at_of(moment + wait)}\n".encode(), 0o600)
                    kept += 1
                    _log.warning("reply %s kept, next try after %s: %s", path.name, at_of(moment + wait), err)
                    continue
                self._note("sent", mid, sync=False)  # one sync less a reply: the next line's, or the last below
                unsynced = True
                self._done(path)
                sent += 1
        finally:
            if unsynced:
                self._sync_journal()
        return Delivery(sent=sent, kept=kept, failed=failed)

    def _done(self, path: Path) -> None:
        os.rename(path, path.with_name(path.name + ".sent"))
        path.with_name(path.name + ".retry").unlink(missing_ok=True)

    def _fail(self, path: Path, mid: str, to: str, why: str) -> None:
        """Give a reply up, once: moved to ``failed/``, one line in ``failed/failed.log``."""
        folder = self.path / FAILED
        folder.mkdir(mode=0o700, exist_ok=True)
        line = f"{now()}\t{safe_text(mid)}\t{safe_text(to)}\t{safe_text(why)}\n"
        fd = os.open(folder / "failed.log", os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(fd, line.encode("utf-8", "replace"))
            os.fsync(fd)
        finally:
            os.close(fd)
        os.rename(path, folder / f"{path.parent.name}.{path.name}")
        path.with_name(path.name + ".retry").unlink(missing_ok=True)
        _log.error("reply %s to %s failed for good: %s", mid, to, why)


_WIRE = policy.default.clone(linesep="\r\n")  # SMTP's line ends
_WIRE_LONG = _WIRE.clone(max_line_length=998)  # RFC 5322's hard limit


def _wire_policy(msg: EmailMessage) -> policy.Policy:
    """SMTP's line ends; an ASCII subject (at most 160 characters, replies.SUBJECT_LIMIT)
    on one line, unfolded, so that no reader joins a fold into a stray space; a non-ASCII
    one folds as RFC 2047's encoded words must (75 characters each)."""
    return _WIRE_LONG if str(msg.get("Subject", "")).isascii() else _WIRE


_TMP = re.compile(r"^\.[0-9a-f]+\.(\d+)(?:\.[0-9a-f]+)?\.tmp$")


def _head(data: bytes) -> bytes:
    """A queued reply's header block, to its first empty line: all delivery reads of it (the parser
    reads a body it is told to skip line by line all the same)."""
    ends = [i for i in (data.find(b"\r\n\r\n"), data.find(b"\n\n")) if i >= 0]
    return data[: min(ends) + 2] if ends else data


def _retry_of(path: Path) -> tuple[int, int] | None:
    """(tries so far, the time of the next try) of a reply kept after a temporary failure."""
    try:
        tries, _, when = path.with_name(path.name + ".retry").read_text("ascii").strip().partition(" ")
        return int(tries), seconds(when)
    except (OSError, ValueError, PbemError):
        return None


def _why(err: BaseException) -> str:
    if isinstance(err, smtplib.SMTPRecipientsRefused):
        return "; ".join(f"{code} {msg.decode('utf-8', 'replace')}" for code, msg in err.recipients.values())
    if isinstance(err, smtplib.SMTPResponseException):
        text = err.smtp_error.decode("utf-8", "replace") if isinstance(err.smtp_error, bytes) else str(err.smtp_error)
        return f"{err.smtp_code} {text}"
    return str(err)


def safe_text(text: str) -> str:
    """One line of a log: no control character, at most 300 characters."""
    return "".join(c if c.isprintable() else " " for c in text)[:300]


# --- Maildir details --------------------------------------------------------------------

_KEY_TIME = re.compile(r"^(\d+)\.(?:M(\d+))?")


def new_messages(inbox: Path, colon: str = ":") -> list[tuple[str, str]]:
    """(key, file name) of the messages in ``new/``, oldest delivery first."""
    folder = inbox / "new"
    found: list[tuple[float, str, str]] = []
    for entry in os.scandir(folder):
        if entry.name.startswith(".") or not entry.is_file():
            continue
        key = entry.name.split(colon)[0]
        match = _KEY_TIME.match(key)
        when = (
            int(match.group(1)) + int(match.group(2) or 0) / 1e6
            if match else entry.stat().st_mtime
        )
        found.append((when, key, entry.name))
    return [(key, name) for _when, key, name in sorted(found)]


def file_as_seen(inbox: Path, name: str, colon: str = ":") -> None:
    """Maildir: new/KEY -> cur/KEY:2,S (the message's bytes are not touched)."""
    key = name.split(colon)[0]
    os.rename(inbox / "new" / name, inbox / "cur" / f"{key}{colon}2,S")
