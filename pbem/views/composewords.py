"""The words of the composer page (:mod:`pbem.views.compose`), in the reader's language: a
turn's prompts, the buttons of the cards and abilities, the counts, each card's ability and risk,
the names of the map's regions and of the cards as the page draws them; the opening's prompt.
The script knows no language; the notation (the move's text) is the only thing it writes in the
notation's words."""

from __future__ import annotations

from typing import Any

from pbem.fair.words import MIN_WORDS
from pbem.i18n import N_, SHIPPED, Msg, Name, translator
from pbem.log.game import Game, Opening
from pbem.rules.cards import ABILITY_RULES
from pbem.rules.data import CLASSES

KINDS: dict[str, str] = {
    "king": N_("King: a cube to the palace"), "merchant": N_("Merchant: move cubes"),
    "monk": N_("Monk: move a rat"), "witch_look": N_("Witch: look at a rat"),
    "witch_swap": N_("Witch: swap the two rats"), "knight_move": N_("Knight: move the plague"),
    "end": N_("end my go"), "knight_cubes": N_("Knight: the plague counts as 2 neutral cubes"),
}
"""The button of each ability (R5) and of the final round's end (R6.2)."""

PROMPTS: dict[str, str] = {
    "count": N_("how many cubes?"),
    "spread": N_("tap a neighbour of the plague region for the drawn rat"),
    "setup": N_("tap a region for your 2 cubes"),
    "place": N_("tap a region to place your cubes (take a card or use an ability first, if you like)"),
    "plague": N_("tap a region to move the plague to"),
    "final": N_("the final round: use an ability, or end your go"),
    "merchant_from": N_("Merchant: tap the region to move cubes from"),
    "merchant_to": N_("Merchant: tap the neighbour to move them to"),
    "monk_rat": N_("Monk: tap the rat to move (or its region)"),
    "monk_to": N_("Monk: tap the region to move it to"),
    "king": N_("King: tap the region to take a cube from"),
    "witch_look": N_("Witch: tap the rat to look at (or its region)"),
    "knight_move": N_("Knight: tap the region to move the plague to"),
}
"""What the page asks, by what the next tap chooses."""


_KEPT = {key: "{" + key + "}" for key in ("region", "rats", "spread", "where", "cubes", "losses")}
"""The placeholders the script fills in (a plague destination's consequences, worked out on the
page as the move grows: R4.1-R4.3 over the faces hidden from the seat)."""


def region_names(game: Game, lang: str) -> dict[str, str]:
    """Each region's name as the map draws it: the shipped map's in ``lang`` (Magyarország), a
    custom map's by its own name."""
    said = translator(lang)
    shipped = lang != "en" and SHIPPED["region"]
    return {r.id: said.name(Name.region(r.id)) if shipped and r.id in shipped and r.name == r.id.capitalize()
            else r.name for r in game.board.regions}


def turn_words(lang: str) -> dict[str, Any]:
    """The turn's words (page data ``words``); ``{player}`` and the like are filled in by the script."""
    said = translator(lang)
    say = said.say
    return {
        "kinds": {kind: said.gettext(text) for kind, text in KINDS.items()},
        "prompts": {key: said.gettext(text) for key, text in PROMPTS.items()},
        "take": {c: say(Msg("take the {card}", card=Name.card(c))) for c in CLASSES},
        "takeFrom": say(Msg("take the {card} from {player}", card="{card}", player="{player}")),  # R3.1: the holder
        "cubes": {n: say(Msg.plural("{n} cube", "{n} cubes", n)) for n in range(1, 5)},
        "rat": say(Msg("rat")), "flip": say(Msg("flip first")), "cancel": say(Msg("cancel")),
        "plague": say(Msg("plague")),  # the plague piece, in a region's name for a screen reader
        "nobody": say(Msg("not held")),  # a card nobody holds, as the board says it: free to take
        "score": say(Msg("{player}: {score} (palace {palace}, supply {supply})", player="{player}",
                         score="{score}", palace="{palace}", supply="{supply}")),
        "why": say(Msg("{region}: rats {rats}, spread {spread} to {where}; cubes {cubes}; expected losses {losses}",
                       **_KEPT)),
        "calm": say(Msg("{region}: rats {rats}, spread {spread} to {where}; no outbreak there (no cube or no rat)",
                        **_KEPT)),
        "outbreak": say(Msg("an outbreak follows: the move is complete. You may choose below which rats flip first")),
        "stopped": say(Msg("the move stops after the look: send it, and the host shows you the face")),
        "complete": say(Msg("the move is complete: send it")),
    }


def card_texts(cards: list[str], pool: list[list[Any]], lang: str) -> dict[str, list[str]]:
    """Each card's ability (its rule, R5, in the rules reference's words in ``lang``) and its risk
    (R4.3, R4.5): how many of the rats this seat has not seen show its symbol, counted in ``pool``
    (:func:`pbem.views.compose.hidden_pool`: never a face hidden from the seat, P10)."""
    from pbem.views.rulesref import rules  # start-up: only a turn's page reads the reference

    said, text = translator(lang), rules(lang)
    total = sum(count for _t, _s, count in pool)
    out = {}
    for card in cards:
        mark = str(CLASSES.index(card))
        n = sum(count for _t, symbols, count in pool if mark in symbols)
        risk = Msg.plural("Risk: each rat with its symbol that breaks out takes one of the holder's cubes there "
                          "(R4.3, R4.5); {n} of the {total} rats you have not seen shows it.",
                          "Risk: each rat with its symbol that breaks out takes one of the holder's cubes there "
                          "(R4.3, R4.5); {n} of the {total} rats you have not seen show it.", n, total=total)
        out[card] = [f"{ABILITY_RULES[card]} {text[ABILITY_RULES[card]]}", said.say(risk)]
    return out


def opening_words(round_: Opening, lang: str) -> tuple[str, str]:
    """What the opening's two rounds protect, and what this round asks of the player, in ``lang``."""
    say = translator(lang).say
    why = say(Msg("Two rounds make the deal fair: first every player sends a fingerprint of a secret number, "
                  "then, once all have, the numbers themselves; with the host's secret they fix the rats' order, "
                  "so nobody, the host included, can choose it after seeing the others'."))
    what = say(Msg.plural("Round 1 of 2: type your secret words, a sentence of your own ({n} word or more), and tap "
                          "the button; the page adds a code of its own. Write down the words and the code, then "
                          "Send: round 2 asks for both.", "Round 1 of 2: type your secret words, a sentence of your "
                          "own ({n} words or more), and tap the button; the page adds a code of its own. Write down "
                          "the words and the code, then Send: round 2 asks for both.", MIN_WORDS)
               if round_ is Opening.COMMIT else
               Msg("Round 2 of 2: type the same secret words and the code from round 1 (or paste or load the file "
                   "you saved) and tap the button; then Send."))
    return why, what
