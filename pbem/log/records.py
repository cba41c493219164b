"""The log's entries as records: one immutable type per kind, read by one strict reader.

:func:`parse_entry` is the only place that reads an entry's ``kind``: it checks the
entry's shape (:mod:`pbem.log.shape`, exactly ``schemas/entry.json``) and returns the
record of its kind.  Every reader (replay, verify, audit, html, history, list, show,
the bots, the mail host) then asks the record: what it reveals (:attr:`Entry.reveals`,
every public flip whichever kind of entry made it), what it caused
(:meth:`Entry.events`, typed), and ``isinstance``/``match`` on its class for how it
changes the game (``pbem.referee.replay``).  ``KIND`` is the kind's name in the log,
used here and by the host when it writes a new entry.
"""

from __future__ import annotations

from typing import Any, ClassVar

from pbem.errors import TamperError
from pbem.i18n import Msg
from pbem.log import shape
from pbem.log.clock import is_at
from pbem.log.shape import AT, HASH, NAME, PUBLIC_KEY, SIGNATURE, Bad, Check, listed, mapping, whole
from pbem.record import Record
from pbem.rules.events import Event, event_from_dict

ZEROS = "0" * 64


class Flip(Record):
    """A public flip (P6): the token's name, its catalogue id, and the salt of its commitment."""

    token: str
    token_id: str
    salt: str


class Entry(Record):
    """One entry of the public log; ``raw`` is the entry as written (hashed, signed, quoted)."""

    KIND: ClassVar[str] = ""
    seq: int
    at: str
    player: str | None  # the seat it is about; None for the host's own entries without one
    raw: dict[str, Any]

    def __getitem__(self, name: str) -> Any:
        """The field as written (for tools and tests that read the raw entry; pbem's own
        modules ask the record, tests/test_records.py checks they never ask for its kind)."""
        return self.raw[name]

    def get(self, name: str, default: Any = None) -> Any:
        return self.raw.get(name, default)

    @property
    def signature(self) -> str | None:
        value = self.raw.get("signature")
        return value if isinstance(value, str) else None

    @property
    def outcome(self) -> list[dict[str, Any]]:
        """P7: the public outcome as recorded (empty for an entry that plays no turn)."""
        return []

    @property
    def reveals(self) -> tuple[Flip, ...]:
        """P6: the tokens this entry flips face up, with their reveals."""
        return ()

    def events(self) -> list[Event]:
        """What the entry caused, as the rules' typed events."""
        return [event_from_dict(item) for item in self.outcome]

    @property
    def played(self) -> bool:
        """Does the entry play a turn (a player's move or the stand-in's)?"""
        return False


class Create(Entry):
    """P3: entry 0: the players, the commitment to the secret, the game's own data."""

    KIND: ClassVar[str] = "create"


class Sent(Entry):
    """An entry that records a move file as its player sent it (``schemas/move.json``)."""

    @property
    def move(self) -> dict[str, Any]:
        return dict(self.raw["move"])


class Commit(Sent):
    """P4: a seat's commitment to its nonce (and, P8, the key it registers)."""

    KIND: ClassVar[str] = "commit"


class Nonce(Sent):
    """P4: a seat's nonce, revealed."""

    KIND: ClassVar[str] = "nonce"


class Resign(Sent):
    """R8.4: a player leaves; the stand-in plays the seat from now on."""

    KIND: ClassVar[str] = "resign"


class Waive(Entry):
    """P4: the host waived a seat's nonce."""

    KIND: ClassVar[str] = "waive"


class Abandon(Entry):
    """P4: the host abandoned the game before its start."""

    KIND: ClassVar[str] = "abandon"


class Start(Entry):
    """P5-P6: the public setup and the 49 commitments."""

    KIND: ClassVar[str] = "start"


class Turn(Entry):
    """An entry that plays a turn and records its outcome (a move, a timeout, a stand-in turn)."""

    @property
    def outcome(self) -> list[dict[str, Any]]:
        return list(self.raw["outcome"])

    @property
    def reveals(self) -> tuple[Flip, ...]:
        return tuple(Flip(e["token"], e["token_id"], e["salt"])
                     for e in self.raw["outcome"] if e["event"] == "token_flipped")

    @property
    def played(self) -> bool:
        return True


class Move(Turn, Sent):
    """P7: a player's move as sent, and its public outcome."""

    KIND: ClassVar[str] = "move"


class Standin(Turn):
    """R8.4: a resigned seat's turn, played by the stand-in (R8.3) at once."""

    KIND: ClassVar[str] = "standin"

    @property
    def actions(self) -> list[dict[str, Any]]:
        return list(self.raw["actions"])


class Timeout(Standin):
    """R8.2-R8.3: the deadline of the turn begun at entry ``since`` passed at ``due``."""

    KIND: ClassVar[str] = "timeout"

    @property
    def since(self) -> int:
        return int(self.raw["since"])

    @property
    def due(self) -> str:
        return str(self.raw["due"])


class Replace(Entry):
    """R8.4: a seat handed to a new player, whose moves are checked against ``key``."""

    KIND: ClassVar[str] = "replace"

    @property
    def key(self) -> str | None:
        value = self.raw.get("key")
        return value if isinstance(value, str) else None


class Reveal(Entry):
    """P6: the secret, published once the game is over."""

    KIND: ClassVar[str] = "reveal"

    @property
    def secret(self) -> str:
        return str(self.raw["secret"])


