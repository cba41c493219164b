"""The characters a text in a move or a log may hold (PROTOCOL.md P2), and how a refusal names one.

Printable Unicode only: no C0 or C1 control, DEL, line or paragraph separator, lone surrogate
or noncharacter, in any string or key; a ``comment`` may hold tab and line breaks, and is at
most :data:`COMMENT_LIMIT` characters.  :func:`check_source` refuses such a character written
raw in YAML source (naming its line), :func:`check_text` one a document holds after loading
(escapes included), and :data:`BAD_RAW_IN_JSON` is what pbem's own log writer must never meet.
Each refusal names the character as :func:`char_name` says it (``U+0085 (C1 control character)``).
"""

from __future__ import annotations

import re
from typing import Any

from pbem.errors import FormatError
from pbem.i18n import N_, Msg

COMMENT_FIELD = "comment"
COMMENT_LIMIT = 1000  # characters (P2)

# Regex class bodies (as regex escapes, not raw characters) of what P2 does not admit.
_NONCHARACTERS = r"\ufdd0-\ufdef" + "".join(
    rf"\U{plane:04x}fffe\U{plane:04x}ffff" for plane in range(17)
)
_OTHER_BAD = r"\x7f-\x9f\u2028\u2029\ud800-\udfff" + _NONCHARACTERS  # DEL, C1, separators, ...


class _Refused:
    """A character class of what P2 refuses, searched as ``re.Pattern.search`` would.

    For start-up speed: compiling the whole class (its ranges reach every plane) is slow,
    and ``pbem apply`` needs four of them for text that is nearly always
    ASCII.  ASCII text is searched for the class's ASCII part (the controls given and
    DEL), the same matches; the whole class is compiled the first time other text comes."""

    __slots__ = ("_ascii", "_body", "_whole")

    def __init__(self, controls: str) -> None:
        self._ascii = re.compile(f"[{controls}\\x7f]")
        self._body = f"[{controls}{_OTHER_BAD}]"
        self._whole: re.Pattern[str] | None = None

    def search(self, text: str) -> re.Match[str] | None:
        if text.isascii():
            return self._ascii.search(text)
        if self._whole is None:
            self._whole = re.compile(self._body)
        return self._whole.search(text)


_BAD_IN_COMMENT = _Refused(r"\x00-\x08\x0b-\x1f")
"""P2: what no text admits; a comment may hold tab and newline."""
_BAD_IN_TEXT = _Refused(r"\x00-\x1f")
"""P2: what no other text field admits (no line breaks: ``"00ff\\n"`` is not hex)."""
_BAD_IN_SOURCE = _Refused(r"\x00-\x08\x0b\x0c\x0e-\x1f")
"""P2: what YAML source may not hold raw (tab, line feed and carriage return are its own)."""


BAD_RAW_IN_JSON = _Refused("")
"""P2: what json.dumps(ensure_ascii=False) would write raw (it escapes C0 controls)."""


def char_name(char: str) -> str:
    """``U+0085 (C1 control character)``: one character as a refusal names it (a :class:`Msg`)."""
    code = ord(char)
    if code < 0x20:
        kind = {0x09: N_("{code} (tab)"), 0x0A: N_("{code} (line break)"),
                0x0D: N_("{code} (carriage return)")}.get(code, N_("{code} (C0 control character)"))
    elif code == 0x7F:
        kind = N_("{code} (DEL)")
    elif code <= 0x9F:
        kind = N_("{code} (C1 control character)")
    elif code in (0x2028, 0x2029):
        kind = N_("{code} (line/paragraph separator)")
    else:
        kind = N_("{code} (lone surrogate)") if 0xD800 <= code <= 0xDFFF else N_("{code} (noncharacter)")
    return Msg(kind, code=f"U+{code:04X}")


def check_text(value: Any, what: str, where: str = "") -> None:
    """Refuse text that is not printable Unicode, in any string or key (P2).

    Tab and line breaks are admitted only in a ``comment`` field, which is at most
    :data:`COMMENT_LIMIT` characters.  ``value`` has passed :func:`check_plain`."""
    if isinstance(value, str):
        comment = where == COMMENT_FIELD or where.endswith("." + COMMENT_FIELD)
        bad = (_BAD_IN_COMMENT if comment else _BAD_IN_TEXT).search(value)
        if bad is not None:
            at = where or Msg("(top level)")
            said = (N_("{what}: at {where}: the character {char} is not allowed: text admits printable Unicode "
                       "only; tab and line breaks are allowed only in a comment") if bad.group() in "\t\n" else
                    N_("{what}: at {where}: the character {char} is not allowed: text admits printable Unicode only"))
            raise FormatError(Msg(said, what=what, where=at, char=char_name(bad.group())), "P2")
        if comment and len(value) > (most := COMMENT_LIMIT):
            raise FormatError(Msg.plural("{what}: at {where}: the comment is {n} character long; at most {limit} are "
                                         "allowed", "{what}: at {where}: the comment is {n} characters long; at most "
                                         "{limit} are allowed", len(value), what=what, where=where, limit=most), "P2")
    elif isinstance(value, list):
        for i, item in enumerate(value):
            check_text(item, what, f"{where}[{i}]")
    elif isinstance(value, dict):
        for key, item in value.items():
            check_text(key, what, f"{where} (a key)" if where else "(a key)")  # keys: no comment
            check_text(item, what, f"{where}.{key}" if where else key)


def check_source(text: str, what: str) -> None:
    """Refuse a non-printable character written raw in YAML source (P2), naming its line.

    Tab, line feed and carriage return are YAML's own; escapes are checked after
    loading, by :func:`check_text`."""
    bad = _BAD_IN_SOURCE.search(text)
    if bad is not None:
        line = text.count("\n", 0, bad.start()) + 1
        column = bad.start() - (text.rfind("\n", 0, bad.start()) + 1) + 1
        raise FormatError(Msg("{what}: line {line}, column {column}: the character {char} is not allowed: text "
                              "admits printable Unicode only", what=what, line=line, column=column,
                              char=char_name(bad.group())), "P2")
