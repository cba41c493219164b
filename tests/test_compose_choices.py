"""The composer page offers no choice that changes nothing: every button is a decision.

- R4.2: a flip order is a preference among the plague region's rats; with one rat left unnamed
  (one rat there, or all but one named) it is flipped last whatever the player says, so the page
  offers no "flip first" for it.
- R5.4: the Knight's move ends where the player taps; by which way it got there changes nothing,
  so a region reached in one step or in two is not followed by a "which way?".
"""

from __future__ import annotations

import json
import random
from pathlib import Path

from cdp import Browser
from composetools import ONE_TAP, PLAYERS, SECRET, Played, demo_dirs, played, positions  # noqa: F401 (fixtures)

from pbem.log.game import Game
from pbem.referee.seatview import SeatView
from pbem.views.compose import compose_page
from pbem.views.composewords import turn_words

OUTBREAK = """(function () {
  var plague = document.querySelector('#board .plague'), region = plague && plague.parentNode;
  return {rats: region ? Array.prototype.map.call(region.querySelectorAll('.rat'), function (r) {
            return r.getAttribute('data-token'); }) : [],
          flips: Array.prototype.filter.call(document.querySelectorAll('#choices button'), function (b) {
            return b.textContent.indexOf(FLIP) === 0; }).map(function (b) { return b.textContent; }),
          named: (document.getElementById('move').textContent.match(/^flip (.*)$/m) || [null, ''])[1]
            .split(' ').filter(Boolean)};
})()"""

PENDING = """(function () {  // R4.2: the plague moved, and its region holds rats and cubes
  var plague = document.querySelector('#board .plague'), region = plague && plague.parentNode;
  return /^plague /m.test(document.getElementById('move').textContent) && !!region &&
    !!region.querySelector('.rat') && !!region.querySelector('.cubes');
})()"""



def _open(browser: Browser, game: Game, page: Path) -> str:
    assert game.state is not None and game.state.to_move is not None
    page.write_text(compose_page(SeatView(game, game.state.to_move), "host@example.org"), encoding="utf-8")
    browser.open(page)
    return game.state.to_move


def test_a_flip_order_is_offered_only_among_two_rats_or_more(browser: Browser, played: Played,
                                                             tmp_path: Path) -> None:
    """R4.2: at every outbreak reached by random turns, each rat of the plague region not yet named
    has its "flip first" while two or more are unnamed, and none has one when a single rat is left."""
    rng, single, several, words = random.Random(3), 0, 0, turn_words("en")
    for n, (game, _seq) in enumerate(positions(played, 40, seed=17)):
        _open(browser, game, tmp_path / f"flips-{n}.html")
        while browser.eval(ONE_TAP.replace("PICK", str(rng.randrange(1000)))):
            pass
        while True:
            seen = browser.eval(OUTBREAK.replace("FLIP", json.dumps(words["flip"] + ": ")))
            outbreak = browser.eval(PENDING)
            unnamed = [t for t in seen["rats"] if t not in seen["named"]]
            if outbreak and len(unnamed) >= 2:
                assert len(seen["flips"]) == len(unnamed), (n, seen)
                several += 1
                browser.eval("document.querySelector('#choices button.flip').click()")
                continue
            assert seen["flips"] == [], (n, seen)
            if outbreak:  # and no sentence asks for an order
                assert browser.eval("document.getElementById('step').textContent") == words["complete"], n
            single += outbreak and len(unnamed) == 1
            break
        if single >= 3 and several >= 3:  # both kinds of outbreak met often enough: the suite stays fast
            break
    assert single and several, (single, several)


KNIGHT = """(function (words) {
  function named(text) {
    return Array.prototype.filter.call(document.querySelectorAll('#choices button'), function (b) {
      return b.textContent === text; })[0];
  }
  var take = named(words.take);  // the Knight, if the seat may take it (R3.1); then the cubes (R3.2)
  if (!take) { return null; }
  take.click();
  for (var i = 0; i < 4 && document.getElementById('step').textContent !== words.plague; i++) {
    var next = document.querySelector('#board .region.can') || document.querySelector('#choices button:not(.cancel)');
    if (!next) { return null; }
    next.dispatchEvent(new MouseEvent('click', {bubbles: true}));
  }
  return Array.prototype.map.call(document.querySelectorAll('#board .region.can'), function (g) {
    return g.getAttribute('data-region'); });
})(WORDS)"""


def test_the_knights_plague_move_asks_no_way_to_a_region_two_ways_reach(browser: Browser, played: Played,
                                                                        tmp_path: Path) -> None:
    """R5.4: the Knight's holder (the Knight just taken) taps where the plague goes, and the move is
    written at once, even to a neighbour that two steps reach as well: the way changes nothing."""
    words = turn_words("en")
    found = 0
    for n, (game, _seq) in enumerate(positions(played, 60, seed=29)):
        seat = _open(browser, game, tmp_path / f"knight-{n}.html")
        asked = {"take": words["take"]["knight"], "plague": words["prompts"]["plague"]}
        script = KNIGHT.replace("WORDS", json.dumps(asked))
        targets = browser.eval(script)
        if not targets:
            continue
        state = game.state  # the plague is where it was: the Knight moves it (R5.4)
        assert state is not None
        for region in targets:
            near = state.neighbours[state.plague]
            two_ways = region in near and any(region in state.neighbours[m] for m in near if m != region)
            browser.eval(f"document.querySelector('#board .region[data-region={region}]')"
                         ".dispatchEvent(new MouseEvent('click', {bubbles: true}))")
            text = browser.eval("document.getElementById('move').textContent")
            assert any(line.startswith("plague ") and line.split()[-1] == region for line in text.splitlines()), (
                n, seat, region, text)
            found += two_ways
            browser.eval("document.getElementById('undo').click()")
        if found >= 4:  # enough two-way regions met: the suite stays fast
            break
    assert found, "no Knight's move to a region two ways reach"
