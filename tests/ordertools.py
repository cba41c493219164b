"""Shared helpers for the notation and template tests: seeded positions, a reader of templates,
and a turn made of a template's lines."""

from __future__ import annotations

import random
import re
from typing import Any

import pytest

from pbem.bots.randombot import random_action
from pbem.host.create import NewGame, create
from pbem.i18n import translator
from pbem.i18n.names import canonical
from pbem.log.game import Game
from pbem.rules import Phase, apply_in_place
from pbem.sim.demo import open_game
from pbem.sim.simulate import new_random_game


def positions(n: int, seed: int) -> list[tuple[int, Any]]:
    """``n`` positions of random 2-4 player games: setup, turns (every card comes into play),
    Knight paths, Witch turns half done, the final round."""
    out: list[tuple[int, Any]] = []
    rng = random.Random(seed)
    k = 0
    while len(out) < n:
        size = 2 + k % 3
        state, faces = new_random_game(size, seed * 1000 + k)
        k += 1
        while state.to_move is not None and len(out) < n:
            if rng.random() < 0.15 or state.phase is Phase.FINAL or state.turn.witch_open:
                out.append((size, state.copy()))
            apply_in_place(state, state.to_move, random_action(state, rng), faces)
    return out


def spreads(count: int, room: list[str], rng: random.Random) -> list[str]:
    """``count`` spread lines over ``room``, a region marked ``(1)`` given one rat only (R4.1)."""
    chosen: list[str] = []
    for _ in range(count):
        free = [r for r in room if not (r.endswith("(1)") and r.split()[0] in chosen)]
        chosen.append(rng.choice(free).split()[0])
    return [f"spread {r}" for r in chosen]


def sections(text: str) -> list[tuple[str, list[str]]]:
    """The template's sections: (the whole title, its choice lines, a line going on after
    five spaces joined to the one before)."""
    out: list[tuple[str, list[str]]] = []
    for line in text.splitlines():
        if line.startswith("#     ") and out and out[-1][1]:
            out[-1][1][-1] += " " + line.strip("# ")
        elif line.startswith("#   ") and out:
            out[-1][1].append(line[4:].strip())
        elif line.startswith("#  ") and out:
            out[-1] = (out[-1][0] + " " + line[3:].strip(), out[-1][1])
        elif line.startswith("# "):
            out.append((line[2:], []))
    return out


def kind_of(title: str) -> str | None:
    """Which choice a section offers, by the form its title holds (the forms are never translated)."""
    for form, kind in (("look TOKEN", "look"), ("swap (", "swap"), ("take CARD", "take"), ("place REGION", "place"),
                       ("king REGION (", "king"), ("plague REGION", "plague"), ("spread REGION", "spread"),
                       ("knight cubes", "cubes"), ("knight REGION", "knight"), ("flip TOKEN", "flip"),
                       ("end (", "end")):
        if title.startswith(form):
            return kind
    return "via" if "plague VIA" in title else None


def ident(word: str) -> str:
    """A region's or card's id, from its name in any language."""
    return canonical(word, "region") or canonical(word, "card") or word


def items(lines: list[str]) -> list[str]:
    return [i.strip() for i in " ".join(lines).split(",") if i.strip()]


class Reader:
    """The translated menu's own words, from the catalog: the destination lines and the
    paths where no rat spreads."""

    def __init__(self, lang: str) -> None:
        said = translator(lang)
        forms = {said.ngettext("{path}: {n} rat to {regions}", "{path}: {n} rats to {regions}", n) for n in range(1, 6)}
        if lang == "en":  # the English menu is written without the catalog, shorter: 'gallia: 1 to anglia'
            forms = {"{path}: {n} to {regions}"}
        self.spreading = [re.compile(re.escape(f).replace(re.escape("{path}"), r"(?P<path>[^:]+)")
                                     .replace(re.escape("{n}"), r"(?P<n>\d)")
                                     .replace(re.escape("{regions}"), r"(?P<to>.+)")) for f in forms]
        self.quiet = said.gettext("no rat spreads: {paths}").split("{paths}")[0]

    def destinations(self, lines: list[str]) -> list[tuple[str, int, list[str]]]:
        out: list[tuple[str, int, list[str]]] = []
        for line in lines:
            if line.startswith(self.quiet):
                out += [(q.strip(), 0, []) for q in line.removeprefix(self.quiet).split(",")]
                continue
            found = next(m for m in (p.fullmatch(line) for p in self.spreading) if m is not None)
            out.append((found["path"], int(found["n"]), [r.strip() for r in found["to"].split(",")]))
        return out


