"""Move files: reading one safely, checking it is fresh, and writing a template.

A move file is YAML (``schemas/move.json``)::

    game: spring-1347
    player: red
    kind: move
    after: {seq: 12, hash: "3fa4c1d2e0b9a871"}   # the entry this move answers (P7)
    actions:
      - {action: take_card, card: monk}
      - {action: place, region: gallia, count: 2}
      - {action: move_plague, path: [hispania]}
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema

from pbem.errors import FormatError
from pbem.fair.protocol import HASH_PREFIX_MIN, canonical_base64
from pbem.files import read_limited
from pbem.i18n import N_, Msg
from pbem.log import notation
from pbem.log.characters import check_text
from pbem.log.game import Game
from pbem.log.records.sent import MoveFile, move_of
from pbem.log.yamlio import MOVE_LIMIT, decode, load_one
from pbem.record import Record

SCHEMAS = Path(__file__).parent.parent / "schemas"
MAX_ACTIONS = 64  # as schemas/move.json
SCHEMA_NAMES = ("move.json", "entry.json")


OPENING_KINDS = ("commit", "nonce")
"""P4: the move kinds of the opening; they answer entry 0."""


class TextSource(Record):
    """The text a move was read from (the notation), so that a game whose map is its own can
    read its region words again through that map (P3; :func:`pbem.referee.admit.judge`)."""

    text: str
    what: str
    context: dict[str, Any] | None


def text_source(move: MoveFile) -> TextSource | None:
    """What ``move`` was read from, if it was read from the notation (:func:`parse_move`)."""
    source = move.__dict__.get("_text_source")
    return source if isinstance(source, TextSource) else None


def read_again(move: MoveFile, regions: Mapping[str, str]) -> MoveFile:
    """A text move read again through ``regions`` (id -> name), a game's own map; any other
    move as it is.  Its words were read through the shipped map's names."""
    source = text_source(move)
    if source is None:
        return move
    from pbem.i18n.names import own_map  # start-up speed: only a move in the notation is read again

    with own_map(regions):
        return parse_move(source.text.encode("utf-8"), source.what, source.context)


@cache
def schema(name: str) -> dict[str, Any]:
    text = (SCHEMAS / name).read_text(encoding="utf-8")
    loaded: dict[str, Any] = json.loads(text)
    return loaded


@cache
def _validator(name: str) -> jsonschema.protocols.Validator:
    """A validator for ``schemas/NAME``; its ``$ref``s to sibling schemas resolve by ``$id``."""
    base = jsonschema.validators.validator_for(schema(name))
    cls = jsonschema.validators.extend(base, {"allOf": _all_of})  # type: ignore[no-untyped-call]
    validator: jsonschema.protocols.Validator = cls(schema(name), registry=registry(name))
    return validator


def registry(name: str) -> Any:
    """The other schemas, by ``$id``, for ``schemas/NAME``'s ``$ref``s to them."""
    from referencing import Registry, Resource

    siblings = [schema(n) for n in SCHEMA_NAMES if n != name]
    return Registry().with_resources((s["$id"], Resource.from_contents(s)) for s in siblings)


def _all_of(validator: Any, all_of: list[Any], instance: Any, schema: Any) -> Any:
    """jsonschema's own ``allOf``, less the branches it would find vacuous: our schemas tell an
    entry's kind, an action's name and an event's name by ``{"if": {"properties": {F: {"const":
    C}}}, "then": ...}`` with no ``else``, and for an object whose F is another string that
    ``if`` fails, so the branch asks nothing and yields no error.  Skipping those branches gives
    the same errors (tests/test_schemas.py holds it) without evaluating a dozen ``if``s for every
    entry, action and event (``pbem verify`` reads every entry this way)."""
    for index, subschema in enumerate(all_of):
        tag = _discriminator(subschema) if isinstance(instance, dict) else ()
        if tag:
            value = instance.get(tag[0])
            if isinstance(value, str) and value != tag[1]:
                continue
        yield from validator.descend(instance, subschema, schema_path=index)


def _discriminator(subschema: Any) -> tuple[str, str] | tuple[()]:
    """``(F, C)`` for a branch exactly ``{"if": {"properties": {F: {"const": C}}}, "then": ...}``
    with a string C; ``()`` for any other branch (checked in full)."""
    test = subschema.get("if") if isinstance(subschema, dict) and len(subschema) == 2 else None
    if not isinstance(test, dict) or "then" not in subschema or len(test) != 1:
        return ()
    properties = test.get("properties")
    if not isinstance(properties, dict) or len(properties) != 1:
        return ()
    ((field, const),) = properties.items()
    if not isinstance(const, dict) or len(const) != 1 or not isinstance(const.get("const"), str):
        return ()
    return field, const["const"]