_CHAIN: dict[str, Check] = {"seq": shape.anything, "prev": shape.anything, "at": shape.anything,
                            "kind": shape.anything}
_SIGNED: dict[str, Check] = {"signature": SIGNATURE}
_OUTCOME = listed(shape.EVENT)
_ACTIONS = listed(shape.ACTION, 0, 64)
_OPTIONS = mapping({}, {
    "first": shape.maybe(NAME), "deadline": whole(60, 31622400),
    "reminder": whole(60, 31622400),
    "bots": mapping({}, rest=shape.one_of("random", "greedy", "mcts"), keys=NAME),
})
_CREATE = mapping({
    **_CHAIN, "protocol": shape.one_of("pbem-rattus/v2"), "engine": mapping(
        {"name": shape.text(), "version": shape.text()}, rest=shape.anything),
    "game": shape.GAME_ID, "players": listed(NAME, 2, 4, unique=True), "options": _OPTIONS,
    "secret": mapping({"commitment": HASH, "made": shape.one_of("os-csprng", "supplied")}),
    "edition": shape.one_of("standard", "custom"), "data_hash": HASH,
    "data": mapping({
        "map": mapping({"regions": shape.anything, "links": shape.anything, "players": shape.anything},
                       rest=shape.anything),
        "tokens": mapping({"tokens": listed(shape.anything, 49, 49)}, rest=shape.anything),
    }),
}, {**_SIGNED, "keys": mapping({}, rest=PUBLIC_KEY), "host_key": PUBLIC_KEY})
_START = mapping({
    **_CHAIN, "nonces": mapping({}, rest=shape.text("(?:(?:[0-9a-f]{2}){16,64})?")),
    "setup": mapping({"first_player": NAME, "board": mapping({}, rest=shape.TOKEN), "supply": shape.TOKENS,
                      "removed": shape.TOKENS, "plague": NAME}),
    "commitments": listed(HASH, 49, 49),
}, _SIGNED)
_PLAYER = {**_CHAIN, "player": NAME}
_SHAPES: dict[str, tuple[type[Entry], Check]] = {cls.KIND: (cls, check) for cls, check in (
    (Create, _CREATE),
    (Commit, mapping({**_PLAYER, "move": shape.move}, _SIGNED)),
    (Nonce, mapping({**_PLAYER, "move": shape.move}, _SIGNED)),
    (Resign, mapping({**_PLAYER, "move": shape.move}, _SIGNED)),
    (Waive, mapping(_PLAYER, _SIGNED)),
    (Abandon, mapping(_CHAIN, _SIGNED)),
    (Start, _START),
    (Move, mapping({**_PLAYER, "move": shape.move, "outcome": _OUTCOME}, _SIGNED)),
    (Timeout, mapping({**_PLAYER, "since": whole(), "due": AT, "actions": _ACTIONS, "outcome": _OUTCOME},
                      _SIGNED)),
    (Standin, mapping({**_PLAYER, "actions": _ACTIONS, "outcome": _OUTCOME}, _SIGNED)),
    (Replace, mapping(_PLAYER, {**_SIGNED, "key": PUBLIC_KEY})),
    (Reveal, mapping({**_CHAIN, "secret": HASH}, _SIGNED)),
)}


def parse_entry(raw: Any, seq: int) -> Entry:
    """The record of entry ``seq``; :class:`TamperError` naming the entry and the rule if its
    shape is not ``schemas/entry.json``'s (P2, P7).  The chain (``seq``, ``prev``) is checked
    here too, so a boolean ``seq`` never passes for a number."""
    if type(raw) is not dict:
        raise TamperError(Msg("entry {seq}: not a mapping", seq=seq), "P7")
    if type(raw.get("seq")) is not int or raw["seq"] != seq:
        raise TamperError(
            Msg("entry {seq}: its seq is {found}, expected {seq} "
                "(an entry was dropped, inserted or moved)", seq=seq, found=repr(raw.get("seq"))), "P7",
        )
    kind = raw.get("kind")
    found = _SHAPES.get(kind) if type(kind) is str else None
    if found is None:
        raise TamperError(Msg("entry {seq}: unknown entry kind {kind} (schemas/entry.json)", seq=seq, kind=repr(kind)),
                          "P7")
    cls, check = found
    if (cls is Create) != (seq == 0):
        raise TamperError(Msg("entry {seq}: the first entry, and only it, is a 'create' entry (P3)", seq=seq), "P3")
    try:
        HASH(raw.get("prev"), "prev")
        AT(raw.get("at"), "at")
        check(raw, "")
        if cls is Create and raw["prev"] != ZEROS:
            raise Bad("prev", "entry 0's prev must be 64 zeros")
    except Bad as err:
        raise TamperError(Msg("entry {seq}: {why} (schemas/entry.json)", seq=seq, why=str(err)), "P7") from None
    if not is_at(raw["at"]):
        raise TamperError(Msg("entry {seq}: its 'at' is not a time like 2026-11-30T09:15:00Z", seq=seq), "P7")
    player = raw.get("player")
    if isinstance(raw.get("move"), dict) and raw["move"]["kind"] != kind:
        raise TamperError(Msg("entry {seq}: a {kind} entry records a {move} move", seq=seq, kind=repr(kind),
                              move=repr(raw["move"]["kind"])), "P7")
    return cls(seq, raw["at"], player if isinstance(player, str) else None, raw)
