"""The log's entries as records: one immutable type per kind, both ways.

Reading: :func:`pbem.log.records.reader.parse_entry` checks an entry's shape and returns
the record of its kind; every reader then asks the record its typed fields (entry 0's
players and options, the start's setup and nonces, a turn's outcome as the rules' typed
events, what it reveals) and ``match``es on its class, never on a ``kind`` string.

Writing: each kind's ``new`` is the one writer of a new entry of its kind.  It returns a
:class:`Draft`: the fields in the log's order, which the host chains, stamps and seals
(:func:`pbem.log.logfile.link`) before the very same reader reads it back.
"""

from __future__ import annotations

from functools import cached_property
from typing import Any, ClassVar, TypeAlias, assert_never, cast

from pbem.log.records.sent import AwayMove, CommitMove, MoveFile, NonceMove, ResignMove, move_of
from pbem.log.records.values import Difference, Edition, Flipped, Made, Options, SaltOf, Setup, written_outcome
from pbem.record import Record
from pbem.rules.actions import Action
from pbem.rules.cards import action_from_dict
from pbem.rules.events import Event, event_from_dict


class Draft(Record):
    """A new entry before the host chains it: its kind's record class and its fields, in order."""

    kind: type[Entry]
    fields: dict[str, Any]

    def to_raw(self) -> dict[str, Any]:
        """The entry as it is written, less the chain (``seq``, ``prev``, ``at``) and the seal."""
        return {"kind": self.kind.KIND, **self.fields}


class Entry(Record):
    """One entry of the public log; ``raw`` is the entry as written (hashed, signed, quoted)."""

    KIND: ClassVar[str] = ""
    seq: int
    at: str
    player: str | None  # the seat it is about; None for the host's own entries without one
    raw: dict[str, Any]

    def to_raw(self) -> dict[str, Any]:
        """The entry as written: what its hash and the host's signature cover (P7, P8)."""
        return self.raw

    @cached_property
    def signature(self) -> str | None:
        value = self.raw.get("signature")
        return value if isinstance(value, str) else None

    @property
    def outcome(self) -> tuple[Event, ...]:
        """P7: the public outcome as the rules' typed events (none for an entry that plays no turn)."""
        return ()

    @property
    def reveals(self) -> tuple[Flipped, ...]:
        """P6: the tokens this entry flips face up, with their reveals."""
        return ()

    def events(self) -> list[Event]:
        """What the entry caused, as the rules' typed events."""
        return list(self.outcome)

    @property
    def played(self) -> bool:
        """Does the entry play a turn (a player's move or the stand-in's)?"""
        return False


class Create(Entry):
    """P3: entry 0: the players, the commitment to the secret, the game's own data."""

    KIND: ClassVar[str] = "create"

    @classmethod
    def new(cls, *, protocol: str, engine: dict[str, str], game: str, players: tuple[str, ...], options: Options,
            commitment: str, made: Made, edition: Edition, data_hash: str, data: dict[str, Any],
            keys: dict[str, str], host_key: str | None) -> Draft:
        fields: dict[str, Any] = {
            "protocol": protocol, "engine": engine, "game": game, "players": list(players),
            "options": options.to_raw(), "secret": {"commitment": commitment, "made": made.value},
            "edition": edition.value, "data_hash": data_hash, "data": data,
        }
        if keys:
            fields["keys"] = dict(sorted(keys.items()))
        if host_key is not None:
            fields["host_key"] = host_key
        return Draft(cls, fields)

    @cached_property
    def game_id(self) -> str:
        return str(self.raw["game"])

    @cached_property
    def players(self) -> tuple[str, ...]:
        return tuple(self.raw["players"])

    @cached_property
    def options(self) -> Options:
        raw = self.raw["options"]
        return Options(raw.get("first"), raw.get("deadline"), raw.get("reminder"), dict(raw.get("bots", {})),
                       raw.get("absence"))

    @property
    def engine(self) -> dict[str, Any]:
        """The engine that created the game: its ``name`` and ``version`` (and what else it says)."""
        return dict(self.raw["engine"])

    @cached_property
    def secret_commitment(self) -> str:
        return str(self.raw["secret"]["commitment"])

    @cached_property
    def made(self) -> Made:
        """P7: how the secret was made (``os-csprng``, or ``supplied`` for a test game)."""
        return Made(self.raw["secret"]["made"])

    @cached_property
    def edition(self) -> Edition:
        return Edition(self.raw["edition"])

    @cached_property
    def data_hash(self) -> str:
        return str(self.raw["data_hash"])

    @property
    def data(self) -> dict[str, Any]:
        """The game's own map and token catalogue (``map``, ``tokens``), as written."""
        return dict(self.raw["data"])

    @property
    def keys(self) -> dict[str, str]:
        """P8: each seat's key named at creation (none: the seats' moves are unsigned)."""
        return dict(self.raw.get("keys") or {})

    @cached_property
    def names_keys(self) -> bool:
        """Does entry 0 name a seat key or a host key (so signatures are checked, P8)?"""
        return bool(self.raw.get("keys")) or bool(self.raw.get("host_key"))

    @cached_property
    def host_key(self) -> Any:
        """P8: the host's key, as written (its shape is checked where it is used); None if absent."""
        return self.raw.get("host_key")


