"""Regions and cards as the players of each language know them, and back.

A sentence shows a region or card by its name in the reader's language (the catalogs'
context ``region`` or ``card``, keyed by the canonical id); a move may name one in any
supported language, in any case, with or without accents (``Γαλλία``, ``γαλλια``,
``Lengyelorszag``), by any name its rulebook gives it (the Hungarian rulebook's estates,
``Papság``; the Ukrainian one's, ``Ченці``), and as players type it: a Latin look-alike
among Cyrillic or Greek letters (Italy typed with a Latin ``I`` and ``i`` among the
Cyrillic ones) or a Ukrainian word on a Russian keyboard (``Италия``); :func:`canonical` gives back the one id the log
records, and :func:`closest` the id a mistyped name most likely means ("did you mean").
The rulebooks' words are listed in docs/glossary.yaml (tests/test_glossary.py checks
that each is read here).

The catalogs are read only for a word that is not already an id of the shipped map or a
class card: a move written with the ids (every English move) reads none.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from functools import cache

from pbem.i18n import (
    KINDS,
    LANGS,
    SHIPPED,  # declared below the names' reading (start-up speed)
    Msg,
    Name,
    fold,
    translator,
)

RULEBOOK_NAMES: dict[str, dict[str, tuple[str, ...]]] = {
    "region": {
        "scandia": ("Skandinávia", "Σκανδία"),
        "russia": ("Russia", "Московія", "Русь"),  # Русь: pbem's Ukrainian name before the review
        "gallia": ("Galliában", "Γαλατία", "Франція"),
        "germania": ("Németország", "Німеччина"),
        "hispania": ("Spanyolország",),
        "italia": ("Olaszország",),
    },
    "card": {  # each rulebook names the six estates too (hu "Paraszt (parasztság)", uk "Селяни")
        "peasant": ("Parasztság", "Χωρικοί", "Селяни"),
        "merchant": ("Polgárság", "Έμποροι", "Αστική Τάξη", "Торговці"),
        "monk": ("Papság", "Μοναχοί", "Εκκλησία", "Ченці"),
        "knight": ("Lovagság", "Ιππότες", "Ιπποτισμός", "Лицарі"),
        "witch": ("Varázslók", "Varázsló", "Μάγισσες", "Μαγεία", "Відьми"),
        "king": ("Főnemesség", "Βασιλέας", "Βασιλείς", "Ευγενείς", "Королі", "Знать"),
    },
}
"""Names a move accepts beyond each language's own (the catalogs'): the rulebooks' other
words for a region or card and the common variants players type."""

GAME_NAMES: tuple[str, ...] = ("Rattus", "Епідемія")
"""The game's names: the box's, and the Ukrainian rulebook's (``pbem rules Епідемія``)."""

_CYRILLIC = re.compile("[\u0400-\u04ff]")
_GREEK = re.compile("[\u0370-\u03ff\u1f00-\u1fff]")
_AS_CYRILLIC = str.maketrans(  # Latin letters that look like Cyrillic ones, and those Cyrillic letters
    "AaBCcEeHIiKMOoPpTXxYy",
    "\u0410\u0430\u0412\u0421\u0441\u0415\u0435\u041d\u0406\u0456\u041a\u041c\u041e\u043e\u0420\u0440\u0422\u0425"
    "\u0445\u0423\u0443")
_AS_GREEK = str.maketrans(  # Latin letters that look like Greek ones, and those Greek letters
    "ABEZHIKMNOPTYXoikv",
    "\u0391\u0392\u0395\u0396\u0397\u0399\u039a\u039c\u039d\u039f\u03a1\u03a4\u03a5\u03a7\u03bf\u03b9\u03ba"
    "\u03bd")
_RUSSIAN = str.maketrans({  # Ukrainian i, ye, ghe as a Russian keyboard types them; Russian yo, yery, e; no hard sign
    "\u0456": "\u0438", "\u0454": "\u0435", "\u0491": "\u0433", "\u0451": "\u0435", "\u044b": "\u0438",
    "\u044d": "\u0435", "\u044a": None, "'": None, "\u2019": None, "\u02bc": None})
_JOINERS = re.compile(r"[\s_\-]+")


def fold_name(word: str) -> str:
    """A name as a move compares it: :func:`pbem.i18n.fold` (case and accents), after Latin
    look-alikes among Cyrillic or Greek letters are read as those letters, with the
    letters a Russian keyboard writes for Ukrainian ones folded together (the Ukrainian i
    and ye and ghe with the Russian letters typed for them; the marks of yi and short i go
    in ``fold``), and without spaces, hyphens or apostrophes."""
    if _CYRILLIC.search(word):
        word = word.translate(_AS_CYRILLIC)
    elif _GREEK.search(word):
        word = word.translate(_AS_GREEK)
    folded = fold(word)
    if _CYRILLIC.search(folded):
        folded = folded.translate(_RUSSIAN)
    return _JOINERS.sub("", folded)


