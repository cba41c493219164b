"""Regions and cards as the players of each language know them, and back (issue 22).

A sentence shows a region or card by its name in the reader's language (the catalogs'
context ``region`` or ``card``, keyed by the canonical id); a move may name one in any
supported language, in any case, with or without accents (``Γαλλία``, ``γαλλια``,
``Lengyelorszag``), and :func:`canonical` gives back the one id the log records.

The catalogs are read only for a word that is not already an id of the shipped map or a
class card: a move written with the ids (every English move) reads none.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
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


_OWN_MAP: ContextVar[Mapping[str, str] | None] = ContextVar("pbem_own_map", default=None)
"""The game's own map that region words are read through, within :func:`own_map`."""


@contextmanager
def own_map(regions: Mapping[str, str] | None) -> Iterator[None]:
    """Within it, :func:`canonical` reads a region's word through ``regions`` (id -> name on
    the map), a game's own map where it is not the shipped one (P3): a text move read again
    for its game (:class:`pbem.log.moves.TextMove`) names that game's regions; None: the shipped map."""
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
    return aliases(kind).get(folded)


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
    shipped = aliases("region").get(folded)
    return shipped if shipped is not None and keeps(regions, shipped) else None
