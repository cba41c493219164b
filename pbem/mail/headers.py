"""Reading a received message safely: limits on the raw bytes, then its headers, then the parse.

Mail is untrusted input, so the cheap checks come first:
the message's size, its header block's size and lines, the headers pbem reads
(no controls, no undecodable bytes, no broken encoded words, no duplicates),
the mail host's sender check on those headers alone, the MIME structure
counted on the raw bytes, and only then the full parse, whose part count and
depth are checked again.  Any failure is a :class:`HostileMail`, which the mail
host quarantines.
"""

from __future__ import annotations

import codecs
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from email import policy
from email.message import EmailMessage, Message
from email.parser import BytesHeaderParser, BytesParser
from email.utils import getaddresses

from pbem.errors import FormatError
from pbem.i18n import Msg

UTF8: dict[str, str] = {"charset": "utf-8"}
"""The parameter of every text attachment pbem sends: its templates and pages are UTF-8 (Γαλλία),
and a client told no charset reads them as ASCII."""


def shared_part(data: bytes, maintype: str, subtype: str, filename: str, disposition: str | None = None,
                ) -> EmailMessage:
    """An attachment as ``add_attachment`` makes it (MIME-Version, disposition and all), made once for
    several mails: :func:`attach_part` adds it to each (writing a mail reads a part, never changes it)."""
    part = EmailMessage()
    part.set_content(data, maintype=maintype, subtype=subtype, disposition=disposition, filename=filename)
    if "content-disposition" not in part:
        part["Content-Disposition"] = "attachment"
    return part


def attach_part(msg: EmailMessage, part: EmailMessage) -> None:
    """``part`` (:func:`shared_part`) attached as ``add_attachment`` does (the mail made multipart/mixed)."""
    if msg.get_content_maintype() != "multipart" or msg.get_content_subtype() != "mixed":
        msg.make_mixed()
    msg.attach(part)


MAIL_LIMIT = 8 * 1024 * 1024
# Limits checked on the raw bytes, before the MIME parser sees them:
HEADER_LIMIT = 64 * 1024  # the header block
HEADER_LINES = 256
MAX_PARTS = 64  # MIME parts of the whole tree
MAX_DEPTH = 6  # multipart / message nesting
DELIMITER_LINES = 4 * MAX_PARTS  # lines starting with "--" (every MIME delimiter is one)
READ_HEADERS = ("From", "To", "Subject", "Message-ID", "Auto-Submitted", "Precedence", "Content-Type")
_ADDRESS_RE = re.compile(r"^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?\Z")
MSGID_RE = re.compile(r"^<[!-;=?-~]{1,250}>\Z")  # printable ASCII, no '<' or '>' inside


class HostileMail(FormatError):
    """The message itself is unsafe to handle (oversized, a MIME bomb, a header carrying
    controls or undecodable bytes): the mail host quarantines it and never answers it
    as a move."""


