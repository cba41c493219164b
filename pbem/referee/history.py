"""One history (PROTOCOL.md P9): the log a player kept must be a prefix of the new one.

A player keeps the last log they received (OLD). When a new copy arrives (NEW),
:func:`compare` checks that OLD is a prefix of NEW entry for entry, by hash. A
truncation (a rollback), an edit re-hashed from some entry on, and a game
re-created under the same id all pass a plain ``pbem verify`` of NEW alone; they
show here, at the first entry where the two logs part.

When both entries at that point carry a valid signature of the same host key
(P8), for the same game id and ``seq`` but with different hashes, the result
carries a :class:`ForkProof`: the host signed two different entries for the same
position, which proves two histories.

Pure: it takes logs already read (and chain-checked) by
:func:`pbem.log.logfile.read_log`; the command line is ``pbem verify NEW --extends OLD``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from pbem.errors import TamperError
from pbem.fair.keys import entry_message, verify
from pbem.i18n import Msg

Outcome = Literal["identical", "extends", "truncated", "forked", "recreated"]

SHORT = 16  # hex digits of a hash shown in a message


@dataclass(frozen=True)
class SignedEntry:
    """One side of a fork proof: a host-signed entry and its hash."""

    side: str  # "NEW" or "OLD"
    entry: dict[str, Any]
    hash: str

    @property
    def seq(self) -> int:
        seq = self.entry["seq"]
        assert isinstance(seq, int)
        return seq

    @property
    def signature(self) -> str:
        signature = self.entry["signature"]
        assert isinstance(signature, str)
        return signature

    def summary(self) -> Msg:
        return Msg("{side} entry {seq}: hash {hash}, host signature {signature}", side=self.side, seq=self.seq,
                   hash=self.hash, signature=self.signature)


@dataclass(frozen=True)
class ForkProof:
    """Two entries for the same game and ``seq``, different hashes, both signed by the host."""

    game_id: str
    host_key: str
    new: SignedEntry
    old: SignedEntry

    def statement(self) -> Msg:
        """The proof in one sentence (a :class:`pbem.i18n.Msg`: said in the reader's language)."""
        return Msg(
            "PROOF OF TWO HISTORIES: the host key {host_key} signed two different entries "
            "for the same position, entry {seq} of game {game} "
            "({new}; {old}); a host keeps one history, so these "
            "two signed entries prove that this host kept two",
            host_key=self.host_key, seq=self.new.seq, game=repr(self.game_id),
            new=self.new.summary(), old=self.old.summary(),
        )


@dataclass(frozen=True)
class HistoryCheck:
    """The verdict of :func:`compare`: ``ok`` and one paragraph saying why."""

    outcome: Outcome
    message: Msg  # said in the reader's language (its str: the English)
    new_last: int
    old_last: int
    parted_at: int | None = None
    proof: ForkProof | None = None

    @property
    def ok(self) -> bool:
        return self.outcome in ("identical", "extends")

    def error(self) -> TamperError:
        return TamperError(self.message, "P9")


def compare(
    new_entries: list[dict[str, Any]],
    new_hashes: list[str],
    old_entries: list[dict[str, Any]],
    old_hashes: list[str],
) -> HistoryCheck:
    """Is OLD (the log a player kept) a prefix of NEW, entry for entry (P9)?"""
    if len(new_entries) != len(new_hashes) or len(old_entries) != len(old_hashes):
        raise ValueError("compare: each log needs one hash per entry (read_log gives both)")
    if not new_entries or not old_entries:
        raise ValueError("compare: a log has at least entry 0 (read_log refuses an empty one)")
    parted = next(
        (k for k, (a, b) in enumerate(zip(new_hashes, old_hashes, strict=False)) if a != b), None
    )
    if parted is None:
        return _one_history(new_hashes, old_hashes)
    return _parted(new_entries, new_hashes, old_entries, old_hashes, parted)


def _one_history(new_hashes: list[str], old_hashes: list[str]) -> HistoryCheck:
    """NEW and OLD agree on every entry both have: the same, one longer, or NEW cut short."""
    new_last, old_last = len(new_hashes) - 1, len(old_hashes) - 1
    if new_last == old_last:
        return HistoryCheck(
            "identical",
            Msg("NEW and OLD are the same history: both end at entry {last} "
                "({hash}), nothing was added (P9)", last=new_last, hash=new_hashes[-1][:SHORT]),
            new_last, old_last,
        )
    if new_last > old_last:
        added = new_last - old_last
        return HistoryCheck(
            "extends",
            Msg.plural(
                "NEW extends OLD by {n} entry: entries 0 to "
                "{old_last} are the same, hash for hash (entry {old_last}: "
                "{old_hash}), and NEW goes on to entry {new_last} "
                "({new_hash}) (P9)",
                "NEW extends OLD by {n} entries: entries 0 to "
                "{old_last} are the same, hash for hash (entry {old_last}: "
                "{old_hash}), and NEW goes on to entry {new_last} "
                "({new_hash}) (P9)",
                added, old_last=old_last, old_hash=old_hashes[-1][:SHORT], new_last=new_last,
                new_hash=new_hashes[-1][:SHORT],
            ),
            new_last, old_last,
        )
    return HistoryCheck(
        "truncated",
        Msg("NEW ends at entry {new_last} ({new_hash}) but OLD, which you kept, "
            "already has entries up to {old_last}: history was cut. Entries {first_missing} to "
            "{old_last} of OLD are missing from NEW (a rollback); NEW verifies on its own, "
            "which is why a player keeps the last log they received. Keep OLD and ask the host "
            "why", new_last=new_last, new_hash=new_hashes[-1][:SHORT], old_last=old_last,
            first_missing=new_last + 1),
        new_last, old_last,
    )


def _parted(
    new_entries: list[dict[str, Any]],
    new_hashes: list[str],
    old_entries: list[dict[str, Any]],
    old_hashes: list[str],
    parted: int,
) -> HistoryCheck:
    """NEW and OLD differ from entry ``parted`` on: re-created at entry 0, else forked."""
    proof = _proof(new_entries, new_hashes, old_entries, old_hashes, parted)
    both = Msg.plural(
        "NEW's entry {seq} has hash {new_hash}..., OLD's has {old_hash}... (first {n} hex digit)",
        "NEW's entry {seq} has hash {new_hash}..., OLD's has {old_hash}... (first {n} hex digits)", SHORT,
        seq=parted, new_hash=new_hashes[parted][:SHORT], old_hash=old_hashes[parted][:SHORT],
    )
    outcome: Outcome
    finding: Msg
    if parted == 0:
        finding = Msg(
            "NEW and OLD part at entry 0: {both}, so {what}. "
            "Nothing of OLD's history is in NEW: the game was re-created, which lets a host deal again",
            both=both, what=_recreated(new_entries[0], old_entries[0]),
        )
        outcome = "recreated"
    else:
        finding = Msg(
            "NEW and OLD part at entry {seq}: entries 0 to {before} are the same, but "
            "{both}. History was rewritten from entry {seq} on (an entry edited and the "
            "chain re-hashed after it, or a second history kept from that point)",
            seq=parted, before=parted - 1, both=both,
        )
        outcome = "forked"
    if proof is not None:
        message = Msg("{finding}. {proof}", finding=finding, proof=proof.statement())
    else:
        message = Msg("{finding}. Keep OLD and ask the host why", finding=finding)
    return HistoryCheck(outcome, message, len(new_hashes) - 1, len(old_hashes) - 1, parted, proof)


def _recreated(new_first: dict[str, Any], old_first: dict[str, Any]) -> Msg:
    """What two different entries 0 say: the same id re-used, or two games (a whole clause each)."""
    new_id, old_id = new_first.get("game"), old_first.get("game")
    new_c, old_c = _commitment(new_first), _commitment(old_first)
    ids = {"new_id": repr(new_id), "old_id": repr(old_id)}
    if new_c == old_c:
        return (Msg("a different game was created under the same id {new_id}", **ids) if new_id == old_id
                else Msg("they are different games ({new_id} in NEW, {old_id} in OLD)", **ids))
    commitments = {"new_c": new_c[:SHORT], "old_c": old_c[:SHORT]}
    if new_id == old_id:
        return Msg("a different game was created under the same id {new_id} (a different secret commitment: "
                   "{new_c}... in NEW, {old_c}... in OLD)", **ids, **commitments)
    return Msg("they are different games ({new_id} in NEW, {old_id} in OLD) (a different secret commitment: "
               "{new_c}... in NEW, {old_c}... in OLD)", **ids, **commitments)


def _commitment(entry: dict[str, Any]) -> str:
    secret = entry.get("secret")
    commitment = secret.get("commitment") if isinstance(secret, dict) else None
    return commitment if isinstance(commitment, str) else "?"


def _proof(
    new_entries: list[dict[str, Any]],
    new_hashes: list[str],
    old_entries: list[dict[str, Any]],
    old_hashes: list[str],
    k: int,
) -> ForkProof | None:
    """Both entries at ``k`` signed by the one host key of both logs, same game, same seq."""
    host_key = new_entries[0].get("host_key")
    game_id = new_entries[0].get("game")
    if not isinstance(host_key, str) or host_key != old_entries[0].get("host_key"):
        return None
    if not isinstance(game_id, str) or game_id != old_entries[0].get("game"):
        return None
    new, old = new_entries[k], old_entries[k]
    if new.get("seq") != k or old.get("seq") != k or new_hashes[k] == old_hashes[k]:
        return None
    for entry in (new, old):
        if not verify(host_key, entry.get("signature"), entry_message(entry)):
            return None
    return ForkProof(
        game_id, host_key,
        SignedEntry("NEW", new, new_hashes[k]),
        SignedEntry("OLD", old, old_hashes[k]),
    )
