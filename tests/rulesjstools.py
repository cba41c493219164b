"""Shared helpers for the tests of the composer page's rules module (``pbem/views/rules.js``):
positions of random games played by the Python rules, and the module loaded in one page."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from pbem.bots.randombot import random_action
from pbem.rules import NoFaces, State, legal_actions
from pbem.rules.engine import apply_legal
from pbem.rules.faces import FaceUnknown
from pbem.sim.simulate import new_random_game
from pbem.data import default_board
from pbem.views.seatstate import seat_state

LINKS = default_board().links
"""The random games' map (the shipped one): its links, as the page carries them."""

_NO_FACES = NoFaces()


def random_positions(count: int, seed: int, players: tuple[int, ...] = (2, 3, 4)) -> list[State]:
    """``count`` positions with a seat to move, drawn from random games (random legal actions,
    the Python rules' own) of 2, 3 and 4 players: every part of a turn, the setup and the
    final round among them."""
    rng = random.Random(seed)
    every: list[State] = []
    game = 0
    while len(every) < 4 * count:
        state, faces = new_random_game(players[game % len(players)], seed * 1000 + game)
        game += 1
        while (player := state.to_move) is not None:
            every.append(state.copy())
            apply_legal(state, player, random_action(state, rng), faces)
    return rng.sample(every, count)


def python_answers(state: State) -> tuple[list[dict[str, Any]], list[dict[str, Any] | None]]:
    """The Python rules' legal actions of ``state``, in their order, and the public state after
    each (None where only a face could tell: a flip, the final sweep)."""
    player = state.to_move
    assert player is not None
    actions = legal_actions(state)
    after: list[dict[str, Any] | None] = []
    for action in actions:
        trial = state.copy()
        try:
            apply_legal(trial, player, action, _NO_FACES)
        except FaceUnknown:
            after.append(None)
            continue
        after.append(seat_state(trial, LINKS))
    return [a.to_dict() for a in actions], after


ASK = """(function (states) {
  return JSON.stringify(states.map(function (S) {
    var legal = Rattus.legal(S);
    return {legal: legal, lines: legal.map(Rattus.line), after: legal.map(function (a) { return Rattus.apply(S, a); })};
  }));
})(%s)"""


def js_answers(browser: Any, states: list[State]) -> list[dict[str, Any]]:
    """What ``rules.js`` says of each state in the page ``browser`` has open (batched)."""
    out: list[dict[str, Any]] = []
    for i in range(0, len(states), 150):
        batch = [seat_state(s, LINKS) for s in states[i:i + 150]]
        out.extend(json.loads(browser.eval(ASK % json.dumps(batch))))
    return out


def same_state(js: dict[str, Any] | None, py: dict[str, Any] | None) -> bool:
    """The two public states agree; the page knows the names of only the next rats a spread
    draws (:data:`pbem.views.seatstate.NEXT_RATS`), so of the supply's names it holds a prefix."""
    if js is None or py is None:
        return js is py
    known = js["rat_next"]
    js = {k: v for k, v in js.items() if k != "nb"}  # the neighbours the page worked out from the links
    return ({**js, "rat_next": None} == {**py, "rat_next": None}
            and known == py["rat_next"][:len(known)])


def rules_page(folder: Path) -> Path:
    """A page holding only the rules module (the browser's helper waits for a '#move')."""
    from pbem.views.seatstate import rules_js

    page = folder / "rules.html"
    page.write_text(f"<!doctype html><html><body><pre id='move'></pre><script>{rules_js()}</script></body></html>",
                    encoding="utf-8")
    return page
