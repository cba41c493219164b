"""The glossary (docs/glossary.yaml): each language's words as its rulebook writes them.

Every catalog and every rules reference uses the one word the glossary gives a thing and
none of the words it rejects (Hungarian küszöb for the threshold, Greek μάρκα for a rat,
Ukrainian нічия for a card nobody holds); every name the rulebooks give a region or a
class card, and its look-alike spellings, is read in a move; the game's names are found
by `pbem rules`.
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
from pbem.i18n.names import SHIPPED, canonical

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


def rows(lang: str) -> list[dict[str, Any]]:
    terms: list[dict[str, Any]] = glossary()[lang]["terms"]
    return terms


def offences(lang: str, rejected: list[str], allowed: list[str]) -> list[str]:
    found = []
    for where, text in texts(lang):
        for allow in allowed:
            text = re.sub(allow, " ", text, flags=re.IGNORECASE)
        for word in rejected:
            hit = re.search(word, text, flags=re.IGNORECASE)
            if hit:
                found.append(f"{where}: {hit.group(0)!r} in {text!r}")
    return found


@pytest.mark.parametrize("lang", LANGS)
def test_no_catalog_or_rules_reference_uses_a_rejected_word(lang: str) -> None:
    found = []
    for row in rows(lang):
        found += [f"{row['term']}: {o}" for o in offences(lang, row.get("rejected", []), row.get("allowed", []))]
    found += [f"grammar: {o}" for o in offences(lang, glossary()[lang].get("grammar", {}).get("rejected", []), [])]
    assert not found, "\n".join(found)


@pytest.mark.parametrize("lang", LANGS)
def test_each_glossary_word_is_really_used(lang: str) -> None:
    for row in rows(lang):
        pattern = row.get("uses") or re.escape(row["pbem"])
        assert any(re.search(pattern, text, flags=re.IGNORECASE) for _w, text in texts(lang)), (lang, row["term"])


def test_the_check_fails_on_a_rejected_word() -> None:
    """The check itself can fail: the findings of the review, put back, are each caught."""
    def caught(lang: str, text: str) -> bool:
        return any(re.search(word, re.sub("|".join(row.get("allowed", []) or ["^$"]), " ", text, flags=re.I), re.I)
                   for row in rows(lang) for word in row.get("rejected", []))
    assert caught("hu", "küszöb {threshold}") and caught("hu", "az utolsó körben rád eső rész")
    assert caught("el", "η μάρκα που μοιράστηκε") and caught("el", "ο δείκτης {token}")
    assert caught("el", "ΘΕΣΕΙΣ BOT: {seats}") and not caught("el", "το πιόνι της πανούκλας κινείται")
    assert caught("uk", "нічия") and caught("uk", "лице кожного жетона") and not caught("uk", "лицьова сторона")


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
