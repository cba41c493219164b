"""The opening's page (P4) as a player meets it, in both rounds and every language: every control it
shows does something (no undo: there is nothing to undo), it speaks of secret words, a secret number
and its fingerprint, never of a "nonce", and it shows no legend of the map's marks (no entry has
changed a region, and nothing is tapped on the map).
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from cdp import Browser
from clitools import ok

from pbem.host.games import load_game
from pbem.log.yamlio import dump_yaml
from pbem.player.nonces import commit_move
from pbem.referee.seatview import SeatView
from pbem.views.compose import compose_page

PLAYERS = ("red", "green", "blue")

SHOWN = """(function () {
  var view = document.getElementById('view');
  return {text: view.innerText,
          controls: Array.prototype.filter.call(view.querySelectorAll('button, input, a, [tabindex]'), function (e) {
            return e.getClientRects().length && !e.disabled && e.getAttribute('aria-disabled') !== 'true';
          }).map(function (e) { return e.id || e.className || e.textContent; }),
          undo: !!document.getElementById('undo'), legend: !!document.querySelector('#left > p.note:not([id])')};
})()"""


@pytest.fixture
def games(tmp_path: Path) -> Path:
    folder = tmp_path / "games"
    secret = tmp_path / "secret.hex"
    secret.write_text("5e" * 32)
    ok("new", "op", "--players", ",".join(PLAYERS), "--secret-file", secret, "--games", folder)
    return folder


def _commit_all(games: Path) -> None:
    for i, seat in enumerate(PLAYERS):
        move = games.parent / f"{seat}-commit.yaml"
        move.write_text(dump_yaml(commit_move(load_game(games / "op"), seat, bytes([i + 1]) * 32)), encoding="utf-8")
        ok("apply", move, "--games", games)


def test_the_opening_page_shows_only_controls_that_act_and_the_players_words(
        browser: Browser, games: Path, tmp_path: Path) -> None:
    """P4, both rounds, en/hu/el/uk: the only enabled controls are the words' field (round 2: and
    the code's and the file's) and the button that makes or uses the number; no undo, no map's
    legend, and no "nonce" anywhere in what the page shows."""
    for round_ in (1, 2):
        if round_ == 2:
            _commit_all(games)
        for lang in ("en", "hu", "el", "uk"):
            page = tmp_path / f"opening-{round_}-{lang}.html"
            page.write_text(compose_page(SeatView(load_game(games / "op"), "red"), "host@example.org", lang),
                            encoding="utf-8")
            browser.open(page)
            time.sleep(0.1)  # the script's fields are made after the load
            shown = browser.eval(SHOWN)
            assert not shown["undo"] and not shown["legend"], (round_, lang, shown)
            assert "nonce" not in shown["text"].lower(), (round_, lang, shown["text"])
            fields = {1: ["words-in", "make"], 2: ["nonce-in", "code-in", "use", "nonce-load"]}[round_]
            assert shown["controls"] == fields, (round_, lang, shown["controls"])
