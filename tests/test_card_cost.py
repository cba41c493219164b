"""What a new card of the shipped game costs, as ARCHITECTURE.md counts it, held to the code.

The composer page's rules (``pbem/views/rules.js``) read the deck's table (keywords, fields,
abilities, the groups each part of the game allows) from the declaration; what no declaration
says, each group's generator and each kind's effect in JavaScript, must be there for every
declared one and for nothing else, so that a new card cannot be left out of the page silently.
ARCHITECTURE.md's numbered list of the files a new card touches by hand is the list these
tests derive from the code, and its count is that list's length; a file that names all six
cards is either on that list, written by a tool the docs name, or said below why a new card
leaves it alone.
"""

from __future__ import annotations

import inspect
import json
import re
import subprocess
import sys
from pathlib import Path

import pbem.i18n
import pbem.rules.cards
from pbem.i18n import LANGS
from pbem.rules.actions import _FIELD_TYPES
from pbem.rules.cards import DECK
from pbem.rules.state import Deck
from pbem.views.rulesref import RULES_FILES
from pbem.views.seatstate import deck_js

ROOT = Path(__file__).resolve().parent.parent
RULES_JS = ROOT / "pbem" / "views" / "rules.js"
COMPOSE_JS = ROOT / "pbem" / "views" / "compose.js"
sys.path.insert(0, str(ROOT / "tools"))
import make_catalogs  # noqa: E402 (the tool, from tools/)

