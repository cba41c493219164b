"""The verdict on one mailed message: a closed set of outcomes, and what each carries.

:meth:`pbem.mail.admission.Admission.decide` returns a :class:`Verdict`; the host's step has
recorded what it applied; the transport's side (:class:`pbem.mail.answers.Answers`, the
Maildir and IMAP readers, ``pbem apply MSG.eml``) reads only its :class:`Outcome` and the
typed values it carries, never its line of text.
"""

from __future__ import annotations

from enum import Enum
from pathlib import Path

from pbem.errors import PbemError
from pbem.host.keyconfirm import Held
from pbem.host.step import Applied
from pbem.mail.commands import Answer
from pbem.record import Record, Slots


class Outcome(Enum):
    """What became of a message: the one closed set every transport and reply reads."""

    APPLIED = "applied"  # a move (or a confirmed key's commitment) recorded
    REFUSED = "refused"  # refused with a refusal (an error with its exit code); nothing changed
    HELD = "held"  # a commitment that registers a key, held until confirmed (P8)
    ANSWERED = "answered"  # a mail command (pbem.mail.commands)
    IGNORED = "ignored"  # an automatic message: never answered
    HANDLED = "handled"  # this very delivery's replies were queued by an earlier run
    QUARANTINED = "quarantined"  # the transport kept it for the host (set by the transport only)


class Verdict(Record):
    """The decision on one message: its outcome, one line for the host's log, and what the
    outcome carries (the refusal, the entries recorded, the held commitment, a command's answer)."""

    outcome: Outcome
    result: str
    refusal: PbemError | None
    applied: Applied | None
    held: Held | None
    answer: Answer | None


class Progress(Slots):
    """What is known so far of one message, for a transport that keeps a message whose
    handling fails (it tells a registered sender, truthfully, whether the move was applied)."""

    __slots__ = ("data", "game", "ident", "lobby", "recorded", "seat", "sender", "to")

    def __init__(self) -> None:
        self.data: bytes = b""
        self.sender: str | None = None
        self.ident: str | None = None
        self.to: str | None = None  # the sender's address, checked
        self.seat: tuple[Path, str] | None = None  # the game folder and seat the sender's address holds
        self.recorded: tuple[str, int] | None = None  # (game, entry) once the log changed
        self.lobby = False  # a lobby command (pbem.mail.lobby): its refusal goes to any sender
        self.game: str | None = None  # the existing game a lobby command names: its strangers' answers' budget


def said(outcome: Outcome, line: str, refusal: PbemError | None = None, applied: Applied | None = None,
         held: Held | None = None, answer: Answer | None = None) -> Verdict:
    return Verdict(outcome, line, refusal, applied, held, answer)


