"""A game as its public log shows it: the fixed facts of entry 0, the opening, the state.

:class:`Game` is what every reader rebuilds from the log (``pbem.replay``) and
what the referee (``pbem.referee``) judges a move against.  It holds nothing
secret: the host's secret file and the players' private files stay outside.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from pbem.gamedata import Board, Catalogue
from pbem.rules import State


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

    def to_move(self) -> str | None:
        return self.state.to_move if self.state is not None else None

    def seed_nonces(self) -> list[bytes]:
        """P4: each seat's nonce in seat order, a waived seat's as zero bytes."""
        return [bytes.fromhex(self.nonces.get(p, "")) for p in self.players]
