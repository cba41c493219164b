"""Pages other than the composer in the headless Chromium of tests/cdp.py: the viewer (`pbem html`)
and the end mail's page, opened, read back and measured at a phone's size."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from cdp import Browser

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = ROOT / "test-artifacts"

SMALLEST_TEXT = """(function () {
  var found = [];
  function visible(el) {
    var r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0 && !el.closest('[hidden]');
  }
  document.querySelectorAll('body *').forEach(function (el) {
    var own = Array.prototype.some.call(el.childNodes, function (c) {
      return c.nodeType === 3 && c.textContent.trim();
    });
    if (!own || !visible(el) || el.closest('script, style, title')) { return; }
    var size = parseFloat(getComputedStyle(el).fontSize);
    if (el instanceof SVGElement) { var m = el.getScreenCTM(); size = size * Math.sqrt(m.a * m.a + m.b * m.b); }
    found.push([Math.round(size * 10) / 10, el.tagName, el.textContent.trim().slice(0, 40)]);
  });
  found.sort(function (a, b) { return a[0] - b[0]; });
  return found.slice(0, 5);
})()"""
"""The five smallest texts drawn on the page, in CSS px: an SVG text's font size times the
drawing's scale on the screen, an HTML element's computed size; only what is laid out."""


def open_page(browser: Browser, page: Path, ready: str, fragment: str = "") -> None:
    """Load ``page`` (a ``file:``) and wait until ``ready`` (a script expression) holds."""
    browser.goto("about:blank")  # the same page at another #entry= would not load again
    browser.goto(page.as_uri() + fragment)
    deadline = time.monotonic() + 30
    while not browser.eval(ready):
        if time.monotonic() > deadline:
            raise RuntimeError(f"{page} did not load")
        time.sleep(0.02)


def audited(browser: Browser, timeout: float = 60) -> dict[str, Any]:
    """Wait for the page's browser audit to finish; its exit code, verdict kind, words and lines."""
    deadline = time.monotonic() + timeout
    while browser.eval("document.getElementById('audit').getAttribute('data-code')") in ("", None):
        if time.monotonic() > deadline:
            raise RuntimeError("the browser's audit did not finish")
        time.sleep(0.05)
    return dict(browser.eval("""(function () {
      var box = document.getElementById('audit');
      return {code: parseInt(box.getAttribute('data-code'), 10), kind: box.getAttribute('data-verdict'),
              verdict: document.getElementById('audit-verdict').textContent,
              source: document.getElementById('audit-source').textContent,
              lines: Array.prototype.map.call(document.querySelectorAll('#audit-lines li'),
                                              function (li) { return li.textContent; })};
    })()"""))


def audit_text(browser: Browser, text: str, name: str = "log.yaml") -> dict[str, Any]:
    """The page's audit of another copy of a log (as the file chooser gives it), read back once the
    page's audit of its own copy has finished (each is shown as it finishes: the last asked for)."""
    audited(browser)
    browser.eval(f"window.pbemAuditText({json.dumps(text)}, {json.dumps(name)})")
    return audited(browser)


def swipe(browser: Browser, x0: int, x1: int, y: int) -> None:
    """One finger from (x0, y) to (x1, y), as a phone's touch screen sends it."""
    browser.send("Input.dispatchTouchEvent", type="touchStart", touchPoints=[{"x": x0, "y": y}])
    for step in range(1, 6):
        x = x0 + (x1 - x0) * step // 5
        browser.send("Input.dispatchTouchEvent", type="touchMove", touchPoints=[{"x": x, "y": y}])
    browser.send("Input.dispatchTouchEvent", type="touchEnd", touchPoints=[])


SCREENS = {"phone": (390, 844), "desktop": (1366, 768)}
"""The two screens every page is tried on: a phone's (touch) and a desktop's."""
KINDS = ["opening", "composer", "viewer", "end", "site-index", "site-standings", "site-game"]
"""Every kind of page pbem writes, as :func:`every_page` names them."""
FINISHED = ROOT / "examples" / "rattus-4p"


def every_page(out: Path) -> dict[str, Path]:
    """One page of each kind pbem writes (:data:`KINDS`), from a small game of three seats and a
    finished example, written under ``out``."""
    import shutil

    from clitools import ok

    from pbem.host.create import NewGame, create
    from pbem.host.games import load_game
    from pbem.referee.seatview import SeatView
    from pbem.sim.demo import open_game
    from pbem.views.compose import compose_page
    from pbem.views.endpage import end_page

    games = out / "games"
    create(games, NewGame("o", ("red", "green", "blue"), first="red", secret=bytes(32)))
    made = {"opening": out / "opening.html", "composer": out / "composer.html", "end": out / "end.html",
            "viewer": out / "viewer.html"}
    made["opening"].write_text(compose_page(SeatView(load_game(games / "o"), "red"), None, "en"), encoding="utf-8")
    game = open_game(games, "o", nonces={"red": bytes(16), "green": bytes([1]) * 16, "blue": bytes([2]) * 16})
    made["composer"].write_text(compose_page(SeatView(game, "red"), None, "en"), encoding="utf-8")
    log = FINISHED / "log.yaml"
    made["end"].write_text(end_page(load_game(FINISHED), log.read_text(encoding="utf-8"), "en"), encoding="utf-8")
    ok("html", log, "-o", made["viewer"])
    site_games = out / "site-games"
    shutil.copytree(FINISHED, site_games / FINISHED.name)
    ok("site", "--site", out / "site", "--games", site_games)
    made["site-index"] = out / "site" / "index.html"
    made["site-standings"] = out / "site" / "standings.html"
    made["site-game"] = out / "site" / "games" / f"{FINISHED.name}.html"
    return made


