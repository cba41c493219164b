"""The board as one SVG drawing (standard library only), for `pbem show --svg/--png`,
report mails and `pbem html`.

Drawn from public state only (PROTOCOL P10): a face-down rat shows its public
name (``t05``), never its face; nothing here reads a secret or a private file.
Where things are drawn comes from :mod:`pbem.views.layout` (presentation, not game
data).  Every drawn piece carries ``data-`` attributes naming what it is, so a
test (or a screen reader's user) can read the picture back.

The drawing is a tree of :mod:`xml.etree.ElementTree` elements, serialized by the
library (:mod:`pbem.views.drawing`): every text and attribute value is escaped by
construction, and no markup is made by formatting strings.  A custom map's names reach the picture
only as text or attribute values; its ids are held to P2-like patterns on the way
in (:mod:`pbem.rules.data`).
"""

from __future__ import annotations

import functools
import xml.etree.ElementTree as ET  # only pictures load this module, never `pbem apply`
from collections.abc import Collection

from pbem.i18n import SHIPPED, Msg, Name, translator
from pbem.log.game import Game
from pbem.views.drawing import (
    ARROW,
    FONT,
    PLAGUE_STYLE,
    SHADES,
    SVG_NS,
    WHITE_MIDDLE,
    Attrs,
    children,
    count_style,
    document,
    el,
    part,
    player_colours,
    seat_marks,
    txt,
    value_of,
)
from pbem.views.layout import BOX_H, BOX_W, COMPACT, HEIGHT, MAP_WIDTH, STANDARD, WIDTH, DrawingSizes, places
from pbem.views.panel import panel_and_height, panel_parts

__all__ = ["COMPACT", "board_png", "board_svg", "mail_png", "map_svg", "panel_svg", "player_colours", "screen_board"]


def _edge(x1: float, y1: float, x2: float, y2: float, box_h: int = BOX_H) -> tuple[float, float]:
    """Where the line from (x1, y1) towards (x2, y2) leaves the box centred on (x1, y1)."""
    dx, dy = x2 - x1, y2 - y1
    t = min((BOX_W / 2 + 8) / abs(dx) if dx else 1e9, (box_h / 2 + 8) / abs(dy) if dy else 1e9)
    return x1 + t * dx, y1 + t * dy


def _region_label(rid: str, name: str, lang: str) -> str:
    """A region's name on the picture: in ``lang`` for the shipped map's (``Γαλλία``), a
    custom map's by its own name."""
    if lang == "en" or rid not in SHIPPED["region"] or name != rid.capitalize():
        return name
    return translator(lang).name(Name.region(rid))


def board_svg(game: Game, lang: str = "en", panel: bool = True, changed: Collection[str] = (),
              look: DrawingSizes = STANDARD) -> str:
    """The whole board as of the game's last entry, as an SVG document, its words in ``lang``;
    without the ``panel`` (:func:`map_svg`), the map alone.  The ``changed`` regions' groups
    are marked ``data-changed`` (a page dashes them: what an entry changed).  Each region's group
    is an image named for a screen reader by what lies on it (public pieces only, P10); each
    player's pieces carry the player's mark (:func:`pbem.views.drawing.seat_marks`) as well as
    their colour; ``look`` is the size of words and pieces against the map (:data:`COMPACT`:
    a phone's)."""
    say = translator(lang).say
    board, state = game.board, game.state
    region_ids = tuple(r.id for r in board.regions)
    at = places(region_ids)
    in_use = frozenset(state.regions if state is not None else board.regions_in_use(len(game.players)))
    colours = player_colours(game.players)
    width = WIDTH if panel else MAP_WIDTH
    title = ET.Element("title")
    title.text = say(Msg("Rattus game {game}, as of entry {seq}", game=game.game_id, seq=game.last_seq))
    parts = [part(title), _backdrop(panel, look.name), _links(board.links, region_ids, in_use, look)]
    marks = seat_marks(game.players)
    palette = tuple((p, c, marks[p]) for p, c in colours.items())
    for region in board.regions:
        rid, used = region.id, region.id in in_use
        parts.append(_region(rid, region.name, region.shade, at[rid], used,
                             tuple(state.rats[rid]) if state is not None and used else (),
                             tuple(sorted(state.cubes[rid].items())) if state is not None and used else (),
                             state is not None and state.plague == rid, palette, lang, rid in changed, look))
    if panel:
        parts.extend(panel_parts(game, colours, lang))
    return document({
        "xmlns": SVG_NS, "width": str(width), "height": str(HEIGHT), "viewBox": f"0 0 {width} {HEIGHT}",
        "font-family": FONT, "class": f"pbem-board {look.name}", "data-game": game.game_id,
        "data-seq": str(game.last_seq),
    }, parts)


