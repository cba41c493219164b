"""Every refusal pbem gives, as a value with a kind, an exit code and a sentence.

A player or host sees one paragraph: what is wrong, which rule or protocol
section it breaks, and what to do.  No message ever shows a face-down token's
face or salt.
"""

from __future__ import annotations

from enum import IntEnum


class Exit(IntEnum):
    """Process exit codes, one per kind of failure (README lists them)."""

    OK = 0
    USAGE = 2  # the command line itself (click's own code)
    FORMAT = 3  # unreadable or malformed input: YAML, size, schema
    RULES = 4  # a legal-looking move that breaks a rule (R1-R6)
    STALE = 5  # written against an old entry, or sent twice (P7)
    UNKNOWN = 6  # no such game, player or file
    TAMPERED = 7  # the log or secret does not check out (P3-P7)
    SIGNATURE = 8  # missing or bad signature (P8)
    BUSY = 9  # another pbem holds the game's lock too long
    STATE = 10  # the command does not fit the game's state (not over yet, already started...)


class PbemError(Exception):
    """A refusal. ``rule`` is a RULES.md or PROTOCOL.md number (``R5.3``, ``P7``)."""

    exit_code: Exit = Exit.FORMAT
    label = "error"

    def __init__(self, message: str, rule: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.rule = rule

    def __str__(self) -> str:
        where = f" ({self.rule})" if self.rule else ""
        return f"{self.label}{where}: {self.message}"


class FormatError(PbemError):
    exit_code = Exit.FORMAT
    label = "malformed input"


class RulesError(PbemError):
    exit_code = Exit.RULES
    label = "illegal move"


class StaleError(PbemError):
    exit_code = Exit.STALE
    label = "stale move"


class UnknownError(PbemError):
    exit_code = Exit.UNKNOWN
    label = "not found"


class TamperError(PbemError):
    exit_code = Exit.TAMPERED
    label = "log does not verify"


class SignatureError(PbemError):
    exit_code = Exit.SIGNATURE
    label = "signature refused"


class BusyError(PbemError):
    exit_code = Exit.BUSY
    label = "busy"


class StateError(PbemError):
    exit_code = Exit.STATE
    label = "not now"
