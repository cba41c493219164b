"""`pbem mail --imap HOST[:PORT] --folder rattus`: the IMAP transport.

The standard library's :mod:`imaplib`, always over TLS: implicit TLS on port 993 (the
default), else STARTTLS, which the server must offer.  Plain IMAP is refused, but for a
server on this very machine (127.0.0.1, ::1, localhost), where no password crosses a
network; the run then says so in the host's log.  The login comes from the environment,
as SMTP's does: ``$PBEM_IMAP_USER`` and ``$PBEM_IMAP_PASSWORD``; ``$PBEM_IMAP_CAFILE``
names a certificate (bundle) to trust, for a server with a certificate of its own.

Every message of the folder is read by UID (``BODY.PEEK[]``, so nothing is marked by
reading it), whether another client has seen it or not: a message is the same message by
its key, not by its flags (:mod:`pbem.mail.ledger`).  Each one not handled yet goes
through the one admission path (:meth:`pbem.mail.admission.Admission.admit`); only once
its verdict and replies are spooled is it flagged ``\\Seen`` and its UID (under the
folder's UIDVALIDITY) added to the ledger.  What makes it the same message (the hash of its
bytes, its Message-ID) is noted too, under that UIDVALIDITY: when the server renumbers the
folder (a new UIDVALIDITY, every UID new), a message handled under an earlier one is filed
and never answered again.  A message whose handling fails is flagged
``\\Flagged``, left where it is and noted in ``GAMES/+mail-queue/imap-quarantine.log``.
"""

from __future__ import annotations

import contextlib
import hashlib
import imaplib
import logging
import os
import re
import ssl
from email import policy
from email.parser import BytesHeaderParser

from pbem.errors import BusyError, FormatError
from pbem.i18n import Msg
from pbem.mail.admission import Inbound
from pbem.mail.headers import MAIL_LIMIT, HostileMail, header_block, too_large
from pbem.mail.host import MailHost, Processed
from pbem.mail.ledger import ledger_for
from pbem.mail.verdict import Handled, Known, Unfinished

_log = logging.getLogger("pbem.mail.host")
LOOPBACK = ("127.0.0.1", "::1", "localhost")
_FOLDER_RE = re.compile(r"^[A-Za-z0-9._/ -]{1,100}\Z")
_SIZE = re.compile(rb"RFC822\.SIZE (\d+)")
_FLAGS = re.compile(rb"FLAGS \(([^)]*)\)")


class ImapDown(BusyError):
    """The IMAP server cannot be reached (or dropped the connection): a temporary failure."""


class ImapBox:
    """One IMAP folder: where it is, and how to log in (see the module)."""

    def __init__(self, server: str, folder: str) -> None:
        host, _, port = server.rpartition(":") if ":" in server else (server, "", "993")
        if not host or not port.isdigit() or not 0 < int(port) < 65536:
            raise FormatError(Msg("--imap {server}: give HOST or HOST:PORT (993: implicit TLS; else STARTTLS)",
                                  server=repr(server)), "P1")
        if not _FOLDER_RE.match(folder):
            raise FormatError(Msg("--folder {folder}: a folder name of letters, digits, '.', '_', '/', '-' "
                                  "and spaces", folder=repr(folder)), "P1")
        self.host, self.port, self.folder = host, int(port), folder
        self.user = os.environ.get("PBEM_IMAP_USER", "")
        if not self.user:
            raise FormatError(Msg("pbem mail --imap logs in as $PBEM_IMAP_USER with $PBEM_IMAP_PASSWORD; "
                                  "$PBEM_IMAP_USER is not set"), "P1")

    @property
    def where(self) -> str:
        return f"imap:{self.user}@{self.host}:{self.port}/{self.folder}"

    def connect(self) -> imaplib.IMAP4:
        """Logged in, over TLS, with the folder selected; :class:`ImapDown` if unreachable."""
        context = ssl.create_default_context(cafile=os.environ.get("PBEM_IMAP_CAFILE") or None)
        try:
            conn: imaplib.IMAP4
            if self.port == 993:
                conn = imaplib.IMAP4_SSL(self.host, self.port, ssl_context=context, timeout=60)
            else:
                conn = imaplib.IMAP4(self.host, self.port, timeout=60)
                if "STARTTLS" in conn.capabilities:
                    conn.starttls(context)
                elif self.host in LOOPBACK:  # flagged: only on this machine, never across a network
                    _log.warning("IMAP on %s:%s without TLS (a server on this machine only)", self.host, self.port)
                else:
                    conn.shutdown()
                    raise FormatError(Msg("{server} offers no STARTTLS: pbem will not send the "
                                          "IMAP password in clear text (use port 993, implicit TLS)",
                                          server=f"{self.host}:{self.port}"), "P1")
        except (OSError, imaplib.IMAP4.abort) as err:
            raise ImapDown(f"the IMAP server {self.host}:{self.port} cannot be reached: {err}") from None
        try:
            conn.login(self.user, os.environ.get("PBEM_IMAP_PASSWORD", ""))
            typ, _data = conn.select(_quoted(self.folder))
        except imaplib.IMAP4.abort as err:
            raise ImapDown(f"the IMAP server {self.host}:{self.port} dropped the connection: {err}") from None
        except imaplib.IMAP4.error as err:
            _close(conn)
            raise FormatError(Msg("IMAP {server}: the login as {user} was refused: {problem}",
                                  server=f"{self.host}:{self.port}", user=repr(self.user), problem=str(err)),
                              "P1") from None
        if typ != "OK":
            _close(conn)
            raise FormatError(Msg("IMAP {server}: there is no folder {folder}", server=f"{self.host}:{self.port}",
                                  folder=repr(self.folder)), "P1")
        return conn


