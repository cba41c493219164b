"""A move out of an e-mail message as real mail clients write it (RFC 5322, MIME).

The move is the message's attachment (``.txt``, ``.yaml``/``.yml``, or a YAML
media type), or else its plain-text body: a move in the notation (one action a
line, :mod:`pbem.log.notation`) or a YAML block.  Mail is messy, so the body is
cleaned before the move is read out of it:

* transfer encodings (quoted-printable, base64) and charsets are undone by the
  stdlib ``email`` package (``policy=email.policy.default``);
* of a ``multipart/alternative``, the ``text/plain`` copy is read (never HTML);
* ``format=flowed`` text (RFC 3676) is unflowed and unstuffed (:mod:`pbem.mail.bodytext`);
* Windows line endings and no-break spaces become plain ones;
* the block runs from the first top-level move key (``game:``, ``player:``...)
  and stops at a quoted reply line (``>``), a signature separator (``-- ``), a
  YAML document marker, a Markdown fence or the first line that cannot belong
  to the move (``On ... wrote:``);
* a base64 ``signature:`` or ``key:`` value that a mail client broke across
  lines is joined again.

A move is read whole or refused whole (R7.3): a line after its start that is not
a move line (a wrapped line's tail, a cut paste) refuses it, naming the line; it is
never applied in part.  The move is then checked exactly like a move file; signatures are
checked over the parsed move (P8), never over the message's bytes.  Reading
the message safely before any of this is :mod:`pbem.mail.headers`'s.
"""

from __future__ import annotations

import re
from email.message import EmailMessage

from pbem.errors import FormatError
from pbem.i18n import N_, Msg
from pbem.log.moves import parse_move
from pbem.log.notation import NotationError, first_move_line, is_notation, parse
from pbem.log.records.sent import MoveFile
from pbem.mail.bodytext import body_text
from pbem.mail.headers import MAIL_LIMIT, HostileMail, Mail
from pbem.rules.data import CLASSES

DECODED_LIMIT = MAIL_LIMIT  # a part's decoded bytes
YAML_TYPES = frozenset({"text/yaml", "text/x-yaml", "application/yaml", "application/x-yaml"})
YAML_SUFFIXES = (".yaml", ".yml")
MOVE_SUFFIXES = (*YAML_SUFFIXES, ".txt")
MOVE_KEYS = ("game", "player", "kind", "after", "actions", "nonce", "nonce_commitment", "key", "comment", "signature")
_KEY_LINE = re.compile(r"^(?:" + "|".join(MOVE_KEYS) + r")[ \t]*:(?:[ \t]|$)")
_HEADER_LINE = re.compile(r"^[!-9;-~]+[ \t]*:")
_MAIL_HEADERS = frozenset({
    "date", "message-id", "subject", "to", "mime-version", "received", "return-path",
    "delivered-to", "content-type",
})
_B64_START = re.compile(r'^((?:signature|key)[ \t]*:[ \t]*"?)([A-Za-z0-9+/:=]+)"?$')
_B64_MORE = re.compile(r'^[ \t]*([A-Za-z0-9+/=]+)("?)[ \t]*$')
_TEXT, _QUOTED = Msg("the message text"), Msg("the quoted reply")  # where a move was read (refusals name it)


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


