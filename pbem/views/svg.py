"""The board as one SVG drawing (standard library only), for `pbem show --svg/--png`,
report mails and `pbem html`.

Drawn from public state only (PROTOCOL P10): a face-down rat shows its public
name (``t05``), never its face; nothing here reads a secret or a private file.
Where things are drawn comes from :mod:`pbem.views.layout` (presentation, not game
data).  Every drawn piece carries ``data-`` attributes naming what it is, so a
test (or a screen reader's user) can read the picture back.
"""

from __future__ import annotations

import textwrap
from xml.sax.saxutils import escape, quoteattr

from pbem.log.game import Game
from pbem.rules.data import CLASSES
from pbem.rules.state import State
from pbem.views.layout import BOX_H, BOX_W, HEIGHT, MAP_WIDTH, WIDTH, places
from pbem.views.text import CARD_NAMES, next_step, notices, opening_line

FONT = "DejaVu Sans, Liberation Sans, Arial, Helvetica, sans-serif"
SHADES = {"light": "#f3e6c4", "middle": "#e4cf9b", "dark": "#cdb277"}
NAMED = {
    "red": "#d62728", "green": "#2ca02c", "blue": "#1f77b4", "yellow": "#f2c500",
    "black": "#222222", "white": "#f8f8f8", "orange": "#ff7f0e", "purple": "#9467bd",
    "pink": "#e377c2", "brown": "#8c564b", "grey": "#8a8a8a", "gray": "#8a8a8a",
}
SEAT_COLOURS = ("#d62728", "#1f77b4", "#2ca02c", "#f2c500", "#9467bd", "#ff7f0e")


def player_colours(players: tuple[str, ...]) -> dict[str, str]:
    """A colour per player: the colour a player is named after, else one by seat."""
    return {p: NAMED.get(p, SEAT_COLOURS[i % len(SEAT_COLOURS)]) for i, p in enumerate(players)}


def _text(x: float, y: float, text: str, size: int = 14, extra: str = "") -> str:
    return (f'<text x="{x:.0f}" y="{y:.0f}" font-size="{size}" {extra}>'
            f"{escape(text)}</text>")


WHITE_MIDDLE = 'fill="#fff" text-anchor="middle"'
PLAGUE_STYLE = 'fill="#b00000" font-weight="bold"'
BOLD = 'font-weight="bold"'
GREY = 'fill="#444"'


def _count_style(colour: str) -> str:
    return f'fill="{_ink(colour)}" text-anchor="middle" font-weight="bold"'


def _ink(colour: str) -> str:
    """Black or white text, whichever reads on ``colour``."""
    r, g, b = (int(colour[i:i + 2], 16) for i in (1, 3, 5))
    return "#000" if 0.299 * r + 0.587 * g + 0.114 * b > 150 else "#fff"


def _edge(x1: float, y1: float, x2: float, y2: float) -> tuple[float, float]:
    """Where the line from (x1, y1) towards (x2, y2) leaves the box centred on (x1, y1)."""
    dx, dy = x2 - x1, y2 - y1
    t = min((BOX_W / 2 + 8) / abs(dx) if dx else 1e9, (BOX_H / 2 + 8) / abs(dy) if dy else 1e9)
    return x1 + t * dx, y1 + t * dy


