"""The JSON schemas' parts that the rules declare, generated from that declaration.

``schemas/move.json`` and ``schemas/entry.json`` (and the package's copy,
``pbem/schemas/``) are written by hand but for three parts: the class cards
(``move.json``'s ``$defs/card``, and the cards an event may name in ``entry.json``),
every action with its fields (``move.json``'s ``$defs/action``) and every event with its
public fields (``entry.json``'s ``$defs/event``).  Those are made here from the cards,
actions and events of a :class:`pbem.rules.cards.Deck` (the shipped one: the six cards
of R1.5, :data:`pbem.rules.actions.ACTION_TYPES`, :data:`pbem.rules.events.EVENT_TYPES`)
and spliced into the hand-written rest, line for line as the files lay them out;
``tools/make_schemas.py`` writes them and ``tests/test_declared_once.py`` holds the
committed files equal to what it would write.  A field's schema is said once, by its name.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from pbem.rules.actions import Action
from pbem.rules.events import Event
from pbem.rules.state import Deck

_REGION = {"$ref": "#/$defs/region"}
_TOKEN = {"$ref": "#/$defs/token"}
_PLAYER = {"$ref": "#/$defs/player"}
_COUNT = {"$ref": "#/$defs/count"}

ACTION_FIELDS: dict[str, dict[str, Any]] = {
    "card": {"$ref": "#/$defs/card"}, "region": _REGION, "source": _REGION, "target": _REGION,
    "token": _TOKEN, "path": {"$ref": "#/$defs/path"},
}
"""Each field an action may have, by its name (``count``'s bounds are the action's: ``most``)."""

EVENT_FIELDS: dict[str, dict[str, Any]] = {
    "player": _PLAYER, "region": _REGION, "source": _REGION, "target": _REGION, "count": _COUNT,
    "token": _TOKEN, "first": _TOKEN, "second": _TOKEN, "spread": _COUNT, "cubes": _COUNT,
    "threshold": _COUNT, "previous": {"anyOf": [{"type": "null"}, _PLAYER]},
    "path": {"type": "array", "minItems": 1, "maxItems": 2, "items": _REGION},
    "token_id": {"type": "string"}, "outbreak": {"type": "boolean"},
    "salt": {"type": "string", "pattern": "^[0-9a-f]{32}$"},
    "phase": {"enum": ["setup", "turn", "final"]}, "reason": {"type": "string"},
    "final_round": {"type": "array", "items": _PLAYER},
    "scores": {"type": "object", "additionalProperties": _COUNT}, "winner": _PLAYER,
}
"""Each public field an event may have, by its name (``card`` and ``symbol`` name the deck's cards)."""

LOGGED: dict[str, tuple[str, ...]] = {"token_flipped": ("salt",)}
"""Fields the log adds to an event's public form: a flipped face's salt (P6), the host's."""


def action_fields(cls: type[Action]) -> dict[str, dict[str, Any]]:
    """An action's fields, each with its schema."""
    return {name: {"type": "integer", "minimum": 1, "maximum": cls.most} if name == "count" else ACTION_FIELDS[name]
            for name in cls._fields}


def event_fields(cls: type[Event], cards: tuple[str, ...]) -> dict[str, dict[str, Any]]:
    """An event's public fields (and those the log adds), each with its schema."""
    named = {"card": {"enum": list(cards)}, "symbol": {"enum": ["M", "A", *cards]}}
    names = [n for n in cls._fields if n not in cls.private] + list(LOGGED.get(cls.kind, ()))
    return {name: named[name] if name in named else EVENT_FIELDS[name] for name in names}


def _union(tag: str, branches: dict[str, dict[str, dict[str, Any]]]) -> dict[str, Any]:
    """A tagged union: each ``tag`` value's fields, all required, none other allowed."""
    def then(fields: dict[str, dict[str, Any]]) -> dict[str, Any]:
        out: dict[str, Any] = {"additionalProperties": False}
        if fields:
            out["required"] = list(fields)
        out["properties"] = {tag: True, **fields}
        return out
    return {
        "type": "object", "required": [tag], "properties": {tag: {"enum": list(branches)}},
        "allOf": [{"if": {"properties": {tag: {"const": name}}}, "then": then(fields)}
                  for name, fields in branches.items()],
    }


def parts(deck: Deck) -> dict[str, dict[str, dict[str, Any]]]:
    """Each schema's generated ``$defs``, by file name."""
    actions = {kind: action_fields(cls) for kind, cls in deck.action_types.items()}
    events = {kind: event_fields(cls, deck.cards) for kind, cls in deck.event_types.items()}
    return {"move.json": {"card": {"enum": list(deck.cards)}, "action": _union("action", actions)},
            "entry.json": {"event": _union("event", events)}}


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _block(name: str, union: dict[str, Any]) -> list[str]:
    """A union laid out as the files lay it out: a line for each key, a line for each branch."""
    head = [f'      "{key}": {_dumps(union[key])},' for key in ("type", "required", "properties")]
    rows = [f"        {_dumps(branch)}," for branch in union["allOf"]]
    rows[-1] = rows[-1][:-1]
    return [f'    "{name}": {{', *head, '      "allOf": [', *rows, "      ]", "    }"]


def splice(text: str, defs: dict[str, dict[str, Any]]) -> str:
    """``text`` (a schema file) with each of ``defs`` put in place of its old definition, the rest
    as it was.  A definition that is an object with ``allOf`` spans lines; any other is one line."""
    lines = text.split("\n")
    for name, value in defs.items():
        start = next(i for i, line in enumerate(lines) if line.startswith(f'    "{name}": '))
        end = start
        if "allOf" in value:
            end = next(i for i in range(start + 1, len(lines)) if lines[i].rstrip(",") == "    }")
            new = _block(name, value)
        else:
            new = [f'    "{name}": {_dumps(value)}']
        if lines[end].endswith(","):
            new[-1] += ","
        lines[start:end + 1] = new
    return "\n".join(lines)


def generated(texts: Iterable[tuple[str, str]], deck: Deck) -> dict[str, str]:
    """Each schema file's text (by name) with the deck's parts spliced in."""
    made = parts(deck)
    return {name: splice(text, made[name]) for name, text in texts}
