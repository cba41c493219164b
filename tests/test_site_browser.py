"""`pbem site` in a real browser (Debian's headless Chromium driven by Playwright, tests/cdp.py), on a
phone (390x844) and a desktop (1280x800): every page of a small site is opened, every link on
it leads to a file of the site, no page asks the network for anything, no text is drawn under
12 CSS pixels but a board's, scaled as drawn, which is 10 and more (the whole map fits the
screen's width: once it kept 12 px words by running off the phone's screen, two thirds of it
unseen), the page never scrolls sideways, and the site's own pages hold no script (the game's
viewer, `pbem html`'s, is the one that steps through the entries).
A screenshot of every page at each size is kept in $PBEM_ARTEFACTS/site (or the test's folder).
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest
from cdp import Browser
from sitetools import open_seats, play_game, tampered_copy

from pbem.host.site import build_site

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"

SMALLEST_TEXT = """
(function () {
  var smallest = 1000, where = '', board = 1000;
  var all = document.querySelectorAll('body *');
  for (var i = 0; i < all.length; i++) {
    var el = all[i], own = false;
    for (var c = el.firstChild; c; c = c.nextSibling) {
      if (c.nodeType === 3 && c.textContent.trim()) { own = true; break; }
    }
    if (!own) { continue; }
    var box = el.getBoundingClientRect();
    if (box.width === 0 && box.height === 0) { continue; }  // not drawn (a closed <details>)
    var size = parseFloat(getComputedStyle(el).fontSize);
    if (el instanceof SVGElement && el.getScreenCTM) { size *= el.getScreenCTM().a; }
    if (el.closest('.board, #map')) { board = Math.min(board, size); continue; }
    if (size < smallest) { smallest = size; where = el.tagName + ': ' + el.textContent.trim().slice(0, 40); }
  }
  return JSON.stringify([smallest, where, board]);
})()
"""


def artefacts(tmp: Path) -> Path:
    folder = Path(os.environ["PBEM_ARTEFACTS"]) / "site" if os.environ.get("PBEM_ARTEFACTS") else tmp / "shots"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def visit(browser: Browser, page: Path) -> None:
    """Open ``page`` and wait until it, not the page before, is loaded."""
    browser.goto(page.as_uri())


def small_site(root: Path) -> Path:
    games = root / "games"
    games.mkdir()
    shutil.copytree(EXAMPLES / "rattus-3p", games / "rattus-3p")
    tampered_copy(EXAMPLES / "rattus-2p", games / "rattus-2p")
    play_game(games, "in-play", ("ann", "bob", "cat"), seed=4, turns=5)
    open_seats(games, "open-1", ("north", "south"), taken={"north": "north@example.org"})
    build_site(games, root / "site")
    return root / "site"


@pytest.mark.parametrize("size", [(390, 844), (1280, 800)], ids=["phone", "desktop"])
def test_every_page_links_within_the_site_loads_nothing_and_reads_at_12px(
        tmp_path: Path, size: tuple[int, int]) -> None:
    site = small_site(tmp_path)
    shots = artefacts(tmp_path)
    pages = sorted(site.rglob("*.html"))
    assert len(pages) == 2 + 3 + 2 + 2 * 1  # index, standings; 2 cards and viewers; the forged one's card
    browser = Browser(*size, mobile=size[0] <= 700)
    try:
        for page in pages:
            browser.requests.clear()
            visit(browser, page)
            name = page.relative_to(site).as_posix()
            for url in browser.requests:  # the page itself, and pictures inline: nothing else
                assert url.startswith("data:") or url.split("#")[0] == page.as_uri(), (name, url)
            for link in browser.eval("Array.from(document.links).map(function (a) { return a.href; })"):
                parsed = urlparse(link)
                assert parsed.scheme == "file", (name, link)
                target = Path(unquote(parsed.path))
                assert target.is_file() and site.resolve() in target.resolve().parents, (name, link)
            if not name.endswith("-viewer.html"):  # the viewer's one script steps through the entries
                assert browser.eval("document.scripts.length") == 0, name
            smallest, where, board = json.loads(browser.eval(SMALLEST_TEXT))
            assert smallest >= 12 and board >= 10, (name, smallest, where, board)
            assert browser.eval("document.documentElement.scrollWidth <= document.documentElement.clientWidth"), name
            browser.screenshot(shots / f"{'x'.join(map(str, size))}-{name.replace('/', '-')}.png")
    finally:
        browser.close()
