"""The shape of a log entry, exactly as ``schemas/entry.json`` (and ``move.json``) says it.

:func:`check_entry` is the strict half of the one reader of a log
(:mod:`pbem.log.records`): every field typed, no field the schema does not list,
``seq`` an integer and never a boolean, every pattern matched whole.  It is plain
Python instead of jsonschema for start-up speed: ``pbem apply`` reads the whole log
in a fresh process for every mailed move (bench/bench.py; ARCHITECTURE.md, "Start-up
speed"), and jsonschema's walk of a 150-entry log costs several times that budget.
``tests/test_records.py`` keeps the two in agreement on the tamper corpus.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from pbem.log.schemaparts import LOGGED
from pbem.rules.cards import DECK

Where = str | tuple[Any, str | int]
"""Where a value is in its entry: a path like ``outcome/3/token``, or, for start-up speed,
(where its container is, its key or index), rendered only when a check fails: every
entry of a log is checked in every ``pbem apply``, and formatting the path of each of
its values cost more than the checks themselves."""
Check = Callable[[Any, Where], None]
MAX_INT = 9007199254740992


def path(where: Where) -> str:
    """The path ``where`` stands for: each key or index after its container's path and a ``/``
    (a field of the entry itself is just its name)."""
    if isinstance(where, str):
        return where
    parent, name = where
    above = path(parent)
    return f"{above}/{name}" if above else str(name)


class Bad(Exception):
    """Where an entry departs from the schema, and how (``pbem.log.records`` names the entry)."""

    def __init__(self, where: Where, why: str) -> None:
        super().__init__(f"at {path(where) or '(top level)'}: {why}")


def text(pattern: str | None = None, longest: int | None = None) -> Check:
    if pattern is not None and longest is None:  # the usual case, in one test a value (start-up speed)
        match = re.compile(pattern + r"\Z").match

        def matched(value: Any, where: Where) -> None:
            if type(value) is not str or match(value) is None:
                raise Bad(where, f"{value!r} is not a string" if type(value) is not str
                          else f"{value!r} is not of the form {pattern}")
        return matched
    match_or_none = re.compile(pattern + r"\Z").match if pattern is not None else None

    def check(value: Any, where: Where) -> None:
        if type(value) is not str:
            raise Bad(where, f"{value!r} is not a string")
        if match_or_none is not None and match_or_none(value) is None:
            raise Bad(where, f"{value!r} is not of the form {pattern}")
        if longest is not None and len(value) > longest:
            raise Bad(where, f"longer than {longest} characters")
    return check


def whole(low: int = 0, high: int = MAX_INT) -> Check:
    def check(value: Any, where: Where) -> None:
        if type(value) is not int:  # a boolean is not a number here (P2)
            raise Bad(where, f"{value!r} is not a whole number")
        if not low <= value <= high:
            raise Bad(where, f"{value} is not between {low} and {high}")
    return check


def one_of(*values: object) -> Check:
    allowed = frozenset(values)
    kinds = (str, type(None))

    def check(value: Any, where: Where) -> None:
        if type(value) not in kinds or value not in allowed:
            raise Bad(where, f"{value!r} is not one of {', '.join(repr(v) for v in values)}")
    return check


def flag(value: Any, where: Where) -> None:
    if type(value) is not bool:
        raise Bad(where, f"{value!r} is not true or false")


def anything(value: Any, where: Where) -> None:
    return None


def listed(item: Check, shortest: int = 0, longest: int | None = None, unique: bool = False) -> Check:
    def check(value: Any, where: Where) -> None:
        if type(value) is not list:
            raise Bad(where, "not a list")
        if len(value) < shortest or (longest is not None and len(value) > longest):
            raise Bad(where, f"a list of {len(value)} items; {shortest} to {longest or 'any number'} allowed")
        if unique and len({repr(v) for v in value}) != len(value):
            raise Bad(where, "an item appears twice")
        for index, element in enumerate(value):
            item(element, (where, index))
    return check


def mapping(
    required: Mapping[str, Check], optional: Mapping[str, Check] | None = None, rest: Check | None = None,
    keys: Check | None = None,
) -> Check:
    """An object with these fields; any other field is refused unless ``rest`` checks it."""
    fields = {**(optional or {}), **required}  # one look-up a field (start-up speed)

    def check(value: Any, where: Where) -> None:
        if type(value) is not dict:
            raise Bad(where, "not a mapping")
        for name in required:
            if name not in value:
                raise Bad(where, f"the required field {name!r} is missing")
        for name, field in value.items():
            if keys is not None:
                keys(name, f"{path((where, name))} (a key)")
            found = fields.get(name, rest)
            if found is None:
                raise Bad(where, f"unexpected field {name!r}")
            if found is not anything:  # an event's or action's tag, checked by tagged()
                found(field, (where, name))
    return check


def tagged(tag: str, shapes: Mapping[str, Check]) -> Check:
    """An object whose ``tag`` field names its shape (an event, an action)."""
    def check(value: Any, where: Where) -> None:
        if type(value) is not dict or tag not in value:
            raise Bad(where, f"not a mapping with its {tag!r}")
        shape = shapes.get(value[tag]) if type(value[tag]) is str else None
        if shape is None:
            raise Bad(f"{path(where)}/{tag}", f"{value[tag]!r} is not one of {', '.join(shapes)}")
        shape(value, where)
    return check


HASH = text("[0-9a-f]{64}")
NAME = text("[a-z][a-z0-9_-]{0,31}")  # a player or a region (P2)
TOKEN = text("t[0-9]{2}")
TOKENS = listed(TOKEN)
AT = text("[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z")
GAME_ID = text("[a-z0-9][a-z0-9_-]{0,63}")
PUBLIC_KEY = text("ed25519:[A-Za-z0-9+/]{43}=")
SIGNATURE = text("[A-Za-z0-9+/]{86}==")
COUNT = whole(0, 100)
CARD = one_of(*DECK.cards)
PATH = listed(NAME, 1, 2)
NONCE = text("(?:[0-9a-f]{2}){16,64}")


def _tag(shape: Mapping[str, Check], tag: str) -> dict[str, Check]:
    return {tag: anything, **shape}


def maybe(check: Check) -> Check:
    """``null`` or what ``check`` admits."""
    def either(value: Any, where: Where) -> None:
        if value is not None:
            check(value, where)
    return either


_ACTION_FIELDS: dict[str, Check] = {"card": CARD, "region": NAME, "source": NAME, "target": NAME,
                                    "token": TOKEN, "path": PATH}
"""Each field an action may have, by its name, as :mod:`pbem.log.schemaparts` gives the schema's."""
_EVENT_FIELDS: dict[str, Check] = {
    "player": NAME, "region": NAME, "source": NAME, "target": NAME, "count": COUNT, "token": TOKEN,
    "first": TOKEN, "second": TOKEN, "spread": COUNT, "cubes": COUNT, "threshold": COUNT, "previous": maybe(NAME),
    "path": PATH, "token_id": text(), "outbreak": flag, "salt": text("[0-9a-f]{32}"),
    "phase": one_of("setup", "turn", "final"), "reason": text(), "final_round": listed(NAME),
    "scores": mapping({}, rest=COUNT), "winner": NAME, "card": CARD, "symbol": one_of("M", "A", *DECK.cards),
}
"""Each public field an event may have, by its name (as :mod:`pbem.log.schemaparts`)."""