def mail_move(mail: Mail, thread: dict[str, object] | None = None) -> tuple[MoveFile, str]:
    """The move a message carries, and where it was found (for messages to people).

    A YAML or ``.txt`` attachment, else the plain-text body: a move in the notation
    (:mod:`pbem.log.notation`) or a YAML block; where the body's own lines hold none, the
    quoted reply.  A move without its header lines takes them from the host's mail it answers:
    ``thread`` (:mod:`pbem.mail.threads`), else the quoted template's.  Read whole or not at all (R7.3)."""
    attachments = _move_attachments(mail.message)
    if len(attachments) > 1:
        attachments = [(n, t) for n, t in attachments if n.lower() != "log.yaml"]
    if len(attachments) > 1:
        names, many = ", ".join(n for n, _t in attachments), len(attachments)
        raise FormatError(Msg.plural("the message has {n} move attachment ({names}); send one move", "the message has "
                                     "{n} move attachments ({names}); send one move", many, names=names), "P2")
    if attachments:
        name, text = attachments[0]
        where = Msg("attachment {name}", name=name)
        return parse_move(text.encode("utf-8"), Msg("move in {where}", where=where), thread), where
    body = body_text(mail.message)
    if body is None:
        raise FormatError(Msg(
            "the message has no move attachment and no readable plain-text body: write the move in "
            "a plain-text message, one action a line, or attach the move file (.txt or .yaml)"), "P2")
    own, quoted = own_lines(body), dequote(body)
    context = thread or (header_of(quoted) if quoted is not None else {})
    found = text_move(own, _TEXT, context)
    if found is not None:
        return found, _TEXT
    block = yaml_block(body)
    if block is None and quoted is not None:
        moved = text_move(quoted.split("\n"), _QUOTED, thread or {})
        if moved is not None:
            return moved, _QUOTED
        if yaml_block(quoted) is not None:
            return quoted_move(quoted)
    if block is None:
        raise FormatError(Msg(
            "no move found in the message: write it in the text, one action a line (as the template "
            "shows; 'pbem rules notation'), or attach the move file"), "P2")
    _nothing_after(body, block)
    return parse_move(block.encode("utf-8"), Msg("move in {where}", where=_TEXT)), _TEXT


def own_lines(body: str) -> list[str]:
    """The message's own lines, before its signature separator: the quoted lines (and the
    client's "On ... wrote:") left out, so a move written above, below or between the lines
    of the quoted template is read the same."""
    out: list[str] = []
    for line in body.replace("\r\n", "\n").split("\n"):
        if line in ("-- ", "--"):
            break
        if not (line.startswith(">") or _WROTE.match(line)):
            out.append(line)
    return out


def move_lines(lines: list[str]) -> list[bool]:
    """Which of a mail's lines are move lines: those that start with a keyword, except a
    sentence inside a paragraph of prose (five words or more, not a move line on its own,
    next to a line of prose), as a client that wraps prose at 72 columns makes when a line
    happens to begin with 'plague' or 'take'.  A short damaged line stays a move line, so
    a wrapped or cut move is still refused whole (R7.3)."""
    candidate = [first_move_line([line]) is not None for line in lines]

    def prose(index: int) -> bool:
        return 0 <= index < len(lines) and bool(lines[index].strip()) and not candidate[index]

    out = []
    for index, line in enumerate(lines):
        sentence = candidate[index] and len(line.split()) >= 5 and (prose(index - 1) or prose(index + 1))
        out.append(candidate[index] and not (sentence and not is_move_line(line)))  # a sentence: prose
    return out


def is_move_line(line: str) -> bool:
    """Does ``line`` read as one move line on its own (a card taken is one of R5's six)?"""
    try:
        actions = parse(line).get("actions", [])
    except NotationError:
        return False
    return all(a.get("card", "peasant") in CLASSES for a in actions)


def text_move(lines: list[str], where: str, context: dict[str, object]) -> MoveFile | None:
    """The notation move in ``lines``, or None if they hold no move line.

    The move starts at the first move line (:func:`move_lines`; a greeting before it is not
    the move) and runs to the first line after a blank line that is not a move line (a
    sign-off).  A line that is not a move line *right after* a move line is a damaged move
    (a wrapped or half-pasted line), and a move line after the sign-off a second block: both
    refuse the whole move, naming the line; it is never applied in part (R7.3)."""
    is_move = move_lines(lines)
    start = next((i for i, yes in enumerate(is_move) if yes), None)
    if start is None or not is_notation("\n".join(lines[start:])):
        return None
    end, blank = len(lines), False
    for index in range(start, len(lines)):
        body = lines[index].split("#", 1)[0].strip()
        if not body:
            blank = blank or not lines[index].strip()
            continue
        if blank and not (is_move[index] and is_move_line(lines[index])):  # a sign-off ('take care')
            end = index
            break
        blank = False
    if any(yes and is_move_line(line) for yes, line in zip(is_move[end:], lines[end:], strict=True)):
        raise FormatError(Msg("the {where} holds move lines on both sides of {line}: write the move as one block of "
                              "lines; nothing was applied", where=where, line=repr(lines[end].strip()[:60])), "R7.3")
    text = "\n".join(lines[start:end]).strip("\n") + "\n"
    return parse_move(text.encode("utf-8"), Msg("move in {where}", where=where), context)


