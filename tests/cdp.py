"""A headless Chromium for the page tests, driven by Playwright (the ``playwright`` package from PyPI).

Playwright launches Debian's /usr/bin/chromium itself (``executable_path``: no browser is
downloaded, ``playwright install`` is never run) and drives one page of one context at a
phone's size.  Every network request the page makes is recorded from Playwright's
``request`` events (a ``file:`` load of the page itself is the only one allowed).  What
Playwright does not offer for a page already open (scripts switched off, scrollbars hidden, a
raw swipe) and a script's value (:meth:`Browser.eval`) go through
:meth:`Browser.send`, a DevTools-protocol session on the same page.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]

_driver: list[Any] = []
"""The one Playwright driver of this process, started for the first browser and stopped with the
last (Playwright's synchronous API allows one running driver a thread)."""
_open: list[Browser] = []


def browser_path() -> str:
    path = shutil.which("chromium") or ("/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None)
    if path is None:
        pytest.skip("no browser: Debian's 'chromium' is not installed (.ci/run installs it with apt-get)")
    return path


def _playwright() -> Any:
    if not _driver:
        try:
            from playwright.sync_api import sync_playwright
        except ImportError:
            pytest.skip("no playwright: the test extras are not installed (pip install -e '.[test]')")
        _driver.append(sync_playwright().start())
    return _driver[0]


class Browser:
    """One headless Chromium with one page, its network requests recorded."""

    def __init__(self, width: int = 390, height: int = 844, mobile: bool = True, **options: Any) -> None:
        """``options`` are Playwright's for the page's context (``bypass_csp=True``, ...)."""
        from playwright.sync_api import Error

        path = browser_path()
        driver = _playwright()
        _open.append(self)
        self.requests: list[str] = []
        self.options = options
        # A loaded machine can take Chromium long to start, and now and then a start dies
        # early: a second start before the test is given up.
        for attempt in (1, 2):
            try:
                self.chromium = driver.chromium.launch(executable_path=path, args=FLAGS, timeout=60_000)
                break
            except Error as error:
                if attempt == 2:
                    self.close()
                    raise RuntimeError(f"chromium did not start (twice): {error}") from error
        self._new_page(width, height, mobile)

    def _new_page(self, width: int, height: int, mobile: bool) -> None:
        self.mobile = mobile
        self.context = self.chromium.new_context(viewport={"width": width, "height": height},
                                                 device_scale_factor=1, is_mobile=mobile, **self.options)
        self.page = self.context.new_page()
        self.page.set_default_timeout(60_000)
        self.page.on("request", lambda request: self.requests.append(request.url))
        self.session = self.context.new_cdp_session(self.page)

    def resize(self, width: int, height: int, mobile: bool | None = None) -> None:
        """The screen's size; a phone's or a desktop's (Playwright fixes that per context, so a
        change of kind opens a fresh page: scripts switched off by :meth:`send` are on again)."""
        if mobile is None or mobile == self.mobile:
            self.page.set_viewport_size({"width": width, "height": height})
            return
        self.context.close()
        self._new_page(width, height, mobile)

    def send(self, method: str, **params: Any) -> dict[str, Any]:
        """A raw DevTools-protocol call on the page, for what Playwright has no call for."""
        from playwright.sync_api import Error

        try:
            return dict(self.session.send(method, params))
        except Error as error:
            raise RuntimeError(f"{method}: {error.message}") from error

    def goto(self, url: str) -> None:
        """Load ``url`` and wait for its ``load`` event (the same document at another fragment
        does not load again: go to ``about:blank`` first)."""
        self.page.goto(url, wait_until="load")

    def open(self, page: Path) -> None:
        """Load a composer page and wait until its move box is there."""
        self.goto(page.as_uri())
        self.page.wait_for_selector("#move", state="attached")

    def eval(self, expression: str, wait: bool = False) -> Any:
        """A script expression's value, a promise's waited for when ``wait``.  Asked over the
        DevTools session (``Runtime.evaluate``): an expression as the page's console takes it, and
        several times faster a call than ``page.evaluate``, which the tests that poll a page feel."""
        result = self.send("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=wait)
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression[:80]}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def touch(self, on: bool = True) -> None:
        """A phone's touch screen: taps (:meth:`tap`) are touches, and the page sees touch events.
        Playwright fixes ``has_touch`` when a context opens: a change opens a fresh page."""
        if self.options.get("has_touch", False) != on:
            self.options["has_touch"] = on
            size = self.page.viewport_size or {"width": 390, "height": 844}
            self.context.close()
            self._new_page(size["width"], size["height"], self.mobile)

    def tap(self, x: float, y: float) -> None:
        """A finger's tap at (x, y) in CSS pixels of the viewport (the browser makes the click)."""
        self.page.touchscreen.tap(x, y)

    def screenshot(self, path: Path) -> None:
        self.page.screenshot(path=path)

    def close(self) -> None:
        try:
            if hasattr(self, "chromium"):
                self.chromium.close()
        finally:
            if self in _open:
                _open.remove(self)
            if not _open and _driver:
                _driver.pop().stop()
