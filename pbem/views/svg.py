"""The board as one SVG drawing (standard library only), for `pbem show --svg/--png`,
report mails and `pbem html`.

Drawn from public state only (PROTOCOL P10): a face-down rat shows its public
name (``t05``), never its face; nothing here reads a secret or a private file.
Where things are drawn comes from :mod:`pbem.views.layout` (presentation, not game
data).  Every drawn piece carries ``data-`` attributes naming what it is, so a
test (or a screen reader's user) can read the picture back.

The drawing is a tree of :mod:`xml.etree.ElementTree` elements, serialized by the
library: every text and attribute value is escaped by construction, and no markup
is made by formatting strings.  A custom map's names reach the picture
only as text or attribute values; its ids are held to P2-like patterns on the way
in (:mod:`pbem.rules.data`).
"""

from __future__ import annotations

import textwrap
import xml.etree.ElementTree as ET  # only pictures load this module, never `pbem apply`
from collections.abc import Collection, Mapping

from pbem.i18n import Msg, Name, translator
from pbem.i18n.names import SHIPPED
from pbem.log.game import Game
from pbem.rules.state import State
from pbem.views.layout import BOX_H, BOX_W, HEIGHT, MAP_WIDTH, WIDTH, places
from pbem.views.text import next_step, notices, opening_line

FONT = "DejaVu Sans, Liberation Sans, Arial, Helvetica, sans-serif"
SHADES = {"light": "#f3e6c4", "middle": "#e4cf9b", "dark": "#cdb277"}
NAMED = {
    "red": "#d62728", "green": "#2ca02c", "blue": "#1f77b4", "yellow": "#f2c500",
    "black": "#222222", "white": "#f8f8f8", "orange": "#ff7f0e", "purple": "#9467bd",
    "pink": "#e377c2", "brown": "#8c564b", "grey": "#8a8a8a", "gray": "#8a8a8a",
}
SEAT_COLOURS = ("#d62728", "#1f77b4", "#2ca02c", "#f2c500", "#9467bd", "#ff7f0e")
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


def _value(v: Value) -> str:
    """An attribute's value: numbers as whole numbers (the drawing's grid), text as it is."""
    return v if isinstance(v, str) else f"{v:.0f}"


def _el(parent: ET.Element, tag: str, attrs: Attrs, text: str | None = None) -> ET.Element:
    """A child element; the library escapes ``attrs`` and ``text`` when it serializes."""
    child = ET.SubElement(parent, tag, {k: _value(v) for k, v in attrs.items()})
    if text is not None:
        child.text = text
    return child


def _text(parent: ET.Element, x: float, y: float, text: str, size: int = 14, extra: Attrs | None = None,
          ) -> ET.Element:
    return _el(parent, "text", {"x": x, "y": y, "font-size": size, **(extra or {})}, text)


def _count_style(colour: str) -> Attrs:
    return {"fill": _ink(colour), "text-anchor": "middle", "font-weight": "bold"}


def _ink(colour: str) -> str:
    """Black or white text, whichever reads on ``colour``."""
    r, g, b = (int(colour[i:i + 2], 16) for i in (1, 3, 5))
    return "#000" if 0.299 * r + 0.587 * g + 0.114 * b > 150 else "#fff"


def _edge(x1: float, y1: float, x2: float, y2: float) -> tuple[float, float]:
    """Where the line from (x1, y1) towards (x2, y2) leaves the box centred on (x1, y1)."""
    dx, dy = x2 - x1, y2 - y1
    t = min((BOX_W / 2 + 8) / abs(dx) if dx else 1e9, (BOX_H / 2 + 8) / abs(dy) if dy else 1e9)
    return x1 + t * dx, y1 + t * dy


def _region_label(game: Game, rid: str, name: str, lang: str) -> str:
    """A region's name on the picture: in ``lang`` for the shipped map's (``Γαλλία``), a
    custom map's by its own name."""
    if lang == "en" or rid not in SHIPPED["region"] or name != rid.capitalize():
        return name
    return translator(lang).name(Name.region(rid))


