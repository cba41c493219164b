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

import re
from dataclasses import dataclass
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser
from email.utils import getaddresses

from pbem.errors import FormatError
from pbem.moves import Move, parse_move

MAIL_LIMIT = 8 * 1024 * 1024
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


def parse_mail(data: bytes) -> Mail:
    if len(data) > MAIL_LIMIT:
        raise FormatError(f"the message is larger than the {MAIL_LIMIT // 1024 // 1024} MiB allowed")
    try:
        message = BytesParser(policy=policy.default).parsebytes(data)
    except RecursionError:  # the stdlib parser recurses once per nested MIME part
        raise FormatError("the message's MIME parts are nested too deeply", "P7") from None
    assert isinstance(message, EmailMessage)
    senders = [a for _n, a in getaddresses([_header(message, "From")]) if a]
    sender = senders[0] if len(senders) == 1 and "@" in senders[0] else None
    message_id = "".join(_header(message, "Message-ID").split()) or None
    tos = [a for _n, a in getaddresses([_header(message, "To")]) if a]
    auto = _header(message, "Auto-Submitted").strip().lower()
    precedence = _header(message, "Precedence").strip().lower()
    automatic = (
        (auto not in ("", "no"))
        or precedence in ("bulk", "junk", "list")
        or message.get_content_type() == "multipart/report"
        or (sender or "").split("@")[0].lower() in ("mailer-daemon", "postmaster")
    )
    return Mail(message, sender, message_id, _header(message, "Subject"), tos[0] if tos else None, automatic)


def _header(message: EmailMessage, name: str) -> str:
    try:
        value = message.get(name)
    except Exception:  # a malformed header: treat as absent
        return ""
    return "" if value is None else str(value)


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
        raise FormatError(
            "no move found in the message: attach the move file (.yaml), or paste it unquoted "
            "into the text, starting with its 'game:' line", "P7",
        )
    return parse_move(block.encode("utf-8"), "move in the message text"), "the message text"


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
    for line in _join_broken_base64(lines[start:]):
        stripped = line.strip()
        if line in ("-- ", "--") or line.startswith(">") or stripped in ("---", "...") or stripped.startswith("```"):
            break
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
