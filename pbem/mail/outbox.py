"""The durable outbox and the Maildir: replies spooled to disk before a message leaves ``new/``,
delivered apart (a Maildir or SMTP), each exactly once; and the Maildir's own details."""

from __future__ import annotations

import hashlib
import logging
import mailbox
import os
import re
import shutil
import smtplib
import ssl
from collections.abc import Callable
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser
from pathlib import Path

from pbem.errors import FormatError, PbemError
from pbem.files import write_atomic

Send = Callable[[EmailMessage], None]
_log = logging.getLogger("pbem.mail.host")



QUEUE_NAME = "+mail-queue"  # in the games folder; '+' is never part of a game id


# --- the queue: replies spooled before the message leaves new/, delivered apart -----------

class Queue:
    """Replies on disk, one folder a handled message (``BATCH/NN.eml``, ``BATCH/key``),
    written whole (a temporary folder renamed) before the message is filed.  Delivery
    renames each sent reply ``NN.eml.sent``; what fails stays for the next run."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def batch_id(self, ident: str) -> str:
        return hashlib.sha256(ident.encode("utf-8", "surrogatepass")).hexdigest()[:32]

    def message_id(self, batch: str, index: int, from_address: str) -> str:
        """Stable: the same reply has the same Message-ID on every try."""
        return f"<pbem.{batch}.{index}@{from_address.rsplit('@', 1)[1]}>"

    def spooled(self, batch: str) -> bool:
        """Whether replies to the message ``batch`` names were ever spooled."""
        return (self.path / batch).exists()

    def handled(self, batch: str, key: str) -> bool:
        marker = self.path / batch / "key"
        return marker.is_file() and marker.read_text("utf-8").strip() == key

    def put(self, batch: str, key: str, messages: list[EmailMessage]) -> None:
        self.path.mkdir(mode=0o700, parents=True, exist_ok=True)
        os.chmod(self.path, 0o700)
        final = self.path / batch
        if final.exists():  # spooled already (a run stopped before noting it): never twice; a
            return  # message received again is answered in a batch of its own (MailHost._handle)
        tmp = self.path / f".{batch}.{os.getpid()}.tmp"
        if tmp.exists():
            shutil.rmtree(tmp)
        tmp.mkdir(mode=0o700)
        for index, msg in enumerate(messages):
            wire = msg.as_bytes(policy=policy.default.clone(linesep="\r\n"))  # SMTP's line ends
            write_atomic(tmp / f"{index:03d}.eml", wire, 0o600)
        write_atomic(tmp / "key", key.encode() + b"\n", 0o600)
        os.rename(tmp, final)

    def pending(self) -> list[Path]:
        if not self.path.is_dir():
            return []
        batches = sorted((p for p in self.path.iterdir() if p.is_dir() and not p.name.startswith(".")),
                         key=lambda p: (p.stat().st_mtime_ns, p.name))
        return [eml for batch in batches for eml in sorted(batch.glob("*.eml"))]

    def flush(self, deliver: Callable[[bytes, str], None]) -> tuple[int, int]:
        """Deliver what is queued: (sent, kept for the next run)."""
        sent = kept = 0
        for path in self.pending():
            data = path.read_bytes()
            head = BytesParser(policy=policy.default).parsebytes(data, headersonly=True)
            to = str(head.get("To", ""))
            try:
                deliver(data, to)
            except (smtplib.SMTPException, OSError) as err:
                kept += 1
                _log.warning("reply %s kept for the next run: %s", path.name, err)
                continue
            os.rename(path, path.with_name(path.name + ".sent"))
            sent += 1
        return sent, kept


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


# --- delivering replies -------------------------------------------------------------------

class MaildirOutbox:
    def __init__(self, path: Path) -> None:
        self.box = mailbox.Maildir(str(path), create=True)

    def __call__(self, data: bytes, to: str) -> None:
        self.box.add(data)


class SmtpOutbox:
    """One SMTP connection, opened on the first reply; STARTTLS if offered.  A refused
    reply (4xx/5xx) raises; a dropped connection is opened again on the next reply."""

    def __init__(self, server: str, from_address: str) -> None:
        host, _, port = server.rpartition(":") if ":" in server else (server, "", "587")
        if not host or not port.isdigit():
            raise FormatError(f"--smtp {server!r}: give HOST:PORT")
        self.host, self.port = host, int(port)
        self.from_address = from_address
        self.conn: smtplib.SMTP | None = None

    def __call__(self, data: bytes, to: str) -> None:
        if self.conn is None:
            self.conn = self._connect()
        try:
            self.conn.sendmail(self.from_address, [to], data)
        except (smtplib.SMTPServerDisconnected, OSError):
            self.conn = None
            raise
        except smtplib.SMTPException:
            try:
                self.conn.rset()
            except (smtplib.SMTPException, OSError):
                self.conn = None
            raise

    def _connect(self) -> smtplib.SMTP:
        context = ssl.create_default_context()
        conn: smtplib.SMTP
        if self.port == 465:
            conn = smtplib.SMTP_SSL(self.host, self.port, timeout=60, context=context)
        else:
            conn = smtplib.SMTP(self.host, self.port, timeout=60)
        conn.ehlo()
        secure = self.port == 465
        if not secure and conn.has_extn("starttls"):
            conn.starttls(context=context)
            conn.ehlo()
            secure = True
        user = os.environ.get("PBEM_SMTP_USER")
        if user:
            if not secure and self.host not in ("localhost", "127.0.0.1", "::1"):
                conn.close()
                raise PbemError(
                    f"{self.host}:{self.port} offers no STARTTLS: pbem will not send the SMTP "
                    "password in clear text"
                )
            conn.login(user, os.environ.get("PBEM_SMTP_PASSWORD", ""))
        return conn

    def close(self) -> None:
        if self.conn is not None:
            try:
                self.conn.quit()
            except (smtplib.SMTPException, OSError):
                self.conn.close()
            self.conn = None