def board_svg(game: Game, lang: str = "en", panel: bool = True, changed: Collection[str] = ()) -> str:
    """The whole board as of the game's last entry, as an SVG document, its words in ``lang``;
    without the ``panel`` (:func:`map_svg`), the map alone.  The ``changed`` regions' groups
    are marked ``data-changed`` (a page dashes them: what an entry changed)."""
    say = translator(lang).say
    board, state = game.board, game.state
    at = places(tuple(r.id for r in board.regions))
    in_use = set(state.regions if state is not None else board.regions_in_use(len(game.players)))
    colours = player_colours(game.players)
    width = WIDTH if panel else MAP_WIDTH
    root = ET.Element("svg", {
        "xmlns": SVG_NS, "width": str(width), "height": str(HEIGHT), "viewBox": f"0 0 {width} {HEIGHT}",
        "font-family": FONT, "class": "pbem-board", "data-game": game.game_id, "data-seq": str(game.last_seq),
    })
    _el(root, "title", {}, say(Msg("Rattus game {game}, as of entry {seq}", game=game.game_id, seq=game.last_seq)))
    _arrowhead(root)
    _el(root, "rect", {"x": 0, "y": 0, "width": MAP_WIDTH, "height": HEIGHT, "fill": "#bcd7ea"})
    if panel:
        _el(root, "rect", {"x": MAP_WIDTH, "y": 0, "width": WIDTH - MAP_WIDTH, "height": HEIGHT, "fill": "#faf7f0"})
    for a, b, kind in board.links:
        (xa, ya), (xb, yb) = at[a], at[b]
        opacity = "1" if a in in_use and b in in_use else "0.25"
        if kind == "arrow":  # across the sea, as the printed board's arrows
            x1, y1 = _edge(xa, ya, xb, yb)
            x2, y2 = _edge(xb, yb, xa, ya)
            _el(root, "line", {"class": "link", "data-link": f"{a} {b}", "data-kind": "arrow", "x1": x1, "y1": y1,
                               "x2": x2, "y2": y2, **ARROW, "opacity": opacity})
        else:
            _el(root, "line", {"class": "link", "data-link": f"{a} {b}", "data-kind": kind, "x1": xa, "y1": ya,
                               "x2": xb, "y2": yb, "stroke": "#7a5c2e", "stroke-width": 10, "opacity": opacity})
    for region in board.regions:
        _region(root, game, region.id, region.name, region.shade, at[region.id], region.id in in_use, colours, lang,
                region.id in changed)
    if panel:
        _panel(root, game, colours, lang)
    return _serialized(root)


def panel_svg(game: Game, lang: str = "en") -> str:
    """The side panel alone (x from MAP_WIDTH on), as its own drawing: a phone shows it beside
    :func:`map_svg`'s, each at a size whose words can be read (the viewer, `pbem html`)."""
    width = WIDTH - MAP_WIDTH
    root = ET.Element("svg", {
        "xmlns": SVG_NS, "width": str(width), "height": str(HEIGHT), "viewBox": f"{MAP_WIDTH} 0 {width} {HEIGHT}",
        "font-family": FONT, "class": "pbem-panel", "data-game": game.game_id, "data-seq": str(game.last_seq),
    })
    _arrowhead(root)
    _el(root, "rect", {"x": MAP_WIDTH, "y": 0, "width": width, "height": HEIGHT, "fill": "#faf7f0"})
    _panel(root, game, player_colours(game.players), lang)
    return _serialized(root)


def _arrowhead(root: ET.Element) -> None:
    """The sea crossings' arrowhead (``url(#arrowhead)``), in the drawing's ``defs``."""
    marker = _el(_el(root, "defs", {}), "marker", {
        "id": "arrowhead", "viewBox": "0 0 10 10", "refX": 9, "refY": 5, "markerWidth": 7, "markerHeight": 7,
        "orient": "auto-start-reverse"})
    _el(marker, "path", {"d": "M0,0 L10,5 L0,10 z", "fill": "#2b5d80"})


def _serialized(root: ET.Element) -> str:
    root.text = "\n"
    for child in root:
        child.tail = "\n"
    return ET.tostring(root, encoding="unicode") + "\n"


