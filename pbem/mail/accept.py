"""The sender of a received message checked against its move (P8 notes), and what a
refusal says to the sender; the admission path that uses them is :mod:`pbem.mail.admission`."""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from email.message import EmailMessage
from typing import Any

from pbem.errors import PbemError, SenderError
from pbem.mail.headers import Mail
from pbem.views.rulesref import sentence

Send = Callable[[EmailMessage], None]
_log = logging.getLogger("pbem.mail.host")






def check_sender(settings: Any, mail: Mail, move: Any, where: str) -> None:
    """The sender of a game that lists addresses must be an address of the move's seat."""
    if mail.sender is None:
        raise SenderError("the message has no single From address to check", "P1")
    players = settings.players_of(mail.sender)
    if not players:
        raise SenderError(
            f"{mail.sender} is not the address of any player of game {move.game!r}; "
            "nothing was changed", "P1",
        )
    if move.player not in players:
        raise SenderError(
            f"this message comes from {mail.sender}, the address of {', '.join(players)}, "
            f"but the move ({where}) is {move.player}'s; nothing was changed", "P1",
        )


_ALREADY = re.compile(r"already applied, as entry (\d+)")


def refused_text(err: PbemError) -> str:
    done = _ALREADY.search(err.message)
    if done is not None:  # a duplicate: the move is in, and this copy changed nothing
        return (f"Your move was already applied, as entry {done.group(1)}; this copy of it changed "
                f"nothing.\n\npbem: {public_text(str(err))}\n")
    quote = sentence(err.rule) if err.rule else None  # the rule's own words: no need to look it up
    rule = f"\n\n{err.rule} says: \"{quote}\" ('pbem rules {err.rule}' has the rest)" if quote else ""
    return f"Your message was not applied; nothing was changed.\n\npbem: {public_text(str(err))}{rule}\n"


_PATH_RE = re.compile(r"(?<![\w.])/(?:[^\s'\"/]+/)+[^\s'\"]*")


def public_text(text: str) -> str:
    """What a mailed text may say: no path of the host's files."""
    return _PATH_RE.sub("<path>", text)
