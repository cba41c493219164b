"""The sender of a received message checked against its move (P8 notes), and what a
refusal says to the sender; the admission path that uses them is :mod:`pbem.mail.admission`."""

from __future__ import annotations

import re
from typing import Any

from pbem.errors import AlreadyApplied, PbemError, SenderError
from pbem.i18n import Msg, error_text, translator
from pbem.mail.headers import Mail
from pbem.views.rulesref import sentence


def check_sender(settings: Any, mail: Mail, move: Any, where: str) -> None:
    """The sender of a game that lists addresses must be an address of the move's seat."""
    if mail.sender is None:
        raise SenderError(Msg("the message has no single From address to check"), "P1")
    players = settings.players_of(mail.sender)
    if not players:
        raise SenderError(Msg(
            "{sender} is not the address of any player of game {game}; nothing was changed",
            sender=mail.sender, game=repr(move.game)), "P1",
        )
    if move.player not in players:
        raise SenderError(Msg(
            "this message comes from {sender}, the address of {players}, "
            "but the move ({where}) is {player}'s; nothing was changed",
            sender=mail.sender, players=", ".join(players), where=where, player=move.player), "P1",
        )


def message_applied(seq: int) -> AlreadyApplied:
    """P7: this very message was applied before, as entry ``seq``."""
    return AlreadyApplied(Msg("this message was already applied, as entry {seq}; nothing was changed", seq=seq),
                          "P7", seq)


def refused_text(err: PbemError, lang: str = "en") -> str:
    """The refusal's mail text in ``lang`` (the seat's): what happened, the
    refusal's paragraph, and its rule's first sentence from the reference in that language."""
    said = translator(lang)
    paragraph = public_text(error_text(err, lang))
    if isinstance(err, AlreadyApplied):  # a duplicate: the move is in, and this copy changed nothing
        head = Msg("Your move was already applied, as entry {seq}; this copy of it changed nothing.",
                   seq=str(err.seq))
        return f"{said.say(head)}\n\npbem: {paragraph}\n"
    quote = sentence(err.rule, lang) if err.rule else None  # the rule's own words: no need to look it up
    rule = ("\n\n" + said.say(Msg("{rule} says: \"{quote}\" ('pbem rules {rule}' has the rest)",
                                  rule=err.rule, quote=quote))) if quote else ""
    return f"{said.say(Msg('Your message was not applied; nothing was changed.'))}\n\npbem: {paragraph}{rule}\n"


_PATH_RE = re.compile(r"(?<![\w.])/(?:[^\s'\"/]+/)+[^\s'\"]*")


def public_text(text: str) -> str:
    """What a mailed text may say: no path of the host's files."""
    return _PATH_RE.sub("<path>", text)
