"""The board picture's side panel: the game, whose turn it is, the players' cubes, the palace,
the class cards and their holders, the rats in supply and the legend (:func:`pbem.views.svg.board_svg`,
:func:`pbem.views.svg.panel_svg`).  Public state only (P10).

Each section but the status is a pure function of the few values it draws, made once and kept,
as the regions are (:mod:`pbem.views.svg`): a viewer draws every entry's panel.
"""

from __future__ import annotations

import functools
import textwrap
import xml.etree.ElementTree as ET  # only pictures load this module, never `pbem apply`

from pbem.i18n import Msg, Name, translator
from pbem.log.game import Game
from pbem.views.drawing import ARROW, BOLD, GREY, children, count_style, el, seat_marks, txt
from pbem.views.layout import MAP_WIDTH, WIDTH
from pbem.views.text import next_step
from pbem.views.trust import notices, opening_line


def panel_parts(game: Game, colours: dict[str, str], lang: str = "en", tip: str = "arrowhead") -> list[str]:
    """The side panel: game, whose turn, palace, class cards and their holders, supplies; the
    legend's sea crossing ends in the drawing's marker ``tip``."""
    return panel_and_height(game, colours, lang, tip)[0]


def panel_and_height(game: Game, colours: dict[str, str], lang: str = "en", tip: str = "arrowhead",
                     ) -> tuple[list[str], int]:
    """:func:`panel_parts`, and how far down the panel they reach (a drawing of the panel alone
    ends there, with no paper left blank under its legend)."""
    say = translator(lang).say
    state = game.state
    x = MAP_WIDTH + 16
    head = ET.Element("svg")
    txt(head, x, 34, f"Rattus: {game.game_id}", 20, BOLD)
    txt(head, x, 56, say(Msg("as of entry {seq}", seq=game.last_seq)), 13, {"fill": "#555"})
    y = _status(head, game, x, 82, lang)
    parts = [children(head)]
    marks = seat_marks(game.players)
    palette = tuple((p, c, marks[p]) for p, c in colours.items())
    if state is None:
        counts: tuple[tuple[int, int], ...] = tuple((0, 0) for _p in game.players)
    else:
        counts = tuple((sum(state.cubes[r].get(p, 0) for r in state.regions), state.supply[p]) for p in game.players)
    drawn, y = _players(game.players, palette, counts, x, y, lang)
    parts.append(drawn)
    if state is None:
        return parts, y + 8
    drawn, y = _palace(tuple(state.palace.items()), palette, x, y + 10, lang)
    parts.append(drawn)
    drawn, y = _cards(tuple(state.cards.items()), palette, x, y, lang)
    parts.append(drawn)
    parts.append(_legend(len(state.rat_supply), len(state.flipped), x, y, lang, tip))
    return parts, y + 17 * len(_counts_lines(len(state.rat_supply), len(state.flipped), lang)) + 13 + 22 + 16


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
            el(out, "text", {"class": "status", "x": x, "y": y, "font-size": 13}, part)
            y += 17
        y += 4
    return y


@functools.lru_cache(maxsize=1024)
def _players(players: tuple[str, ...], palette: tuple[tuple[str, str, str], ...], counts: tuple[tuple[int, int], ...],
             x: int, y: int, lang: str = "en") -> tuple[str, int]:
    """Each player's colour and mark, cubes on the board and in supply (``counts``); the part and the next y."""
    say = translator(lang).say
    colours = {p: (c, m) for p, c, m in palette}
    out = ET.Element("svg")
    txt(out, x, y + 14, say(Msg("Players")), 15, BOLD)
    y += 24
    for p, (on_board, supply) in zip(players, counts, strict=True):
        row = el(out, "g", {"class": "player", "data-player": p, "data-on-board": on_board, "data-supply": supply})
        colour, mark = colours[p]
        el(row, "rect", {"x": x, "y": y - 2, "width": 24, "height": 22, "rx": 3, "fill": colour, "stroke": "#222"})
        txt(row, x + 12, y + 14, mark, 13, count_style(colour))
        txt(row, x + 30, y + 14, say(Msg("{player}: {on_board} on the board, {supply} in supply",
                                         player=p, on_board=on_board, supply=supply)), 13)
        y += 24
    return children(out), y


