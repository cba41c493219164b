"""The class cards on the composer page, as a player meets them: each card says, on a tap or a key,
its ability (R5, in the rules reference's words in the player's language) and its risk (R4.3,
R4.5: how many of the rats the player has not seen show its symbol), and "take the Knight" says
from whom, when someone holds it (R3.1: the holder is public).
"""

from __future__ import annotations

from pathlib import Path

from cdp import Browser
from composetools import PLAYERS, SECRET, Played, demo_dirs, played, positions  # noqa: F401 (fixtures)

from pbem.referee.seatview import SeatView
from pbem.rules.cards import ABILITY_RULES as ABILITIES
from pbem.rules.data import CLASSES
from pbem.views.compose import compose_page, hidden_pool
from pbem.views.rulesref import rules

CARDS = """Array.prototype.map.call(document.querySelectorAll('#cards .held'), function (b) {
  return [b.tagName, b.getAttribute('data-card'), b.getAttribute('data-holder'), b.getAttribute('aria-expanded')];
})"""

READ = """(function (card) {
  document.querySelector('#cards .held[data-card=' + card + ']').click();
  var info = document.getElementById('card-info');
  return [info.textContent, document.querySelector('#cards .held[data-card=' + card + ']')
    .getAttribute('aria-expanded'), info.getClientRects().length > 0];
})(CARD)"""

TAKES = """Array.prototype.map.call(document.querySelectorAll('#choices button.card'), function (b) {
  return b.textContent; })"""


def test_each_card_tells_its_ability_and_risk_in_the_players_language(browser: Browser, played: Played,
                                                                      tmp_path: Path) -> None:
    """R5, R4.3, R4.5: every card on the board is a button; a tap shows its ability (the rule's
    words) and how many of the rats the seat has not seen show its symbol; a second tap hides it."""
    for lang in ("en", "hu", "el", "uk"):
        for n, (game, _seq) in enumerate(positions(played, 2, seed=7 + len(lang))):
            assert game.state is not None and game.state.to_move is not None
            view = SeatView(game, game.state.to_move)
            page = tmp_path / f"cards-{lang}-{n}.html"
            page.write_text(compose_page(view, "host@example.org", lang), encoding="utf-8")
            browser.open(page)
            shown = browser.eval(CARDS)
            assert [c for _t, c, _h, _e in shown] == list(game.state.cards), shown
            assert all(tag == "BUTTON" and expanded == "false" for tag, _c, _h, expanded in shown), shown
            pool = hidden_pool(view)["pool"]
            total = sum(k for _t, _s, k in pool)
            for card in game.state.cards:
                text, expanded, visible = browser.eval(READ.replace("CARD", repr(card)))
                assert expanded == "true" and visible, (lang, card)
                ability = rules(lang)[ABILITIES[card]]
                assert text.startswith(f"{ABILITIES[card]} {ability}\n"), (lang, card, text)
                symbol = sum(k for _t, s, k in pool if str(CLASSES.index(card)) in s)
                assert f"{symbol}" in text.split("\n")[1] and f"{total}" in text.split("\n")[1], (lang, text)
                assert "R4.3" in text, text
            browser.eval(READ.replace("CARD", repr(card)))
            assert browser.eval("document.getElementById('card-info').textContent") == ""


def test_taking_a_held_card_says_from_whom(browser: Browser, played: Played, tmp_path: Path) -> None:
    """R3.1: a card another player holds is offered as taken from that player, by name; a free card
    is offered without one."""
    seen = 0
    for n, (game, _seq) in enumerate(positions(played, 12, seed=3)):
        state = game.state
        assert state is not None and state.to_move is not None
        page = tmp_path / f"take-{n}.html"
        page.write_text(compose_page(SeatView(game, state.to_move), "host@example.org"), encoding="utf-8")
        browser.open(page)
        for label in browser.eval(TAKES):
            card = next(c for c in CLASSES if f"the {c.capitalize()}" in label)
            holder = state.cards[card]
            if holder is None:
                assert label == f"take the {card.capitalize()}", label
            else:
                assert label == f"take the {card.capitalize()} from {holder}", label
                seen += 1
    assert seen, "no card held by another player was offered"


def test_the_page_tells_what_happened_since_the_players_last_turn_as_the_mail_does(played: Played) -> None:
    """A "your move" mail leads with what happened since the seat's last turn; the page it carries
    tells the same lines (the other players' moves, their spreads and outbreaks), in the seat's
    language, from public facts and the seat's own looks (P10)."""
    import re

    from pbem.views.markup import escape
    from pbem.views.packed import readable
    from pbem.views.sincelast import news, since_last_turn

    told = 0
    for lang in ("en", "uk"):
        for game, _seq in positions(played, 10, seed=13):
            assert game.state is not None and game.state.to_move is not None
            seat = game.state.to_move
            page = readable(compose_page(SeatView(game, seat), "host@example.org", lang))
            found = re.search(r'<pre class="note" id="news">(.*?)</pre>', page, re.S)
            assert found is not None, "no account of what happened since the last turn"
            mail = news(game, [], seat, lang, 16) if since_last_turn(game, seat) else []  # its own move last
            assert found.group(1) == str(escape("\n".join(mail))), (lang, seat)
            last = game.entries[-1].player if mail else None  # the newest move is told whole, by its player
            assert last is None or last in found.group(1), (found.group(1), last)
            told += len(mail) > 2
    assert told >= 6, told
