"""Regions and cards as the players of each language know them, and back.

A sentence shows a region or card by its name in the reader's language (the catalogs'
context ``region`` or ``card``, keyed by the canonical id); a move may name one in any
supported language, in any case, with or without accents (``Γαλλία``, ``γαλλια``,
``Lengyelorszag``), and :func:`canonical` gives back the one id the log records.

The catalogs are read only for a word that is not already an id of the shipped map or a
class card: a move written with the ids (every English move) reads none.
"""

from __future__ import annotations

from functools import cache

from pbem.i18n import KINDS, LANGS, fold, translator

SHIPPED: dict[str, frozenset[str]] = {
    "region": frozenset({"anglia", "scandia", "russia", "gallia", "germania", "polonia", "tartaria", "hispania",
                         "italia", "hungaria", "bulgaria", "turcia"}),  # pbem/data/map.yaml (tests/test_i18n.py)
    "card": frozenset({"peasant", "merchant", "monk", "knight", "witch", "king"}),  # R1.5: pbem.rules.data.CLASSES
}
"""The ids the catalogs name: the shipped map's regions and the six class cards."""


@cache
def aliases(kind: str) -> dict[str, str]:
    """Every name of a ``kind`` in every language, folded (:func:`pbem.i18n.fold`), to its id."""
    out = {fold(ident): ident for ident in SHIPPED[kind]}
    for lang in LANGS:
        for ident in sorted(SHIPPED[kind]):
            out.setdefault(fold(translator(lang).pgettext(kind, ident)), ident)
    return out


def canonical(word: str, kind: str) -> str | None:
    """The id of the region or card (``kind``, one of :data:`pbem.i18n.KINDS`) that
    ``word`` names in any language, or None if it names none of the shipped ones."""
    if kind not in KINDS:
        raise ValueError(f"no such kind of name {kind!r}")
    folded = fold(word)
    if folded in SHIPPED[kind]:
        return folded
    return aliases(kind).get(folded)