@functools.lru_cache(maxsize=1024)
def _palace(palace: tuple[tuple[str, int], ...], palette: tuple[tuple[str, str, str], ...], x: int, y: int,
            lang: str = "en") -> tuple[str, int]:
    """The palace's cubes, player by player, each pile with its player's mark; the part and the next y."""
    say = translator(lang).say
    colours = {p: (c, m) for p, c, m in palette}
    out = ET.Element("svg")
    txt(out, x, y + 14, say(Msg("Palace")), 15, BOLD)
    y += 22
    el(out, "rect", {"x": x, "y": y, "width": WIDTH - MAP_WIDTH - 32, "height": 36, "rx": 8, "fill": "#efe3f7",
                     "stroke": "#7b4f9d"})
    px = x + 8
    held = [(p, n) for p, n in palace if n]
    for p, n in held:
        colour, mark = colours[p]
        pile = el(out, "g", {"class": "palace", "data-player": p, "data-count": n, "data-mark": mark})
        el(pile, "rect", {"x": px, "y": y + 5, "width": 40, "height": 26, "rx": 3, "fill": colour, "stroke": "#222"})
        txt(pile, px + 20, y + 24, f"{mark}{n}", 15, count_style(colour))
        px += 46
    if not held:
        txt(out, px, y + 23, say(Msg("empty")), 13, {"fill": "#666"})
    return children(out), y + 50


@functools.lru_cache(maxsize=1024)
def _cards(cards: tuple[tuple[str, str | None], ...], palette: tuple[tuple[str, str, str], ...], x: int, y: int,
           lang: str = "en") -> tuple[str, int]:
    """The class cards, two a row, each with its holder's colour and name; the part and the next y."""
    said = translator(lang)
    colours = {p: c for p, c, _m in palette}
    out = ET.Element("svg")
    txt(out, x, y + 14, said.say(Msg("Class cards")), 15, BOLD)
    y += 22
    for i, (card, holder) in enumerate(cards):
        cx, cy = x + (i % 2) * 136, y + (i // 2) * 50
        stripe = colours.get(holder, "#ffffff") if holder else "#ffffff"
        group = el(out, "g", {"class": "card", "data-card": card, "data-holder": holder or ""})
        el(group, "rect", {"x": cx, "y": cy, "width": 128, "height": 42, "rx": 6, "fill": "#fffdf6",
                           "stroke": "#6b5330"})
        el(group, "rect", {"x": cx, "y": cy, "width": 10, "height": 42, "rx": 3, "fill": stripe})
        txt(group, cx + 16, cy + 17, said.name(Name.card(card)), 14, BOLD)
        txt(group, cx + 16, cy + 35, holder or said.say(Msg("unowned")), 12, GREY)
    return children(out), y + 50 * ((len(cards) + 1) // 2) + 10  # two a row


def _counts_lines(supply: int, flipped: int, lang: str) -> list[str]:
    """The rats in supply and flipped, as the panel's lines (a longer language's line wraps)."""
    counts = translator(lang).say(Msg("rats in supply: {supply}; flipped: {flipped}", supply=supply, flipped=flipped))
    return textwrap.wrap(counts, 42) or [counts]


@functools.lru_cache(maxsize=1024)
def _legend(supply: int, flipped: int, x: int, y: int, lang: str = "en", tip: str = "arrowhead") -> str:
    """The rats still in supply and flipped, and what the two kinds of neighbour lines mean."""
    say = translator(lang).say
    out = ET.Element("svg")
    for part in _counts_lines(supply, flipped, lang):
        txt(out, x, y, part, 13)
        y += 17
    y += 13
    el(out, "line", {"x1": x, "y1": y, "x2": x + 60, "y2": y, "stroke": "#7a5c2e", "stroke-width": 8})
    txt(out, x + 70, y + 5, say(Msg("neighbours over land")), 12)
    y += 22
    el(out, "line", {"x1": x, "y1": y, "x2": x + 60, "y2": y, **ARROW, "marker-start": f"url(#{tip})",
                     "marker-end": f"url(#{tip})"})
    txt(out, x + 70, y + 5, say(Msg("neighbours across the sea")), 12)
    return children(out)
