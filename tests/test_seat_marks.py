"""Each seat's pieces carry a mark besides their colour (the board picture, the viewer, a site's
game page, a report mail's picture): a reader who does not tell red from green reads the mark.
The marks are the seats' initials; two seats with one initial get a second letter each."""

from __future__ import annotations

import re
from pathlib import Path

from pbem.host.games import load_game
from pbem.views.drawing import player_colours, seat_marks
from pbem.views.svg import COMPACT, map_svg

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def test_a_seat_is_marked_by_its_initial() -> None:
    assert seat_marks(("red", "green", "blue", "yellow")) == {"red": "R", "green": "G", "blue": "B", "yellow": "Y"}


def test_two_seats_with_one_initial_are_told_apart_by_a_second_letter() -> None:
    assert seat_marks(("blue", "brown", "red")) == {"blue": "Bl", "brown": "Br", "red": "R"}
    marks = seat_marks(("blue", "brown", "black"))
    assert len(set(marks.values())) == 3 and all(m.startswith("B") for m in marks.values()), marks
    marks = seat_marks(("bo", "bob"))  # no letter tells them apart: the seat's number does
    assert len(set(marks.values())) == 2, marks


def test_every_pile_of_cubes_on_the_board_says_whose_it_is_in_both_looks() -> None:
    game = load_game(EXAMPLES / "rattus-4p")
    marks = seat_marks(game.players)
    colours = player_colours(game.players)
    for look in (None, COMPACT):
        svg = map_svg(game) if look is None else map_svg(game, look=look)
        piles = re.findall(r'<g class="cubes" data-player="(\w+)" data-count="(\d+)" data-mark="(\w+)">'
                           r'<rect [^>]*fill="(#[0-9a-f]{6})"[^>]*/><text [^>]*>(\w+)</text>', svg)
        assert len(piles) == svg.count('class="cubes"') > 0
        for player, count, mark, fill, words in piles:
            assert mark == marks[player] and words == mark + count and fill == colours[player]
