"""The values inside the log's entries: entry 0's options, the start's setup, a flip, a
turn's outcome as written (and where a replay departs from it)."""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum
from typing import Any

from pbem.record import Record
from pbem.rules.events import Event, TokenFlipped

SaltOf = Callable[[str], str]


class Made(StrEnum):
    """P3, P7: how the game's secret was made (entry 0 ``secret.made``)."""

    OS_CSPRNG = "os-csprng"  # by the operating system's random source
    SUPPLIED = "supplied"  # given by the caller: a test game, whose deal anyone can know


class Edition(StrEnum):
    """P3: the game's data: the map and tokens pbem ships, or others (entry 0 ``edition``)."""

    STANDARD = "standard"
    CUSTOM = "custom"


class Flipped(Record):
    """A rat token flipped face up in public (P6): its name, catalogue id, and the salt of its commitment."""

    token: str
    token_id: str
    salt: str


class Options(Record):
    """Entry 0's options: the first player (R2.1), the deadline and reminder (R8.1), the bot seats,
    each seat's absence allowance in whole days (R8.5)."""

    first: str | None
    deadline: int | None
    reminder: int | None
    bots: dict[str, str]
    absence: int | None

    def to_raw(self) -> dict[str, Any]:
        options: dict[str, Any] = {"first": self.first}
        if self.deadline is not None:
            options["deadline"] = self.deadline
        if self.reminder is not None:
            options["reminder"] = self.reminder
        if self.bots:
            options["bots"] = dict(self.bots)
        if self.absence is not None:
            options["absence"] = self.absence
        return options


class Setup(Record):
    """P5: the public setup: the first player, the rats on the board by region, the supply,
    the removed rats (all by position name), the plague's region."""

    first_player: str
    board: dict[str, str]
    supply: tuple[str, ...]
    removed: tuple[str, ...]
    plague: str

    def to_raw(self) -> dict[str, Any]:
        return {"first_player": self.first_player, "board": dict(self.board), "supply": list(self.supply),
                "removed": list(self.removed), "plague": self.plague}


class Difference(Record):
    """Where a recomputed outcome departs from the recorded one: the first differing event
    (counted from 1) and both sides as written, or (index 0) the two lengths."""

    index: int
    ours: str
    theirs: str


def written_outcome(events: list[Event], salt_of: SaltOf) -> list[dict[str, Any]]:
    """The public outcome of a turn as written: each event's public form, flips with their salts (P6)."""
    out = []
    for event in events:
        data = event.to_dict()
        if isinstance(event, TokenFlipped):
            data["salt"] = salt_of(event.token)
        out.append(data)
    return out