NUMBERS = {"nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14}


def table_keys(js: str, name: str) -> set[str]:
    """The keys of the object ``var NAME = {...};`` of the rules module (one entry a line or more,
    each key at the object's first level of indentation)."""
    start = js.index(f"  var {name} = {{\n")
    body = js[start:js.index("\n  };\n", start)]
    return set(re.findall(r"^ {4}(\w+): ", body, re.MULTILINE))


def unmatched(js: str, deck: Deck = DECK) -> dict[str, set[str]]:
    """What the rules module lacks or has beyond the declaration: generators by group, effects
    by kind of action."""
    groups = {rule.group for rule in deck.rules}
    kinds = set(deck.action_types)
    out = {"generators missing": groups - table_keys(js, "G"), "generators extra": table_keys(js, "G") - groups,
           "effects missing": kinds - table_keys(js, "E"), "effects extra": table_keys(js, "E") - kinds}
    return {what: names for what, names in out.items() if names}


def test_the_pages_rules_hold_a_generator_and_an_effect_for_each_declared_action_and_no_other() -> None:
    assert unmatched(RULES_JS.read_text(encoding="utf-8")) == {}


def test_a_card_left_out_of_the_pages_rules_is_named() -> None:
    js = RULES_JS.read_text(encoding="utf-8")
    without = js.replace("    king: (S, p, a) => { use(S, A.king);", "    kingless: (S, p, a) => { use(S, A.king);")
    assert without != js
    assert unmatched(without) == {"effects missing": {"king"}, "effects extra": {"kingless"}}


def test_a_seventh_card_reaches_the_pages_table_and_is_named_as_missing_from_its_rules() -> None:
    """The Herald (tests/heraldtools.py, R5.7 there) declared in a deck: the page's table
    has its keyword, fields, card and parts of the game at once; its generator and its effect
    in JavaScript are the two things the check asks for, ARCHITECTURE.md's third item."""
    from heraldtools import SEVEN

    table = json.loads(deck_js(SEVEN).removeprefix("var DECK = ").removesuffix(";\n"))
    assert (table["words"]["herald"], table["fields"]["herald"], table["ability"]["herald"]) == (
        "herald", ["region"], "herald")
    assert "herald" in table["kinds"]["turn main"] and "herald" in table["kinds"]["final main"]
    assert unmatched(RULES_JS.read_text(encoding="utf-8"), SEVEN) == {
        "generators missing": {"herald"}, "effects missing": {"herald"}}


def test_the_pages_rules_name_a_card_by_its_actions_kind_but_the_one_whose_ability_adds_none() -> None:
    """R5.5: the Peasant's ability changes a placing and adds no action: his id is the only card
    id the rules module writes; every other card is the holder of its action's kind (DECK)."""
    named = set(re.findall(r"(?<!action: )'(\w+)'", RULES_JS.read_text(encoding="utf-8"))) & set(DECK.cards)
    without_action = set(DECK.cards) - {rule.card for rule in DECK.rules if rule.card is not None}
    assert without_action == {"peasant"}
    assert named == without_action


def test_the_page_taps_every_kind_of_field_an_action_declares() -> None:
    """The page picks an action's fields in order, by what a tap chooses (a region, a rat, a
    count, a card; a path by its end and its way): a new card's action of these fields needs no
    code on the page to be tapped."""
    line = next(x for x in COMPOSE_JS.read_text(encoding="utf-8").splitlines() if "var PART = {" in x)
    assert set(re.findall(r"(\w+): '", line)) | {"path"} == set(_FIELD_TYPES)


def hand_edits_in_the_docs() -> tuple[list[str], int]:
    """ARCHITECTURE.md's numbered list ("1. `FILE`", "3. to 5. `a/{x,y,z}/b`") of what a new
    card of the shipped game touches, braces expanded, and the count its text gives."""
    text = (ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8")
    start = text.index("What a new card of the shipped game touches")
    section = text[start:text.index(" written by hand.", start) + len(" written by hand.")]
    files: list[str] = []
    for first, last, path in re.findall(r"^(\d+)\.(?: to (\d+)\.)? `([^`]+)`", section, re.MULTILINE):
        braces = re.search(r"\{([^}]*)\}", path)
        names = [path[:braces.start()] + part + path[braces.end():] for part in braces.group(1).split(",")] \
            if braces else [path]
        assert int(first) == len(files) + 1 and int(last or first) == len(files) + len(names), (first, last, path)
        files += names
    said = re.search(r"(\w+) files written by hand\.$", section)
    assert said is not None, section[-200:]
    return files, NUMBERS[said.group(1).lower()]


def relative(path: Path | str) -> str:
    return Path(path).resolve().relative_to(ROOT).as_posix()


def test_the_docs_list_of_hand_edits_is_what_the_declaration_does_not_reach_and_its_count_is_its_length() -> None:
    """The card ids (``CARDS``, with the action keywords), the deck, the page's JavaScript rules, a
    catalog per language, the glossary, and the rules reference in each language."""
    files, count = hand_edits_in_the_docs()
    derived = {relative(inspect.getsourcefile(pbem.i18n) or ""),
               relative(inspect.getsourcefile(pbem.rules.cards) or ""), relative(RULES_JS), "docs/glossary.yaml",
               *(relative(make_catalogs.po_path(lang)) for lang in LANGS if lang != "en"),
               *(relative(path) for path in RULES_FILES.values())}
    assert len(files) == len(set(files)) == count
    assert set(files) == derived


WRITTEN_BY = {  # a file that names every card, by the tool the docs name that writes it
    "pbem/schemas/": "tools/make_schemas.py", "pbem/i18n/locale/pbem.pot": "tools/make_catalogs.py",
    "docs/reviews/": "tools/make_catalogs.py", "examples/rattus-": "examples/make_examples.py",
    "examples/playthrough-": "examples/make_playthroughs.py",
}
LEFT_ALONE = {
    "pbem/data/tokens.yaml": "the rat tokens' symbols: a token shows a new card only if the game's tokens change (P3)",
    "docs/protocol-vectors.yaml": "the protocol's vectors hold a fixed game's entry 0, with the tokens' symbols",
    "pbem/i18n/names.py": "the rulebooks' other names for the six cards, which a move may use besides the catalogs'",
    "pbem/rules/engine.py": "the six cards' effects; a new card keeps its own beside its declaration (cards.py)",
    "pbem/views/orders.py": "the move template's sections for the six abilities: a new card's action is not offered "
                            "there until it is given one (the notation and the YAML move take it)",
}


def test_every_file_that_names_every_card_is_a_hand_edit_a_tools_output_or_left_alone_for_a_reason() -> None:
    files, _count = hand_edits_in_the_docs()
    text = (ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8")
    tools = text[text.index(" written by hand."):text.index("The endings (R6.1")]
    for tool in set(WRITTEN_BY.values()):
        assert (ROOT / tool).is_file() and f"`python3 {tool}" in tools, tool
    listed = subprocess.run(["git", "ls-files", "pbem", "docs", "examples", "tools", "bench"], cwd=ROOT,
                            capture_output=True, text=True, check=True).stdout.split()
    for name in listed:
        if name.endswith((".mo", ".png")) or not (ROOT / name).is_file():
            continue
        body = (ROOT / name).read_text(encoding="utf-8")
        if not all(re.search(rf"\b{card}\b", body) for card in DECK.cards):
            continue
        assert name in files or name in LEFT_ALONE or any(name.startswith(out) for out in WRITTEN_BY), (
            f"{name} names every card: list it in ARCHITECTURE.md, or say here why a new card leaves it alone")