def board_svg(game: Game) -> str:
    """The whole board as of the game's last entry, as an SVG document."""
    board, state = game.board, game.state
    all_ids = tuple(r.id for r in board.regions)
    at = places(all_ids)
    in_use = set(state.regions if state is not None else board.regions_in_use(len(game.players)))
    colours = player_colours(game.players)
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
        f'viewBox="0 0 {WIDTH} {HEIGHT}" font-family="{FONT}" class="pbem-board" '
        f'data-game={quoteattr(game.game_id)} data-seq="{game.last_seq}">',
        f"<title>{escape(f'Rattus game {game.game_id}, as of entry {game.last_seq}')}</title>",
        '<defs><marker id="arrowhead" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" '
        'markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#2b5d80"/>'
        "</marker></defs>",
        f'<rect x="0" y="0" width="{MAP_WIDTH}" height="{HEIGHT}" fill="#bcd7ea"/>',
        f'<rect x="{MAP_WIDTH}" y="0" width="{WIDTH - MAP_WIDTH}" height="{HEIGHT}" fill="#faf7f0"/>',
    ]
    for a, b, kind in board.links:
        (xa, ya), (xb, yb) = at[a], at[b]
        live = a in in_use and b in in_use
        opacity = "1" if live else "0.25"
        if kind == "arrow":  # across the sea, as the printed board's arrows
            x1, y1 = _edge(xa, ya, xb, yb)
            x2, y2 = _edge(xb, yb, xa, ya)
            out.append(
                f'<line class="link" data-link="{a} {b}" data-kind="arrow" x1="{x1:.0f}" y1="{y1:.0f}" '
                f'x2="{x2:.0f}" y2="{y2:.0f}" stroke="#2b5d80" stroke-width="3" stroke-dasharray="9 6" '
                f'marker-start="url(#arrowhead)" marker-end="url(#arrowhead)" opacity="{opacity}"/>'
            )
        else:
            out.append(
                f'<line class="link" data-link="{a} {b}" data-kind="{escape(kind)}" x1="{xa}" y1="{ya}" '
                f'x2="{xb}" y2="{yb}" stroke="#7a5c2e" stroke-width="10" opacity="{opacity}"/>'
            )
    for region in board.regions:
        out.extend(_region(game, region.id, region.name, region.shade, at[region.id],
                           region.id in in_use, colours))
    out.extend(_panel(game, colours))
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _region(game: Game, rid: str, name: str, shade: str, centre: tuple[int, int], used: bool,
            colours: dict[str, str]) -> list[str]:
    state = game.state
    cx, cy = centre
    x0, y0 = cx - BOX_W / 2, cy - BOX_H / 2
    plague = state is not None and state.plague == rid
    rats = list(state.rats[rid]) if state is not None and used else []
    cubes = dict(state.cubes[rid]) if state is not None and used else {}
    fill = SHADES.get(shade, "#eadcb8") if used else "#d9d9d9"
    out = [
        f'<g class="region" data-region={quoteattr(rid)} data-name={quoteattr(name)} '
        f'data-in-play="{str(used).lower()}">',
        f'<rect x="{x0:.0f}" y="{y0:.0f}" width="{BOX_W}" height="{BOX_H}" rx="14" fill="{fill}" '
        f'stroke="{"#b00000" if plague else "#6b5330"}" stroke-width="{5 if plague else 2}"/>',
        _text(x0 + 12, y0 + 24, name, 18, 'font-weight="bold" fill="#3a2a10"'),
    ]
    if not used:
        out.append(_text(x0 + 12, y0 + 60, "not in play", 13, 'fill="#666"'))
    for i, token in enumerate(rats):  # face down: the public name only (P10)
        rx, ry = x0 + 10 + (i % 4) * 44, y0 + 36 + (i // 4) * 26
        out.append(
            f'<g class="rat" data-token={quoteattr(token)}><rect x="{rx:.0f}" y="{ry:.0f}" width="40" '
            f'height="22" rx="11" fill="#4a3b32"/>{_text(rx + 20, ry + 16, token, 13, WHITE_MIDDLE)}</g>'
        )
    for i, (player, count) in enumerate(sorted(cubes.items())):
        bx, by = x0 + 10 + i * 45, y0 + BOX_H - 34
        colour = colours.get(player, "#888888")
        out.append(
            f'<g class="cubes" data-player={quoteattr(player)} data-count="{count}">'
            f'<rect x="{bx:.0f}" y="{by:.0f}" width="26" height="26" rx="3" fill="{colour}" stroke="#222"/>'
            f"{_text(bx + 13, by + 19, str(count), 15, _count_style(colour))}"
            f'<title>{escape(f"{player}: {count} cube(s)")}</title></g>'
        )
    if plague:  # the plague piece: a black pawn in the box's top right corner
        px, py = x0 + BOX_W - 30, y0 + 10
        out.append(
            f'<g class="plague" data-region={quoteattr(rid)}>'
            f'<circle cx="{px + 12:.0f}" cy="{py + 9:.0f}" r="9" fill="#111"/>'
            f'<path d="M{px:.0f},{py + 40:.0f} L{px + 5:.0f},{py + 16:.0f} L{px + 19:.0f},{py + 16:.0f} '
            f'L{px + 24:.0f},{py + 40:.0f} z" fill="#111"/>'
            f"{_text(px - 44, py + 38, 'plague', 12, PLAGUE_STYLE)}"
            "<title>the plague piece</title></g>"
        )
    out.append("</g>")
    return out


def _panel(game: Game, colours: dict[str, str]) -> list[str]:
    """The side panel: game, whose turn, palace, class cards and their holders, supplies."""
    state = game.state
    x = MAP_WIDTH + 16
    out = [_text(x, 34, f"Rattus: {game.game_id}", 20, 'font-weight="bold"'),
           _text(x, 56, f"as of entry {game.last_seq}", 13, 'fill="#555"')]
    y = _status(game, x, 82, out)
    y = _players(game, colours, x, y, out)
    if state is None:
        return out
    y = _palace(state, colours, x, y + 10, out)
    y = _cards(state, colours, x, y, out)
    _legend(state, x, y, out)
    return out


def _status(game: Game, x: int, y: int, out: list[str]) -> int:
    """Whose turn (or the opening, or the final scores) and the notices, wrapped; the next y."""
    state = game.state
    if state is None:
        lines = [opening_line(game)]
    elif game.over:
        scores = state.scores()
        lines = ["game over; final scores: " + ", ".join(f"{p} {scores[p]}" for p in state.players)]
    else:
        lines = [f"turn {state.turn_number}: {next_step(state)}"]
    for note in notices(game):
        lines.append(note)
    for line in lines:
        for part in textwrap.wrap(line, 38)[:6]:
            out.append(f'<text class="status" x="{x}" y="{y}" font-size="13">{escape(part)}</text>')
            y += 17
        y += 4
    return y


def _players(game: Game, colours: dict[str, str], x: int, y: int, out: list[str]) -> int:
    """Each player's colour, cubes on the board and in supply; the next y."""
    state = game.state
    out.append(_text(x, y + 14, "Players", 15, 'font-weight="bold"'))
    y += 24
    for p in game.players:
        colour = colours[p]
        on_board = sum(state.cubes[r].get(p, 0) for r in state.regions) if state is not None else 0
        supply = state.supply[p] if state is not None else 0
        out.append(
            f'<g class="player" data-player={quoteattr(p)} data-on-board="{on_board}" data-supply="{supply}">'
            f'<rect x="{x}" y="{y}" width="18" height="18" rx="3" fill="{colour}" stroke="#222"/>'
            f"{_text(x + 26, y + 14, f'{p}: {on_board} on the board, {supply} in supply', 13)}</g>"
        )
        y += 24
    return y


def _palace(state: State, colours: dict[str, str], x: int, y: int, out: list[str]) -> int:
    """The palace's cubes, player by player; the next y."""
    out.append(_text(x, y + 14, "Palace", 15, 'font-weight="bold"'))
    y += 22
    out.append(f'<rect x="{x}" y="{y}" width="{WIDTH - MAP_WIDTH - 32}" height="36" rx="8" fill="#efe3f7" '
               'stroke="#7b4f9d"/>')
    px = x + 8
    held = [(p, n) for p, n in state.palace.items() if n]
    for p, n in held:
        colour = colours[p]
        out.append(
            f'<g class="palace" data-player={quoteattr(p)} data-count="{n}">'
            f'<rect x="{px}" y="{y + 5}" width="26" height="26" rx="3" fill="{colour}" stroke="#222"/>'
            f"{_text(px + 13, y + 24, str(n), 15, _count_style(colour))}</g>"
        )
        px += 34
    if not held:
        out.append(_text(px, y + 23, "empty", 13, 'fill="#666"'))
    return y + 50


def _cards(state: State, colours: dict[str, str], x: int, y: int, out: list[str]) -> int:
    """The class cards, two a row, each with its holder's colour and name; the next y."""
    out.append(_text(x, y + 14, "Class cards", 15, 'font-weight="bold"'))
    y += 22
    for i, card in enumerate(CLASSES):
        holder = state.cards[card]
        cx, cy = x + (i % 2) * 136, y + (i // 2) * 50
        stripe = colours.get(holder, "#ffffff") if holder else "#ffffff"
        out.append(
            f'<g class="card" data-card="{card}" data-holder={quoteattr(holder or "")}>'
            f'<rect x="{cx}" y="{cy}" width="128" height="42" rx="6" fill="#fffdf6" stroke="#6b5330"/>'
            f'<rect x="{cx}" y="{cy}" width="10" height="42" rx="3" fill="{stripe}"/>'
            f"{_text(cx + 16, cy + 17, CARD_NAMES[card], 14, BOLD)}"
            f"{_text(cx + 16, cy + 35, holder or 'unowned', 12, GREY)}</g>"
        )
    return y + 160


def _legend(state: State, x: int, y: int, out: list[str]) -> None:
    """The rats still in supply and flipped, and what the two kinds of neighbour lines mean."""
    out.append(_text(x, y, f"rats in supply: {len(state.rat_supply)}; flipped: {len(state.flipped)}", 13))
    y += 30
    out.append(f'<line x1="{x}" y1="{y}" x2="{x + 60}" y2="{y}" stroke="#7a5c2e" stroke-width="8"/>')
    out.append(_text(x + 70, y + 5, "neighbours over land", 12))
    y += 22
    out.append(f'<line x1="{x}" y1="{y}" x2="{x + 60}" y2="{y}" stroke="#2b5d80" stroke-width="3" '
               'stroke-dasharray="9 6" marker-start="url(#arrowhead)" marker-end="url(#arrowhead)"/>')
    out.append(_text(x + 70, y + 5, "neighbours across the sea", 12))


def board_png(svg: str) -> bytes:
    """The drawing as PNG bytes, for mail clients that show no SVG."""
    import resvg_py  # a Rust extension: only pictures load it, never `pbem apply`

    return bytes(resvg_py.svg_to_bytes(svg_string=svg, background="#ffffff"))