def panel_svg(game: Game, lang: str = "en") -> str:
    """The side panel alone (x from MAP_WIDTH on, as tall as its words), as its own drawing: a phone shows it beside
    :func:`map_svg`'s, each at a size whose words can be read (the viewer, `pbem html`)."""
    width = WIDTH - MAP_WIDTH
    parts, bottom = panel_and_height(game, player_colours(game.players), lang, _marker("panel"))
    height = min(HEIGHT, bottom)  # no paper left blank under the legend
    return document({
        "xmlns": SVG_NS, "width": str(width), "height": str(height), "viewBox": f"{MAP_WIDTH} 0 {width} {height}",
        "font-family": FONT, "class": "pbem-panel", "data-game": game.game_id, "data-seq": str(game.last_seq),
    }, [_arrowhead("panel"), _panel_backdrop(), *parts])


@functools.lru_cache(maxsize=8)
def _arrowhead(look: str = "standard") -> str:
    """The sea crossings' arrowhead (``url(#arrowhead)``, the compact look's ``url(#arrowhead-compact)``:
    a page may hold both drawings), in the drawing's ``defs``."""
    defs = ET.Element("defs")
    marker = el(defs, "marker", {
        "id": _marker(look), "viewBox": "0 0 10 10", "refX": 9, "refY": 5, "markerWidth": 7, "markerHeight": 7,
        "orient": "auto-start-reverse"})
    el(marker, "path", {"d": "M0,0 L10,5 L0,10 z", "fill": "#2b5d80"})
    return part(defs)


def _marker(look: str) -> str:
    return "arrowhead" if look == "standard" else f"arrowhead-{look}"


@functools.lru_cache(maxsize=8)
def _backdrop(panel: bool, look: str = "standard") -> str:
    """The sea (and the panel's paper): the arrowhead first, as every drawing has it."""
    sea: Attrs = {"x": 0, "y": 0, "width": MAP_WIDTH, "height": HEIGHT, "fill": "#bcd7ea"}
    return _arrowhead(look) + part(el(ET.Element("svg"), "rect", sea)) + (_panel_backdrop() if panel else "")


@functools.lru_cache(maxsize=8)
def _panel_backdrop() -> str:
    """The side panel's paper."""
    paper: Attrs = {"x": MAP_WIDTH, "y": 0, "width": WIDTH - MAP_WIDTH, "height": HEIGHT, "fill": "#faf7f0"}
    return part(el(ET.Element("svg"), "rect", paper))


@functools.lru_cache(maxsize=64)
def _links(links: tuple[tuple[str, str, str], ...], regions: tuple[str, ...], in_use: frozenset[str],
           look: DrawingSizes = STANDARD) -> str:
    """The neighbour lines: over land, and across the sea as the printed board's arrows."""
    at = places(regions)
    holder = ET.Element("svg")
    for a, b, kind in links:
        (xa, ya), (xb, yb) = at[a], at[b]
        opacity = "1" if a in in_use and b in in_use else "0.25"
        if kind == "arrow":
            x1, y1 = _edge(xa, ya, xb, yb, look.box_h)
            x2, y2 = _edge(xb, yb, xa, ya, look.box_h)
            tip = f"url(#{_marker(look.name)})"
            el(holder, "line", {"class": "link", "data-link": f"{a} {b}", "data-kind": "arrow", "x1": x1, "y1": y1,
                                "x2": x2, "y2": y2, **ARROW, "marker-start": tip, "marker-end": tip,
                                "opacity": opacity})
        else:
            el(holder, "line", {"class": "link", "data-link": f"{a} {b}", "data-kind": kind, "x1": xa, "y1": ya,
                                "x2": xb, "y2": yb, "stroke": "#7a5c2e", "stroke-width": 10, "opacity": opacity})
    return children(holder)


