"""The public state as the composer page's rules module reads it (``pbem/views/rules.js``).

One function, :func:`seat_state`, writes a :class:`pbem.rules.State` as plain JSON: the
table (players, regions in use, the links between regions), the pieces (the cards in the
classes' order) and
where the turn stands.  Nothing in it is a face: the state holds none (P10), and of the
rat supply only its count and the public names of the next rats a spread would draw
(R4.1 draws at most two in a turn; P6 names them) are written.  ``rules.js`` computes the
legal next actions and the state after each from it; pbem's Python rules stay the only
judge of the move the page writes (tests/test_rulesjs.py holds the two to each other).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from importlib import resources
from typing import Any

from pbem.i18n import ACTION_WORDS
from pbem.rules import DECK, State
from pbem.rules.data import CLASSES
from pbem.rules.state import Deck

NEXT_RATS = 2
"""The most rats one turn's spreads draw (R4.1): the names of the supply's first ones."""


def seat_state(state: State, links: Sequence[tuple[str, str, str]]) -> dict[str, Any]:
    """``state`` as ``rules.js`` reads it (the field names are the rules core's), with the map's
    ``links`` (``Board.links``, a border's kind left out: the neighbours among the regions in use
    are worked out from them, as :meth:`pbem.rules.data.Board.adjacency` does; the page draws them all)."""
    turn = state.turn
    return {
        "players": list(state.players), "regions": list(state.regions),
        "links": [[a, b] if kind == "border" else [a, b, kind] for a, b, kind in links],
        "rats": {r: list(state.rats[r]) for r in state.regions},
        "cubes": {r: {p: n for p, n in state.cubes[r].items() if n} for r in state.regions},
        "palace": dict(state.palace), "supply": dict(state.supply),
        "rat_next": state.rat_supply[:NEXT_RATS], "rat_count": len(state.rat_supply),
        "cards": {c: state.cards[c] for c in CLASSES}, "plague": state.plague, "phase": state.phase.value,
        "current": state.current, "queue": list(state.queue), "turn_number": state.turn_number,
        "last_player": state.last_player,
        "turn": {"card_taken": turn.card_taken, "placed": turn.placed, "used": sorted(turn.used),
                 "witch_looked": list(turn.witch_looked), "witch_open": turn.witch_open,
                 "stage": turn.stage.value, "spread_left": turn.spread_left, "knight_cubes": turn.knight_cubes,
                 "flips": turn.flips},
    }


def deck_js(deck: Deck = DECK) -> str:
    """What the page's rules module knows of the deck, derived from its declaration
    (:data:`pbem.rules.cards.DECK`, or ``deck``) as one line of script, ``var DECK = {...};``: each kind of
    action's notation keyword and fields (its line, in order), the card whose ability each kind
    is, and the generator groups each part of the game allows (``'turn main'``), in listing
    order.  ``rules.js`` holds each group's generator and each kind's effect: what no
    declaration can say (tests/test_seventh_card.py checks that it holds exactly the declared
    ones)."""
    kinds: dict[str, list[str]] = {}
    for rule in deck.rules:
        for phase, stage in rule.when:
            groups = kinds.setdefault(f"{phase.value} {stage.value}", [])
            if rule.group not in groups:
                groups.append(rule.group)
    table = {"words": {kind: ACTION_WORDS.get(kind, kind) for kind in deck.action_types},
             "fields": {kind: list(cls._fields) for kind, cls in deck.action_types.items()},
             "ability": {rule.action.kind: rule.card for rule in deck.rules if rule.card is not None},
             "kinds": kinds}
    return f"var DECK = {json.dumps(table, separators=(',', ':'))};\n"


def rules_js() -> str:
    """The page's rules module: the deck's table (:func:`deck_js`) and the rules shipped beside
    this file (package data, no build step)."""
    return deck_js() + resources.files("pbem.views").joinpath("rules.js").read_text(encoding="utf-8")
