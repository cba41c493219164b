"""The board fits every screen: the viewer (`pbem html`) and a site's game page (`pbem site`) in
Debian's headless Chromium (tests/cdp.py), on a phone (390 x 844, touch) and a desktop (1366 x 768).

On each: the page never scrolls sideways, the whole map is inside the screen's width, every word
the map draws is 10 CSS px or more at that size, and on the desktop the side panel (the players'
scores) stands beside the map, inside the screen, with the whole map in view.  The zoom draws the
map larger in its box (its words larger too) and back; the buttons, the keys and a finger step
the viewer; each region is named for a screen reader by what lies on it; each seat's pieces carry
a mark besides their colour, and the red and green seats stay apart for a reader with
deuteranopia or protanopia (Machado's matrices over the colours the page draws).
Screenshots go to $PBEM_ARTEFACTS/fit or test-artifacts/ (fit-*.png).
"""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from clitools import ok
from pagetools import ARTIFACTS, ROOT, open_page, swipe

SCREENS = {"phone": (390, 844), "desktop": (1366, 768)}
LOG = ROOT / "examples" / "rattus-3p" / "log.yaml"
VIEWER_READY = "document.getElementById('view').getAttribute('data-entry') !== ''"
ENTRY = "parseInt(document.getElementById('view').getAttribute('data-entry'), 10)"

MAP = """(function (box) {
  var svg = Array.prototype.filter.call(document.querySelectorAll(box + ' svg'), function (s) {
    return s.getBoundingClientRect().width > 0; })[0];
  var r = svg.getBoundingClientRect(), b = document.querySelector(box).getBoundingClientRect();
  var sizes = Array.prototype.map.call(svg.querySelectorAll('text'), function (t) {
    var m = t.getScreenCTM(); return parseFloat(getComputedStyle(t).fontSize) * Math.sqrt(m.a * m.a + m.b * m.b);
  });
  return {look: svg.getAttribute('class'), left: r.left, right: r.right, width: r.width, top: r.top,
          bottom: r.bottom, box: [b.left, b.top, b.right, b.bottom], smallest: Math.min.apply(null, sizes),
          page: document.documentElement.scrollWidth, screen: document.documentElement.clientWidth,
          height: innerHeight};
})(%s)"""
"""The map's drawing the screen shows (of its two), where it is and its smallest word, in CSS px."""

PANEL = """(function (box) {
  var p = document.querySelector(box + ' svg').getBoundingClientRect();
  var rows = document.querySelectorAll(box + ' .player');
  var last = rows[rows.length - 1].getBoundingClientRect();
  return {left: p.left, right: p.right, top: p.top, scores_bottom: last.bottom};
})(%s)"""


def shots() -> Path:
    folder = Path(os.environ["PBEM_ARTEFACTS"]) / "fit" if os.environ.get("PBEM_ARTEFACTS") else ARTIFACTS
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("fit")
    ok("html", LOG, "-o", out / "viewer.html")
    shutil.copytree(LOG.parent, out / "games" / "rattus-3p")
    ok("site", "--site", out / "site", "--games", out / "games")
    return {"viewer": out / "viewer.html", "site": out / "site" / "games" / "rattus-3p.html"}


@pytest.fixture(scope="module", params=list(SCREENS))
def screen(request: pytest.FixtureRequest) -> Iterator[tuple[str, Any]]:
    from cdp import Browser, browser_path

    browser_path()
    width, height = SCREENS[request.param]
    chrome = Browser(width, height)
    phone = request.param == "phone"
    chrome.send("Emulation.setDeviceMetricsOverride", width=width, height=height, deviceScaleFactor=1, mobile=phone)
    if phone:
        chrome.touch()
    chrome.send("Emulation.setScrollbarsHidden", hidden=True)
    yield request.param, chrome
    chrome.close()