@functools.lru_cache(maxsize=8192)
def _region(rid: str, name: str, shade: str, centre: tuple[int, int], used: bool, rats: tuple[str, ...],
            cubes: tuple[tuple[str, int], ...], plague: bool, palette: tuple[tuple[str, str, str], ...],
            lang: str = "en", changed: bool = False, look: DrawingSizes = STANDARD) -> str:
    """A region's box, its name, its face-down rats (their public names only, P10), its cubes and
    the plague piece, as one part: the same pieces in the same place make the same text."""
    say = translator(lang).say
    cx, cy = centre
    x0, y0 = cx - BOX_W / 2, cy - look.box_h / 2
    fill = SHADES.get(shade, "#eadcb8") if used else "#d9d9d9"
    marked = {"data-changed": "true"} if changed else {}
    label = _region_label(rid, name, lang)
    group = ET.Element("g", {"class": "region", **marked, "data-region": rid, "data-name": name,
                             "data-in-play": str(used).lower(), "role": "img"})
    el(group, "title", {}, _spoken(label, used, rats, cubes, plague, lang))
    el(group, "rect", {"x": x0, "y": y0, "width": BOX_W, "height": look.box_h, "rx": 14, "fill": fill,
                       "stroke": "#b00000" if plague else "#6b5330", "stroke-width": 5 if plague else 2})
    if look is STANDARD:
        size = 18 if lang == "en" or len(label) <= 11 else 15  # Lengyelország clears the plague pawn
        txt(group, x0 + 12, y0 + 24, label, size, {"font-weight": "bold", "fill": "#3a2a10"})
    else:  # a long name, in the smallest size, pressed to the room the plague pawn leaves it
        size = look.name_size if len(label) <= 8 else look.small
        _fitted(group, x0 + 8, y0 + 32, label, size, 148 if plague else 176, {"font-weight": "bold", "fill": "#3a2a10"})
    if not used:
        _fitted(group, x0 + 12, y0 + look.box_h / 2 + look.small, say(Msg("not in play")), look.small, BOX_W - 20,
                {"fill": "#555"})
    _rats(group, x0, y0, rats, look)
    _cubes(group, x0, y0 + look.box_h, cubes, palette, look)
    if plague:
        _plague(group, rid, x0, y0, look, lang)
    return part(group)


def _fitted(parent: ET.Element, x: float, y: float, text: str, size: int, room: float, extra: Attrs) -> None:
    """A word at ``size``, pressed into ``room`` units if it would run longer (about 0.62 of
    its size a letter): its letters keep their height, so it reads at the size it says."""
    word = txt(parent, x, y, text, size, extra)
    if len(text) * size * 0.62 > room:
        word.set("textLength", value_of(room))
        word.set("lengthAdjust", "spacingAndGlyphs")


