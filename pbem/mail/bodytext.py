"""A message's plain text as its writer meant it (RFC 5322, MIME, RFC 3676).

The ``text/plain`` body (of a ``multipart/alternative``, the plain copy, never HTML), its
transfer encoding and charset undone by the stdlib ``email`` package, its line endings made
``\n``, and ``format=flowed`` text unflowed and unstuffed: what a move (:mod:`pbem.mail.message`),
a mail command (:mod:`pbem.mail.commands`) or a lobby wish (:mod:`pbem.mail.lobby`) is read from.
"""

from __future__ import annotations

from email.message import EmailMessage


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
