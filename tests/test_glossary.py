"""The glossary (docs/glossary.yaml): each language's guide, in its rulebook's words.

Each language says how it addresses a player and gives every concept a player meets one word,
with its stems and inflected forms; every catalog and every rules reference uses that word and,
in no inflected form, none of the words it avoids (Hungarian küszöb for the threshold, készlet
for the talon, Greek μάρκα for a rat, Ukrainian нічия for a card nobody holds); every name
the rulebooks give a region or a class card, and its look-alike spellings, is read in a move;
the game's names are found by `pbem rules`.
"""

from __future__ import annotations

import re
import sys
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import yaml
from clitools import ok

from pbem.i18n import translator
from pbem.i18n.names import canonical
from pbem.i18n import SHIPPED

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import make_catalogs  # noqa: E402 (the tool, from tools/)

LANGS = ("hu", "el", "uk")


@cache
def glossary() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load((ROOT / "docs" / "glossary.yaml").read_text(encoding="utf-8"))
    return data


@cache
def texts(lang: str) -> tuple[tuple[str, str], ...]:
    """(where, text) of every translation in ``lang``'s catalog and every paragraph of its rules reference."""
    entries = make_catalogs.read_po(make_catalogs.po_path(lang).read_text(encoding="utf-8"))
    out = [(f"catalog: {e.msgid!r}", s) for e in entries if e.msgid and e.context is None for s in e.strings]
    reference = (ROOT / "pbem" / "data" / f"rules.{lang}.md").read_text(encoding="utf-8")
    out += [(f"rules.{lang}.md", " ".join(block.split())) for block in re.split(r"\n(?=- |#)", reference)]
    return tuple(out)


# The concepts every player meets: each language's guide must give each its one word.
CONCEPTS = ("rat", "plague_piece", "supply", "outbreak", "log", "setup", "secret_number", "fingerprint", "host",
            "region", "class_card", *(f"card.{card}" for card in SHIPPED["card"]))


def rows(lang: str) -> list[dict[str, Any]]:
    terms: list[dict[str, Any]] = glossary()[lang]["terms"]
    return terms


def stem_pattern(stem: str) -> str:
    """A stem as a regular expression: each of its words begins a word of the text, any ending
    after it ("pestis bábu" finds "pestis bábut"; "talon" finds "talonodban")."""
    return r"(?<!\w)" + r"\s+".join(re.escape(word) + r"\w*" for word in stem.split())


def avoid_pattern(avoid: dict[str, str]) -> str:
    """An `avoid` entry of the glossary as the regular expression the check searches for."""
    if "stem" in avoid:
        return stem_pattern(avoid["stem"])
    if "part" in avoid:
        return r"\w*" + re.escape(avoid["part"]) + r"\w*"
    return avoid["pattern"]


def caught(text: str, avoids: list[dict[str, str]], allowed: list[str]) -> str | None:
    """The first avoided word in ``text`` (after cutting out the ``allowed`` phrases), or None."""
    for allow in allowed:
        text = re.sub(allow, " ", text, flags=re.IGNORECASE)
    for avoid in avoids:
        hit = re.search(avoid_pattern(avoid), text, flags=re.IGNORECASE)
        if hit:
            return f"{hit.group(0)!r} ({avoid['why']})"
    return None


def offences(lang: str, avoids: list[dict[str, str]], allowed: list[str]) -> list[str]:
    found = []
    for where, text in texts(lang):
        hit = caught(text, avoids, allowed)
        if hit:
            found.append(f"{where}: {hit} in {text!r}")
    return found


@pytest.mark.parametrize("lang", LANGS)
def test_the_guide_says_the_register_and_every_concept_a_player_meets(lang: str) -> None:
    section = glossary()[lang]
    assert len(str(section.get("register", "")).split()) >= 8, (lang, "register: how pbem addresses a player")
    ids = [str(row.get("id")) for row in rows(lang)]
    assert len(ids) == len(set(ids)), (lang, "a concept twice", sorted(i for i in ids if ids.count(i) > 1))
    missing = [c for c in CONCEPTS if c not in ids]
    assert not missing, (lang, "concepts without a word", missing)
    for row in rows(lang):
        assert row.get("pbem") and row.get("stems") and row.get("forms"), (lang, row.get("id"), "pbem, stems, forms")
        for avoid in [*row.get("avoid", []), *section.get("grammar", [])]:
            assert len(set(avoid) & {"stem", "part", "pattern"}) == 1 and avoid.get("why"), (lang, row["id"], avoid)


