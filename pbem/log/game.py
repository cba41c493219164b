"""A game as its public log shows it: the fixed facts of entry 0, the opening, the state.

:class:`Game` is what every reader rebuilds from the log (``pbem.referee.replay``) and
what the referee (``pbem.referee.admit``) judges a move against.  It holds nothing
secret: the host's secret file and the players' private files stay outside.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from enum import StrEnum
from typing import Any

from pbem.i18n import Msg
from pbem.log.records import Edition, Entry, Made
from pbem.record import Record, Slots
from pbem.rules import State
from pbem.rules.data import Board, Catalogue

BOT_LEVELS = ("random", "greedy", "mcts")
"""The levels of pbem's bots a seat may be given (entry 0 ``options.bots``)."""


class Opening(StrEnum):
    """Where a game stands before its start (PROTOCOL.md P4)."""

    COMMIT = "commit"  # some seat has neither committed to a nonce nor been waived
    REVEAL = "reveal"  # every seat committed or waived; the committed nonces are being revealed
    STARTED = "started"
    ABANDONED = "abandoned"


class Facts(Record):
    """The fixed facts of entry 0 (P3): who plays, on what data, with which options."""

    game_id: str
    players: tuple[str, ...]
    board: Board
    catalogue: Catalogue
    first_named: str | None
    secret_commitment: str
    made: Made  # P7: by the OS, or supplied (a test game)
    edition: Edition  # P3: the shipped data, or a custom map or tokens
    data_hash: str
    bots: Mapping[str, str]  # entry 0: seat -> bot level, played by the host
    deadline: int | None  # R8.1: seconds a turn may take (entry 0's options), or none
    reminder: int | None  # seconds before the deadline a reminder is mailed, or none
    whole_turns: bool  # R7.5: a move file holds the rest of its turn (games from pbem 0.2 on)
    whole_first_turn: bool  # R7.5 at the end of setup: the last placement's move holds turn 1 whole (0.3 on)
    absence: int | None  # R8.5: each seat's absence allowance in whole days (entry 0), or none
    absence_ruling: bool  # R8.5's ruling: no absence once the turn is overdue (games from pbem 0.3 on)


class Entropy(Slots):
    """P4: what the opening has recorded so far: each seat's nonce commitment, the waived
    seats, the revealed nonces, and whether the host abandoned the game."""

    __slots__ = ("abandoned", "commits", "nonces", "waived")

    def __init__(self) -> None:
        self.commits: dict[str, str] = {}  # player -> nonce commitment
        self.waived: set[str] = set()  # seats that add no nonce
        self.nonces: dict[str, str] = {}  # player -> revealed nonce, hex
        self.abandoned = False

    def copy(self) -> Entropy:
        made = Entropy()
        made.commits, made.waived, made.nonces = dict(self.commits), set(self.waived), dict(self.nonces)
        made.abandoned = self.abandoned
        return made


class Keys:
    """P8: the key in force for each seat, in one place for the replay and the signature check:
    entry 0's keys, a key registered with a nonce commitment, a replaced seat's new key."""

    __slots__ = ("by_player", "host")

    def __init__(self, first: Mapping[str, str], host: str | None = None) -> None:
        self.by_player: dict[str, str] = dict(first)
        self.host = host  # entry 0's host_key: no seat may hold it (P8)

    def copy(self) -> Keys:
        return Keys(self.by_player, self.host)

    def get(self, player: str) -> str | None:
        return self.by_player.get(player)

    def __bool__(self) -> bool:
        return bool(self.by_player)

    def __contains__(self, player: object) -> bool:
        return player in self.by_player

    def __getitem__(self, player: str) -> str:
        return self.by_player[player]

    def holder(self, player: str, key: str) -> str | None:
        """P8, one key per seat: who other than ``player`` holds ``key`` ("the host", a seat),
        or None when ``key`` may be ``player``'s."""
        if key == self.host:
            return "the host"
        return next((f"seat {p}" for p, k in self.by_player.items() if k == key and p != player), None)

    def clash(self) -> str | None:
        """P8: the first key that sits on two seats, or on a seat and the host; None if none."""
        for player, key in self.by_player.items():
            other = self.holder(player, key)
            if other is not None:
                return Msg("{player}'s key {key}... is also {other}'s", player=player, key=key[8:20], other=other)
        return None

    def register(self, player: str, key: str) -> None:
        """P8: a key registered with a commitment; an earlier one stays in force."""
        self.by_player.setdefault(player, key)

    def hand_over(self, player: str, key: str | None) -> None:
        """R8.4: the seat's new player signs with ``key`` from here on (none: unsigned)."""
        if key is None:
            self.by_player.pop(player, None)
        else:
            self.by_player[player] = key


