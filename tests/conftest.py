"""Suite-wide fixtures.

The host's clock (PROTOCOL P7, ``pbem/log/clock.py``) is pinned for every test, so no
outcome depends on the day the suite runs: a test that needs another moment sets
``PBEM_NOW`` itself (``monkeypatch.setenv``) or passes ``--now``. ``.ci/run`` runs the
fast suite a second time under ``faketime`` a year ahead to keep it that way.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

SUITE_NOW = "2026-11-30T09:00:00Z"
"""The host's clock for every test that does not set its own (P7)."""


@pytest.fixture(autouse=True)
def pinned_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PBEM_NOW", SUITE_NOW)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """A phone-sized (390 x 844) headless Chromium over the DevTools protocol (tests/cdp.py),
    one per test module; the test skips, saying why, where Debian's chromium is missing."""
    from cdp import Browser, browser_path

    browser_path()
    chrome = Browser(390, 844)
    yield chrome
    chrome.close()