def ends_counted(lines: list[str], state: Any) -> list[tuple[str, int, list[str]]]:
    """The plague's destinations as a crowded menu lists them, ``END N``: where the N rats may go
    is read off the board (a neighbour with room; ``(1)`` where there is room for one)."""
    out = []
    for item in items(lines):
        end, n = item.rsplit(" ", 1)
        room = [r + (" (1)" if len(state.rats[r]) == 2 else "") for r in state.neighbours[ident(end)]
                if len(state.rats[r]) < 3]
        out.append((end, int(n), room))
    return out


def via_paths(lines: list[str], state: Any) -> list[tuple[str, int, list[str]]]:
    out = []
    for line in lines:
        via, _, ends = line.partition(": ")
        for item in ends.split(", "):
            end, n = item.split()
            room = [r + (" (1)" if len(state.rats[r]) == 2 else "") for r in state.neighbours[ident(end)]
                    if len(state.rats[r]) < 3]
            out.append((f"{via} {end}", int(n), room))
    return out


def a_turn(text: str, state: Any, rng: random.Random,
           reader: Reader | None = None) -> tuple[list[str], bool]:
    """A turn of the template's lines, in its order, as its player reads it: in the reader's
    language (English by default), the names as the template shows them."""
    reader = reader or Reader("en")
    player = state.to_move
    on_board = sorted(t for ts in state.rats.values() for t in ts if t not in state.turn.witch_looked)
    chosen: list[str] = []
    took: str | None = None
    knight = state.cards["knight"] == player
    path_end: str | None = None
    plague_at = 0
    for title, lines in sections(text):
        kind = kind_of(title)
        witch = state.cards["witch"] == player or took == "witch"
        if kind == "look" and witch and on_board and rng.random() < 0.2:
            return [*chosen, f"look {rng.choice(on_board)}"], True
        if kind == "swap" and len(state.turn.witch_looked) == 2 and rng.random() < 0.5:
            chosen.append("swap")
        elif kind == "take" and rng.random() < 0.5:
            shown = rng.choice(items(lines))
            took = ident(shown)
            knight = knight or took == "knight"
            chosen.append(f"take {shown}")
        elif kind == "place" and lines and (state.phase is not Phase.FINAL or rng.random() < 0.5):
            chosen.append(f"place {rng.choice(items(lines))}")
        elif kind == "king" and lines and (took == "king" or state.cards["king"] == player):
            chosen.append(f"king {rng.choice(items(lines))}")
        elif kind == "plague":  # in short (a crowded menu): each destination with its count, the room on the board
            short = "(N:" in title
            path, n, room = rng.choice(ends_counted(lines, state) if short else reader.destinations(lines))
            chosen.append(f"plague {path}")
            path_end, plague_at = path, len(chosen) - 1
            chosen += spreads(n, room, rng)
        elif kind == "via" and knight and rng.random() < 0.5 and lines:
            compact = "VIA: END N" in title
            path, n, room = rng.choice(via_paths(lines, state) if compact else reader.destinations(lines))
            del chosen[plague_at:]
            chosen.append(f"plague {path}")
            path_end = path
            chosen += spreads(n, room, rng)
        elif kind == "spread" and lines:
            chosen += spreads(state.turn.spread_left, items(lines), rng)
        elif kind == "knight" and lines and rng.random() < 0.5:
            chosen.append(f"knight {rng.choice(items(lines))}")
        elif kind == "cubes" and knight and rng.random() < 0.3:
            chosen.append("knight cubes")
        elif kind == "flip" and lines:
            there = items(lines)
            chosen.append("flip " + " ".join(rng.sample(there, len(there))))
        elif kind == "flip" and "swap" not in chosen and rng.random() < 0.3:
            there = state.rats[ident(path_end.split()[-1])] if path_end else state.rats[state.plague]
            if there:
                chosen.append("flip " + " ".join(rng.sample(list(there), len(there))))
        elif kind == "end":
            chosen.append("end")
    return chosen, False


def live(text: str) -> list[str]:
    return [line for line in text.splitlines() if line and not line.startswith("#")]


PLAYERS = ("red", "green", "blue", "yellow")


@pytest.fixture(scope="module")
def games(tmp_path_factory: pytest.TempPathFactory) -> dict[int, Game]:
    """A started game of each size, whose state the positions replace."""
    out = {}
    for n in (2, 3, 4):
        folder = tmp_path_factory.mktemp(f"g{n}")
        create(folder, NewGame("g", PLAYERS[:n], secret=bytes(32), first="red"))
        out[n] = open_game(folder, "g", nonces={p: bytes([i]) * 16 for i, p in enumerate(PLAYERS[:n])})
    return out
