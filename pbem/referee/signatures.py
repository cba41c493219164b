"""Who signed what, checked against the log (PROTOCOL.md P8): a move's signer, every entry's host.

The referee asks :func:`check_move` of every move of a seat with a key; every
reader asks :func:`require_valid` of a whole log (the host before it appends,
``pbem verify`` and ``pbem audit`` before they call a log good).  The bytes
signed and the Ed25519 primitives are :mod:`pbem.fair.keys`'.
"""

from __future__ import annotations

from pbem.errors import SignatureError
from pbem.fair.keys import entry_message, fingerprint, is_public_text, move_message, verify
from pbem.i18n import Msg
from pbem.log.game import Game, Keys
from pbem.log.records import Commit, Create, Entry, Replace, Sent
from pbem.log.records.sent import MoveFile
from pbem.record import Record


def log_has_signatures(entries: list[Entry]) -> bool:
    """P8: does any entry or move carry a key or a signature (so signatures must be checked)?"""
    first = entries[0]
    if isinstance(first, Create) and first.names_keys:
        return True
    for entry in entries:
        move = entry.move if isinstance(entry, Sent) else None
        if entry.signature is not None or (move is not None and (move.signed or move.carries_key)):
            return True
        if isinstance(entry, Replace) and entry.key is not None:  # R8.4: a new player's key
            return True
    return False


def key_for(keys: Keys, move: MoveFile, player: str) -> tuple[str | None, str]:
    """The key a move of ``player`` must be signed with, and where that key comes from.

    A key registered earlier (entry 0 or an earlier commitment) is in force; a
    commitment that registers a key must itself be signed with it (proof of possession).
    """
    registered = keys.get(player)
    offered = move.key  # move.json: only a nonce commitment carries a key
    if registered is not None:
        if isinstance(offered, str) and offered != registered:
            raise SignatureError(Msg(
                "{player} already has key {key}... registered; a nonce "
                "commitment cannot replace it", player=player, key=fingerprint(registered)), "P8",
            )
        return registered, Msg("the key registered for {player}", player=player)
    if isinstance(offered, str):
        return offered, Msg("the key this commitment registers")
    return None, ""


def check_one_key(game: Game, player: str, key: str) -> None:
    """P8, one key per seat: a key registered for ``player`` (with a commitment, or by
    ``pbem replace``) may be no other seat's key and not the host's."""
    other = game.keys.holder(player, key)
    if other is not None:
        raise SignatureError(Msg(
            "the key {key}... is already {other}'s: one key per seat, and none the host's; "
            "{player} must register a key of their own ('pbem keygen'); nothing was changed",
            key=key[8:20], other=other, player=player), "P8",
        )


def check_move(game: Game, move: MoveFile) -> None:
    """Refuse a move of a player with a key that is unsigned or wrongly signed (P8)."""
    public, source = key_for(game.keys, move, move.player)
    signature = move.signature
    if public is None:
        if signature is not None:
            raise SignatureError(Msg(
                "the move is signed, but {player} has no registered key to check it "
                "against; register one ('pbem new --key', or 'key:' in the commitment) or send the "
                "move unsigned", player=move.player), "P8",
            )
        return
    if signature is None:
        raise SignatureError(Msg(
            "{player}'s moves must be signed with {source} ({key}...); "
            "this move is not signed: run 'pbem sign MOVE --key YOUR_KEY' and send it again",
            player=move.player, source=source, key=fingerprint(public)), "P8",
        )
    if not verify(public, signature, move_message(move.to_raw())):
        raise SignatureError(Msg(
            "the move's signature does not verify with {source} ({key}...): "
            "it was signed with another key, or the move was changed after signing; "
            "nothing was changed", source=source, key=fingerprint(public)), "P8",
        )


# --- anyone: checking a whole log ---------------------------------------------------------

class LogSignatures(Record):
    entries_signed: int
    moves_signed: int
    failures: list[str]


def check_log(entries: list[Entry]) -> LogSignatures:
    """Every host signature on every entry, every player signature on every move (P8).

    The keys in force are :class:`pbem.log.game.Keys`, as the replay tracks them."""
    failures: list[str] = []
    first = entries[0]
    assert isinstance(first, Create)  # the reader takes no other entry 0 (P3)
    host_key = first.host_key
    if host_key is not None and not is_public_text(host_key):
        failures.append(Msg("entry 0: 'host_key' is not an ed25519 public key"))
        host_key = None
    keys = Keys(first.keys)
    entries_signed = moves_signed = 0
    for entry in entries:
        seq, signature = entry.seq, entry.signature
        if isinstance(host_key, str):
            if signature is None:
                failures.append(Msg("entry {seq}: no host signature (entry 0 names a host key)", seq=seq))
            elif not verify(host_key, signature, entry_message(entry.to_raw())):
                failures.append(Msg("entry {seq}: the host signature does not verify", seq=seq))
            else:
                entries_signed += 1
        elif signature is not None:
            failures.append(Msg("entry {seq}: signed, but entry 0 names no host key", seq=seq))
        if isinstance(entry, Replace):
            # R8.4: the seat's new player signs with the new key from this entry on (none: unsigned)
            keys.hand_over(str(entry.player), entry.key)
            continue
        if not isinstance(entry, Sent):
            continue
        move, player = entry.move, str(entry.player)
        try:
            public, source = key_for(keys, move, player)
        except SignatureError as err:
            failures.append(Msg("entry {seq}: {failure}", seq=seq, failure=err.words))
            continue
        if public is not None:
            if move.signature is None:
                failures.append(Msg("entry {seq}: {player}'s move is not signed ({source} is in force)", seq=seq,
                                    player=player, source=source))
            elif not verify(public, move.signature, move_message(move.to_raw())):
                failures.append(Msg("entry {seq}: {player}'s move signature does not verify", seq=seq, player=player))
            else:
                moves_signed += 1
        elif move.signed:
            failures.append(Msg("entry {seq}: {player}'s move is signed, but {player} has no key", seq=seq,
                                player=player))
        if isinstance(entry, Commit) and isinstance(public, str):
            keys.register(player, public)
    return LogSignatures(entries_signed, moves_signed, failures)


def _listed(failures: list[str]) -> str:
    """``a; b; c``: each failure a sentence of its own, said in the reader's language."""
    if len(failures) == 1:
        return failures[0]
    return Msg("{first}; {second}", first=_listed(failures[:-1]), second=failures[-1])


def require_valid(entries: list[Entry]) -> LogSignatures | None:
    """Refuse a log whose signatures do not all hold (P8); None for a log without keys.

    The host runs this before it appends anything, and ``pbem verify`` and
    ``pbem audit`` before they say a log is good.
    """
    if not log_has_signatures(entries):
        return None
    checked = check_log(entries)
    if checked.failures:
        raise SignatureError(_listed(checked.failures), "P8")
    return checked
