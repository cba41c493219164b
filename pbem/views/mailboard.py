"""The board in a few lines of words, for a "your move" mail a terminal mail client shows.

A player who reads mail in a terminal cannot open the attached page; the mail says where the
game stands in one line a region (its rats, face down, by count and public name (R7.2), its
cubes, the plague piece), then the palace, the class cards' holders, the cubes on the board
(the scores, R6.5), the cube supplies and the rat supply.  Built from the seat's view (P10): the
public game only, never a face, in the seat's language, its regions and cards by the names its
players know.  Its sentences are the `pbem board` view's own (:func:`pbem.views.text.board_lines`).
"""

from __future__ import annotations

from pbem.i18n import Msg, Name, translator
from pbem.referee.seatview import SeatView
from pbem.views.text import region_word


def board_words(view: SeatView, lang: str = "en", pairs: bool = False) -> list[str]:
    """The board after the game's last entry, a region a line (``pairs``: two regions a line,
    their rats by count alone, for a mail with little room); nothing before the game starts."""
    game, state = view.game, view.game.state
    if state is None:
        return []
    said = translator(lang)
    names = {r: said.say(region_word(game, r)) for r in state.regions}
    width = max(len(n) for n in names.values())
    cells = []
    for region in state.regions:
        rats = state.rats[region]
        values = {"region": f"{names[region]:<{width}}",
                  "rats": f"{len(rats)} ({' '.join(rats)})" if rats and not pairs else str(len(rats)),
                  "cubes": ", ".join(f"{p} {n}" for p, n in sorted(state.cubes[region].items())) or "-"}
        cells.append(said.say(Msg("{region}  rats: {rats} cubes: {cubes}  <- plague", **values)
                              if region == state.plague else Msg("{region}  rats: {rats} cubes: {cubes}", **values)))
    if pairs:
        cell = max(len(c) for c in cells[0::2])
        cells = [f"{a:<{cell}} | {b}" if b else a for a, b in zip(cells[0::2], [*cells[1::2], ""], strict=False)]
    lines = [said.say(Msg("The board now:")), *("  " + c for c in cells)]
    palace = ", ".join(f"{p} {n}" for p, n in state.palace.items() if n)
    if palace:
        lines.append("  " + said.say(Msg("palace: {cubes}", cubes=palace)))
    unowned = said.say(Msg("unowned"))
    cards = ", ".join(said.say(Msg("{card}: {owner}", card=said.say(Name.card(c)), owner=state.cards[c] or unowned))
                      for c in state.cards)
    lines.append("  " + said.say(Msg("cards: {cards}", cards=cards)))
    lines.append("  " + said.say(Msg("cubes on the board (the palace included): {cubes}",
                                     cubes=", ".join(f"{p} {n}" for p, n in state.scores().items()))))
    lines.append("  " + said.say(Msg("cube supply: {cubes}", cubes=", ".join(f"{p} {n}"
                                                                            for p, n in state.supply.items()))))
    lines.append("  " + said.say(Msg("rats left in supply: {left}; flipped: {flipped}", left=len(state.rat_supply),
                                     flipped=len(state.flipped))))
    return lines