def opened(browser: Any, pages: dict[str, Path], kind: str, fragment: str = "") -> str:
    """The page opened; the selector of its map's box."""
    open_page(browser, pages[kind], VIEWER_READY if kind == "viewer" else "true", fragment)
    return "#map" if kind == "viewer" else ".board"


def key(browser: Any, name: str, code: int) -> None:
    """A key pressed and let go, as a keyboard sends it to the focused element."""
    text = {"Enter": "\r", "+": "+", "0": "0"}.get(name)
    for kind in ("keyDown", "keyUp"):
        extra = {"text": text} if text and kind == "keyDown" else {}
        browser.send("Input.dispatchKeyEvent", type=kind, key=name, code=name, windowsVirtualKeyCode=code,
                     nativeVirtualKeyCode=code, **extra)


@pytest.mark.parametrize("kind", ["viewer", "site"])
def test_the_whole_board_fits_the_screen_its_words_10_px_and_more(
        screen: tuple[str, Any], pages: dict[str, Path], kind: str) -> None:
    name, browser = screen
    box = opened(browser, pages, kind, "#entry=30" if kind == "viewer" else "")
    at = browser.eval(MAP % repr(box))
    assert at["page"] <= at["screen"], at  # the page never scrolls sideways
    assert at["left"] >= 0 and at["right"] <= at["screen"], at  # the whole map is in the screen's width
    assert at["smallest"] >= 10, at
    assert ("compact" in at["look"]) == (name == "phone"), at  # a phone draws the map's compact look
    if name == "desktop":  # the scores beside the map, in view; the whole map in view
        panel = browser.eval(PANEL % repr("#panel" if kind == "viewer" else ".panel"))
        assert panel["left"] >= at["right"] and panel["right"] <= at["screen"], (at, panel)
        assert panel["scores_bottom"] <= at["height"] and at["bottom"] <= at["height"], (at, panel)
    browser.screenshot(shots() / f"fit-{kind}-{name}.png")


def zoomed(browser: Any, box: str) -> dict[str, Any]:
    time.sleep(0.1)
    return dict(browser.eval(MAP % repr(box)))


def test_the_viewers_zoom_draws_the_map_larger_in_its_box_and_back(screen: tuple[str, Any],
                                                                    pages: dict[str, Path]) -> None:
    name, browser = screen
    box = opened(browser, pages, "viewer", "#entry=30")
    fit = zoomed(browser, box)
    browser.eval("document.getElementById('zoom-in').click()")
    browser.eval("document.getElementById('zoom-in').click()")
    closer = zoomed(browser, box)
    assert closer["width"] >= 1.9 * fit["width"] and closer["smallest"] >= 1.9 * fit["smallest"], (fit, closer)
    assert closer["box"] == fit["box"]  # the box keeps its place and size: the map moves inside it
    assert browser.eval(MAP % repr(box))["page"] <= fit["screen"]
    browser.screenshot(shots() / f"fit-viewer-{name}-zoomed.png")
    browser.eval("document.getElementById('zoom-out').click()")
    assert zoomed(browser, box)["width"] < closer["width"]
    browser.eval("document.getElementById('fit').click()")
    assert zoomed(browser, box)["width"] == fit["width"]
    browser.eval("document.body.focus()")
    key(browser, "+", 187)
    assert zoomed(browser, box)["width"] > fit["width"]  # and by the keyboard
    key(browser, "0", 48)
    assert zoomed(browser, box)["width"] == fit["width"]


def test_the_site_pages_size_buttons_need_no_script(screen: tuple[str, Any], pages: dict[str, Path]) -> None:
    name, browser = screen
    box = opened(browser, pages, "site")
    fit = zoomed(browser, box)
    browser.eval("document.querySelector('label[for=zoom-2]').click()")
    closer = zoomed(browser, box)
    assert closer["width"] >= 1.9 * fit["width"] and closer["box"] == fit["box"], (fit, closer)
    assert closer["page"] <= closer["screen"]
    browser.screenshot(shots() / f"fit-site-{name}-zoomed.png")
    browser.eval("document.getElementById('zoom-2').focus()")  # the radio buttons by the keyboard
    key(browser, "ArrowLeft", 37)
    assert browser.eval("document.getElementById('zoom-1').checked")
    assert zoomed(browser, box)["width"] == fit["width"]
    assert browser.eval("getComputedStyle(document.querySelector('label[for=zoom-1]')).outlineStyle") != "none"