@pytest.mark.parametrize("lang", LANGS)
def test_each_inflected_form_is_found_by_its_concepts_stems(lang: str) -> None:
    """And each example of an avoided word or a grammar slip is caught: the check can fail."""
    for row in rows(lang):
        stems = "|".join(stem_pattern(stem) for stem in row["stems"])
        for form in row["forms"]:
            assert re.fullmatch(f"(?:{stems})", form, flags=re.IGNORECASE), (lang, row["id"], form)
        for avoid in row.get("avoid", []):
            for example in avoid.get("caught", []):
                assert caught(example, [avoid], row.get("allowed", [])), (lang, row["id"], example)
    for slip in glossary()[lang].get("grammar", []):
        for example in slip.get("caught", []):
            assert caught(example, [slip], []), (lang, "grammar", example)


@pytest.mark.parametrize("lang", LANGS)
def test_no_catalog_or_rules_reference_uses_an_avoided_word(lang: str) -> None:
    found = []
    for row in rows(lang):
        found += [f"{row['id']}: {o}" for o in offences(lang, row.get("avoid", []), row.get("allowed", []))]
    found += [f"grammar: {o}" for o in offences(lang, glossary()[lang].get("grammar", []), [])]
    assert not found, "\n".join(found)


@pytest.mark.parametrize("lang", LANGS)
def test_each_glossary_word_is_really_used(lang: str) -> None:
    for row in rows(lang):
        pattern = "|".join(stem_pattern(stem) for stem in row["stems"])
        assert any(re.search(pattern, text, flags=re.IGNORECASE) for _w, text in texts(lang)), (lang, row["id"])


def test_the_check_finds_an_avoided_word_in_any_inflected_form() -> None:
    """The check itself can fail: the findings of the reviews, put back inflected, are each caught."""
    def found(lang: str, text: str) -> bool:
        return any(caught(text, row.get("avoid", []), row.get("allowed", [])) for row in rows(lang))
    assert found("hu", "küszöb {threshold}") and found("hu", "a küszöbértéket") and found("hu", "az utolsó körben")
    assert not found("hu", "a határértéket eléri")
    assert found("el", "η μάρκα που μοιράστηκε") and found("el", "ο δείκτης {token}")
    assert not found("el", "το πιόνι της πανούκλας κινείται")
    assert found("uk", "нічия") and found("uk", "лице кожного жетона") and not found("uk", "лицьова сторона")


@pytest.mark.parametrize("lang", LANGS)
def test_the_names_pbem_shows_are_the_glossarys(lang: str) -> None:
    for kind, names in glossary()[lang]["names"].items():
        assert set(names) == SHIPPED[kind], (lang, kind)
        for ident, words in names.items():
            assert translator(lang).pgettext(kind, ident) == words[0], (lang, ident)


def look_alikes(word: str) -> set[str]:
    """The ways a player may type ``word`` that look the same or nearly: Latin letters for
    Cyrillic or Greek look-alikes, and for Ukrainian the Russian keyboard's letters."""
    latin = str.maketrans("аеіоосрхуАВЕІКМНОРСТХУ", "aeioocpxyABEIKMHOPCTXY")
    greek = str.maketrans("ΑΒΕΖΗΙΚΜΝΟΡΤΥΧοικ", "ABEZHIKMNOPTYXoik")
    russian = str.maketrans("іїєґІЇЄҐ'’", "ииегИИЕГ  ")
    out = {word, word.upper(), word.lower(), word.translate(latin), word.translate(greek)}
    if re.search("[а-яіїєґ]", word, re.IGNORECASE):
        out.add(word.translate(russian).replace(" ", ""))
        out.add(word.replace("і", "i", 1))  # one Latin i among Cyrillic letters
    return {w for w in out if w}


@pytest.mark.parametrize("lang", LANGS)
def test_every_rulebook_name_and_its_look_alikes_are_read_in_a_move(lang: str) -> None:
    from pbem.log.notation import parse

    for kind, names in glossary()[lang]["names"].items():
        for ident, words in names.items():
            for word in words:
                for typed in look_alikes(word):
                    assert canonical(typed, kind) == ident, (lang, typed, ident)
                    if " " not in typed:  # a move's line splits at spaces: one word names it there
                        line = f"take {typed}" if kind == "card" else f"place {typed} 1"
                        (action,) = parse(line + "\n")["actions"]
                        assert action[kind] == ident, (lang, line)


def test_no_name_names_two_things() -> None:
    """Folded as a move folds them (look-alikes, a Russian keyboard's letters, no accents),
    the names of every language and every rulebook word still name one region or card each."""
    from pbem.i18n.names import fold_name

    for kind in SHIPPED:
        seen: dict[str, str] = {}
        for lang in LANGS:
            for ident, words in glossary()[lang]["names"][kind].items():
                for word in [*words, translator(lang).pgettext(kind, ident), ident]:
                    assert seen.setdefault(fold_name(word), ident) == ident, (word, seen[fold_name(word)], ident)


@pytest.mark.parametrize("lang", LANGS)
def test_the_games_names_are_found_by_pbem_rules(lang: str) -> None:
    for name in glossary()[lang]["game"]:
        for typed in look_alikes(name):
            said = ok("rules", typed, "--lang", lang)
            assert "R1.1" in said, (lang, typed)
