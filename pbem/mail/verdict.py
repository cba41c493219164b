"""The verdict on one mailed message: a closed union of result types, each with exactly what it carries.

:meth:`pbem.mail.admission.Admission.decide` returns a :data:`Verdict`; the host's step has
recorded what it applied; the transport's side (:class:`pbem.mail.answers.Answers`, the
Maildir and IMAP readers, ``pbem apply MSG.eml``) matches on its class (``case
Recorded(applied=...)``, ``assert_never`` for the rest), never on its line of text.  Each
result's ``result`` is that line, for the host's log and the run's report.

Nothing is noted on the side while a message is decided: what the transport needs when the
handling of a message fails unexpectedly (to tell a registered sender, truthfully, whether
the move was applied) travels in :class:`Unfinished`, raised with what was :class:`Known`.
"""

from __future__ import annotations

from pathlib import Path
from typing import TypeAlias, assert_never

from pbem.errors import PbemError
from pbem.host.keyconfirm import Held
from pbem.host.step import Applied
from pbem.mail.commands import Answer
from pbem.record import Record


class Recorded(Record):
    """A move (or a confirmed key's commitment) recorded: what the host's step applied."""

    result: str
    applied: Applied


class Refused(Record):
    """Refused with a refusal (an error with its exit code); nothing changed.  ``to``: the
    sender's checked address (None if the address itself was refused); ``seat``: the game folder
    and seat that address holds (a stale move gets its template); ``lobby``: a lobby command,
    whose refusal goes to any sender; ``game``: the existing game a lobby command names (its
    strangers' answers' budget)."""

    result: str
    refusal: PbemError
    to: str | None
    seat: tuple[Path, str] | None
    lobby: bool
    game: str | None


class KeyHeld(Record):
    """A commitment that registers a key, held until confirmed from the seat's address (P8)."""

    result: str
    held: Held


class Answered(Record):
    """A mail command (:mod:`pbem.mail.commands`) or a lobby command answered, for ``to``;
    ``game``: the existing game a lobby command names (its strangers' answers' budget)."""

    result: str
    answer: Answer
    to: str
    game: str | None


class Ignored(Record):
    """An automatic message: never answered."""

    result: str


class Handled(Record):
    """This very delivery's replies were queued by an earlier run."""

    result: str


Verdict: TypeAlias = Recorded | Refused | KeyHeld | Answered | Ignored | Handled
"""What became of a message: the one closed set every transport and reply reads."""


class Quarantined(Record):
    """A message the transport kept for the host (set by the transport only, never decided)."""

    result: str


class Known(Record):
    """What was known of a message when its handling stopped: its bytes (the headers only of
    one too large), its sender, what makes it the same message, the sender's checked address,
    and the (game, entry) recorded if the log changed."""

    data: bytes
    sender: str | None
    ident: str | None
    to: str | None
    recorded: tuple[str, int] | None


class Unfinished(Exception):
    """The handling of one message failed (its cause is ``__cause__``); what was known then."""

    def __init__(self, cause: Exception, known: Known) -> None:
        super().__init__(str(cause))
        self.cause = cause
        self.known = known


def stopped(err: Exception) -> tuple[Exception, Known | None]:
    """The failure itself and what was known of the message, for a transport's quarantine."""
    return (err.cause, err.known) if isinstance(err, Unfinished) else (err, None)


def noted(verdict: Verdict, line: str) -> Verdict:
    """The same verdict, its line replaced (the transport adds what it did or held back)."""
    match verdict:
        case Recorded():
            return Recorded(line, verdict.applied)
        case Refused():
            return Refused(line, verdict.refusal, verdict.to, verdict.seat, verdict.lobby, verdict.game)
        case KeyHeld():
            return KeyHeld(line, verdict.held)
        case Answered():
            return Answered(line, verdict.answer, verdict.to, verdict.game)
        case Ignored():
            return Ignored(line)
        case Handled():
            return Handled(line)
        case _:
            assert_never(verdict)