def _region(out: ET.Element, game: Game, rid: str, name: str, shade: str, centre: tuple[int, int],
            used: bool, colours: dict[str, str], lang: str = "en", changed: bool = False) -> None:
    say = translator(lang).say
    state = game.state
    cx, cy = centre
    x0, y0 = cx - BOX_W / 2, cy - BOX_H / 2
    plague = state is not None and state.plague == rid
    rats = list(state.rats[rid]) if state is not None and used else []
    cubes = dict(state.cubes[rid]) if state is not None and used else {}
    fill = SHADES.get(shade, "#eadcb8") if used else "#d9d9d9"
    marked = {"data-changed": "true"} if changed else {}
    group = _el(out, "g", {"class": "region", **marked, "data-region": rid, "data-name": name,
                           "data-in-play": str(used).lower()})
    _el(group, "rect", {"x": x0, "y": y0, "width": BOX_W, "height": BOX_H, "rx": 14, "fill": fill,
                        "stroke": "#b00000" if plague else "#6b5330", "stroke-width": 5 if plague else 2})
    label = _region_label(game, rid, name, lang)
    size = 18 if lang == "en" or len(label) <= 11 else 15  # Lengyelország clears the plague pawn
    _text(group, x0 + 12, y0 + 24, label, size, {"font-weight": "bold", "fill": "#3a2a10"})
    if not used:
        _text(group, x0 + 12, y0 + 60, say(Msg("not in play")), 13, {"fill": "#666"})
    for i, token in enumerate(rats):  # face down: the public name only (P10)
        rx, ry = x0 + 10 + (i % 4) * 44, y0 + 36 + (i // 4) * 26
        rat = _el(group, "g", {"class": "rat", "data-token": token})
        _el(rat, "rect", {"x": rx, "y": ry, "width": 40, "height": 22, "rx": 11, "fill": "#4a3b32"})
        _text(rat, rx + 20, ry + 16, token, 13, WHITE_MIDDLE)
    for i, (player, count) in enumerate(sorted(cubes.items())):
        bx, by = x0 + 10 + i * 45, y0 + BOX_H - 34
        colour = colours.get(player, "#888888")
        pile = _el(group, "g", {"class": "cubes", "data-player": player, "data-count": count})
        _el(pile, "rect", {"x": bx, "y": by, "width": 26, "height": 26, "rx": 3, "fill": colour, "stroke": "#222"})
        _text(pile, bx + 13, by + 19, str(count), 15, _count_style(colour))
        _el(pile, "title", {}, say(Msg.plural("{player}: {n} cube", "{player}: {n} cubes", count, player=player)))
    if plague:  # the plague piece: a black pawn in the box's top right corner
        px, py = x0 + BOX_W - 30, y0 + 10
        piece = _el(group, "g", {"class": "plague", "data-region": rid})
        _el(piece, "circle", {"cx": px + 12, "cy": py + 9, "r": 9, "fill": "#111"})
        _el(piece, "path", {"d": f"M{px:.0f},{py + 40:.0f} L{px + 5:.0f},{py + 16:.0f} L{px + 19:.0f},{py + 16:.0f} "
                                 f"L{px + 24:.0f},{py + 40:.0f} z", "fill": "#111"})
        if lang == "en":
            _text(piece, px - 44, py + 38, "plague", 12, PLAGUE_STYLE)
        else:  # a word of another length ends beside the pawn, as the English one does
            _text(piece, px - 2, py + 38, say(Msg("plague")), 12, {**PLAGUE_STYLE, "text-anchor": "end"})
        _el(piece, "title", {}, say(Msg("the plague piece")))


def _panel(out: ET.Element, game: Game, colours: dict[str, str], lang: str = "en") -> None:
    """The side panel: game, whose turn, palace, class cards and their holders, supplies."""
    say = translator(lang).say
    state = game.state
    x = MAP_WIDTH + 16
    _text(out, x, 34, f"Rattus: {game.game_id}", 20, BOLD)
    _text(out, x, 56, say(Msg("as of entry {seq}", seq=game.last_seq)), 13, {"fill": "#555"})
    y = _status(out, game, x, 82, lang)
    y = _players(out, game, colours, x, y, lang)
    if state is None:
        return
    y = _palace(out, state, colours, x, y + 10, lang)
    y = _cards(out, state, colours, x, y, lang)
    _legend(out, state, x, y, lang)


def _status(out: ET.Element, game: Game, x: int, y: int, lang: str = "en") -> int:
    """Whose turn (or the opening, or the final scores) and the notices, wrapped; the next y."""
    say = translator(lang).say
    state = game.state
    if state is None:
        lines = [say(opening_line(game, lang=lang))]
    elif game.over:
        scores = state.scores()
        lines = [say(Msg("game over; final scores: {scores}",
                         scores=", ".join(f"{p} {scores[p]}" for p in state.players)))]
    else:
        lines = [say(Msg("turn {turn}: {step}", turn=state.turn_number, step=next_step(state, lang=lang)))]
    for note in notices(game, lang=lang):
        lines.append(say(note))
    for line in lines:
        for part in textwrap.wrap(line, 38)[:6]:
            _el(out, "text", {"class": "status", "x": x, "y": y, "font-size": 13}, part)
            y += 17
        y += 4
    return y


def _players(out: ET.Element, game: Game, colours: dict[str, str], x: int, y: int, lang: str = "en") -> int:
    """Each player's colour, cubes on the board and in supply; the next y."""
    say = translator(lang).say
    state = game.state
    _text(out, x, y + 14, say(Msg("Players")), 15, BOLD)
    y += 24
    for p in game.players:
        colour = colours[p]
        on_board = sum(state.cubes[r].get(p, 0) for r in state.regions) if state is not None else 0
        supply = state.supply[p] if state is not None else 0
        row = _el(out, "g", {"class": "player", "data-player": p, "data-on-board": on_board, "data-supply": supply})
        _el(row, "rect", {"x": x, "y": y, "width": 18, "height": 18, "rx": 3, "fill": colour, "stroke": "#222"})
        _text(row, x + 26, y + 14, say(Msg("{player}: {on_board} on the board, {supply} in supply",
                                           player=p, on_board=on_board, supply=supply)), 13)
        y += 24
    return y


def _palace(out: ET.Element, state: State, colours: dict[str, str], x: int, y: int, lang: str = "en") -> int:
    """The palace's cubes, player by player; the next y."""
    say = translator(lang).say
    _text(out, x, y + 14, say(Msg("Palace")), 15, BOLD)
    y += 22
    _el(out, "rect", {"x": x, "y": y, "width": WIDTH - MAP_WIDTH - 32, "height": 36, "rx": 8, "fill": "#efe3f7",
                      "stroke": "#7b4f9d"})
    px = x + 8
    held = [(p, n) for p, n in state.palace.items() if n]
    for p, n in held:
        colour = colours[p]
        pile = _el(out, "g", {"class": "palace", "data-player": p, "data-count": n})
        _el(pile, "rect", {"x": px, "y": y + 5, "width": 26, "height": 26, "rx": 3, "fill": colour, "stroke": "#222"})
        _text(pile, px + 13, y + 24, str(n), 15, _count_style(colour))
        px += 34
    if not held:
        _text(out, px, y + 23, say(Msg("empty")), 13, {"fill": "#666"})
    return y + 50


def _cards(out: ET.Element, state: State, colours: dict[str, str], x: int, y: int, lang: str = "en") -> int:
    """The class cards, two a row, each with its holder's colour and name; the next y."""
    said = translator(lang)
    _text(out, x, y + 14, said.say(Msg("Class cards")), 15, BOLD)
    y += 22
    for i, card in enumerate(state.cards):
        holder = state.cards[card]
        cx, cy = x + (i % 2) * 136, y + (i // 2) * 50
        stripe = colours.get(holder, "#ffffff") if holder else "#ffffff"
        group = _el(out, "g", {"class": "card", "data-card": card, "data-holder": holder or ""})
        _el(group, "rect", {"x": cx, "y": cy, "width": 128, "height": 42, "rx": 6, "fill": "#fffdf6",
                            "stroke": "#6b5330"})
        _el(group, "rect", {"x": cx, "y": cy, "width": 10, "height": 42, "rx": 3, "fill": stripe})
        _text(group, cx + 16, cy + 17, said.name(Name.card(card)), 14, BOLD)
        _text(group, cx + 16, cy + 35, holder or said.say(Msg("unowned")), 12, GREY)
    return y + 50 * ((len(state.cards) + 1) // 2) + 10  # two a row


def _legend(out: ET.Element, state: State, x: int, y: int, lang: str = "en") -> None:
    """The rats still in supply and flipped, and what the two kinds of neighbour lines mean."""
    say = translator(lang).say
    counts = say(Msg("rats in supply: {supply}; flipped: {flipped}", supply=len(state.rat_supply),
                     flipped=len(state.flipped)))
    for part in textwrap.wrap(counts, 42) or [counts]:  # a longer language's line wraps in the panel
        _text(out, x, y, part, 13)
        y += 17
    y += 13
    _el(out, "line", {"x1": x, "y1": y, "x2": x + 60, "y2": y, "stroke": "#7a5c2e", "stroke-width": 8})
    _text(out, x + 70, y + 5, say(Msg("neighbours over land")), 12)
    y += 22
    _el(out, "line", {"x1": x, "y1": y, "x2": x + 60, "y2": y, **ARROW})
    _text(out, x + 70, y + 5, say(Msg("neighbours across the sea")), 12)


def map_svg(game: Game, lang: str = "en", changed: Collection[str] = ()) -> str:
    """The map alone (x < MAP_WIDTH), drawn without the side panel, whose words a report or a
    page says in its text (``changed``: as :func:`board_svg`)."""
    return board_svg(game, lang, panel=False, changed=changed)


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
