"""A move out of an e-mail message as real mail clients write it (RFC 5322, MIME).

The move is the message's YAML attachment (``.yaml``/``.yml``, or a YAML
media type), or else a YAML block in its plain-text body.  Mail is messy, so
the body is cleaned before the block is cut out of it:

* transfer encodings (quoted-printable, base64) and charsets are undone by the
  stdlib ``email`` package (``policy=email.policy.default``);
* of a ``multipart/alternative``, the ``text/plain`` copy is read (never HTML);
* ``format=flowed`` text (RFC 3676) is unflowed and unstuffed;
* Windows line endings and no-break spaces become plain ones;
* the block runs from the first top-level move key (``game:``, ``player:``...)
  and stops at a quoted reply line (``>``), a signature separator (``-- ``), a
  YAML document marker, a Markdown fence or the first line that cannot belong
  to the move (``On ... wrote:``);
* a base64 ``signature:`` or ``key:`` value that a mail client broke across
  lines is joined again.

The move is then parsed and checked exactly like a move file; signatures are
checked over the parsed move (P8), never over the message's bytes.
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
from pbem.log.moves import Move, parse_move

MAIL_LIMIT = 8 * 1024 * 1024
# Limits checked on the raw bytes, before the MIME parser sees them (issue 10, item 3):
HEADER_LIMIT = 64 * 1024  # the header block
HEADER_LINES = 256
MAX_PARTS = 64  # MIME parts of the whole tree
MAX_DEPTH = 6  # multipart / message nesting
DELIMITER_LINES = 4 * MAX_PARTS  # lines starting with "--" (every MIME delimiter is one)
DECODED_LIMIT = MAIL_LIMIT  # a part's decoded bytes
READ_HEADERS = ("From", "To", "Subject", "Message-ID", "Auto-Submitted", "Precedence", "Content-Type")
MSGID_RE = re.compile(r"^<[!-;=?-~]{1,250}>\Z")  # printable ASCII, no '<' or '>' inside


class HostileMail(FormatError):
    """The message itself is unsafe to handle (oversized, a MIME bomb, a header carrying
    controls or undecodable bytes): the mail host quarantines it and never answers it
    as a move."""
YAML_TYPES = frozenset({"text/yaml", "text/x-yaml", "application/yaml", "application/x-yaml"})
YAML_SUFFIXES = (".yaml", ".yml")
MOVE_KEYS = ("game", "player", "kind", "after", "actions", "nonce", "nonce_commitment", "key", "comment", "signature")
_KEY_LINE = re.compile(r"^(?:" + "|".join(MOVE_KEYS) + r")[ \t]*:(?:[ \t]|$)")
_HEADER_LINE = re.compile(r"^[!-9;-~]+[ \t]*:")
_MAIL_HEADERS = frozenset({
    "date", "message-id", "subject", "to", "mime-version", "received", "return-path",
    "delivered-to", "content-type",
})
_B64_START = re.compile(r'^((?:signature|key)[ \t]*:[ \t]*"?)([A-Za-z0-9+/:=]+)"?$')
_B64_MORE = re.compile(r'^[ \t]*([A-Za-z0-9+/=]+)("?)[ \t]*$')


@dataclass(frozen=True)
class Mail:
    """A received message: who sent it, its id, and whether it is an automatic one."""

    message: EmailMessage
    sender: str | None  # the bare From address, or None if there is not exactly one
    message_id: str | None
    subject: str
    to: str | None
    automatic: bool  # a bounce, an auto-reply or a list message: never answered


def looks_like_mail(name: str, head: bytes) -> bool:
    """True for ``*.eml`` or a file that starts with an RFC 5322 header block with From:."""
    if name.lower().endswith(".eml"):
        return True
    text = head[:16384].decode("latin-1").replace("\r\n", "\n")
    lines = text.split("\n")
    if lines and lines[0].startswith("From "):  # an mbox separator line
        lines = lines[1:]
    names: set[str] = set()
    for index, line in enumerate(lines):
        if line == "":
            break
        if line[:1] in (" ", "\t") and index:
            continue
        if not _HEADER_LINE.match(line):
            return False
        names.add(line.split(":", 1)[0].strip().lower())
    else:
        return False
    return "from" in names and bool(names & _MAIL_HEADERS)


Admit = Callable[["Mail"], None]


def parse_mail(data: bytes, admit: Admit | None = None) -> Mail:
    """The message, checked in order of cost: its size, its header block (size, lines,
    the headers pbem reads: no controls, no undecodable bytes, no duplicates), then
    ``admit`` (the mail host's sender check) on the headers alone, then the MIME
    structure counted on the raw bytes, and only then the full parse (part count and
    depth checked again on the tree).  Every failure is a :class:`HostileMail`."""
    if len(data) > MAIL_LIMIT:
        raise HostileMail(f"the message is larger than the {MAIL_LIMIT // 1024 // 1024} MiB allowed")
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
                mail.automatic or message.get_content_type() == "multipart/report")


def header_block(data: bytes) -> bytes:
    """The raw header block (up to the first empty line), capped in size and lines."""
    window = data[: HEADER_LIMIT + 4]
    ends = [i for i in (window.find(b"\r\n\r\n"), window.find(b"\n\n")) if i >= 0]
    if not ends and len(data) > HEADER_LIMIT:
        raise HostileMail(f"the message's header block is larger than {HEADER_LIMIT // 1024} KiB")
    head = window[: min(ends)] if ends else data
    if re.search(rb"\r(?!\n)|\x00", head):
        raise HostileMail("the message's header block has a bare CR or a NUL byte")
    if head.count(b"\n") > HEADER_LINES:
        raise HostileMail(f"the message has more than {HEADER_LINES} header lines")
    return head + b"\n\n"


def check_structure(data: bytes) -> None:
    """MIME part count and nesting bounded on the raw bytes, before any parsing."""
    delimiters = data.count(b"\n--") + data.startswith(b"--")
    if delimiters > DELIMITER_LINES:
        raise HostileMail(f"the message has {delimiters} MIME delimiter lines (at most "
                          f"{DELIMITER_LINES}): a MIME bomb")
    containers = len(re.findall(rb"(?i)boundary[ \t]*=", data)) + len(
        re.findall(rb"(?i)content-type:[ \t]*message/", data))
    if containers > MAX_PARTS:
        raise HostileMail(f"the message declares {containers} nested MIME containers: a MIME bomb")


def check_tree(message: Message) -> None:
    count = 0
    stack: list[tuple[Message, int]] = [(message, 0)]
    while stack:
        part, depth = stack.pop()
        count += 1
        if count > MAX_PARTS:
            raise HostileMail(f"the message has more than {MAX_PARTS} MIME parts")
        if depth > MAX_DEPTH:
            raise HostileMail(f"the message's MIME parts are nested deeper than {MAX_DEPTH}")
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
            raise HostileMail(f"the {raw_name} header has a broken encoded word")
    for name in READ_HEADERS:
        try:
            found = headers.get_all(name) or []
        except Exception as err:  # the stdlib's header parser gave up on it
            raise HostileMail(f"the {name} header cannot be read ({type(err).__name__})") from None
        if len(found) > 1:
            raise HostileMail(f"the message has {len(found)} {name} headers")
        if not found:
            continue
        value = str(found[0])
        defects = getattr(found[0], "defects", ())
        if not clean_text(value):
            raise HostileMail(f"the {name} header carries control characters or undecodable bytes")
        broken = [type(d).__name__ for d in defects if type(d).__name__ != "ObsoleteHeaderDefect"]
        if broken and name in ("From", "To", "Subject", "Message-ID"):
            raise HostileMail(f"the {name} header is malformed ({broken[0]})")
        if len(value) > 998:
            raise HostileMail(f"the {name} header is longer than 998 characters")
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
                automatic)


def mail_move(mail: Mail) -> tuple[Move, str]:
    """The move a message carries, and where it was found (for messages to people)."""
    attachments = _yaml_attachments(mail.message)
    if len(attachments) > 1:
        attachments = [(n, t) for n, t in attachments if n.lower() != "log.yaml"]
    if len(attachments) > 1:
        names = ", ".join(n for n, _t in attachments)
        raise FormatError(f"the message has {len(attachments)} YAML attachments ({names}); send one move", "P7")
    if attachments:
        name, text = attachments[0]
        where = f"attachment {name}"
        return parse_move(text.encode("utf-8"), f"move in {where}"), where
    body = body_text(mail.message)
    if body is None:
        raise FormatError(
            "the message has no YAML attachment and no readable plain-text body: attach the move file "
            "(.yaml), or paste it into a plain-text message", "P7",
        )
    block = yaml_block(body)
    if block is None:
        quoted = dequote(body)
        if quoted is not None and yaml_block(quoted) is not None:
            return quoted_move(quoted)
        raise FormatError(
            "no move found in the message: attach the move file (.yaml), or paste it unquoted "
            "into the text, starting with its 'game:' line", "P7",
        )
    return parse_move(block.encode("utf-8"), "move in the message text"), "the message text"


_WROTE = re.compile(r"^(?:On\b.*|.*\bwrote:|-+ ?Original Message ?-+)\s*$", re.IGNORECASE)


def dequote(text: str) -> str | None:
    """The quoted part of a reply with its ``>`` prefixes taken off (every level), the
    client's "On ... wrote:" line dropped; None if nothing is quoted."""
    out: list[str] = []
    for line in text.replace("\r\n", "\n").split("\n"):
        if not line.startswith(">"):
            continue
        while line.startswith(">"):
            line = line[1:]
            if line.startswith(" "):
                line = line[1:]
        if _WROTE.match(line):
            continue
        out.append(line)
    return "\n".join(out) if out else None


def quoted_move(quoted: str) -> tuple[Move, str]:
    """A move edited inside a quoted reply: accepted when exactly one complete move can
    be read there; otherwise the refusal says how to send it."""
    moves: list[Move] = []
    last: FormatError | None = None
    for block in yaml_blocks(quoted):
        try:
            moves.append(parse_move(block.encode("utf-8"), "move in the quoted reply"))
        except FormatError as err:
            last = err
    if len(moves) == 1:
        return moves[0], "the quoted reply"
    how = ("reply with the move file attached (.yaml), or paste the move once, unquoted, "
           "starting with its 'game:' line")
    if moves:
        raise FormatError(f"the quoted reply holds {len(moves)} moves, not one: {how}", "P7")
    raise FormatError(f"no complete move could be read in the quoted reply ({last}): {how}", "P7")


def yaml_blocks(text: str) -> list[str]:
    """Every move block of a text (see :func:`yaml_block`), in order."""
    blocks: list[str] = []
    lines = text.split("\n")
    while True:
        block = yaml_block("\n".join(lines))
        if block is None:
            return blocks
        blocks.append(block)
        start = next(i for i, ln in enumerate(lines) if _KEY_LINE.match(ln.replace("\u00a0", " ")))
        lines = lines[start + max(1, block.count("\n")):]


def _yaml_attachments(message: EmailMessage) -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    for part in message.walk():
        if part.is_multipart():
            continue
        filename = part.get_filename() or ""
        ctype = part.get_content_type()
        if not (filename.lower().endswith(YAML_SUFFIXES) or ctype in YAML_TYPES):
            continue
        payload = part.get_payload(decode=True)
        raw = payload if isinstance(payload, bytes) else b""
        if len(raw) > DECODED_LIMIT:
            raise HostileMail(f"attachment {filename or ctype} decodes to more than "
                              f"{DECODED_LIMIT // 1024 // 1024} MiB")
        charset = part.get_content_charset() or "utf-8"
        try:
            text = raw.decode(charset)
        except (LookupError, UnicodeDecodeError):
            raise FormatError(
                f"attachment {filename or ctype} is not {charset} text", "P2"
            ) from None
        found.append((filename or f"({ctype})", text.lstrip("\ufeff")))
    return found


def body_text(message: EmailMessage) -> str | None:
    """The plain-text body, decoded and unflowed; None if there is none."""
    part = message.get_body(preferencelist=("plain",))
    if part is None or not isinstance(part, EmailMessage):
        return None
    try:
        text = part.get_content()
    except (LookupError, UnicodeDecodeError, AssertionError):
        return None
    if not isinstance(text, str):
        return None
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if str(part.get_param("format", "")).lower() == "flowed":
        text = unflow(text, str(part.get_param("delsp", "no")).lower() == "yes")
    return text


def unflow(text: str, delsp: bool = False) -> str:
    """RFC 3676: join soft-broken lines (ending in a space), undo space-stuffing."""
    out: list[str] = []
    pending: tuple[int, str] | None = None
    for line in text.split("\n"):
        depth = len(line) - len(line.lstrip(">"))
        content = line[depth:]
        if content.startswith(" "):
            content = content[1:]
        flowed = content.endswith(" ") and content != "-- "
        if flowed and delsp:
            content = content[:-1]
        if pending is not None and pending[0] == depth:
            content = pending[1] + content
        elif pending is not None:
            out.append(">" * pending[0] + pending[1])
        pending = None
        if flowed:
            pending = (depth, content)
        else:
            out.append(">" * depth + (" " if depth and content else "") + content)
    if pending is not None:
        out.append(">" * pending[0] + pending[1])
    return "\n".join(out)


def yaml_block(text: str) -> str | None:
    """The move's YAML lines out of a message text (see the module's docstring)."""
    lines = [ln.replace("\u00a0", " ").rstrip("\r") for ln in text.replace("\r\n", "\n").split("\n")]
    start = next((i for i, ln in enumerate(lines) if _KEY_LINE.match(ln)), None)
    if start is None:
        return None
    block: list[str] = []
    keys: set[str] = set()
    for line in _join_broken_base64(lines[start:]):
        stripped = line.strip()
        if line in ("-- ", "--") or line.startswith(">") or stripped in ("---", "...") or stripped.startswith("```"):
            break
        if _KEY_LINE.match(line):
            key = line.split(":", 1)[0].strip()
            if key in keys:  # a second move starts here
                break
            keys.add(key)
        if (
            _KEY_LINE.match(line)
            or line[:1] in (" ", "\t")
            or line.startswith(("- ", "#"))
            or stripped in ("", "-")
        ):
            block.append(line)
            continue
        break
    while block and (not block[-1].strip() or block[-1].lstrip().startswith("#")):
        block.pop()
    return "\n".join(block) + "\n"


def _join_broken_base64(lines: list[str]) -> list[str]:
    """``signature: "AAAA`` / ``BBBB=="`` (a client's hard wrap) -> one line again."""
    out: list[str] = []
    index = 0
    while index < len(lines):
        line = lines[index].rstrip()
        start = _B64_START.match(line)
        if start is not None:
            field, value = start.group(1), start.group(2)
            full = 88 if field.startswith("signature") else 52
            quoted = field.endswith('"')
            while len(value) < full and index + 1 < len(lines):
                more = _B64_MORE.match(lines[index + 1])
                if more is None or _KEY_LINE.match(lines[index + 1]):
                    break
                value += more.group(1)
                index += 1
                if more.group(2):
                    break
            closing = '"' if quoted and not value.endswith('"') else ""
            line = field + value + closing
        out.append(line)
        index += 1
    return out
