"""A game as its public log shows it: the fixed facts of entry 0, the opening, the state.

:class:`Game` is what every reader rebuilds from the log (``pbem.referee.replay``) and
what the referee (``pbem.referee.admit``) judges a move against.  It holds nothing
secret: the host's secret file and the players' private files stay outside.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from pbem.rules import State
from pbem.rules.data import Board, Catalogue

BOT_LEVELS = ("random", "greedy", "mcts")
"""The levels of pbem's bots a seat may be given (entry 0 ``options.bots``, issue 13)."""


class Opening(StrEnum):
    """Where a game stands before its start (PROTOCOL.md P4)."""

    COMMIT = "commit"  # some seat has neither committed to a nonce nor been waived
    REVEAL = "reveal"  # every seat committed or waived; the committed nonces are being revealed
    STARTED = "started"
    ABANDONED = "abandoned"


@dataclass
class Game:
    """A game as its public log shows it, up to its last entry."""

    game_id: str
    players: tuple[str, ...]
    board: Board
    catalogue: Catalogue
    entries: list[dict[str, Any]]
    hashes: list[str]
    first_named: str | None
    secret_commitment: str
    made: str  # P7: "os-csprng", or "supplied" (a test game)
    edition: str  # P3: "standard" or "custom"
    data_hash: str
    commits: dict[str, str] = field(default_factory=dict)  # P4: player -> nonce commitment
    waived: set[str] = field(default_factory=set)  # P4: seats that add no nonce
    nonces: dict[str, str] = field(default_factory=dict)  # P4: revealed nonces, hex
    keys: dict[str, str] = field(default_factory=dict)  # P8: player -> public key
    bots: dict[str, str] = field(default_factory=dict)  # entry 0: seat -> bot level, played by the host
    commitments: list[str] = field(default_factory=list)  # P6: the 49, from the start entry
    state: State | None = None
    secret: bytes | None = None  # once revealed (P6)
    abandoned: bool = False
    sent: dict[str, int] = field(default_factory=dict)  # P7: each recorded move's digest -> seq
    deadline: int | None = None  # R8.1: seconds a turn may take (entry 0's options), or none
    reminder: int | None = None  # seconds before the deadline a reminder is mailed, or none
    resigned: set[str] = field(default_factory=set)  # R8.4: seats the stand-in plays, at once
    turn_since: int = 0  # R8.1: the seq of the entry that made it the player to move's turn

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
        at = self.entries[-1].get("at")
        return at if isinstance(at, str) else None

    @property
    def test_game(self) -> bool:
        """P7: a game made from a supplied secret is a test game."""
        return self.made == "supplied"

    def at_of(self, seq: int) -> str:
        """The ``at`` of entry ``seq`` (P7; every replayed entry has one)."""
        return str(self.entries[seq]["at"])

    def to_move(self) -> str | None:
        return self.state.to_move if self.state is not None else None

    def seed_nonces(self) -> list[bytes]:
        """P4: each seat's nonce in seat order, a waived seat's as zero bytes."""
        return [bytes.fromhex(self.nonces.get(p, "")) for p in self.players]