def test_the_keyboard_steps_the_viewer_and_shows_where_its_focus_is(screen: tuple[str, Any],
                                                                    pages: dict[str, Path]) -> None:
    _name, browser = screen
    opened(browser, pages, "viewer", "#entry=10")
    browser.eval("document.getElementById('prev').focus()")
    key(browser, "Tab", 9)  # the next control after "previous": "next"
    assert browser.eval("document.activeElement.id") == "next"
    assert browser.eval("getComputedStyle(document.activeElement).outlineStyle") != "none"
    key(browser, "Enter", 13)
    assert wait_for(browser, 11)
    key(browser, "ArrowRight", 39)
    assert wait_for(browser, 12)
    key(browser, "Home", 36)
    assert wait_for(browser, 0)


def wait_for(browser: Any, seq: int) -> bool:
    deadline = time.monotonic() + 5
    while browser.eval(ENTRY) != seq:
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def test_a_swipe_on_the_whole_map_steps_and_on_a_larger_map_moves_it(screen: tuple[str, Any],
                                                                      pages: dict[str, Path]) -> None:
    name, browser = screen
    if name != "phone":
        pytest.skip("a touch screen's gesture")
    opened(browser, pages, "viewer", "#entry=20")
    browser.eval("window.scrollTo(0, 0)")
    y = browser.eval("Math.round(document.getElementById('map').getBoundingClientRect().top + 120)")
    swipe(browser, 330, 60, y)
    assert wait_for(browser, 21)  # the whole map in view: a swipe on it is the game's
    browser.eval("document.getElementById('zoom-in').click()")
    before = browser.eval("document.getElementById('map').scrollLeft")
    swipe(browser, 330, 60, y)
    time.sleep(0.4)
    assert browser.eval(ENTRY) == 21  # a larger map: the swipe moves the map, not the game
    assert browser.eval("document.getElementById('map').scrollLeft") > before


def test_each_region_is_named_by_what_lies_on_it(screen: tuple[str, Any], pages: dict[str, Path]) -> None:
    """A screen reader hears each region as an image named by its public pieces (P10: how many
    rats, never a face): the name, each player's cubes, the rats, the plague piece."""
    _name, browser = screen
    for kind in ("viewer", "site"):
        box = opened(browser, pages, kind, "#entry=30" if kind == "viewer" else "")
        regions = browser.eval(f"""Array.prototype.map.call(document.querySelectorAll('{box} svg .region'),
          function (g) {{ return {{role: g.getAttribute('role'), said: g.querySelector(':scope > title').textContent,
            name: g.getAttribute('data-name'), rats: g.querySelectorAll('.rat').length,
            plague: !!g.querySelector('.plague'), in_play: g.getAttribute('data-in-play'),
            cubes: Array.prototype.map.call(g.querySelectorAll('.cubes'), function (c) {{
              return [c.getAttribute('data-player'), c.getAttribute('data-count')]; }}) }}; }})""")
        assert len(regions) == 24  # twelve regions, in each of the map's two drawings
        for r in regions:
            said = r["said"]
            assert r["role"] == "img" and said.startswith(r["name"]), r
            if r["in_play"] == "false":
                assert said == f"{r['name']}: not in play", r
                continue
            for player, count in r["cubes"]:
                assert f"{player}: {count} cube" in said, r
            assert (f"{r['rats']} rat" in said) == (r["rats"] > 0), r
            assert ("the plague piece" in said) == r["plague"], r
            assert not any(face in said for face in ("peasant", "merchant", "monk", "knight", "witch", "king")), r