def header_of(quoted: str) -> dict[str, object]:
    """The header lines (``game``, ``after``) of the host's mail a reply quotes, if any: a
    move written below a quoted template answers the entry that template was written for."""
    found: dict[str, object] = {}
    for line in quoted.split("\n"):
        words = line.split()
        if len(words) == 3 and words[0] == "game":
            found.setdefault("game", words[1])
            found.setdefault("player", words[2])
        elif len(words) == 3 and words[0] == "after" and words[1].isdigit():
            found.setdefault("after", {"seq": int(words[1]), "hash": words[2]})
    return found if {"game", "player", "after"} <= set(found) else {}


def _nothing_after(body: str, block: str) -> None:
    """Never a prefix (R7.3): the line right after a YAML move block must be blank (a
    sign-off may follow a blank line); a line there that cannot belong to the move means
    the move was broken (a wrapped line) or cut, and the whole move is refused, naming it."""
    norm = _join_broken_base64([ln.replace("\u00a0", " ").rstrip("\r") for ln in own_lines(body)])
    first = block.split("\n", 1)[0]
    start = next((i for i, ln in enumerate(norm) if ln == first), None)
    if start is None:
        return
    rest = [ln for ln in norm[start + block.rstrip("\n").count("\n") + 1:] if not ln.lstrip().startswith("#")]
    if rest and rest[0].strip():
        raise FormatError(Msg(
            "the move in the message text is followed by {line}, which is not part of a move: a mail client may "
            "have wrapped a long line. Nothing was applied: the move is read whole or not at all. Send the move "
            "alone in the message, or attach it as a file", line=repr(rest[0].strip()[:60])), "R7.3")


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


def quoted_move(quoted: str) -> tuple[MoveFile, str]:
    """A move edited inside a quoted reply: accepted when exactly one complete move can
    be read there; otherwise the refusal says how to send it."""
    moves: list[MoveFile] = []
    last: FormatError | None = None
    for block in yaml_blocks(quoted):
        try:
            moves.append(parse_move(block.encode("utf-8"), Msg("move in {where}", where=_QUOTED)))
        except FormatError as err:
            last = err
    if len(moves) == 1:
        return moves[0], _QUOTED
    how = Msg("reply with the move file attached (.yaml), or paste the move once, unquoted, "
              "starting with its 'game:' line")
    if moves:
        raise FormatError(Msg("the quoted reply holds more than one move: {how}", how=how), "P2")
    raise FormatError(Msg("no complete move could be read in the quoted reply ({problem}): {how}",
                          problem=_refusal(last), how=how), "P2")


def _refusal(err: FormatError | None) -> str:  # a refusal in another's sentence, as str(err), in the language
    said = N_("{label} ({rule}): {words}") if err is not None and err.rule else N_("{label}: {words}")
    return "None" if err is None else Msg(said, label=Msg(err.label), rule=err.rule, words=err.words)


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


def _move_attachments(message: EmailMessage) -> list[tuple[str, str]]:
    """The message's attached move files: YAML (by name or media type) or ``.txt``."""
    found: list[tuple[str, str]] = []
    for part in message.walk():
        if part.is_multipart():
            continue
        filename = part.get_filename() or ""
        ctype = part.get_content_type()
        if not (filename.lower().endswith(MOVE_SUFFIXES) or ctype in YAML_TYPES):
            continue
        payload = part.get_payload(decode=True)
        raw = payload if isinstance(payload, bytes) else b""
        if len(raw) > DECODED_LIMIT:
            raise HostileMail(Msg("attachment {name} decodes to more than {mib} MiB", name=filename or ctype,
                                  mib=DECODED_LIMIT // 1024 // 1024))
        charset = part.get_content_charset() or "utf-8"
        try:
            text = raw.decode(charset)
        except (LookupError, UnicodeDecodeError):
            raise FormatError(Msg("attachment {name} is not {charset} text", name=filename or ctype, charset=charset),
                              "P2") from None
        found.append((filename or f"({ctype})", text.lstrip("\ufeff")))
    return found


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
