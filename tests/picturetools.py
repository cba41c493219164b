"""Shared helpers for the picture tests: a page opened in a real headless browser."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from html.parser import HTMLParser
from pathlib import Path

import pytest


class Drawn(HTMLParser):
    """What the dumped page's DOM draws: the entry, each region's rats and cubes, the plague, as the
    standard drawing of the map has them (``rats``, ``cubes``, ``plague``) and as each drawing does
    (``looks``: the page holds a phone's compact drawing too)."""

    def __init__(self) -> None:
        super().__init__()
        self.entry: str | None = None
        self.region: str | None = None
        self.looks: dict[str, tuple[dict[str, list[str]], dict[str, dict[str, int]], list[str]]] = {}
        self.rats: dict[str, list[str]] = {}
        self.cubes: dict[str, dict[str, int]] = {}
        self.plague: list[str] = []
        self.depth = 0
        self.region_depth = -1
        self.narration = False
        self.narration_depth = -1
        self.words: list[str] = []
        self.verdict = False
        self.violations: str | None = None
        self.handlers: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        self.depth += 1
        self.handlers += [f"{tag} {k}" for k in a if k.lower().startswith("on")]
        if tag == "html":
            self.violations = a.get("data-csp-violations")
        if a.get("id") == "view":
            self.entry = a.get("data-entry")
        if a.get("id") in ("narration", "verdict"):  # their words, the verdict's lines in paragraphs of their own
            self.narration_depth = self.depth
        self.narration = self.narration_depth >= 0
        cls = a.get("class")
        if tag == "svg" and cls and cls.startswith("pbem-board"):
            look = cls.split()[-1]
            self.looks[look] = self.rats, self.cubes, self.plague = self.looks.get(look, ({}, {}, []))
        if tag == "g" and cls == "region" and a.get("data-in-play") == "true":
            self.region, self.region_depth = str(a["data-region"]), self.depth
            self.rats[self.region], self.cubes[self.region] = [], {}
        elif tag == "g" and cls == "rat" and self.region:
            self.rats[self.region].append(str(a["data-token"]))
        elif tag == "g" and cls == "cubes" and self.region:
            self.cubes[self.region][str(a["data-player"])] = int(str(a["data-count"]))
        elif tag == "g" and cls == "plague":
            self.plague.append(str(a["data-region"]))

    def handle_endtag(self, tag: str) -> None:
        if self.depth == self.region_depth:
            self.region, self.region_depth = None, -1
        if self.depth == self.narration_depth:
            self.narration, self.narration_depth = False, -1
        self.depth -= 1

    def handle_data(self, data: str) -> None:
        if self.narration:
            self.words.append(data)


CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--enable-logging=stderr", "--v=0"]  # the page's console (CSP reports) on stderr


def csp_reports(stderr: str) -> list[str]:
    """The browser's console lines about the Content-Security-Policy (a refused script, style or handler)."""
    return [line for line in stderr.splitlines() if "CONSOLE" in line and "Content Security Policy" in line]


def browse(page: Path, seq: int) -> Drawn:
    """The page opened at ``#entry=seq``: its DOM once the script ran; no CSP report, no handler."""
    result = chromium("--dump-dom", f"{page.as_uri()}#entry={seq}")
    drawn = Drawn()
    drawn.feed(result.stdout)
    if "standard" in drawn.looks:
        drawn.rats, drawn.cubes, drawn.plague = drawn.looks["standard"]
    assert csp_reports(result.stderr) == [], "the Content-Security-Policy refused something on the page"
    assert drawn.violations == "0", "the page's securitypolicyviolation listener counted a violation"
    assert drawn.handlers == [], "an inline event handler is in the page"
    return drawn


def chromium(*args: str) -> subprocess.CompletedProcess[str]:
    browser = shutil.which("chromium")
    if browser is None:
        pytest.skip("no browser: Debian's 'chromium' is not installed (.ci/run installs it with apt-get)")
    with tempfile.TemporaryDirectory() as profile:
        return subprocess.run([browser, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", *args],
                              capture_output=True, text=True, timeout=120, check=True)
