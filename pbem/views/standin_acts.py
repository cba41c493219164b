"""What the stand-in did, told in the third person (R8.3): ``the stand-in places 2 cubes
in gallia``, never the template's order to the reader (``place 2 cubes``).

The stand-in plays from public facts only: no card and no ability, so its turn is a
placement, the plague's move, the spreads and (the default order) no flip line; a final
round's turn is its ``end`` alone. Every kind of action still has its sentence, so a
narration never falls back on an instruction.
"""

from __future__ import annotations

from pbem.i18n import Msg, Name, translator
from pbem.log.game import Game
from pbem.rules import DECK, Action, EndTurn, Flip, KnightMove, MovePlague, Place, Spread, TakeCard
from pbem.views.text import region_word


def standin_did(game: Game, action: Action, lang: str = "en") -> str:
    """One action of a stand-in turn as what the stand-in did (third person, in ``lang``)."""
    said = translator(lang)

    def name(region: str) -> str:
        return said.say(region_word(game, region))

    match action:
        case Place(region=r, count=n):
            return said.say(Msg.plural("the stand-in places {n} cube in {region}",
                                       "the stand-in places {n} cubes in {region}", n, region=name(r)))
        case MovePlague(path=path) | KnightMove(path=path):
            return said.say(Msg("the stand-in moves the plague to {path}", path=" -> ".join(map(name, path))))
        case Spread(region=r):
            return said.say(Msg("the stand-in puts a drawn rat in {region}", region=name(r)))
        case Flip(token=t):
            return said.say(Msg("the stand-in names rat {token} to flip next", token=t))
        case TakeCard(card=card):
            return said.say(Msg("the stand-in takes the {card} card", card=Name.card(card)))
        case EndTurn():
            return said.say(Msg("the stand-in ends its part of the final round"))
    whose = DECK.by_type[type(action)].card  # R5: every other action is a card's ability (the deck says whose)
    return said.say(Msg("the stand-in uses the {card}'s ability", card=Name.card(str(whose))))
