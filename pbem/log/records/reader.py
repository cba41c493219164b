"""The one strict reader of a log entry: its shape, exactly as ``schemas/entry.json`` says
it, then the record of its kind (:mod:`pbem.log.records.entries`).

:func:`parse_entry` is the only place that reads an entry's ``kind``; every reader then asks
the record.
"""

from __future__ import annotations

from typing import Any

from pbem.errors import TamperError
from pbem.i18n import Msg
from pbem.log import shape
from pbem.log.clock import is_at
from pbem.log.records.entries import (
    Abandon,
    Away,
    Commit,
    Create,
    Entry,
    Nonce,
    Played,
    Replace,
    Resign,
    Reveal,
    Standin,
    Start,
    Timeout,
    Waive,
)
from pbem.log.records.values import Edition, Made
from pbem.log.shape import AT, HASH, NAME, PUBLIC_KEY, SIGNATURE, Bad, Check, listed, mapping, whole

ZEROS = "0" * 64


_CHAIN: dict[str, Check] = {"seq": shape.anything, "prev": shape.anything, "at": shape.anything,
                            "kind": shape.anything}
_SIGNED: dict[str, Check] = {"signature": SIGNATURE}
_OUTCOME = listed(shape.EVENT)
_ACTIONS = listed(shape.ACTION, 0, 64)
_OPTIONS = mapping({}, {
    "first": shape.maybe(NAME), "deadline": whole(60, 31622400),
    "reminder": whole(60, 31622400),
    "bots": mapping({}, rest=shape.one_of("random", "greedy", "mcts"), keys=NAME),
    "absence": whole(1, 366),
})
_CREATE = mapping({
    **_CHAIN, "protocol": shape.one_of("pbem-rattus/v2"), "engine": mapping(
        {"name": shape.text(), "version": shape.text()}, rest=shape.anything),
    "game": shape.GAME_ID, "players": listed(NAME, 2, 4, unique=True), "options": _OPTIONS,
    "secret": mapping({"commitment": HASH, "made": shape.one_of(*(m.value for m in Made))}),
    "edition": shape.one_of(*(e.value for e in Edition)), "data_hash": HASH,
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
    (Away, mapping({**_PLAYER, "move": shape.move}, _SIGNED)),
    (Waive, mapping(_PLAYER, _SIGNED)),
    (Abandon, mapping(_CHAIN, _SIGNED)),
    (Start, _START),
    (Played, mapping({**_PLAYER, "move": shape.move, "outcome": _OUTCOME}, _SIGNED)),
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
