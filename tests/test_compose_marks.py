"""Each seat's cubes on the composer's board carry the seat's letter beside its colour (as the
viewer's do, :func:`pbem.views.drawing.seat_marks`), so that a player who does not tell red from
green tells the seats apart, at every step of a turn the page redraws."""

from __future__ import annotations

import random
from pathlib import Path

from cdp import Browser
from composetools import ONE_TAP, PLAYERS, SECRET, Played, demo_dirs, played, positions  # noqa: F401 (fixtures)

from pbem.referee.seatview import SeatView
from pbem.views.compose import compose_page
from pbem.views.drawing import seat_marks

PILES = """Array.prototype.map.call(document.querySelectorAll('#board .cubes'), function (g) {
  return [g.getAttribute('data-player'), g.getAttribute('data-count'), g.querySelector('text').textContent];
})"""



def test_every_cube_pile_carries_its_seats_letter(browser: Browser, played: Played, tmp_path: Path) -> None:
    """R2: every pile of cubes drawn, before and after each tap, reads the seat's letter and the
    count (red's 2 cubes: R2), and no two seats share a letter."""
    marks = seat_marks(PLAYERS)
    assert len(set(marks.values())) == len(PLAYERS)
    rng, piles = random.Random(2), 0
    for n, (game, _seq) in enumerate(positions(played, 6, seed=37)):
        assert game.state is not None and game.state.to_move is not None
        page = tmp_path / f"marks-{n}.html"
        page.write_text(compose_page(SeatView(game, game.state.to_move), "host@example.org"), encoding="utf-8")
        browser.open(page)
        while True:
            for player, count, text in browser.eval(PILES):
                assert text == f"{marks[player]}{count}", (n, player, text)
                piles += 1
            if not browser.eval(ONE_TAP.replace("PICK", str(rng.randrange(1000)))):
                break
    assert piles >= 100, piles