MACHADO = {  # Machado, Oliveira & Fernandes (2009), severity 1.0, over linear RGB
    "deuteranopia": ((0.367322, 0.860646, -0.227968), (0.280085, 0.672501, 0.047413),
                     (-0.011820, 0.042940, 0.968881)),
    "protanopia": ((0.152286, 1.052583, -0.204868), (0.114503, 0.786281, 0.099216),
                   (-0.003882, -0.048116, 1.051998)),
}


def seen_as(colour: str, matrix: tuple[tuple[float, float, float], ...]) -> tuple[float, float, float]:
    """``#rrggbb`` as a reader with that colour vision sees it, in CIELAB (D65)."""
    def linear(c: int) -> float:
        v = c / 255
        return v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4
    rgb = [linear(int(colour[i:i + 2], 16)) for i in (1, 3, 5)]
    r, g, b = (min(1.0, max(0.0, sum(m * v for m, v in zip(row, rgb, strict=True)))) for row in matrix)
    x, y, z = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.9505, 0.2126 * r + 0.7152 * g + 0.0722 * b, (
        0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.089

    def f(t: float) -> float:
        return t ** (1 / 3) if t > 0.008856 else 7.787 * t + 16 / 116
    return 116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))


def test_colour_blind_readers_tell_the_seats_apart(screen: tuple[str, Any], pages: dict[str, Path]) -> None:
    """Each seat's pieces on the page carry the seat's own mark (R, G, B) in their words, whatever
    the colour looks like; and the red and green seats' colours, as a reader with deuteranopia or
    protanopia sees them, stay apart (CIELAB distance 20 and more: a difference seen at a glance)."""
    _name, browser = screen
    opened(browser, pages, "viewer", "#entry=30")
    piles = browser.eval("""Array.prototype.map.call(document.querySelectorAll('#map .cubes, #panel .palace'),
      function (c) { return [c.getAttribute('data-player'), c.querySelector('rect').getAttribute('fill'),
                             c.querySelector('text').textContent, c.getAttribute('data-count')]; })""")
    fills: dict[str, set[str]] = {}
    marks: dict[str, set[str]] = {}
    for player, fill, words, count in piles:
        fills.setdefault(player, set()).add(fill)
        marks.setdefault(player, set()).add(words.removesuffix(count))
    assert set(marks) == {"red", "green", "blue"} and all(len(m) == 1 for m in marks.values()), marks
    assert len({m.pop() for m in marks.values()}) == 3  # three marks, one a seat
    red, green = fills["red"].pop(), fills["green"].pop()
    for vision, matrix in MACHADO.items():
        a, b = seen_as(red, matrix), seen_as(green, matrix)
        assert sum((p - q) ** 2 for p, q in zip(a, b, strict=True)) ** 0.5 >= 20, (vision, red, green)


def test_two_fingers_on_the_map_zoom_it_and_the_arrow_keys_move_a_larger_map(screen: tuple[str, Any],
                                                                             pages: dict[str, Path]) -> None:
    name, browser = screen
    box = opened(browser, pages, "viewer", "#entry=30")
    fit = zoomed(browser, box)
    if name == "phone":  # two fingers drawn apart on the map: a pinch, the map larger
        browser.eval("window.scrollTo(0, 0)")
        x, y = int((fit["left"] + fit["right"]) / 2), int(fit["top"] + 120)
        fingers = [[{"x": x - 20 - d, "y": y, "id": 0}, {"x": x + 20 + d, "y": y, "id": 1}] for d in range(0, 80, 10)]
        browser.send("Input.dispatchTouchEvent", type="touchStart", touchPoints=fingers[0])
        for points in fingers[1:]:
            browser.send("Input.dispatchTouchEvent", type="touchMove", touchPoints=points)
        browser.send("Input.dispatchTouchEvent", type="touchEnd", touchPoints=[])
        assert zoomed(browser, box)["width"] >= 1.5 * fit["width"]
        assert browser.eval(ENTRY) == 30
    else:
        browser.eval("document.getElementById('zoom-in').click()")
    browser.eval("document.getElementById('map').focus()")
    before = browser.eval("document.getElementById('map').scrollLeft")
    key(browser, "ArrowRight", 39)
    time.sleep(0.3)
    assert browser.eval("document.getElementById('map').scrollLeft") > before  # the map moves, the game stays
    assert browser.eval(ENTRY) == 30