def _rats(group: ET.Element, x0: float, y0: float, rats: tuple[str, ...], look: DrawingSizes) -> None:
    """The face-down rats (R1.7: three at most), a row under the name: their public names only (P10)."""
    w, h, size = look.rat
    top = y0 + (36 if look is STANDARD else 45)
    for i, token in enumerate(rats):
        rx, ry = x0 + 8 + (i % 4) * (w + 4), top + (i // 4) * (h + 4)
        rat = el(group, "g", {"class": "rat", "data-token": token})
        el(rat, "rect", {"x": rx, "y": ry, "width": w, "height": h, "rx": h // 2, "fill": "#4a3b32"})
        _fitted(rat, rx + w / 2, ry + h / 2 + size * 0.36, token, size, w - 6, WHITE_MIDDLE)


def _cubes(group: ET.Element, x0: float, bottom: float, cubes: tuple[tuple[str, int], ...],
           palette: tuple[tuple[str, str, str], ...], look: DrawingSizes) -> None:
    """Each player's cubes, a pile a player along the box's foot: the colour, the player's mark
    and the count (``R2``), so a reader who does not tell the colours apart reads the mark (the
    region's title says whose they are in words)."""
    colours = {p: (c, m) for p, c, m in palette}
    w, h, size = look.cube
    for i, (player, count) in enumerate(cubes):
        bx, by = x0 + 6 + i * (w + (4 if look is STANDARD else 2)), bottom - h - 6
        colour, mark = colours.get(player, ("#888888", "?"))
        pile = el(group, "g", {"class": "cubes", "data-player": player, "data-count": count, "data-mark": mark})
        el(pile, "rect", {"x": bx, "y": by, "width": w, "height": h, "rx": 3, "fill": colour, "stroke": "#222"})
        _fitted(pile, bx + w / 2, by + h / 2 + size * 0.36, f"{mark}{count}", size, w - 4, count_style(colour))


def _plague(group: ET.Element, rid: str, x0: float, y0: float, look: DrawingSizes, lang: str) -> None:
    """The plague piece: a black pawn in the box's top right corner, and (the standard look) its word."""
    say = translator(lang).say
    px, py = x0 + BOX_W - 30, y0 + (10 if look is STANDARD else 3)
    piece = el(group, "g", {"class": "plague", "data-region": rid})
    el(piece, "circle", {"cx": px + 12, "cy": py + 9, "r": 9, "fill": "#111"})
    el(piece, "path", {"d": f"M{px:.0f},{py + 40:.0f} L{px + 5:.0f},{py + 16:.0f} L{px + 19:.0f},{py + 16:.0f} "
                            f"L{px + 24:.0f},{py + 40:.0f} z", "fill": "#111"})
    if look.plague_word and lang == "en":
        txt(piece, px - 44, py + 38, "plague", 13, PLAGUE_STYLE)
    elif look.plague_word:  # a word of another length ends beside the pawn, as the English one does
        txt(piece, px - 2, py + 38, say(Msg("plague")), 13, {**PLAGUE_STYLE, "text-anchor": "end"})


def _spoken(label: str, used: bool, rats: tuple[str, ...], cubes: tuple[tuple[str, int], ...], plague: bool,
            lang: str) -> str:
    """What a screen reader says of a region: its name, each player's cubes, how many rats lie
    face down (never which: P10) and the plague piece."""
    say = translator(lang).say
    if not used:
        return f"{label}: {say(Msg('not in play'))}"
    said = [say(Msg.plural("{player}: {n} cube", "{player}: {n} cubes", n, player=p)) for p, n in cubes]
    if rats:
        said.append(say(Msg.plural("{n} rat", "{n} rats", len(rats))))
    if plague:
        said.append(say(Msg("the plague piece")))
    return "; ".join([label, *said])


def map_svg(game: Game, lang: str = "en", changed: Collection[str] = (), look: DrawingSizes = STANDARD) -> str:
    """The map alone (x < MAP_WIDTH), drawn without the side panel, whose words a report or a
    page says in its text (``changed`` and ``look``: as :func:`board_svg`)."""
    return board_svg(game, lang, panel=False, changed=changed, look=look)


def screen_board(game: Game, lang: str = "en") -> tuple[str, str, str]:
    """A page's board: the map in the standard look (a wide screen's), the map in the compact
    look (a phone's: a page's style shows one of the two) and the side panel, each its own drawing."""
    return map_svg(game, lang), map_svg(game, lang, look=COMPACT), panel_svg(game, lang)


MAIL_WIDTH = 800
"""A report mail's picture: the map alone, this wide, drawn with crisp edges (about 30 KB,
against 120 KB for the whole drawing); the mail's text has the rest."""


def mail_png(svg: str) -> bytes:
    """The map (:func:`map_svg`'s drawing) as a small PNG for a report mail (:data:`MAIL_WIDTH`)."""
    import resvg_py  # a Rust extension: only pictures load it, never `pbem apply`

    return bytes(resvg_py.svg_to_bytes(svg_string=svg, background="#ffffff", width=MAIL_WIDTH,
                                       shape_rendering="crisp_edges"))


def board_png(svg: str) -> bytes:
    """The drawing as PNG bytes, for mail clients that show no SVG."""
    import resvg_py  # a Rust extension: only pictures load it, never `pbem apply`

    return bytes(resvg_py.svg_to_bytes(svg_string=svg, background="#ffffff"))