_SCHEMA_WORDS: tuple[tuple[str, str], ...] = (
    (r"(?P<value>.+) is a required property", N_("{value} is a required property")),
    (r"(?P<value>.+) is not one of (?P<allowed>.+)", N_("{value} is not one of {allowed}")),
    (r"(?P<value>.+) does not match (?P<allowed>.+)", N_("{value} does not match {allowed}")),
    (r"(?P<value>.+) is not of type (?P<allowed>.+)", N_("{value} is not of type {allowed}")),
    (r"(?P<value>.+) is less than the minimum of (?P<allowed>.+)", N_("{value} is less than the minimum of {allowed}")),
    (r"(?P<value>.+) is greater than the maximum of (?P<allowed>.+)",
     N_("{value} is greater than the maximum of {allowed}")),
    (r"(?P<value>.+) is too long", N_("{value} is too long")),
    (r"(?P<value>.+) is too short", N_("{value} is too short")),
    (r"(?P<value>.+) was expected", N_("{value} was expected")),
    (r"(?P<value>.+) is not valid under any of the given schemas",
     N_("{value} is not valid under any of the given schemas")),
    (r"Additional properties are not allowed \((?P<value>.+) was unexpected\)",
     N_("Additional properties are not allowed ({value} was unexpected)")),
    (r"Additional properties are not allowed \((?P<value>.+) were unexpected\)",
     N_("Additional properties are not allowed ({value} were unexpected)")),
)
"""The JSON Schema validator's own sentences (``jsonschema``'s wording), each as a :class:`Msg`
whose English is the validator's text as it was, so that a refusal is said in the reader's language.
Patterns compiled when a refusal first needs them (start-up speed: an admitted move never does)."""


def _schema_words(message: str) -> str:
    """The validator's sentence as a :class:`Msg` (its English unchanged), or as it is."""
    for pattern, msgid in _SCHEMA_WORDS:
        found = re.fullmatch(pattern, message, re.DOTALL)
        if found is not None:
            said = Msg(msgid, **found.groupdict())
            if str(said) == message:
                return said
    return message


def the(what: str) -> str:
    """``the move file x.txt``: what a refusal calls the move (``what`` as the callers name
    it: ``move file``, ``move file NAME``, ``move in attachment NAME``, ...), as a sentence's value."""
    for pattern, msgid in _THE:
        found = pattern.fullmatch(what)
        if found is not None:
            return Msg(msgid, **found.groupdict())
    return Msg("the {what}", what=what)


_THE: tuple[tuple[re.Pattern[str], str], ...] = tuple((re.compile(pattern), msgid) for pattern, msgid in (
    (r"move file", N_("the move file")),
    (r"move file (?P<name>.+)", N_("the move file {name}")),
    (r"move in attachment (?P<name>.+)", N_("the move in attachment {name}")),
    (r"move in the message text", N_("the move in the message text")),
    (r"move in the quoted reply", N_("the move in the quoted reply")),
    (r"bot move", N_("the bot move")),
))


def validate(data: Any, name: str, what: str) -> None:
    """JSON Schema check; the error names the field and what was expected."""
    errors = sorted(_validator(name).iter_errors(data), key=lambda e: (len(e.path), list(e.path)))
    if not errors:
        return
    err = errors[0]
    path = list(err.absolute_path)
    _count_refusal(data, path, err.validator, what)
    if len(path) >= 2 and path[0] == "actions" and isinstance(path[1], int):
        path[1] = f"action {path[1] + 1}"  # actions count from 1, as the rules' refusals do
        path = path[1:]
    place = "/".join(str(p) for p in path)
    where: str = place
    if path and isinstance(path[0], str) and path[0].startswith("action "):
        where = Msg("action {index}", index=path[0][len("action "):])
        if len(path) > 1:
            where = Msg("{action}/{field}", action=where, field="/".join(str(p) for p in path[1:]))
    elif not place:
        where = Msg("(top level)")
    detail = err.message[:300] + "..." if len(err.message) > 300 else _schema_words(err.message)
    rule = "P7"  # the move's fields (schemas/move.json)
    if err.instance is None:
        detail = Msg("is empty (in a template, uncomment the lines you choose)")
        rule = "P2"  # an empty field is a file not filled in (P2: the file's form), not the chain's
    elif err.instance == "":
        detail = Msg("is empty: fill it in (for a nonce or its commitment, 'pbem nonce' writes the file for you)")
        rule = "P2"
    if err.validator == "additionalProperties":
        detail = Msg("unexpected field: {detail}", detail=detail)
    raise FormatError(Msg("{what}: at {where}: {detail} (schemas/{name})", what=what, where=where, detail=detail,
                          name=name), rule)


_COUNTS = {  # an action's count out of its range: the rule's own sentence, not the schema's path
    "merchant": (N_("{what}: action {index} (merchant): the Merchant moves 1 to 3 cubes, not {count}"), "R5.2"),
    "place": (N_("{what}: action {index} (place): a placement is 1 to 20 cubes, not {count}"), "R3.2"),
}


