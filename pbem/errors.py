"""Every refusal pbem gives, as a value with a kind, an exit code and a sentence: one family.

A player or host sees one paragraph: what is wrong, which rule or protocol
section it breaks, and what to do.  No message ever shows a face-down token's
face or salt.  Every kind is built the same way, ``Kind(message, rule)``, and
:data:`EXIT_CODES` is the one table from kind to process exit code (the rules
core's :class:`pbem.rules.errors.RuleError` is an illegal move like any other).
May import: the standard library only (the bottom layer).
"""

from __future__ import annotations

from enum import IntEnum


class Exit(IntEnum):
    """Process exit codes, one per kind of failure (docs/playing.md lists them)."""

    OK = 0
    USAGE = 2  # the command line itself (click's own code)
    FORMAT = 3  # unreadable or malformed input: YAML, size, schema
    RULES = 4  # a legal-looking move that breaks a rule (R1-R6)
    STALE = 5  # written against an old entry, or sent twice (P7)
    UNKNOWN = 6  # no such game, player or file
    TAMPERED = 7  # the log or secret does not check out (P3-P7)
    SIGNATURE = 8  # missing or bad signature (P8)
    BUSY = 9  # another pbem holds the game's lock too long, or a mail server cannot be reached: try later
    STATE = 10  # the command does not fit the game's state (not over yet, already started...)
    UNDELIVERED = 11  # pbem mail: a reply was refused for good (SMTP 5xx), kept in failed/
    DEFERRED = 12  # pbem mail: replies still queued after a temporary failure, for a later run or --flush
    INTERNAL = 1  # a bug in pbem: whatever failed, wherever


class PbemError(Exception):
    """A refusal. ``rule`` is a RULES.md or PROTOCOL.md number (``R5.3``, ``P7``)."""

    label = "error"

    def __init__(self, message: str, rule: str | None = None) -> None:
        super().__init__(message)
        self.message = str(message)
        self.words = message  # as given: a pbem.i18n.Msg also knows how to say it in another language
        self.rule = rule

    @property
    def exit_code(self) -> Exit:
        """This kind's exit code, from :data:`EXIT_CODES` (the nearest kind it is)."""
        for kind in type(self).__mro__:
            if kind in EXIT_CODES:
                return EXIT_CODES[kind]
        return Exit.INTERNAL  # pragma: no cover - every kind is in the table

    def __str__(self) -> str:
        where = f" ({self.rule})" if self.rule else ""
        return f"{self.label}{where}: {self.message}"


class FormatError(PbemError):
    label = "malformed input"


class RulesError(PbemError):
    label = "illegal move"


class StaleError(PbemError):
    label = "stale move"


class AlreadyApplied(StaleError):
    """P7: the same move (or the same message) was applied before, as entry ``seq``: this copy
    changes nothing, and whoever answers it can say so from its kind, never from its words."""

    def __init__(self, message: str, rule: str | None = "P7", seq: int = 0) -> None:
        super().__init__(message, rule)
        self.seq = seq


class UnknownError(PbemError):
    label = "not found"


class TamperError(PbemError):
    label = "log does not verify"


class PageError(TamperError):
    """A composer page file that is not the page this pbem writes (``pbem fingerprint PAGE``)."""

    label = "page does not verify"


class SignatureError(PbemError):
    label = "signature refused"


class SenderError(SignatureError):
    """A mail's From address does not fit the move (or is not registered at all, P8)."""

    label = "sender refused"


class Unwanted(FormatError):
    """A message the mail host will not answer: its sender is no registered player."""

    label = "not a player's message"


class BusyError(PbemError):
    label = "busy"


class StateError(PbemError):
    label = "not now"


class UndeliveredError(PbemError):
    """A reply the mail server refused for good (5xx): moved to the queue's ``failed/``."""

    label = "reply not delivered"


class InternalError(PbemError):
    """A bug in pbem itself (an admitted move that does not resolve, say): never a refusal."""

    label = "internal error"


EXIT_CODES: dict[type[PbemError], Exit] = {
    PbemError: Exit.FORMAT,
    FormatError: Exit.FORMAT,
    RulesError: Exit.RULES,
    StaleError: Exit.STALE,
    UnknownError: Exit.UNKNOWN,
    TamperError: Exit.TAMPERED,
    SignatureError: Exit.SIGNATURE,
    BusyError: Exit.BUSY,
    StateError: Exit.STATE,
    UndeliveredError: Exit.UNDELIVERED,
    InternalError: Exit.INTERNAL,
}
"""The one table from kind to exit code (docs/playing.md, "When a move is refused")."""
