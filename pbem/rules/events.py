"""Events: what an accepted action caused, as plain typed data.

``to_dict()`` is the public form recorded in the log.  The one private fact an
event can carry (the face seen by the Witch's holder, R5.6) is kept out of it
and available only through :attr:`TokenLooked.token_id`.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, ClassVar

from pbem.record import Record


class Event(Record):
    kind: ClassVar[str] = ""
    private: ClassVar[frozenset[str]] = frozenset()

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"event": self.kind}
        for name in self._fields:
            if name in self.private:
                continue
            value = getattr(self, name)
            out[name] = list(value) if isinstance(value, tuple) else str(value) if isinstance(value, StrEnum) else value
        return out


class CubesPlaced(Event):
    kind: ClassVar[str] = "cubes_placed"
    player: str
    region: str
    count: int


class CardTaken(Event):
    kind: ClassVar[str] = "card_taken"
    player: str
    card: str
    previous: str | None


class CubesMoved(Event):
    kind: ClassVar[str] = "cubes_moved"
    player: str
    source: str
    target: str
    count: int


class CubeToPalace(Event):
    kind: ClassVar[str] = "cube_to_palace"
    player: str
    region: str


class RatMoved(Event):
    kind: ClassVar[str] = "rat_moved"
    token: str
    source: str
    target: str


class TokenLooked(Event):
    """R5.6: the Witch's holder looked at ``token``; only they learn ``token_id``
    (None when replayed by someone who may not know it)."""

    kind: ClassVar[str] = "token_looked"
    private: ClassVar[frozenset[str]] = frozenset({"token_id"})
    player: str
    token: str
    token_id: str | None


class TokensSwapped(Event):
    kind: ClassVar[str] = "tokens_swapped"
    first: str
    second: str


class PlagueMoved(Event):
    """R3.3/R5.4/R6.3: the plague piece's path; ``spread`` rats are to be drawn (R4.1)."""

    kind: ClassVar[str] = "plague_moved"
    path: tuple[str, ...]
    spread: int


class RatDrawn(Event):
    kind: ClassVar[str] = "rat_drawn"
    token: str
    region: str


class KnightCubesDeclared(Event):
    kind: ClassVar[str] = "knight_cubes"
    player: str
    region: str


class TokenFlipped(Event):
    """R4.2/R6.4: a rat flipped face up; ``token_id`` is its face, now public."""

    kind: ClassVar[str] = "token_flipped"
    token: str
    token_id: str
    region: str
    cubes: int
    threshold: int
    outbreak: bool


class CubeRemoved(Event):
    """R4.3: one cube back to its owner's supply because of ``symbol``."""

    kind: ClassVar[str] = "cube_removed"
    player: str
    region: str
    symbol: str


class TurnStarted(Event):
    kind: ClassVar[str] = "turn_started"
    player: str
    phase: str


class EndReason(StrEnum):
    """R6.1: why the game ends; the log records the sentence (``game_ending``'s ``reason``)."""

    RAT_SUPPLY = "the rat supply ran out"
    CUBE_SUPPLY = "a player has no cube left in their supply"
    NO_RATS = "no rat is left on the board"


class GameEnding(Event):
    """R6.1: the end condition was met; the final round (R6.2) follows."""

    kind: ClassVar[str] = "game_ending"
    reason: EndReason
    final_round: tuple[str, ...]


class GameOver(Event):
    """R6.5: final scores (cubes on the board and in the palace) and the winner."""

    kind: ClassVar[str] = "game_over"
    scores: tuple[tuple[str, int], ...]
    winner: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "event": self.kind,
            "scores": {player: score for player, score in self.scores},
            "winner": self.winner,
        }


EVENT_TYPES: dict[str, type[Event]] = {
    cls.kind: cls
    for cls in (CubesPlaced, CardTaken, CubesMoved, CubeToPalace, RatMoved, TokenLooked, TokensSwapped,
                PlagueMoved, RatDrawn, KnightCubesDeclared, TokenFlipped, CubeRemoved, TurnStarted,
                GameEnding, GameOver)
}
"""Every event kind, by the name its public form carries (``{"event": "cubes_placed", ...}``)."""


def event_from_dict(data: dict[str, Any]) -> Event:
    """An event back from its public form in a log entry's outcome (the inverse of ``to_dict``;
    a Witch's look comes back without its face).  ``ValueError`` for anything else."""
    cls = EVENT_TYPES.get(str(data.get("event")))
    if cls is None:
        raise ValueError(f"unknown event {data.get('event')!r}")
    if cls is GameOver:
        return GameOver(tuple(data["scores"].items()), data["winner"])
    if cls is GameEnding:
        return GameEnding(EndReason(data["reason"]), tuple(data["final_round"]))
    values = []
    for name in cls._fields:
        value = data.get(name) if name in cls.private else data[name]
        values.append(tuple(value) if isinstance(value, list) else value)
    return cls(*values)
