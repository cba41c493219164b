"""Every page pbem writes, on a phone (390 x 844, touch) and a desktop (1366 x 768), in Debian's
headless Chromium (tests/cdp.py): the composer page (a turn and the opening), the viewer, the end
mail's audit page and the site's pages.

On each: the page never scrolls sideways; no word outside the map is under 12 CSS px, and none
the map draws is under 10 px at the size it is drawn; on the phone every control a finger uses
(a button, a link standing alone, a field, a disclosure) is at least 44 x 44 CSS px, WCAG's
target size and Apple's and Google's guidance (a link inside a sentence is exempt, as WCAG
exempts it). The map's own pieces are the composer's and the viewer's tests' (test_compose_taps,
test_board_fits). Screenshots go to $PBEM_ARTEFACTS or test-artifacts/ (screen-*.png).
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pagetools import ARTIFACTS, KINDS, SCREENS, every_page

LOOK = """(function () {
  var words = [], walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walk.nextNode()) {
    var el = walk.currentNode.parentElement;
    if (!walk.currentNode.textContent.trim() || el.closest('noscript, script, style') || !el.getClientRects().length) {
      continue;
    }
    var m = el.closest('svg') ? el.getScreenCTM() : null;
    var size = parseFloat(getComputedStyle(el).fontSize) * (m ? Math.sqrt(m.a * m.a + m.b * m.b) : 1);
    words.push({size: size, map: !!m, text: walk.currentNode.textContent.trim().slice(0, 30)});
  }
  var controls = Array.prototype.filter.call(
    document.querySelectorAll('button, a[href], input, select, textarea, summary, label[for]'), function (e) {
      if (!e.getClientRects().length || e.disabled || e.closest('svg')) { return false; }
      if (getComputedStyle(e).opacity === '0') { return false; }  // a hidden radio: its label is the target
      if (e.tagName === 'LABEL') {  // a label is the target only of a control it stands for (a hidden radio)
        var of = document.getElementById(e.htmlFor);
        if (!of || getComputedStyle(of).opacity !== '0') { return false; }
      }
      var p = e.parentElement;  // a link inside a sentence is exempt (WCAG 2.5.8's inline exception)
      return !(e.tagName === 'A' && p && p.tagName === 'P' && p.textContent.trim() !== e.textContent.trim()
               && !p.classList.contains('links'));
    }).map(function (e) {
      var r = e.getBoundingClientRect();
      return {w: r.width, h: r.height, what: e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + ' '
              + (e.textContent || e.getAttribute('aria-label') || '').trim().slice(0, 30)};
    });
  return {scroll: document.documentElement.scrollWidth, inner: window.innerWidth, words: words, controls: controls};
})()"""


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return every_page(tmp_path_factory.mktemp("screens"))


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    from cdp import Browser

    chrome = Browser(390, 844)
    yield chrome
    chrome.close()


def looked(browser: Any, page: Path, screen: str) -> dict[str, Any]:
    width, height = SCREENS[screen]
    browser.resize(width, height, mobile=screen == "phone")
    browser.goto("about:blank")
    browser.goto(page.as_uri())
    time.sleep(0.3)  # the page's own script unpacks it and draws the board after the load
    seen: dict[str, Any] = browser.eval(LOOK)
    folder = Path(os.environ.get("PBEM_ARTEFACTS") or ARTIFACTS)
    folder.mkdir(parents=True, exist_ok=True)
    browser.screenshot(folder / f"screen-{page.stem}-{screen}.png")  # kept for a person to look at
    return seen


@pytest.mark.parametrize("kind", KINDS)
def test_every_page_fits_both_screens_with_words_to_read_and_targets_to_touch(
        browser: Any, pages: dict[str, Path], kind: str) -> None:
    for screen in SCREENS:
        seen = looked(browser, pages[kind], screen)
        assert seen["scroll"] <= seen["inner"], (kind, screen, "scrolls sideways", seen["scroll"], seen["inner"])
        small = [w for w in seen["words"] if w["size"] < (10 if w["map"] else 12) - 0.01]
        assert not small, (kind, screen, small[:5])
        assert seen["words"], (kind, screen, "no words drawn")
        if screen == "phone":
            tiny = [c for c in seen["controls"] if c["w"] < 44 - 0.5 or c["h"] < 44 - 0.5]
            assert not tiny, (kind, screen, tiny[:5])
