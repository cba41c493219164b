"""The game as records, both ways: one immutable type per kind of entry and of move.

``entries``: the log's entries (read by :func:`parse_entry`, written through each kind's
writer); ``sent``: the move files players send; ``values``: what entries hold (options,
setup, flips, outcomes); ``reader``: the one strict reader.  Only this package reads a
``kind`` as a string or writes an entry as a mapping (tests/test_records.py checks every
other module of pbem).
"""

from pbem.log.records.entries import (
    Abandon,
    AnyEntry,
    Away,
    Commit,
    Create,
    Draft,
    Entry,
    Nonce,
    Played,
    Replace,
    Resign,
    Reveal,
    Sent,
    Standin,
    Start,
    Timeout,
    Turn,
    Waive,
    as_sent,
    kinded,
)
from pbem.log.records.reader import ZEROS, parse_entry
from pbem.log.records.sent import (
    MOVE_KINDS,
    OPENING_MOVES,
    AwayMove,
    CommitMove,
    NonceMove,
    ResignMove,
    SentMove,
    TurnMove,
    move_of,
)
from pbem.log.records.values import Difference, Edition, Flipped, Made, Options, Setup, written_outcome

__all__ = [
    "MOVE_KINDS",
    "OPENING_MOVES",
    "ZEROS",
    "Abandon",
    "AnyEntry",
    "Away",
    "AwayMove",
    "Commit",
    "CommitMove",
    "Create",
    "Difference",
    "Draft",
    "Edition",
    "Entry",
    "Flipped",
    "Made",
    "Nonce",
    "NonceMove",
    "Options",
    "Played",
    "Replace",
    "Resign",
    "ResignMove",
    "Reveal",
    "Sent",
    "SentMove",
    "Setup",
    "Standin",
    "Start",
    "Timeout",
    "Turn",
    "TurnMove",
    "Waive",
    "as_sent",
    "kinded",
    "move_of",
    "parse_entry",
    "written_outcome",
]