@cache
def aliases(kind: str) -> dict[str, str]:
    """Every name of a ``kind`` in every language, folded (:func:`fold_name`), to its id."""
    out = {fold_name(ident): ident for ident in SHIPPED[kind]}
    for lang in LANGS:
        for ident in sorted(SHIPPED[kind]):
            out.setdefault(fold_name(translator(lang).pgettext(kind, ident)), ident)
    for ident, words in sorted(RULEBOOK_NAMES[kind].items()):
        for word in words:
            out.setdefault(fold_name(word), ident)
    return out


_OWN_MAP: ContextVar[Mapping[str, str] | None] = ContextVar("pbem_own_map", default=None)
"""The game's own map that region words are read through, within :func:`own_map`."""


@contextmanager
def own_map(regions: Mapping[str, str] | None) -> Iterator[None]:
    """Within it, :func:`canonical` reads a region's word through ``regions`` (id -> name on
    the map), a game's own map where it is not the shipped one (P3): a text move read again
    for its game (:class:`pbem.log.moves.read_again`) names that game's regions; None: the shipped map."""
    token = _OWN_MAP.set(regions)
    try:
        yield
    finally:
        _OWN_MAP.reset(token)


def canonical(word: str, kind: str, regions: Mapping[str, str] | None = None) -> str | None:
    """The id of the region or card (``kind``, one of :data:`pbem.i18n.KINDS`) that
    ``word`` names in any language, or None if it names none of the shipped ones.

    ``regions`` (id -> name on the map; by default the one :func:`own_map` gives) is a game's
    own map where it is not the shipped one (P3): a word is then one of its regions by id,
    then by its name on the map; a shipped language's name counts only for a shipped region
    the map :func:`keeps`."""
    if kind not in KINDS:
        raise ValueError(f"no such kind of name {kind!r}")
    folded = fold(word)
    regions = _OWN_MAP.get() if regions is None else regions
    if regions is not None and kind == "region":
        return _own_region(folded, regions)
    if folded in SHIPPED[kind]:
        return folded
    return aliases(kind).get(fold_name(word))


def keeps(regions: Mapping[str, str], ident: str) -> bool:
    """Does a map (id -> name) keep the shipped region ``ident`` under its id and name, so that
    the shipped languages' names for it are its names too?"""
    return ident in SHIPPED["region"] and regions.get(ident) == ident.capitalize()


def _own_region(folded: str, regions: Mapping[str, str]) -> str | None:
    if folded in regions:
        return folded
    named = next((ident for ident, name in regions.items() if fold(name) == folded), None)
    if named is not None:
        return named
    shipped = aliases("region").get(fold_name(folded))
    return shipped if shipped is not None and keeps(regions, shipped) else None


def closest(word: str, kind: str, among: frozenset[str] | None = None) -> str | None:
    """The id whose name in some language is nearest to ``word`` (a mistyped name), among
    ``among`` (default: every shipped one), or None if none is near."""
    import difflib  # lazily: only a refusal needs it (pbem apply's start-up speed)

    names = {name: ident for name, ident in aliases(kind).items() if among is None or ident in among}
    near = difflib.get_close_matches(fold_name(word), list(names), n=1, cutoff=0.6)
    return names[near[0]] if near else None


def unknown_name(where: str, value: str, kind: str) -> Msg:
    """The refusal of ``value``, which names no region or card (``kind``), with the nearest
    name in the reader's language if one is near ("did you mean Lovag?")."""
    near = closest(value, kind)
    if kind == "card":
        return (Msg("{where}: {value} is not a card name", where=where, value=repr(value)) if near is None
                else Msg("{where}: {value} is not a card name; did you mean {close}?", where=where,
                         value=repr(value), close=Name.card(near)))
    return (Msg("{where}: {value} is not a region name", where=where, value=repr(value)) if near is None
            else Msg("{where}: {value} is not a region name; did you mean {close}?", where=where,
                     value=repr(value), close=Name.region(near)))


def is_game_name(word: str) -> bool:
    """Whether ``word`` names the game itself (``Rattus``, ``Епідемія``), as typed."""
    return fold_name(word) in {fold_name(name) for name in GAME_NAMES}


def stem_match(query: str, text: str) -> bool:
    """Whether every word of ``query`` begins a word of ``text`` up to its stem: folded
    (:func:`fold_name`), and a word of five letters or more without its last one or two
    (so ``palota`` finds ``palotába``, ``boszorkany`` ``Boszorkány``, ``μαγισσα``
    ``Μάγισσας``)."""
    words = {fold_name(w) for w in re.findall(r"\w+", text)}
    for asked in (fold_name(w) for w in re.findall(r"\w+", query)):
        stem = asked if len(asked) <= 4 else asked[:-1] if len(asked) == 5 else asked[:-2]
        if not any(w.startswith(stem) for w in words):
            return False
    return bool(re.search(r"\w", query))
