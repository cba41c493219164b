"""Every page pbem writes, checked by axe-core (the maintained WCAG checker) in Chromium: no serious
or critical violation of WCAG 2.1 A and AA on the composer page (a turn and the opening), the
viewer, the end mail's audit page and the site's pages, at a phone's 390 x 844 and a desktop's
1366 x 768.

axe-core comes from the npm registry: ``.ci/run`` installs it in tests/.node (``npm install
--prefix tests/.node axe-core``); ``PBEM_AXE`` may name another copy of ``axe.min.js``. Without
it, or without Chromium, the test skips and says why. The pages' security policy admits only
their own script, so axe is given to the page in a browser context that bypasses that policy
(Playwright's ``bypass_csp``) for the check (the pages themselves are unchanged).
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pagetools import ARTIFACTS, KINDS, ROOT, SCREENS, every_page

AXE_DEFAULT = ROOT / "tests" / ".node" / "node_modules" / "axe-core" / "axe.min.js"
WCAG = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]

RUN = """axe.run(document, {runOnly: {type: 'tag', values: %s}, resultTypes: ['violations']}).then(function (r) {
  return r.violations.map(function (v) {
    return {impact: v.impact, id: v.id, help: v.help,
            nodes: v.nodes.slice(0, 3).map(function (n) { return n.target.join(' '); })};
  });
})"""


def axe_source() -> str:
    path = Path(os.environ.get("PBEM_AXE") or AXE_DEFAULT)
    if not path.is_file():
        pytest.skip(f"no axe-core at {path}: .ci/run installs it ('npm install --prefix tests/.node axe-core')")
    return path.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """One page of each kind pbem writes (tests/pagetools.py)."""
    return every_page(tmp_path_factory.mktemp("a11y"))


@pytest.fixture(scope="module")
def checked_browser() -> Iterator[Any]:
    from cdp import Browser, browser_path

    browser_path()
    axe = axe_source()
    chrome = Browser(390, 844, bypass_csp=True)
    chrome.axe = axe  # type: ignore[attr-defined]
    yield chrome
    chrome.close()


def violations(browser: Any, page: Path, screen: str) -> list[dict[str, Any]]:
    width, height = SCREENS[screen]
    browser.resize(width, height, mobile=screen == "phone")
    browser.goto("about:blank")
    browser.goto(page.as_uri())
    time.sleep(0.2)  # the page's own script draws the board after the load
    browser.eval(browser.axe)
    found: list[dict[str, Any]] = browser.eval(RUN % WCAG, wait=True)
    if os.environ.get("PBEM_ARTEFACTS") or ARTIFACTS.is_dir():  # kept for a person to look at
        folder = Path(os.environ.get("PBEM_ARTEFACTS") or ARTIFACTS)
        folder.mkdir(parents=True, exist_ok=True)
        browser.screenshot(folder / f"a11y-{page.stem}-{screen}.png")
    return found


@pytest.mark.parametrize("kind", KINDS)
def test_no_page_has_a_serious_or_critical_wcag_violation(checked_browser: Any, pages: dict[str, Path],
                                                          kind: str) -> None:
    """axe-core's WCAG 2.1 A/AA rules on the page at both screen sizes: nothing serious or critical
    (a control a keyboard cannot reach, a text too faint to read, a control without a name...)."""
    for screen in SCREENS:
        bad = [v for v in violations(checked_browser, pages[kind], screen) if v["impact"] in ("serious", "critical")]
        assert not bad, (kind, screen, bad)
