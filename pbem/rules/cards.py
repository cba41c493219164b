"""The class cards and every kind of action, declared once: :data:`DECK`.

Each kind of action is one :class:`pbem.rules.state.ActionRule`: the action (its fields,
rule and notation lines: :mod:`pbem.rules.actions`), its check and effect
(:mod:`pbem.rules.engine`), its generator (:mod:`pbem.rules.legal`), the parts of the
game that allow it and its refusal elsewhere, and the card whose ability it is.  The
engine, the generators and :func:`pbem.rules.stages.not_now` ask a game's deck
(``state.table.deck``); the log's shape check, both JSON schemas' card, action and event
parts (``tools/make_schemas.py``), the notation's words, the text views' card names and
the greedy bot's weights are derived from :data:`DECK`.  A card of one's own makes a deck of
one's own (``tests/test_seventh_card.py`` plays a seventh): its id among the cards, its
weight, and an ``ActionRule`` for each action its ability adds, whose rule functions may
live here beside it.  A new card of the shipped game adds the same here, and its id to
:data:`pbem.i18n.CARDS` (ARCHITECTURE.md, "Declared once", lists every file it touches).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pbem.rules.engine as act
import pbem.rules.legal as gen
from pbem.i18n import N_
from pbem.rules.actions import (
    Action,
    EndTurn,
    Flip,
    King,
    KnightCubes,
    KnightMove,
    Merchant,
    Monk,
    MovePlague,
    Place,
    Spread,
    TakeCard,
    WitchLook,
    WitchSwap,
    parse_action,
)
from pbem.rules.data import CLASSES, Catalogue
from pbem.rules.state import ActionRule, Deck, Phase, Stage, State
from pbem.rules.state import new_state as _new_state

SETUP = (Phase.SETUP, Stage.MAIN)  # R2.5
MAIN = (Phase.TURN, Stage.MAIN)  # R3.1-R3.3, R5
SPREAD = (Phase.TURN, Stage.SPREAD)  # R4.1
OUTBREAK = (Phase.TURN, Stage.OUTBREAK)  # R4.2, R5.4
FINAL = (Phase.FINAL, Stage.MAIN)  # R6.2

_ABILITY_LATE = (N_("class abilities come before phase C (moving the plague)"), "R5")

RULES: tuple[ActionRule, ...] = (  # in the order the generators list them
    ActionRule(TakeCard, None, act.check_take_card, act.take_card_effect, gen.take_cards, "take_card", (MAIN,),
               (N_("taking a card must come before phase C (moving the plague)"), "R3.3")),
    ActionRule(Place, None, act.check_place, act.place_effect, gen.places, "place", (SETUP, MAIN, FINAL),
               (N_("placing cubes must come before phase C (moving the plague)"), "R3.3")),
    ActionRule(King, "king", act.check_king, act.king_effect, gen.kings, "king", (MAIN, FINAL), _ABILITY_LATE),
    ActionRule(Merchant, "merchant", act.check_merchant, act.merchant_effect, gen.merchants, "merchant",
               (MAIN, FINAL), _ABILITY_LATE),
    ActionRule(Monk, "monk", act.check_monk, act.monk_effect, gen.monks, "monk", (MAIN, FINAL), _ABILITY_LATE),
    ActionRule(WitchLook, "witch", act.check_witch_look, act.witch_look_effect, gen.witch, "witch_look",
               (MAIN, FINAL), _ABILITY_LATE),
    ActionRule(WitchSwap, "witch", act.check_witch_swap, act.witch_swap_effect, gen.witch, "witch_look",
               (MAIN, FINAL), (N_("the Witch swaps only the two tokens just looked at, right after the looks"),
                               "R5.6")),
    ActionRule(MovePlague, None, act.check_move_plague, act.move_plague_effect, gen.move_plague, "move_plague",
               (MAIN,), (N_("the plague piece has already moved this turn"), "R3.3")),
    ActionRule(Spread, None, act.check_spread, act.spread_effect, gen.spreads, "spread", (SPREAD,),
               (N_("there is no drawn rat to place now"), "R4.1")),
    ActionRule(Flip, None, act.check_flip, act.flip_effect, gen.outbreak, "flip", (OUTBREAK,),
               (N_("there is no outbreak to flip rats for now"), "R4.2")),
    ActionRule(KnightCubes, "knight", act.check_knight_cubes, act.knight_cubes_effect, gen.outbreak, "flip",
               (OUTBREAK,),
               (N_("the Knight declares the neutral cubes after spreading, before the first flip"), "R5.4")),
    ActionRule(KnightMove, "knight", act.check_knight_move, act.knight_move_effect, gen.knight_moves,
               "knight_move", (FINAL,),
               (N_("'knight REGION' is for the final round; in a turn write 'plague REGION'"), "R6.3")),
    ActionRule(EndTurn, None, act.check_end, act.end_effect, gen.end, "end", (FINAL,),
               (N_("a turn ends by moving the plague (phase C), not with 'end'"), "R3.4")),
)
"""Every kind of action and its rule (a swap is listed with the looks, the Knight's cubes
with the flips: one group each)."""

WEIGHTS: Mapping[str, float] = {"king": 0.6, "peasant": 0.5, "knight": 0.4, "merchant": 0.3, "monk": 0.1,
                                "witch": 0.0}
"""Each card's worth to the greedy bot, beside the cubes it may win (:mod:`pbem.bots.greedy`)."""

ABILITY_RULES: Mapping[str, str] = {"king": "R5.1", "merchant": "R5.2", "monk": "R5.3", "knight": "R5.4",
                                     "peasant": "R5.5", "witch": "R5.6"}
"""Each card's ability, by its rule (R5): the composer page reads the rules reference's words for it."""

DECK: Deck = Deck.make(CLASSES, WEIGHTS, RULES)
"""The six cards of R1.5 and the game's actions: the one deck pbem plays."""


def action_from_dict(raw: Any, deck: Deck = DECK) -> Action:
    """An action of ``deck`` from its move-file form; :class:`ActionFormatError` if malformed."""
    return parse_action(raw, deck.action_types)


def new_state(players: Sequence[str], first: str, regions: Sequence[str], neighbours: Mapping[str, tuple[str, ...]],
              board: Mapping[str, Sequence[str]], rat_supply: Sequence[str], removed: Sequence[str], plague: str,
              catalogue: Catalogue | None = None, deck: Deck = DECK) -> State:
    """The state after R2.1-R2.4 (:func:`pbem.rules.state.new_state`), with ``deck``'s cards."""
    return _new_state(players, first, regions, neighbours, board, rat_supply, removed, plague, catalogue, deck)