_ACTIONS: dict[str, dict[str, Check]] = {  # the actions of the rules' one declaration (pbem.rules.cards)
    kind: {f: whole(1, cls.most) if f == "count" else _ACTION_FIELDS[f] for f in cls._fields}
    for kind, cls in DECK.action_types.items()
}
ACTION = tagged("action", {name: mapping(_tag(fields, "action")) for name, fields in _ACTIONS.items()})

_EVENTS: dict[str, dict[str, Check]] = {  # the events of the rules, each with its public fields
    kind: {f: _EVENT_FIELDS[f] for f in (*(f for f in cls._fields if f not in cls.private), *LOGGED.get(kind, ()))}
    for kind, cls in DECK.event_types.items()
}
EVENT = tagged("event", {name: mapping(_tag(fields, "event")) for name, fields in _EVENTS.items()})

_MOVE_FIELDS: dict[str, Check] = {
    "actions": listed(ACTION, 1, 64), "nonce_commitment": HASH, "nonce": NONCE, "key": PUBLIC_KEY,
    "comment": text(longest=1000), "signature": SIGNATURE, "days": whole(1, 366),
}
_MOVE_NEEDS = {"move": "actions", "commit": "nonce_commitment", "nonce": "nonce", "resign": None, "away": "days"}
_MOVE_FORBIDS = {"move": ("nonce", "nonce_commitment", "key", "days"), "commit": ("nonce", "actions", "days"),
                 "nonce": ("actions", "nonce_commitment", "key", "days"),
                 "resign": ("actions", "nonce", "nonce_commitment", "key", "days"),
                 "away": ("actions", "nonce", "nonce_commitment", "key")}
_MOVE_HEAD = mapping({
    "game": GAME_ID, "player": NAME, "kind": one_of(*_MOVE_NEEDS),
    "after": mapping({"seq": whole(), "hash": text("[0-9a-f]{16,64}")}),
}, _MOVE_FIELDS)


def move(value: Any, where: Where) -> None:
    """``schemas/move.json``: a move as a player sent it, and the fields its kind needs and forbids."""
    _MOVE_HEAD(value, where)
    kind = value["kind"]
    needed = _MOVE_NEEDS[kind]
    if needed is not None and needed not in value:
        raise Bad(where, f"a {kind!r} move needs its {needed!r}")
    for name in _MOVE_FORBIDS[kind]:
        if name in value:
            raise Bad(where, f"a {kind!r} move has no {name!r}")