def _count_refusal(data: Any, path: list[Any], validator: Any, what: str) -> None:
    """Refuse a count out of its action's range (``merchant gallia italia 5``) with the rule
    that sets the range (R5.2, R3.2), as a player reads it."""
    if len(path) != 3 or path[0] != "actions" or path[2] != "count" or validator not in ("minimum", "maximum"):
        return
    action = data["actions"][path[1]]
    said = _COUNTS.get(str(action.get("action"))) if isinstance(action, dict) else None
    if said is not None and isinstance(action.get("count"), int):
        raise FormatError(Msg(said[0], what=what, index=path[1] + 1, count=action["count"]), said[1])


def parse_move(data: bytes, what: str = "move file", context: dict[str, Any] | None = None) -> MoveFile:
    """Bytes -> checked :class:`MoveFile`: size, UTF-8, then either the plain-text notation
    (:mod:`pbem.log.notation`) or strict YAML, printable text, JSON Schema (P2).

    ``context`` fills the header fields (``game``, ``player``, ``after``) a text move
    left out, as a mail's report gives them; what the move itself says always wins.  A text
    move's region words are read through the shipped map's names, or a game's own map's
    within :func:`pbem.i18n.names.own_map` (P3): a :class:`TextMove`, to be read again."""
    named = the(what)  # "the move file x.txt", said in the reader's language
    if len(data) > MOVE_LIMIT:
        raise FormatError(Msg("{what} is larger than the {limit} KiB allowed", what=named, limit=MOVE_LIMIT // 1024),
                          "P2")
    text = decode(data, named)
    plain = notation.is_notation(text)
    if plain:
        doc: Any = {**(context or {}), **notation.parse(text.lstrip("\ufeff"), named)}
        missing = [f for f in ("game", "player", "after") if f not in doc]
        if missing:
            raise FormatError(Msg(
                "{what} does not say {missing}: start it with the lines "
                "'game GAME SEAT' and 'after SEQ HASH' from your template (or send it as a reply "
                "to the host's mail, which gives them)", what=named, missing=notation.joined(missing)), "P7",
            )
        doc = {k: doc[k] for k in _ORDER if k in doc}
    else:
        doc = load_one(text, named)
    check_text(doc, named)  # before the schema: its patterns' $ admits a final newline
    if not isinstance(doc, dict):
        raise FormatError(Msg("{what} must be a mapping with game, player, kind, after", what=named), "P7")
    actions = doc.get("actions")
    if isinstance(actions, list) and len(actions) > MAX_ACTIONS:  # before the schema walks them all
        raise FormatError(Msg.plural("{what} lists {n} action; at most {most} are allowed",
                                     "{what} lists {n} actions; at most {most} are allowed", len(actions),
                                     what=named, most=MAX_ACTIONS), "P7")
    _normalise(doc)
    validate(doc, "move.json", named)
    key = doc.get("key")
    if isinstance(key, str) and not canonical_base64(key[len("ed25519:"):], 32):
        raise FormatError(Msg(
            "{what}: at key: the public key is not in canonical base64 (the spare bits of "
            "its last character must be zero; copy the key as 'pbem keygen' wrote it)", what=named), "P2",
        )
    move = move_of(doc)
    if plain:  # the text it was read from, beside the record's fields (never signed, hashed or written)
        move.__dict__["_text_source"] = TextSource(text, what, context)
    return move


_ORDER = ("game", "player", "kind", "after", "days", "actions", "nonce_commitment", "nonce", "key", "comment",
          "signature")
"""A text move's fields in a move file's order (so a signed text move and its YAML read alike)."""

_NAMED = ("region", "source", "target", "card", "token")


def _normalise(doc: dict[str, Any]) -> None:
    """Region, card and token names in any case (``Gallia`` as ``pbem show`` prints it): written
    in lower case before the schema, so the move is recorded (and signed) as normalised."""
    actions = doc.get("actions")
    if not isinstance(actions, list):
        return
    for action in actions:
        if not isinstance(action, dict):
            continue
        for field in (f for f in _NAMED if f in action):
            action[field] = _lower(action.get(field))
        path = action.get("path")
        if isinstance(path, list):
            action["path"] = [_lower(r) for r in path]


_NAME_SHAPE = re.compile(r"[a-z][a-z0-9_-]{0,31}\Z")


def _lower(value: Any) -> Any:
    """A name in lower case when that makes it a name; anything else as written, so a refusal
    quotes what the player wrote."""
    if isinstance(value, str) and _NAME_SHAPE.match(value.lower()):
        return value.lower()
    return value


def read_move(path: Path) -> MoveFile:
    return parse_move(read_limited(path, MOVE_LIMIT, Msg("move file")), Msg("move file {name}", name=path.name))


def after_of(game: Game, opening: bool = False) -> dict[str, Any]:
    """P7: the ``after`` of a move written now; P4's commitments and nonces answer entry 0."""
    seq = 0 if opening else game.last_seq
    return {"seq": seq, "hash": game.hashes[seq][:HASH_PREFIX_MIN]}
