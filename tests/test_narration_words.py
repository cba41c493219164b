"""Narration in words: why a cube is lost (R4.3: the majority, every cube, the card), an
outbreak that takes no cube says so, and the trust and bot-seat paragraphs are said in full
once (the invitation, the end mail, `show`) and as a one-line mark in every other mail."""

from __future__ import annotations

from pathlib import Path

import pytest
from boards import THREE, board, faces, play, tok
from ordertools import games  # noqa: F401

from pbem.host.create import NewGame, create
from pbem.log.game import Game
from pbem.rules import Flip, MovePlague
from pbem.views.narrate import event_lines
from pbem.views.report import report_lines
from pbem.views.trust import TRUST, TRUST_MARK
from pbem.rules.events import Event


def outbreak(symbols: tuple[str, ...], cubes: dict[str, int],
             cards: dict[str, str] | None = None) -> list[Event]:
    """Red moves the plague into Gallia, where rat t01 (threshold 1, ``symbols``) is flipped."""
    state = board(plague="hispania", players=THREE, rats={"gallia": ["t01"]}, cubes={"gallia": cubes},
                  cards=cards or {}, placed=True, rat_supply=())
    events = play(state, "red", [MovePlague(("gallia",)), Flip("t01")], faces(t01=tok(1, *symbols)))
    return list(events)


@pytest.mark.parametrize(("symbols", "cubes", "cards", "said"), [
    (("M",), {"red": 2, "green": 1}, None,
     "red loses a cube in Gallia: the most cubes there (majority, R4.3)"),
    (("A",), {"red": 2, "green": 1}, None,
     "green loses a cube in Gallia: every player there loses one (all, R4.3)"),
    (("merchant",), {"red": 2, "green": 1}, {"merchant": "green"},
     "green loses a cube in Gallia: the rat shows the Merchant, which green holds (R4.3)"),
])
def test_r4_3_a_lost_cube_says_why(games: dict[int, Game], symbols: tuple[str, ...],
                                   cubes: dict[str, int], cards: dict[str, str] | None, said: str) -> None:
    lines = event_lines(games[3], outbreak(symbols, cubes, cards))
    assert f"  {said}" in lines, lines
    assert not any(line.endswith(("(M)", "(A)", "(merchant)")) for line in lines), lines


def test_r4_3_an_outbreak_that_takes_no_cube_says_so(games: dict[int, Game]) -> None:
    """The Monk's symbol, and the Monk's holder has no cube in Gallia: the plague breaks out
    and nobody loses a cube; the narration says so, and why, right after the flip."""
    lines = event_lines(games[3], outbreak(("monk",), {"red": 2}, {"monk": "green"}))
    flip = next(i for i, line in enumerate(lines) if "the plague breaks out" in line)
    assert lines[flip + 1] == "  nobody loses a cube: no symbol of this rat hits a cube there (R4.3)", lines
    lost = event_lines(games[3], outbreak(("M",), {"red": 2}))
    assert not any("nobody loses" in line for line in lost), lost


def test_p1_a_report_mail_carries_the_trust_mark_not_the_paragraph(tmp_path: Path) -> None:
    """The mails after a move (the report without the host's private hint) say the trust
    statement in one line and each notice in a few words; `pbem apply` at the host's terminal
    and the end mail say them in full."""
    create(tmp_path, NewGame("b", ("red", "green", "blue"), secret=bytes(32), first="red", bots={"blue": "random"}))
    from pbem.host.games import load_game

    game = load_game(tmp_path / "b")
    mailed = report_lines(game, game.entries[-1:], private_hint=False)
    assert str(TRUST) not in mailed and str(TRUST_MARK) in mailed, mailed
    assert "BOT SEATS: blue, the host's bots (P4)." in mailed and len(max(mailed, key=len)) <= len(TRUST_MARK)
    terminal = report_lines(game, game.entries[-1:])
    assert str(TRUST) in terminal and any(line.startswith("BOT SEATS: blue (random) played by") for line in terminal)