def run_imap(host: MailHost, box: ImapBox) -> list[Processed]:
    """Every message of the folder not handled yet, in UID order (see the module)."""
    conn = box.connect()
    try:
        validity = _validity(conn)
        ledger = ledger_for(host.queue.path, f"{box.where};{validity}")
        handled = ledger.keys()
        known = ledger_for(host.queue.path, f"{box.where};messages")  # 'VALIDITY IDENT', every UIDVALIDITY
        noted = known.keys()
        earlier = {line.split(" ", 1)[1] for line in noted if " " in line and not line.startswith(f"{validity} ")}
        typ, data = conn.uid("SEARCH", None, "ALL")  # type: ignore[arg-type]  # imaplib: None = no charset
        if typ != "OK":
            raise ImapDown(f"IMAP {box.host}: SEARCH failed: {data!r}")
        for uid in (data[0] or b"").split():
            if host.stopping():  # stopped between two messages, never inside one
                break
            key = f"imap.{validity}.{uid.decode('ascii')}"
            if key in handled:
                continue
            for ident in _one(host, conn, uid, key, earlier):
                known.add(f"{validity} {ident}", sync=False)
            known.sync()
            ledger.add(key)
    except (OSError, imaplib.IMAP4.abort) as err:
        raise ImapDown(f"the IMAP server {box.host}:{box.port} dropped the connection: {err}") from None
    finally:
        _close(conn)
    host.invite()
    return host.done


def _one(host: MailHost, conn: imaplib.IMAP4, uid: bytes, key: str, earlier: set[str]) -> list[str]:
    """One message, isolated as a Maildir's are; once it is handled for good, what makes it the
    same message (:func:`_idents`).  One handled under an earlier UIDVALIDITY of the folder
    (``earlier``: the server renumbered it) is filed, never answered again."""
    seen_before = False
    idents: list[str] = []
    try:
        typ, meta = conn.uid("FETCH", uid.decode("ascii"), "(FLAGS RFC822.SIZE)")
        head = b" ".join(part if isinstance(part, bytes) else part[0] for part in meta if part)
        flags = _FLAGS.search(head)
        seen_before = flags is not None and b"\\Seen" in flags.group(1)
        size = _SIZE.search(head)
        if typ != "OK" or size is None:
            raise HostileMail("the server gave no size for the message")
        part = "BODY.PEEK[HEADER]" if int(size.group(1)) > MAIL_LIMIT else "BODY.PEEK[]"  # too large: its headers
        typ, body = conn.uid("FETCH", uid.decode("ascii"), f"({part})")
        data = next((part[1] for part in body if isinstance(part, tuple)), None)
        if typ != "OK" or not isinstance(data, bytes):
            raise HostileMail("the server did not hand over the message")
        idents = _idents(data)
        if earlier.intersection(idents):
            conn.uid("STORE", uid.decode("ascii"), "+FLAGS", "(\\Seen)")
            line = "already handled: the server renumbered the folder (a new UIDVALIDITY); not answered again"
            host.done.append(Processed(key, None, Handled(line), line))
            return idents
        if int(size.group(1)) > MAIL_LIMIT:  # a registered sender is told, with the limit
            raise Unfinished(too_large(), Known(data, None, None, None, None))
        admitted = host.admit(Inbound(data, key), screen=host._admit, parsed=host._stranger)
    except (OSError, imaplib.IMAP4.abort):
        raise  # the connection, not the message: the run stops, the message is read next run
    except Exception as err:  # isolation: no message stops the run
        conn.uid("STORE", uid.decode("ascii"), "+FLAGS", "(\\Seen \\Flagged)")
        host.quarantined(host.queue.path / "imap-quarantine.log", key, err)
        return idents
    conn.uid("STORE", uid.decode("ascii"), "+FLAGS", "(\\Seen)")  # after the replies are spooled
    result = admitted.verdict.result
    if seen_before:  # said, never skipped silently
        result += " (it was seen by another mail client first)"
    host.done.append(Processed(key, admitted.sender, admitted.verdict, result))
    return idents


def _idents(data: bytes) -> list[str]:
    """What makes a fetched message the same message under any UIDVALIDITY: the hash of its
    bytes, and its Message-ID (the same for its headers alone, fetched for a message too large)."""
    found = ["sha256:" + hashlib.sha256(data).hexdigest()]
    with contextlib.suppress(Exception):  # a hostile header: its bytes' hash alone
        found_id = str(BytesHeaderParser(policy=policy.default).parsebytes(header_block(data)).get("Message-ID", ""))
        if found_id.strip() and "\n" not in found_id:
            found.append("id:" + found_id.strip())
    return found


def _validity(conn: imaplib.IMAP4) -> str:
    _name, data = conn.response("UIDVALIDITY")  # the SELECT's [UIDVALIDITY n]
    value = data[0] if data else None
    if not isinstance(value, bytes) or not value.isdigit():
        raise ImapDown("the IMAP server gave no UIDVALIDITY for the folder")
    return value.decode("ascii")


def _quoted(folder: str) -> str:
    return '"' + folder.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _close(conn: imaplib.IMAP4) -> None:
    with contextlib.suppress(OSError, imaplib.IMAP4.error):
        conn.logout()
