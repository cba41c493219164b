"""Where each region is drawn: presentation only.

These coordinates are not game data: they are not in entry 0 and not under
P3's ``data_hash``, so moving a region on the picture changes no game.  The
standard map's regions sit at their places on a schematic map of Europe; a
custom map (P3) with a region this table does not know is drawn with every
region on a grid, in map order, so nothing overlaps.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

WIDTH, HEIGHT = 1300, 780
"""The drawing's size; the map takes x < MAP_WIDTH, the side panel the rest."""
MAP_WIDTH = 1000
BOX_W, BOX_H = 190, 118
"""A region's box, centred on its place."""

EUROPE: dict[str, tuple[int, int]] = {
    "anglia": (150, 200),
    "scandia": (470, 90),
    "russia": (830, 130),
    "gallia": (235, 385),
    "germania": (455, 290),
    "polonia": (690, 280),
    "tartaria": (865, 400),
    "hispania": (120, 610),
    "italia": (385, 545),
    "hungaria": (620, 450),
    "bulgaria": (680, 670),
    "turcia": (890, 615),
}
"""Centres of the standard map's regions (pbem/data/map.yaml), west to east."""


def places(regions: tuple[str, ...]) -> dict[str, tuple[int, int]]:
    """A centre for every region of the map: Europe's when all are known, else a grid."""
    if all(r in EUROPE for r in regions):
        return {r: EUROPE[r] for r in regions}
    cols = max(1, math.ceil(math.sqrt(len(regions) * MAP_WIDTH / HEIGHT)))
    rows = max(1, math.ceil(len(regions) / cols))
    w, h = MAP_WIDTH / cols, HEIGHT / rows
    return {r: (round(w * (i % cols + 0.5)), round(h * (i // cols + 0.5))) for i, r in enumerate(regions)}



@dataclass(frozen=True)
class DrawingSizes:
    """The sizes a board drawing's pieces and words are drawn at, in the drawing's units (the
    map is :data:`MAP_WIDTH` units wide).  :data:`STANDARD` is the picture a mail or a wide
    screen shows; :data:`COMPACT` draws the same places with words and pieces about twice as
    large against the map, so that a phone's screen 360 CSS px wide, the map fitted to its
    width, still draws every word at 10 px or more (30 units at 346/1000)."""

    name: str
    box_h: int
    name_size: int
    small: int  # the smallest word ("not in play")
    rat: tuple[int, int, int]  # a face-down rat: width, height, its name's size
    cube: tuple[int, int, int]  # a pile of cubes: width, height, its mark's size
    plague_word: bool  # the word beside the plague pawn (the compact look has the pawn alone)


STANDARD = DrawingSizes("standard", BOX_H, 18, 13, (40, 22, 14), (34, 26, 15), True)
COMPACT = DrawingSizes("compact", 136, 33, 30, (56, 42, 30), (44, 42, 30), False)
