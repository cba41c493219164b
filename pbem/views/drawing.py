"""The escaping builder every board picture is made with (:mod:`pbem.views.svg`,
:mod:`pbem.views.panel`): elements of :mod:`xml.etree.ElementTree`, serialized by the library,
so every text and attribute value is escaped by construction and no markup is made by
formatting strings; the styles and the players' colours the pictures share.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET  # only pictures load this module, never `pbem apply`
from collections.abc import Mapping

FONT = "DejaVu Sans, Liberation Sans, Arial, Helvetica, sans-serif"
SHADES = {"light": "#f3e6c4", "middle": "#e4cf9b", "dark": "#cdb277"}
NAMED = {
    "red": "#b2182b", "green": "#5ad15a", "blue": "#1f77b4", "yellow": "#f2c500",
    "black": "#222222", "white": "#f8f8f8", "orange": "#ff7f0e", "purple": "#9467bd",
    "pink": "#e377c2", "brown": "#8c564b", "grey": "#8a8a8a", "gray": "#8a8a8a",
}
SEAT_COLOURS = ("#b2182b", "#1f77b4", "#5ad15a", "#f2c500", "#9467bd", "#ff7f0e")
SVG_NS = "http://www.w3.org/2000/svg"

Value = str | int | float
Attrs = Mapping[str, Value]

WHITE_MIDDLE: Attrs = {"fill": "#fff", "text-anchor": "middle"}
PLAGUE_STYLE: Attrs = {"fill": "#b00000", "font-weight": "bold"}
BOLD: Attrs = {"font-weight": "bold"}
GREY: Attrs = {"fill": "#444"}
ARROW: Attrs = {"stroke": "#2b5d80", "stroke-width": 3, "stroke-dasharray": "9 6",
                "marker-start": "url(#arrowhead)", "marker-end": "url(#arrowhead)"}


def player_colours(players: tuple[str, ...]) -> dict[str, str]:
    """A colour per player: the colour a player is named after, else one by seat."""
    return {p: NAMED.get(p, SEAT_COLOURS[i % len(SEAT_COLOURS)]) for i, p in enumerate(players)}


def seat_marks(players: tuple[str, ...]) -> dict[str, str]:
    """A mark per player, drawn on each of their pieces beside the colour (for readers who do not
    tell red from green): the name's initial, capitalized; where two names share it, the initial
    and the first following letter that tells them apart (``blue`` Bl, ``brown`` Br), else the
    initial and the seat's number."""
    marks: dict[str, str] = {}
    for seat, p in enumerate(players, start=1):
        initial = p[:1].upper() or str(seat)
        if all(q[:1].upper() != initial for q in players if q != p):
            marks[p] = initial
            continue
        taken = set(marks.values())
        marks[p] = next((initial + c.lower() for c in p[1:] if c.isalnum() and initial + c.lower() not in taken
                         and all(initial + c.lower() != q[:1].upper() + q[1:2].lower() for q in players if q != p)),
                        initial + str(seat))
    return marks


def value_of(v: Value) -> str:
    """An attribute's value: numbers as whole numbers (the drawing's grid), text as it is."""
    return v if isinstance(v, str) else f"{v:.0f}"


def el(parent: ET.Element, tag: str, attrs: Attrs, text: str | None = None) -> ET.Element:
    """A child element; the library escapes ``attrs`` and ``text`` when it serializes."""
    child = ET.SubElement(parent, tag, {k: v if v.__class__ is str else f"{v:.0f}"  # value_of, inline: a hot loop
                                        for k, v in attrs.items()})
    if text is not None:
        child.text = text
    return child


def txt(parent: ET.Element, x: float, y: float, text: str, size: int = 14, extra: Attrs | None = None,
          ) -> ET.Element:
    return el(parent, "text", {"x": x, "y": y, "font-size": size, **(extra or {})}, text)


def count_style(colour: str) -> Attrs:
    return {"fill": ink(colour), "text-anchor": "middle", "font-weight": "bold"}


def ink(colour: str) -> str:
    """Black or white text, whichever reads on ``colour``."""
    r, g, b = (int(colour[i:i + 2], 16) for i in (1, 3, 5))
    return "#000" if 0.299 * r + 0.587 * g + 0.114 * b > 150 else "#fff"


# The drawing is put together from parts, each a top-level element of the document serialized by
# the library (so escaped by construction) on a line of its own.  A part is a pure function of the
# few values it draws: a region's pieces, a card row, the links; the same values make the same
# text, so those parts are made once and kept (a viewer draws every entry of a game, and most of
# the board is as the entry before left it).

def part(element: ET.Element) -> str:
    """One top-level element of a drawing, serialized, on its own line."""
    element.tail = "\n"
    return ET.tostring(element, encoding="unicode")


def children(holder: ET.Element) -> str:
    """The elements drawn into ``holder``, each serialized on its own line (one call to the
    library for them all: its set-up costs more than a small element's text)."""
    if not len(holder):
        return ""
    for child in holder:
        child.tail = "\n"
    text = ET.tostring(holder, encoding="unicode")
    return text[len("<svg>"):-len("</svg>")]


def document(attrs: dict[str, str], parts: list[str]) -> str:
    """The drawing: the root element with ``attrs`` around ``parts``, each on its own line."""
    root = ET.Element("svg", attrs)
    root.text = "\n"
    shell = ET.tostring(root, encoding="unicode")  # <svg ...>LF</svg>: the root's attributes escaped
    cut = shell.rindex("</svg>")
    return shell[:cut] + "".join(parts) + shell[cut:] + "\n"
