"""A whole turn on the composer page by keyboard alone (WCAG 2.1.1, 4.1.2), on a desktop's 1366 x 768:
at every step every control (the regions that may be chosen, the choices, the cards, Send) is
reached with Tab and has a name a screen reader says; Enter or Space makes the choice, and the
focus goes on to the next step's first control; the move ends with Enter on Send, and the referee
accepts it.
"""

from __future__ import annotations

import random
from pathlib import Path

from cdp import Browser
from composetools import PLAYERS, SECRET, Played, demo_dirs, played  # noqa: F401 (fixtures)

from pbem.log.moves import parse_move
from pbem.referee.admit import judge
from pbem.referee.seatview import SeatView
from pbem.views.compose import compose_page

KEY = """function key(e) {
  return e.id ? '#' + e.id : e.getAttribute('data-card') ? 'card ' + e.getAttribute('data-card') :
    e.getAttribute('data-region') ? 'region ' + e.getAttribute('data-region') : 'choice ' + e.textContent;
}"""

FOCUSED = """(function () {
  KEY
  var a = document.activeElement;
  if (!a || a === document.body || !document.getElementById('view').contains(a)) { return null; }
  return [key(a), (a.getAttribute('aria-label') || a.textContent || '').trim()];
})()""".replace("KEY", KEY)

CONTROLS = """(function () {
  KEY
  return Array.prototype.filter.call(document.querySelectorAll(
    '#view button:not(:disabled), #view a.button:not(.off), #board .region.can'), function (e) {
      return e.getClientRects().length > 0; }).map(key);
})()""".replace("KEY", KEY)

COMPLETE = "document.getElementById('view').getAttribute('data-complete') === 'true'"

SENT = """(function () {
  window.pbemSent = 0;
  document.getElementById('send').addEventListener('click', function (e) { e.preventDefault(); window.pbemSent += 1; });
})()"""


def tab_cycle(browser: Browser) -> list[list[str]]:
    """Tab from where the focus is, once round the page: each control reached, with its name."""
    seen: list[list[str]] = []
    for _ in range(120):
        browser.page.keyboard.press("Tab")
        now = browser.eval(FOCUSED)
        if now is None:  # past the page's last control: the next Tab starts again at its first
            continue
        if seen and now[0] == seen[0][0]:
            break
        seen.append(now)
    return seen


def tab_to(browser: Browser, target: str) -> None:
    for _ in range(120):
        now = browser.eval(FOCUSED)
        if now is not None and now[0] == target:
            return
        browser.page.keyboard.press("Tab")
    raise AssertionError(f"Tab never reaches {target}")


def test_a_whole_turn_by_keyboard_is_sent_and_accepted(browser: Browser, played: Played, tmp_path: Path) -> None:
    """WCAG 2.1.1, 4.1.2: three turns played with Tab, Enter and Space only (a card's ability read
    on the way), every control reached and named at every step, each move sent with Enter on Send."""
    from composetools import positions

    browser.resize(1366, 768, mobile=False)
    rng, steps = random.Random(6), 0
    for n, (game, _seq) in enumerate(positions(played, 3, seed=53)):
        assert game.state is not None and game.state.to_move is not None
        seat = game.state.to_move
        page = tmp_path / f"keys-{n}.html"
        page.write_text(compose_page(SeatView(game, seat), "host@example.org"), encoding="utf-8")
        browser.open(page)
        browser.eval(SENT)
        card = browser.eval("document.querySelector('#cards .held').getAttribute('data-card')")
        tab_to(browser, f"card {card}")
        browser.page.keyboard.press("Enter")
        assert browser.eval("document.getElementById('card-info').textContent").startswith("R5."), n
        assert browser.eval(FOCUSED)[0] == f"card {card}", "the focus stays on the card read"
        while not browser.eval(COMPLETE):
            assert steps < 200, "no end to the turns"
            reached = tab_cycle(browser)
            assert all(name for _key, name in reached), (n, reached)
            controls = browser.eval(CONTROLS)
            assert set(controls) <= {key for key, _name in reached}, (n, set(controls) - {k for k, _ in reached})
            choices = [c for c in controls if c.startswith(("region ", "choice ")) and "cancel" not in c]
            tab_to(browser, rng.choice(choices))
            browser.page.keyboard.press(rng.choice(["Enter", " "]))
            steps += 1
            now = browser.eval(FOCUSED)
            assert now is not None, (n, "the focus is lost after a choice")
        tab_to(browser, "#send")
        browser.page.keyboard.press("Enter")
        assert browser.eval("window.pbemSent") == 1, n
        text = browser.eval("document.getElementById('move').textContent")
        assert judge(game, parse_move(text.encode(), "the page's move")).move.player == seat
    assert steps >= 6, steps