class Sent(Entry):
    """An entry that records a move file as its player sent it (``schemas/move.json``)."""

    @cached_property
    def move(self) -> MoveFile:
        return move_of(self.raw["move"])


class Commit(Sent):
    """P4: a seat's commitment to its nonce (and, P8, the key it registers)."""

    KIND: ClassVar[str] = "commit"


class Nonce(Sent):
    """P4: a seat's nonce, revealed."""

    KIND: ClassVar[str] = "nonce"


class Resign(Sent):
    """R8.4: a player leaves; the stand-in plays the seat from now on."""

    KIND: ClassVar[str] = "resign"


class Away(Sent):
    """R8.5: a player's absence of whole days, from this entry's ``at``."""

    KIND: ClassVar[str] = "away"

    @cached_property
    def days(self) -> int:
        return int(self.raw["move"]["days"])


class Waive(Entry):
    """P4: the host waived a seat's nonce."""

    KIND: ClassVar[str] = "waive"

    @classmethod
    def new(cls, player: str) -> Draft:
        return Draft(cls, {"player": player})


class Abandon(Entry):
    """P4: the host abandoned the game before its start."""

    KIND: ClassVar[str] = "abandon"

    @classmethod
    def new(cls) -> Draft:
        return Draft(cls, {})


class Start(Entry):
    """P5-P6: the public setup and the 49 commitments."""

    KIND: ClassVar[str] = "start"

    @classmethod
    def new(cls, nonces: dict[str, str], setup: Setup, commitments: tuple[str, ...]) -> Draft:
        return Draft(cls, {"nonces": dict(nonces), "setup": setup.to_raw(), "commitments": list(commitments)})

    @property
    def nonces(self) -> dict[str, str]:
        """P4: each seat's nonce the seed used (empty for a waived seat)."""
        return dict(self.raw["nonces"])

    @cached_property
    def setup(self) -> Setup:
        raw = self.raw["setup"]
        return Setup(raw["first_player"], dict(raw["board"]), tuple(raw["supply"]), tuple(raw["removed"]),
                     raw["plague"])

    @cached_property
    def commitments(self) -> tuple[str, ...]:
        return tuple(self.raw["commitments"])


class Turn(Entry):
    """An entry that plays a turn and records its outcome (a move, a timeout, a stand-in turn)."""

    @cached_property
    def outcome(self) -> tuple[Event, ...]:
        """The recorded outcome's events, read once (on first use: most entries of a log are never asked)."""
        return tuple(event_from_dict(item) for item in self.raw["outcome"])

    @cached_property
    def reveals(self) -> tuple[Flipped, ...]:
        return tuple(Flipped(e["token"], e["token_id"], e["salt"])
                     for e in self.raw["outcome"] if e["event"] == "token_flipped")

    @property
    def played(self) -> bool:
        return True

    def difference(self, events: list[Event], salt_of: SaltOf) -> Difference | None:
        """P7: None when ``events`` (with their salts) are exactly the recorded outcome;
        else the first difference."""
        ours, theirs = written_outcome(events, salt_of), self.raw["outcome"]
        if ours == theirs:
            return None
        for i, (a, b) in enumerate(zip(ours, theirs, strict=False)):
            if a != b:
                return Difference(i + 1, str(a), str(b))
        return Difference(0, str(len(ours)), str(len(theirs)))