def too_large() -> HostileMail:
    """A message over :data:`MAIL_LIMIT`: said with the limit, in words a player can act on
    (a registered sender is told, pbem.mail.host)."""
    return HostileMail(Msg("the message is larger than the {limit} MiB a message may be; send the move alone, "
                           "as plain text or one small attachment, without pictures or other files",
                           limit=MAIL_LIMIT // 1024 // 1024), "P1")


@dataclass(frozen=True)
class Mail:
    """A received message: who sent it, its id, and whether it is an automatic one."""

    message: EmailMessage
    sender: str | None  # the bare From address, or None if there is not exactly one
    message_id: str | None
    subject: str
    to: str | None
    automatic: bool  # a bounce, an auto-reply or a list message: never answered
    answers: tuple[str, ...] = ()  # the Message-IDs it replies to: In-Reply-To's, then References' newest first


Admit = Callable[["Mail"], None]


def parse_mail(data: bytes, admit: Admit | None = None) -> Mail:
    """The message, checked in order of cost: its size, its header block (size, lines,
    the headers pbem reads: no controls, no undecodable bytes, no duplicates), then
    ``admit`` (the mail host's sender check) on the headers alone, then the MIME
    structure counted on the raw bytes, and only then the full parse (part count and
    depth checked again on the tree).  Every failure is a :class:`HostileMail`."""
    if len(data) > MAIL_LIMIT:
        raise too_large()
    head = header_block(data)
    headers = BytesHeaderParser(policy=policy.default).parsebytes(head)
    assert isinstance(headers, EmailMessage)
    mail = _read_headers(headers)
    if admit is not None:
        admit(mail)
    check_structure(data)
    try:
        message = BytesParser(policy=policy.default).parsebytes(data)
    except RecursionError:  # the stdlib parser recurses once per nested MIME part
        raise HostileMail("the message's MIME parts are nested too deeply", "P7") from None
    assert isinstance(message, EmailMessage)
    check_tree(message)
    return Mail(message, mail.sender, mail.message_id, mail.subject, mail.to,
                mail.automatic or message.get_content_type() == "multipart/report", mail.answers)


def header_block(data: bytes) -> bytes:
    """The raw header block (up to the first empty line), capped in size and lines."""
    window = data[: HEADER_LIMIT + 4]
    ends = [i for i in (window.find(b"\r\n\r\n"), window.find(b"\n\n")) if i >= 0]
    if not ends and len(data) > HEADER_LIMIT:
        raise HostileMail(Msg("the message's header block is larger than {kib} KiB", kib=HEADER_LIMIT // 1024))
    head = window[: min(ends)] if ends else data
    if re.search(rb"\r(?!\n)|\x00", head):
        raise HostileMail("the message's header block has a bare CR or a NUL byte")
    if head.count(b"\n") > HEADER_LINES:
        raise HostileMail(Msg.plural("the message has more than {n} header line",
                                     "the message has more than {n} header lines", HEADER_LINES))
    return head + b"\n\n"


def check_structure(data: bytes) -> None:
    """MIME part count and nesting bounded on the raw bytes, before any parsing."""
    delimiters = data.count(b"\n--") + data.startswith(b"--")
    if delimiters > DELIMITER_LINES:
        raise HostileMail(Msg.plural("the message has {n} MIME delimiter line (at most {most}): a MIME bomb",
                                     "the message has {n} MIME delimiter lines (at most {most}): a MIME bomb",
                                     delimiters, most=DELIMITER_LINES))
    containers = len(re.findall(rb"(?i)boundary[ \t]*=", data)) + len(
        re.findall(rb"(?i)content-type:[ \t]*message/", data))
    if containers > MAX_PARTS:
        raise HostileMail(Msg.plural("the message declares {n} nested MIME container: a MIME bomb",
                                     "the message declares {n} nested MIME containers: a MIME bomb", containers))


def check_tree(message: Message) -> None:
    count = 0
    stack: list[tuple[Message, int]] = [(message, 0)]
    while stack:
        part, depth = stack.pop()
        count += 1
        if count > MAX_PARTS:
            raise HostileMail(Msg.plural("the message has more than {n} MIME part",
                                         "the message has more than {n} MIME parts", MAX_PARTS))
        if depth > MAX_DEPTH:
            raise HostileMail(Msg("the message's MIME parts are nested deeper than {most}", most=MAX_DEPTH))
        payload = part.get_payload()
        if isinstance(payload, list):
            stack.extend((child, depth + 1) for child in payload if isinstance(child, Message))


def clean_text(value: str) -> bool:
    """No control characters (CR, LF, NUL...), no line or paragraph separators, and no
    undecodable bytes (the parser's surrogate escapes)."""
    return not any(
        (unicodedata.category(ch) in ("Cc", "Cs", "Zl", "Zp") and ch != "\t") or ch == "\ufffd"
        for ch in value
    )


_ENCODED_WORD = re.compile(r"=\?([^?\s]*)\?([^?\s]*)\?([^?\s]*)\?=")


def encoded_words_ok(raw: str) -> bool:
    """Every RFC 2047 encoded word names a known charset and a B or Q encoding, and a B
    word is whole base64."""
    for charset, encoding, text in _ENCODED_WORD.findall(raw):
        try:
            codecs.lookup(charset.split("*")[0])
        except LookupError:
            return False
        if encoding.upper() == "B":
            if len(text) % 4 or not re.fullmatch(r"[A-Za-z0-9+/]*={0,2}", text):
                return False
        elif encoding.upper() != "Q":
            return False
    return True


def _read_headers(headers: EmailMessage) -> Mail:
    values: dict[str, str] = {}
    wanted = {n.lower() for n in READ_HEADERS}
    for raw_name, raw_value in headers.raw_items():
        if raw_name.lower() in wanted and not encoded_words_ok(str(raw_value)):
            raise HostileMail(Msg("the {name} header has a broken encoded word", name=raw_name))
    for name in READ_HEADERS:
        try:
            found = headers.get_all(name) or []
        except Exception as err:  # the stdlib's header parser gave up on it
            raise HostileMail(Msg("the {name} header cannot be read ({why})", name=name,
                                  why=type(err).__name__)) from None
        if len(found) > 1:
            raise HostileMail(Msg("the message has {count} {name} headers", count=len(found), name=name))
        if not found:
            continue
        value = str(found[0])
        defects = getattr(found[0], "defects", ())
        if not clean_text(value):
            raise HostileMail(Msg("the {name} header carries control characters or undecodable bytes", name=name))
        broken = [type(d).__name__ for d in defects if type(d).__name__ != "ObsoleteHeaderDefect"]
        if broken and name in ("From", "To", "Subject", "Message-ID"):
            raise HostileMail(Msg("the {name} header is malformed ({why})", name=name, why=broken[0]))
        if len(value) > 998:
            raise HostileMail(Msg("the {name} header is longer than 998 characters", name=name))
        values[name] = value
    senders = [a for _n, a in getaddresses([values.get("From", "")]) if a]
    sender = senders[0] if len(senders) == 1 and "@" in senders[0] else None
    raw_id = values.get("Message-ID", "").strip()
    if raw_id and not MSGID_RE.match(raw_id):
        raise HostileMail("the Message-ID header is not a <...> id of printable characters")
    tos = [a for _n, a in getaddresses([values.get("To", "")]) if a]
    auto = values.get("Auto-Submitted", "").strip().lower()
    precedence = values.get("Precedence", "").strip().lower()
    automatic = (
        (auto not in ("", "no"))
        or precedence in ("bulk", "junk", "list")
        or (sender or "").split("@")[0].lower() in ("mailer-daemon", "postmaster")
    )
    return Mail(headers, sender, raw_id or None, values.get("Subject", ""), tos[0] if tos else None,
                automatic, replied_ids(headers))


_ID_IN = re.compile(r"<[!-;=?-~]{1,250}>")
REPLIED_IDS = 32  # the newest ids of a thread that are looked up: a host's mail is among the last few


def replied_ids(headers: Message) -> tuple[str, ...]:
    """The Message-IDs a message answers, read leniently (a thread's References may be long or
    odd, and are only a hint): In-Reply-To's first, then References' from the newest, at most
    :data:`REPLIED_IDS`, each a well-formed ``<...>`` id."""
    out: list[str] = []
    for name in ("In-Reply-To", "References"):
        try:
            raw = " ".join(str(v) for v in headers.get_all(name) or [])
        except Exception:  # a header the stdlib cannot read is no hint
            continue
        found = _ID_IN.findall(raw[:16384])
        out += [i for i in (found if name == "In-Reply-To" else reversed(found)) if i not in out]
    return tuple(out[:REPLIED_IDS])


def checked_address(address: str, what: str) -> str:
    """A bare address safe for a header and an SMTP envelope, or :class:`FormatError`."""
    if not _ADDRESS_RE.match(address) or ".." in address:
        raise FormatError(Msg("{what} {address} is not a plain e-mail address (local@domain)", what=what,
                              address=repr(address)), "P1")
    return address
