"""Every tap target of the composer page is a finger's size on a phone (390 x 844, touch): 44 x 44 CSS
px at least (WCAG 2.5.5's target size, Apple's and Google's guidance), at every step of a turn.

A target is whatever answers a tap: every element of the page that listens for a click (asked of
the browser itself, over the DevTools protocol's ``DOMDebugger.getEventListeners``, so a listener
on a small drawing cannot hide), every enabled button, link and field.  A rat on the board is
drawn small (three share a region), so it is no target of its own: a tap on it is its region's.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from cdp import Browser
from composetools import ONE_TAP, PLAYERS, SECRET, Played, demo_dirs, played, positions  # noqa: F401 (fixtures)

from pbem.referee.seatview import SeatView
from pbem.views.compose import compose_page

CONTROLS = """Array.prototype.filter.call(document.querySelectorAll(
  '#view button:not(:disabled), #view a[href]:not([aria-disabled=true]), #view input, #view [tabindex="0"]'),
  function (el) { return el.getClientRects().length > 0; })"""

BOX = """function () {
  var r = this.getBoundingClientRect(), name = this.getAttribute('data-token') || this.getAttribute('data-region') ||
    this.id || this.textContent.slice(0, 30);
  return this.getClientRects().length ? [this.tagName + ' ' + name, r.width, r.height] : null;
}"""


def listened(browser: Browser) -> list[str]:
    """The objects of every element of the page's body listening for a click or a touch."""
    root = browser.send("Runtime.evaluate", expression="document.getElementById('view')")["result"]["objectId"]
    found = browser.send("DOMDebugger.getEventListeners", objectId=root, depth=-1, pierce=True)["listeners"]
    nodes = {e["backendNodeId"] for e in found if e["type"] in ("click", "touchstart", "touchend", "pointerdown",
                                                               "pointerup", "mousedown", "mouseup")}
    return [browser.send("DOM.resolveNode", backendNodeId=n)["object"]["objectId"] for n in nodes]


def small_targets(browser: Browser) -> list[Any]:
    """Every target on screen (listening, or a control) under 44 x 44 CSS px: ``[what, width, height]``."""
    controls = browser.send("Runtime.evaluate", expression=CONTROLS)["result"]["objectId"]
    props = browser.send("Runtime.getProperties", objectId=controls, ownProperties=True)["result"]
    objects = [p["value"]["objectId"] for p in props if p["name"].isdigit()] + listened(browser)
    small = []
    for obj in objects:
        box = browser.send("Runtime.callFunctionOn", objectId=obj, functionDeclaration=BOX,
                           returnByValue=True)["result"].get("value")
        if box is not None and (box[1] < 44 or box[2] < 44):
            small.append(box)
    return small




def test_every_tap_target_on_a_phone_is_44_pixels_square(browser: Browser, played: Played, tmp_path: Path) -> None:
    """WCAG 2.5.5: through random turns on a 390 x 844 touch screen (rats to move, to look at, to
    flip included), every element that answers a tap, at every step, is at least 44 x 44 CSS px."""
    browser.touch()
    browser.send("DOM.enable")
    rng, steps, rats = random.Random(8), 0, 0
    try:
        for n, (game, _seq) in enumerate(positions(played, 10, seed=23)):
            assert game.state is not None and game.state.to_move is not None
            page = tmp_path / f"targets-{n}.html"
            page.write_text(compose_page(SeatView(game, game.state.to_move), "host@example.org"), encoding="utf-8")
            browser.open(page)
            while True:
                assert small_targets(browser) == [], (n, steps)
                rats += browser.eval("document.querySelectorAll('#board .rat.opt').length")
                steps += 1
                if not browser.eval(ONE_TAP.replace("PICK", str(rng.randrange(1000)))):
                    break
    finally:
        browser.touch(False)
    assert steps >= 40 and rats, (steps, rats)
