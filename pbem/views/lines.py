"""A template's short lines: words wrapped under 40 characters, a value kept whole
on a line, and the names a line shows in a language (:mod:`pbem.views.orders` uses them all)."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from pbem.i18n import SHIPPED, translator
from pbem.i18n.names import canonical, keeps

WIDTH = 39
"""Every template line is shorter than 40 characters."""


def wrap(words: list[str], lead: str = "#   ", more: str = "#     ") -> list[str]:
    """``words`` (choices, each already with its trailing comma where one belongs) in lines
    shorter than :data:`WIDTH` + 1, the first after ``lead``, the rest after ``more``."""
    lines: list[str] = []
    line = lead
    for word in words:
        if line.strip("# ") and len(line) + 1 + len(word) > WIDTH:
            lines.append(line.rstrip())
            line = more
        line += ("" if line in (lead, more) else " ") + word
    if line.strip("# "):
        lines.append(line.rstrip())
    return lines


def choices(items: list[str]) -> list[str]:
    """A list of choices, comma-separated, wrapped."""
    return wrap([f"{item}," for item in items[:-1]] + items[-1:])


_NBSP = "\u00a0"


def kept(text: str) -> str:
    """A value that :func:`words` keeps whole on a line (a path, ``gallia (1)``)."""
    return text.replace(" ", _NBSP)


def words(said: str) -> list[str]:
    """A sentence said in a language, as :func:`wrap`'s words: split at its spaces, but
    never inside a value made :func:`kept` (as English keeps ``gallia (1),`` whole)."""
    return [word.replace(_NBSP, " ") for word in said.split(" ") if word]


def shipped_names(lang: str, regions: Mapping[str, str] | None = None) -> Callable[[str], str]:
    """A region's or card's name as a template line shows it in ``lang``: the name its
    players know for a shipped region or a class card (the notation reads it back,
    :func:`pbem.i18n.names.canonical`), else the id as it is; English shows ids.
    ``regions`` (id -> name), a custom map's: a shipped region it renamed, or whose name
    would read back as another of its regions, keeps its id (P3)."""
    if lang == "en":
        return str
    said = translator(lang)

    def name(ident: str) -> str:
        for kind in ("region", "card"):
            if ident in SHIPPED[kind] and (kind == "card" or regions is None or keeps(regions, ident)):
                shown = said.pgettext(kind, ident)
                if " " in shown or (kind == "region" and canonical(shown, kind, regions) != ident):
                    return ident  # a line's words are split at spaces; the name must read back
                return shown
        return ident
    return name
