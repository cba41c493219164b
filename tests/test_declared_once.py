"""Declared once: the six cards (R1.5), the actions (R3-R6) and the events, each in one
place (the cards' ids in pbem.i18n, below the rules; every card's rule, weight and actions in
pbem.rules.cards.DECK); every other place that names them is derived from it or held equal to
it here: the log's shape check, both JSON schemas (generated), the notation's words, the
catalogs' card names, the bots' weights.  tests/test_seventh_card.py plays a seventh card.

A new card or action then fails here, naming each place still to be taught, rather than
being refused by one reader and admitted by another.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from pbem.i18n import ACTION_WORDS
from pbem.i18n import SHIPPED
from pbem.log import notation, notation_write, schemaparts, shape
from pbem.rules.actions import ACTION_TYPES
from pbem.rules.cards import DECK, action_from_dict
from pbem.rules.data import CLASSES
from pbem.rules.events import EVENT_TYPES
from pbem.views.rulesref import notation_help

ROOT = Path(__file__).resolve().parent.parent
SCHEMAS = [ROOT / "schemas", ROOT / "pbem" / "schemas"]


def _schema(folder: Path, name: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((folder / name).read_text(encoding="utf-8"))
    return loaded


def _branches(union: dict[str, Any], tag: str) -> dict[str, set[str]]:
    """A tagged union of a schema (``action`` or ``event``): each tag's fields."""
    out = {}
    for branch in union["allOf"]:
        name = branch["if"]["properties"][tag]["const"]
        out[name] = set(branch["then"]["properties"]) - {tag}
    assert sorted(out) == sorted(union["properties"][tag]["enum"])
    return out


def _public_fields(cls: Any) -> set[str]:
    return {name for name in cls._fields if name not in cls.private}


ACTION_FIELDS = {kind: set(cls._fields) for kind, cls in DECK.action_types.items()}
EVENT_FIELDS = {kind: _public_fields(cls) | ({"salt"} if kind == "token_flipped" else set())
                for kind, cls in DECK.event_types.items()}


def test_r1_5_the_cards_are_named_once_and_every_other_list_is_that_one() -> None:
    assert SHIPPED["card"] == frozenset(CLASSES)  # the catalogs' ids (pbem.i18n sits below the rules)
    assert DECK.cards == CLASSES and set(DECK.weights) == set(CLASSES)  # the greedy bot weighs every card
    assert set(ACTION_TYPES.values()) <= set(DECK.by_type) and EVENT_TYPES.items() <= DECK.event_types.items()
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import make_catalogs
    finally:
        sys.path.remove(str(ROOT / "tools"))
    assert make_catalogs.CARDS == CLASSES
    take = next(text for form, text, _rule in notation.LINES if form == "take CARD")
    assert take.endswith(": {cards}")  # the notation's own reference lists them, in order, from the declaration
    assert any(line.endswith(": " + " ".join(CLASSES) + " (R3.1)") for line in notation_help())
    assert any(line.endswith(" ".join(CLASSES) + " (vagy magyarul: Paraszt, Kereskedő, Szerzetes, Lovag, "
                             "Boszorkány, Király) (R3.1)") for line in notation_help("hu"))


@pytest.mark.parametrize("folder", SCHEMAS, ids=["schemas", "pbem-schemas"])
def test_the_schemas_name_the_cards_the_rules_declare(folder: Path) -> None:
    move = _schema(folder, "move.json")
    assert move["$defs"]["card"]["enum"] == list(CLASSES)
    event = _schema(folder, "entry.json")["$defs"]["event"]
    card_taken = next(b for b in event["allOf"] if b["if"]["properties"]["event"]["const"] == "card_taken")
    assert card_taken["then"]["properties"]["card"]["enum"] == list(CLASSES)
    removed = next(b for b in event["allOf"] if b["if"]["properties"]["event"]["const"] == "cube_removed")
    assert removed["then"]["properties"]["symbol"]["enum"] == ["M", "A", *CLASSES]


@pytest.mark.parametrize("folder", SCHEMAS, ids=["schemas", "pbem-schemas"])
def test_the_schemas_actions_and_events_are_the_rules_own(folder: Path) -> None:
    assert _branches(_schema(folder, "move.json")["$defs"]["action"], "action") == ACTION_FIELDS
    assert _branches(_schema(folder, "entry.json")["$defs"]["event"], "event") == EVENT_FIELDS


def test_the_committed_schemas_are_the_ones_the_declaration_writes() -> None:
    """move.json and entry.json (pbem/schemas/, and schemas/ that links to it): their card, action and
    event parts are what tools/make_schemas.py makes from the one declaration (pbem.rules.cards.DECK),
    the rest as written."""
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import make_schemas
    finally:
        sys.path.remove(str(ROOT / "tools"))
    assert make_schemas.stale() == []
    assert {path.read_text(encoding="utf-8") for path in make_schemas.made()} == set(make_schemas.made().values())


def test_a_schema_out_of_step_with_the_declaration_is_put_right_by_the_generator() -> None:
    """The check can fail: a schema that lost a card, an action's bound or an event's field is not
    what the generator writes, and the generator writes the committed file back."""
    committed = {name: (ROOT / "schemas" / name).read_text(encoding="utf-8") for name in ("move.json", "entry.json")}
    stale = {"move.json": committed["move.json"].replace('"maximum": 3}', '"maximum": 4}')
             .replace(', "king"]},', "]},", 1),
             "entry.json": committed["entry.json"].replace('"salt": {"type": "string", ', '"salt": {')}
    assert all(stale[name] != committed[name] for name in stale)
    assert schemaparts.generated(stale.items(), DECK) == committed


def test_the_log_readers_shape_has_the_rules_actions_and_events() -> None:
    assert {kind: set(fields) - {"action"} for kind, fields in shape._ACTIONS.items()} == ACTION_FIELDS
    assert {kind: set(fields) - {"event"} for kind, fields in shape._EVENTS.items()} == EVENT_FIELDS


def test_the_catalogs_words_for_the_actions_are_the_notations() -> None:
    """pbem.i18n sits below the rules: its keyword for each action (what a refusal calls it) is held
    to the keyword of the action's own line."""
    words = {kind: " ".join(cls.lines[0][0].split()[:2] if kind == "knight_cubes" else cls.lines[0][0].split()[:1])
             for kind, cls in DECK.action_types.items()}
    assert dict(ACTION_WORDS) == words


def test_r7_3_every_action_has_its_line_in_the_notation() -> None:
    """Each action of the rules is written by a keyword of the notation, and reads back as itself."""
    written = {}
    for kind, cls in DECK.action_types.items():
        sample = {"action": kind, **{f: ["gallia"] if f == "path" else 2 if f == "count" else
                                     "t07" if f == "token" else "monk" if f == "card" else "gallia"
                                     for f in cls._fields}}
        line = notation_write.action_line(action_from_dict(sample))
        assert line.split()[0] in notation.KEYWORDS, kind
        written[kind] = notation.parse(f"game g red\nafter 1 {'0' * 16}\n{line}\n")["actions"]
        assert written[kind] == [sample], (kind, line)
