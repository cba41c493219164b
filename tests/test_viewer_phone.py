"""The viewer (`pbem html`) on a phone: 390 x 844 CSS px, touch.

The whole map is in view, fitted to the screen's width in its compact drawing, its words 10 CSS px
and more; every other word is at least 12 CSS px (the side panel its own drawing as wide as the
screen: once one drawing 1300 units wide, its panel's words 3.5 px); the zoom's larger map moves in
its box under a finger, and a swipe elsewhere steps through the game; the verdict's lines stand
apart; the page never scrolls sideways; where scripts do not run it says to open the file in a
browser.  (Once the map was drawn at its own size, 12 px words, in a box that scrolled sideways:
a third of it in view.  tests/test_board_fits.py holds the fitting on a phone and a desktop.)
Screenshots are kept in test-artifacts/ (viewer-phone-*.png).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from audittools import TOOL_MODULE
from clitools import ok
from pagetools import ARTIFACTS, ROOT, SMALLEST_TEXT, audited, open_page, swipe

from pbem.log.logfile import read_docs

LOG = ROOT / "examples" / "rattus-2p" / "log.yaml"
READY = "document.getElementById('view').getAttribute('data-entry') !== ''"
ENTRY = "parseInt(document.getElementById('view').getAttribute('data-entry'), 10)"


@pytest.fixture(scope="module")
def viewer(tmp_path_factory: pytest.TempPathFactory) -> Path:
    page = tmp_path_factory.mktemp("viewer") / "game.html"
    ok("html", LOG, "-o", page)
    return page


@pytest.fixture
def phone(browser: Any) -> Any:
    browser.touch()
    return browser


def shoot(browser: Any, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    browser.send("Emulation.setScrollbarsHidden", hidden=True)
    browser.screenshot(ARTIFACTS / f"viewer-phone-{name}.png")


def test_no_word_is_too_small_and_nothing_runs_off_the_side(phone: Any, viewer: Path) -> None:
    last = len(read_docs(LOG)[0]) - 1
    for seq in (0, 9, 30, last):
        open_page(phone, viewer, READY, f"#entry={seq}")
        assert phone.eval(ENTRY) == seq
        smallest = phone.eval(SMALLEST_TEXT)  # the map's words, the whole map fitted to the screen
        assert smallest and smallest[0][0] >= 10, (seq, smallest)
        words = phone.eval(SMALLEST_TEXT.replace("'body *'", "'body *:not(#map *)'"))  # every other word
        assert words and words[0][0] >= 12, (seq, words)
        assert phone.eval("document.querySelector('#map svg.compact').getBoundingClientRect().right") <= 390
        assert phone.eval("document.documentElement.scrollWidth") <= 390, seq  # the page, not the map's box
        assert phone.eval("document.querySelectorAll('#panel svg text').length") > 10  # the panel is drawn
        shoot(phone, f"entry-{seq}")
    words = phone.eval("document.getElementById('narration').textContent")
    assert "winner:" in words


def test_a_swipe_on_the_words_steps_through_the_game(phone: Any, viewer: Path) -> None:
    open_page(phone, viewer, READY, "#entry=20")
    y = phone.eval("(function () { var n = document.getElementById('narration');"
                   " n.scrollIntoView({block: 'center'}); var r = n.getBoundingClientRect();"
                   " return Math.round(r.top + Math.min(r.height, 60) / 2); })()")
    swipe(phone, 320, 60, y)
    assert wait_for(phone, 21)
    swipe(phone, 320, 60, y)
    assert wait_for(phone, 22)
    swipe(phone, 60, 320, y)
    assert wait_for(phone, 21)
    swipe(phone, 200, 190, y)  # a tap, not a swipe
    time.sleep(0.3)
    assert phone.eval(ENTRY) == 21


def test_a_swipe_on_a_larger_map_moves_the_map_not_the_game(phone: Any, viewer: Path) -> None:
    open_page(phone, viewer, READY, "#entry=20")
    phone.eval("window.scrollTo(0, 0)")
    width = "document.querySelector('#map svg.compact').getBoundingClientRect().width"
    assert phone.eval(width) <= 390  # the whole map
    shoot(phone, "whole-map")
    phone.eval("document.getElementById('zoom-in').click(); document.getElementById('zoom-in').click()")
    assert phone.eval(width) >= 700  # twice as large, in the same box
    box = phone.eval("(function () { var r = document.getElementById('map').getBoundingClientRect();"
                     " return [Math.round(r.top + 150), document.getElementById('map').scrollLeft]; })()")
    swipe(phone, 320, 60, box[0])
    time.sleep(0.3)
    assert phone.eval(ENTRY) == 20
    assert phone.eval("document.getElementById('map').scrollLeft") > box[1]
    shoot(phone, "larger-map")


def wait_for(browser: Any, seq: int) -> bool:
    deadline = time.monotonic() + 5
    while browser.eval(ENTRY) != seq:
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def test_the_verdicts_lines_stand_apart(phone: Any, viewer: Path) -> None:
    open_page(phone, viewer, READY)  # the last entry: the secret revealed, the host's verdict
    rects = phone.eval("Array.prototype.map.call(document.querySelectorAll('#verdict p'), function (p) {"
                       " var r = p.getBoundingClientRect(); return [r.top, r.bottom, p.textContent]; })")
    assert len(rects) >= 3 and rects[-1][2].startswith("verdict: FAIR.")
    for before, after in zip(rects, rects[1:], strict=False):
        assert after[0] >= before[1] + 8, (before, after)  # a gap between two lines, never run together
    audit = phone.eval("Array.prototype.map.call(document.querySelectorAll('#audit-lines li'), function (li) {"
                       " var r = li.getBoundingClientRect(); return [r.top, r.bottom]; })")
    assert len(audit) >= 5 and all(b[0] >= a[1] + 8 for a, b in zip(audit, audit[1:], strict=False))
    phone.eval("document.getElementById('verdict').scrollIntoView()")
    shoot(phone, "verdict")


def test_the_viewer_checks_its_own_log_in_the_browser(phone: Any, viewer: Path) -> None:
    open_page(phone, viewer, READY)
    seen = audited(phone)
    code, lines = TOOL_MODULE.audit(str(LOG))
    assert (seen["code"], seen["lines"]) == (code, lines) and seen["kind"] == "fair"
    assert all(u.startswith("file:") for u in phone.requests)


def test_where_scripts_do_not_run_it_says_to_open_the_file_in_a_browser(phone: Any, viewer: Path) -> None:
    shown = "getComputedStyle(document.getElementById('needs-script')).display"
    phone.send("Emulation.setScriptExecutionDisabled", value=True)
    try:
        open_page(phone, viewer, "document.getElementById('needs-script') !== null")
        assert phone.eval(shown) == "block"
        assert "open it in a web browser" in phone.eval("document.getElementById('needs-script').textContent")
    finally:
        phone.send("Emulation.setScriptExecutionDisabled", value=False)
    open_page(phone, viewer, READY)
    assert phone.eval(shown) == "none"


def test_an_entrys_changed_regions_are_dashed_and_their_cubes_are_not(phone: Any, viewer: Path) -> None:
    """The entry's changes: each changed region's box is dashed; the cubes and rats in it keep
    their plain outline, so their counts read as on every other region."""
    open_page(phone, viewer, READY, "#entry=20")
    dashes = phone.eval(
        "(function () { var g = document.querySelector('#map .region[data-changed]');"
        " var box = g.querySelector(':scope > rect'), piece = g.querySelector('.cubes rect, .rat rect');"
        " return [getComputedStyle(box).strokeDasharray, piece ? getComputedStyle(piece).strokeDasharray : 'none']; })()")
    assert dashes[0] not in ("none", "") and dashes[1] in ("none", ""), dashes
