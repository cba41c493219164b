"""Move files as records: one immutable type per kind of move a player sends (``schemas/move.json``).

A move file says its kind (``kind: commit``); :func:`move_of` is the only place that reads
it, and returns the record of that kind: :class:`CommitMove` (P4's commitment, with the key
it registers, P8), :class:`NonceMove` (P4's reveal), :class:`TurnMove` (a turn's actions,
R3-R7), :class:`ResignMove` (R8.4) or :class:`AwayMove` (an absence, R8.5).  Every other
module asks the record's class, with a ``match`` over :data:`MoveFile` (the closed set: a kind
left out fails the type check).

Each kind's ``write`` is the one writer of a new move of its kind (a player's nonce tool, a
bot seat, the demo); :meth:`SentMove.to_raw` gives the move as sent, the very mapping that
is signed (P8), hashed into its entry (P7) and written to a move file.
"""

from __future__ import annotations

from typing import Any, ClassVar, TypeAlias

from pbem.record import Record


class SentMove(Record):
    """A move as a player sent it; ``sent`` is the mapping exactly as read (and signed)."""

    KIND: ClassVar[str] = ""
    game: str
    player: str
    sent: dict[str, Any]

    @classmethod
    def _fields_of(cls, game: str, player: str, after: dict[str, Any], **fields: Any) -> dict[str, Any]:
        return {"game": game, "player": player, "kind": cls.KIND, "after": after, **fields}

    def to_raw(self) -> dict[str, Any]:
        """The move as sent: the fields a move file holds, in its order (P7, P8)."""
        return self.sent

    @property
    def after_seq(self) -> int:
        return int(self.sent["after"]["seq"])

    @property
    def after_hash(self) -> str:
        return str(self.sent["after"]["hash"])

    @property
    def signature(self) -> str | None:
        value = self.sent.get("signature")
        return value if isinstance(value, str) else None

    @property
    def signed(self) -> bool:
        """Does the move carry a signature (well formed or not)?"""
        return "signature" in self.sent

    @property
    def key(self) -> str | None:
        """P8: the key a commitment registers (no other kind carries one)."""
        return None

    @property
    def carries_key(self) -> bool:
        """Does the move carry a ``key`` field (a commitment's, or one a move may not have)?"""
        return "key" in self.sent

    def unsigned(self) -> dict[str, Any]:
        """The move as sent, less its signature: what a signature signs (P8)."""
        return {k: v for k, v in self.sent.items() if k != "signature"}


class CommitMove(SentMove):
    """P4 round 1: a seat's commitment to its nonce, and (P8) the key it may register."""

    KIND: ClassVar[str] = "commit"

    @classmethod
    def write(cls, game: str, player: str, after: dict[str, Any], nonce_commitment: str) -> CommitMove:
        return cls(game, player, cls._fields_of(game, player, after, nonce_commitment=nonce_commitment))

    @property
    def nonce_commitment(self) -> str:
        return str(self.sent["nonce_commitment"])

    @property
    def key(self) -> str | None:
        value = self.sent.get("key")
        return value if isinstance(value, str) else None


class NonceMove(SentMove):
    """P4 round 2: a seat's nonce, revealed."""

    KIND: ClassVar[str] = "nonce"

    @classmethod
    def write(cls, game: str, player: str, after: dict[str, Any], nonce: str) -> NonceMove:
        return cls(game, player, cls._fields_of(game, player, after, nonce=nonce))

    @property
    def nonce(self) -> str:
        return str(self.sent["nonce"])


class TurnMove(SentMove):
    """R3-R7: a player's turn (or its part), its actions in their public form."""

    KIND: ClassVar[str] = "move"

    @classmethod
    def write(cls, game: str, player: str, after: dict[str, Any], actions: list[dict[str, Any]]) -> TurnMove:
        return cls(game, player, cls._fields_of(game, player, after, actions=actions))

    @property
    def actions(self) -> Any:
        """The actions as sent (a list of mappings once the schema has read them)."""
        return self.sent.get("actions")


class ResignMove(SentMove):
    """R8.4: a player leaves the game; the stand-in plays the seat from then on."""

    KIND: ClassVar[str] = "resign"

    @classmethod
    def write(cls, game: str, player: str, after: dict[str, Any]) -> ResignMove:
        return cls(game, player, cls._fields_of(game, player, after))


class AwayMove(SentMove):
    """R8.5: a player declares an absence of whole ``days``, starting when it is recorded."""

    KIND: ClassVar[str] = "away"

    @classmethod
    def write(cls, game: str, player: str, after: dict[str, Any], days: int) -> AwayMove:
        return cls(game, player, cls._fields_of(game, player, after, days=days))

    @property
    def days(self) -> int:
        return int(self.sent["days"])


MoveFile: TypeAlias = CommitMove | NonceMove | TurnMove | ResignMove | AwayMove
"""Every kind of move file: ``match`` over it with ``assert_never`` for the closed set."""

MOVE_KINDS: dict[str, type[CommitMove] | type[NonceMove] | type[TurnMove] | type[ResignMove] | type[AwayMove]] = {
    cls.KIND: cls for cls in (CommitMove, NonceMove, TurnMove, ResignMove, AwayMove)
}
"""Each kind's record, by the name a move file gives it (``schemas/move.json``)."""

OPENING_MOVES = (CommitMove, NonceMove)
"""P4: the moves of the opening; they answer entry 0."""


def move_of(sent: dict[str, Any]) -> MoveFile:
    """The record of a move whose shape was checked (``schemas/move.json``): its ``kind`` read here only."""
    return MOVE_KINDS[sent["kind"]](sent["game"], sent["player"], sent)


def written(kind: type[SentMove], fields: dict[str, Any]) -> dict[str, Any]:
    """A move read from text (:mod:`pbem.log.notation`) as a move file's mapping, before its
    schema is checked: the fields it gave and ``kind``'s name."""
    return {**fields, "kind": kind.KIND}


def kind_name(kind: type[SentMove]) -> str:
    """The name a move file gives ``kind`` (for a sentence that names it)."""
    return kind.KIND
