"""One received message turned into an applied move: the sender checked against the move
(P8), then the host's own path; and what a refusal says to the sender."""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from email.message import EmailMessage
from pathlib import Path
from typing import Any

from pbem.errors import PbemError, SenderError, StaleError
from pbem.host.games import apply_move, game_dir
from pbem.host.settings import load_settings, record_seen, seen_ids
from pbem.host.step import Applied
from pbem.log.logfile import locked
from pbem.mail.headers import Mail, parse_mail
from pbem.mail.message import mail_move
from pbem.views.rulesref import sentence

Send = Callable[[EmailMessage], None]
_log = logging.getLogger("pbem.mail.host")






# --- applying one message ----------------------------------------------------------------

def accept_mail(games: Path, mail: Mail, require_sender: bool = True) -> Applied:
    """Apply the move a message carries, after checking its sender and Message-ID.

    ``require_sender``: the game must list the sender's address (``pbem mail``);
    without it (``pbem apply MSG.eml``) the address is checked only when the game
    lists addresses at all.
    """
    move, where = mail_move(mail)
    path = game_dir(games, move.game)
    settings = load_settings(path)
    if settings.emails or require_sender:
        check_sender(settings, mail, move, where)
    if mail.message_id is not None:
        seen = seen_ids(path)
        if mail.message_id in seen:
            raise StaleError(
                f"this message ({mail.message_id}) was already applied, as entry "
                f"{seen[mail.message_id]}; nothing was changed", "P7",
            )
    applied = apply_move(games, move)
    if mail.message_id is not None:
        with locked(path):
            record_seen(path, mail.message_id, applied.entries[0]["seq"])
    return applied


def apply_mail_file(games: Path, data: bytes) -> Applied:
    """``pbem apply MESSAGE.eml``."""
    return accept_mail(games, parse_mail(data), require_sender=False)



def check_sender(settings: Any, mail: Mail, move: Any, where: str) -> None:
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


def refused_text(err: PbemError) -> str:
    quote = sentence(err.rule) if err.rule else None  # the rule's own words: no need to look it up
    rule = f"\n\n{err.rule} says: \"{quote}\" ('pbem rules {err.rule}' has the rest)" if quote else ""
    return f"Your message was not applied; nothing was changed.\n\npbem: {public_text(str(err))}{rule}\n"


_PATH_RE = re.compile(r"(?<![\w.])/(?:[^\s'\"/]+/)+[^\s'\"]*")


def public_text(text: str) -> str:
    """What a mailed text may say: no path of the host's files."""
    return _PATH_RE.sub("<path>", text)