@dataclass
class Game:
    """A game as its public log shows it, up to its last entry."""

    facts: Facts
    entries: list[Entry]  # the log's records, parsed once (pbem.log.records)
    hashes: list[str]
    keys: Keys
    p4: Entropy = field(default_factory=Entropy)  # the opening's commitments, waivers, nonces
    commitments: list[str] = field(default_factory=list)  # P6: the 49, from the start entry
    state: State | None = None
    secret: bytes | None = None  # once revealed (P6)
    sent: dict[str, int] = field(default_factory=dict)  # P7: each recorded move's digest -> seq
    resigned: set[str] = field(default_factory=set)  # R8.4: seats the stand-in plays, at once
    turn_since: int = 0  # R8.1: the seq of the entry that made it the player to move's turn
    revealed: dict[str, str] = field(default_factory=dict)  # P6: public token -> catalogue id, every flip


    @property
    def commits(self) -> dict[str, str]:
        """P4: player -> nonce commitment."""
        return self.p4.commits

    @property
    def waived(self) -> set[str]:
        """P4: the seats that add no nonce."""
        return self.p4.waived

    @property
    def nonces(self) -> dict[str, str]:
        """P4: the revealed nonces, hex."""
        return self.p4.nonces

    @property
    def abandoned(self) -> bool:
        return self.p4.abandoned

    @property
    def game_id(self) -> str:
        return self.facts.game_id

    @property
    def players(self) -> tuple[str, ...]:
        return self.facts.players

    @property
    def board(self) -> Board:
        return self.facts.board

    @property
    def catalogue(self) -> Catalogue:
        return self.facts.catalogue

    @property
    def first_named(self) -> str | None:
        return self.facts.first_named

    @property
    def secret_commitment(self) -> str:
        return self.facts.secret_commitment

    @property
    def made(self) -> Made:
        return self.facts.made

    @property
    def edition(self) -> Edition:
        return self.facts.edition

    @property
    def data_hash(self) -> str:
        return self.facts.data_hash

    @property
    def bots(self) -> Mapping[str, str]:
        return self.facts.bots

    @property
    def deadline(self) -> int | None:
        return self.facts.deadline

    @property
    def reminder(self) -> int | None:
        return self.facts.reminder

    @property
    def started(self) -> bool:
        return self.state is not None

    @property
    def over(self) -> bool:
        return self.state is not None and self.state.to_move is None

    @property
    def opening(self) -> Opening:
        if self.abandoned:
            return Opening.ABANDONED
        if self.started:
            return Opening.STARTED
        if all(p in self.commits or p in self.waived for p in self.players):
            return Opening.REVEAL
        return Opening.COMMIT

    @property
    def awaited(self) -> tuple[str, ...]:
        """P4: the seats the opening waits for (to commit, or to reveal)."""
        opening = self.opening
        if opening is Opening.COMMIT:
            return tuple(p for p in self.players if p not in self.commits and p not in self.waived)
        if opening is Opening.REVEAL:
            return tuple(
                p for p in self.players if p in self.commits and p not in self.waived and p not in self.nonces
            )
        return ()

    @property
    def ready_to_start(self) -> bool:
        """P4: every seat committed or waived and every committed nonce revealed."""
        return self.opening is Opening.REVEAL and not self.awaited

    @property
    def last_seq(self) -> int:
        return len(self.entries) - 1

    @property
    def last_hash(self) -> str:
        return self.hashes[-1]

    @property
    def last_at(self) -> str | None:
        return self.entries[-1].at

    @property
    def test_game(self) -> bool:
        """P7: a game made from a supplied secret is a test game."""
        return self.made is Made.SUPPLIED

    def at_of(self, seq: int) -> str:
        """The ``at`` of entry ``seq`` (P7; every replayed entry has one)."""
        return self.entries[seq].at

    @property
    def to_move(self) -> str | None:
        """The seat to move (as :attr:`pbem.rules.State.to_move`); None before the start and at the end."""
        return self.state.to_move if self.state is not None else None

    def fork(self) -> Game:
        """A copy that replaying more entries into either leaves the other as it was: every
        field copied, whatever fields a later version adds (the records and the facts are
        immutable, so a copy of them is themselves)."""
        return Game(**{f.name: _forked(getattr(self, f.name)) for f in fields(self)})

    def seed_nonces(self) -> list[bytes]:
        """P4: each seat's nonce in seat order, a waived seat's as zero bytes."""
        return [bytes.fromhex(self.nonces.get(p, "")) for p in self.players]


_SHARED = (Record, str, bytes, int, float, bool, type(None))
"""Values a fork shares with its game: immutable ones."""


def _forked(value: Any) -> Any:
    """One field of a game for its fork: an immutable value as it is, a container of immutable
    values copied one level, the state, the opening and the keys by their own copy, anything
    else copied whole (so a field added later is never shared by accident)."""
    if isinstance(value, _SHARED):
        return value
    if isinstance(value, State | Entropy | Keys):
        return value.copy()
    if isinstance(value, list | set | tuple) and all(isinstance(x, _SHARED) for x in value):
        return type(value)(value)
    if isinstance(value, dict) and all(isinstance(x, _SHARED) for x in value.values()):
        return dict(value)
    return copy.deepcopy(value)
