"""Shared helpers for the composer page's tests: seeded demo positions with a seat to move, and
the script that clicks a whole turn in a real browser."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from pbem.log.game import Game
from pbem.log.logfile import LOG_NAME
from pbem.sim.demo import play_demo
from pbem.views.timeline import game_at, read_checked

SECRET = bytes(range(32))


PLAYERS = ("red", "green", "blue")


CLICK_A_TURN = """
(function (seed) {
  var s = seed, clicks = [];
  function rnd(n) { s = (s * 1103515245 + 12345) % 2147483648; return s % n; }
  for (var i = 0; i < 200 && document.getElementById('view').getAttribute('data-complete') !== 'true'; i++) {
    var targets = Array.prototype.slice.call(document.querySelectorAll(
      '#choices button:not(.cancel), #board .region.can'));
    if (!targets.length) { break; }
    var t = targets[rnd(targets.length)];
    clicks.push(t.getAttribute('data-token') || t.getAttribute('data-region') || t.textContent);
    t.dispatchEvent(new MouseEvent('click', {bubbles: true}));
    if (rnd(10) === 0 && !document.getElementById('undo').disabled) {
      document.getElementById('undo').click(); clicks.push('undo');
    }
  }
  return {text: document.getElementById('move').textContent, clicks: clicks,
          complete: document.getElementById('view').getAttribute('data-complete')};
})(SEED)
"""
"""Taps a random legal turn on a composer page: any tap target (a button, or a region the
page offers), now and then an undo, until the page says the move is complete."""


ONE_TAP = """(function (pick) {
  var targets = document.querySelectorAll('#choices button:not(.cancel), #board .region.can');
  if (!targets.length || document.getElementById('view').getAttribute('data-complete') === 'true') { return false; }
  targets[pick % targets.length].dispatchEvent(new MouseEvent('click', {bubbles: true}));
  return true;
})(PICK)"""
"""One tap on a composer page: the target numbered PICK (modulo their count) among the buttons and
regions it offers now; false once the move is complete or nothing is offered."""


MEASURE = """
(function () {
  var small = [], sel = 'button, a.button:not(.off), #board .region.can, input';
  document.querySelectorAll(sel).forEach(function (el) {
    if (!el.getClientRects().length) { return; }
    var r = el.getBoundingClientRect();
    if (r.width >= 40 && r.height >= 40) { return; }
    small.push((el.id || el.textContent).slice(0, 30) + ' ' + r.width + 'x' + r.height);
  });
  return {small: small, scroll: document.documentElement.scrollWidth, width: document.documentElement.clientWidth,
          viewport: !!document.querySelector('meta[name=viewport]'),
          csp: document.documentElement.getAttribute('data-csp-violations')};
})()
"""


@pytest.fixture(scope="module")
def demo_dirs(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """Two seeded random games, played to the end: each game's folder."""
    dirs = []
    for seed in (3, 8):
        games = tmp_path_factory.mktemp("compose") / "games"
        play_demo(games, 3, seed=seed, echo=None, summary=lambda _line: None, game_id="g", secret=SECRET,
                  nonces={p: bytes([i + 1]) * 32 for i, p in enumerate(PLAYERS)})
        dirs.append(games / "g")
    return dirs


Played = list[tuple[list[Any], list[str]]]
"""(entries, hashes) of each demo game."""


@pytest.fixture(scope="module")
def played(demo_dirs: list[Path]) -> Played:
    """(entries, hashes) of each game of :func:`demo_dirs`."""
    return [read_checked(d / LOG_NAME) for d in demo_dirs]


def positions(played: Played, count: int, seed: int) -> list[tuple[Game, int]]:
    """``count`` positions of the games, with a seat to move, picked by a seeded draw."""
    every = []
    for entries, hashes in played:
        for seq in range(len(entries)):
            game = game_at(entries, hashes, seq)
            if game.state is not None and game.state.to_move is not None:
                every.append((game, seq))
    return random.Random(seed).sample(every, count)