SHAPES = """Array.prototype.map.call(document.querySelectorAll('#map svg.compact .region, #map svg.compact .link'),
  function (g) { return [g.getAttribute('data-region') || g.getAttribute('data-link'),
    [g].concat(Array.prototype.slice.call(g.querySelectorAll('*'))).map(function (e) {
      return [e.tagName].concat(%s.map(function (a) { return e.getAttribute(a); }), [e.children.length ? '' :
        e.textContent]); })]; })"""
KEYS = ["x", "y", "x1", "y1", "x2", "y2", "width", "height", "font-size", "textLength", "fill", "cx", "cy", "d",
        "data-mark", "data-token", "marker-end"]


def test_the_viewers_phone_map_is_the_compact_look_a_site_page_draws(pages: dict[str, Path]) -> None:
    """The viewer's script draws a phone's map from the standard drawing's pieces (the page holds
    each entry's map once); what it draws is the compact look `pbem.views.svg` draws a site's game
    page with, piece by piece: the same places, sizes, words and marks."""
    import json
    import xml.etree.ElementTree as ET

    from cdp import Browser, browser_path

    from pbem.host.games import load_game
    from pbem.views.svg import COMPACT, map_svg

    browser_path()
    chrome = Browser(390, 844)
    try:
        open_page(chrome, pages["viewer"], VIEWER_READY)  # the last entry
        drawn = {k: v for k, v in chrome.eval(SHAPES % json.dumps(KEYS))}
    finally:
        chrome.close()
    root = ET.fromstring(map_svg(load_game(LOG.parent), look=COMPACT))
    made = {}
    for g in root.iter():
        key = g.get("data-region") if g.get("class") == "region" else g.get("data-link")
        if key and g.get("class") in ("region", "link"):
            made[key] = [[e.tag.split("}")[1], *(e.get(a) for a in KEYS), "" if len(e) else (e.text or "")]
                         for e in g.iter()]
    assert set(drawn) == set(made) and len(made) > 12
    for key, shapes in made.items():
        assert len(drawn[key]) == len(shapes), key
        for ours, theirs in zip(drawn[key], shapes, strict=True):
            for a, b in zip(ours, theirs, strict=True):  # a number may round the other way (at most 1)
                same = a == b or (a and b and a.lstrip("-").isdigit() and b.lstrip("-").isdigit()
                                  and abs(int(a) - int(b)) <= 1)
                assert same, (key, ours, theirs)


WIDTHS = (360, 500, 819, 820, 1024, 1119, 1120, 1600)
"""Every width from 360 px up, by the layout's steps: a phone's compact map below 820 px, the
standard map from there, the panel beside it from 1120 px."""


@pytest.mark.parametrize("kind", ["viewer", "site"])
def test_at_any_width_the_whole_map_is_in_view_and_its_words_are_10_px_and_more(
        pages: dict[str, Path], kind: str) -> None:
    from cdp import Browser, browser_path

    browser_path()
    chrome = Browser(390, 844)
    try:
        for width in WIDTHS:
            chrome.send("Emulation.setDeviceMetricsOverride", width=width, height=800, deviceScaleFactor=1,
                        mobile=width < 820)
            box = opened(chrome, pages, kind)
            at = chrome.eval(MAP % repr(box))
            assert at["page"] <= at["screen"] and at["left"] >= 0 and at["right"] <= at["screen"], (width, at)
            assert at["smallest"] >= 10 and ("compact" in at["look"]) == (width < 820), (width, at)
    finally:
        chrome.close()