class Played(Turn, Sent):
    """The log entry of a turn its player played: the move as sent (P7) and its public outcome."""

    KIND: ClassVar[str] = "move"

    @classmethod
    def played_as(cls, move: MoveFile, events: list[Event], salt_of: SaltOf) -> Draft:
        return Draft(cls, {"player": move.player, "move": move.to_raw(), "outcome": written_outcome(events, salt_of)})


class Standin(Turn):
    """R8.4: a resigned seat's turn, played by the stand-in (R8.3) at once."""

    KIND: ClassVar[str] = "standin"

    @classmethod
    def new(cls, player: str, actions: list[dict[str, Any]], events: list[Event], salt_of: SaltOf) -> Draft:
        return Draft(cls, {"player": player, "actions": actions, "outcome": written_outcome(events, salt_of)})

    @cached_property
    def actions(self) -> tuple[Action, ...]:
        """The stand-in's actions (R8.3), typed, read once."""
        return tuple(action_from_dict(a) for a in self.raw["actions"])


class Timeout(Standin):
    """R8.2-R8.3: the deadline of the turn begun at entry ``since`` passed at ``due``."""

    KIND: ClassVar[str] = "timeout"

    @classmethod
    def timed_out(cls, player: str, since: int, due: str, actions: list[dict[str, Any]], events: list[Event],
                  salt_of: SaltOf) -> Draft:
        return Draft(cls, {"player": player, "since": since, "due": due, "actions": actions,
                           "outcome": written_outcome(events, salt_of)})

    @cached_property
    def since(self) -> int:
        return int(self.raw["since"])

    @cached_property
    def due(self) -> str:
        return str(self.raw["due"])


class Replace(Entry):
    """R8.4: a seat handed to a new player, whose moves are checked against ``key``."""

    KIND: ClassVar[str] = "replace"

    @classmethod
    def new(cls, player: str, key: str | None) -> Draft:
        return Draft(cls, {"player": player} if key is None else {"player": player, "key": key})

    @cached_property
    def key(self) -> str | None:
        value = self.raw.get("key")
        return value if isinstance(value, str) else None


class Reveal(Entry):
    """P6: the secret, published once the game is over."""

    KIND: ClassVar[str] = "reveal"

    @classmethod
    def new(cls, secret: bytes) -> Draft:
        return Draft(cls, {"secret": secret.hex()})

    @cached_property
    def secret(self) -> str:
        return str(self.raw["secret"])


AnyEntry: TypeAlias = (Create | Commit | Nonce | Resign | Away | Waive | Abandon | Start | Played | Timeout
                       | Standin | Replace | Reveal)
"""Every kind of entry (``schemas/entry.json``): the closed set a ``match`` with ``assert_never``
covers (the reader makes no other: :func:`kinded`)."""


def kinded(entry: Entry) -> AnyEntry:
    """``entry`` as one of the closed set of kinds (every record the reader makes is one)."""
    return cast(AnyEntry, entry)


def as_sent(move: CommitMove | NonceMove | ResignMove | AwayMove) -> Draft:
    """The entry recording an opening move, a resignation or an absence as sent (a turn is recorded with
    its outcome: :meth:`Played.played_as`)."""
    entry: type[Entry]
    match move:
        case CommitMove():
            entry = Commit
        case NonceMove():
            entry = Nonce
        case ResignMove():
            entry = Resign
        case AwayMove():
            entry = Away
        case _:
            assert_never(move)
    return Draft(entry, {"player": move.player, "move": move.to_raw()})

