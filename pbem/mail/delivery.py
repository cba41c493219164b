"""Delivering the outbox's replies: into a Maildir (a reply staged in ``tmp/`` to be synced
with the queue's journal line, then linked into ``new/``), or by SMTP."""

from __future__ import annotations

import mailbox
import os
import re
import smtplib
import socket
import ssl
import time
from pathlib import Path

from pbem.errors import FormatError, PbemError
from pbem.i18n import Msg


class MaildirOutbox:
    """Replies into a Maildir; an empty (or missing) folder is made one (tmp/, new/, cur/)."""

    def __init__(self, path: Path) -> None:
        for sub in ("tmp", "new", "cur"):
            (path / sub).mkdir(mode=0o700, parents=True, exist_ok=True)
        self.path = path
        self.box = mailbox.Maildir(str(path), create=False)
        for left in (path / "tmp").iterdir():  # a reply a killed run staged: never delivered, so removed
            match = _STAGED.match(left.name)
            if match is not None and not _alive(int(match.group(1))):
                left.unlink(missing_ok=True)

    def __call__(self, data: bytes, to: str) -> None:
        self.box.add(data)

    def staged(self, data: bytes) -> Staged:
        """The reply written to ``tmp/`` (not synced: the caller syncs it), to be delivered."""
        return Staged(self.path, data)


_STAGED = re.compile(r"^\d+\.M\d+P(\d+)Q\d+\.pbem\.")  # Staged's names


def _alive(pid: int) -> bool:
    """Whether another process of that id is alive (this process's own counts as gone)."""
    if pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


class Staged:
    """One reply in a Maildir's ``tmp/`` under a name of its own (the Maildir way: time, PID, a
    count, the host), linked into ``new/`` by :meth:`deliver` as ``mailbox.Maildir.add`` does
    (once the caller has synced :attr:`fd`); left undelivered, it is removed."""

    count = 0

    def __init__(self, box: Path, data: bytes) -> None:
        at = time.time()
        host = socket.gethostname().replace("/", "\\057").replace(":", "\\072")
        Staged.count += 1
        self.name = f"{int(at)}.M{int(at % 1 * 1e6)}P{os.getpid()}Q{Staged.count}.pbem.{host}"
        self.tmp, self.new = box / "tmp" / self.name, box / "new" / self.name
        self.fd = os.open(self.tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        self.delivered = False
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(self.fd, view):]
        except BaseException:
            self.__exit__()
            raise

    def deliver(self) -> None:
        try:
            os.link(self.tmp, self.new)  # EEXIST: never over another message
        except PermissionError:  # a file system without hard links, as mailbox.Maildir.add
            os.rename(self.tmp, self.new)
            self.delivered = True
            return
        self.delivered = True
        self.tmp.unlink()

    def __enter__(self) -> Staged:
        return self

    def __exit__(self, *_exc: object) -> None:
        os.close(self.fd)
        if not self.delivered:
            self.tmp.unlink(missing_ok=True)


class SmtpOutbox:
    """One SMTP connection, opened on the first reply; STARTTLS if offered.  A refused
    reply (4xx/5xx) raises; a dropped connection is opened again on the next reply."""

    def __init__(self, server: str, from_address: str) -> None:
        host, _, port = server.rpartition(":") if ":" in server else (server, "", "587")
        if not host or not port.isdigit():
            raise FormatError(Msg("--smtp {server}: give HOST:PORT", server=repr(server)))
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
                raise PbemError(Msg(
                    "{server} offers no STARTTLS: pbem will not send the SMTP "
                    "password in clear text", server=f"{self.host}:{self.port}"))
            conn.login(user, os.environ.get("PBEM_SMTP_PASSWORD", ""))
        return conn

    def close(self) -> None:
        if self.conn is not None:
            try:
                self.conn.quit()
            except (smtplib.SMTPException, OSError):
                self.conn.close()
            self.conn = None
