"""Templates that cannot mislead (R7.5): a move written only from the template's own words,
as a player reads them, is never refused.

The player here reads every offered line (the card, the cubes and the Peasant's note, the
King's regions, the Merchant's moves, the Monk's rats, the plague's destinations with their
spreads) and believes what the notes say: the Peasant's +1 is already counted or comes with
taking her; a card's ability "if you take it"; a king, merchant or monk line changes the lists
below it (then the player counts again on the board, as the note tells them to).
"""

from __future__ import annotations

import dataclasses
import random
import re
from typing import Any

import pytest
from boards import THREE, board
from ordertools import Reader, games, items, kind_of, live, positions, sections, spreads  # noqa: F401

from pbem.errors import RulesError
from pbem.log.game import Game
from pbem.log.moves import parse_move
from pbem.referee import admit as referee
from pbem.referee.seatview import SeatView
from pbem.rules import MappingFaces, Phase, State, action_from_dict, apply_in_place
from pbem.views.template import template

MOVES = re.compile(r"(?P<what>.+) to (?P<to>[a-z, ]+)(: 1(-(?P<most>\d))?)?")


class Player:
    """One turn written from a template's lines, in its order, keeping the board the lines
    change (the template's note: a king, merchant or monk line changes the lists below it)."""

    def __init__(self, text: str, state: State, rng: random.Random) -> None:
        self.text, self.state, self.rng = text, state, rng
        self.me = str(state.to_move)
        self.chosen: list[str] = []
        self.took: str | None = None
        self.changed = False  # a king, merchant or monk line was written

    def now(self) -> State:
        """The board after the lines chosen so far (none of them needs a face)."""
        if not self.chosen:
            return self.state
        head = live(self.text)
        actions = parse_move(("\n".join(head + self.chosen) + "\n").encode()).to_raw()["actions"]
        state = self.state.copy()
        for a in actions:
            apply_in_place(state, self.me, action_from_dict(a), MappingFaces({}))
        return state

    def holds(self, card: str, title: str) -> bool:
        return self.state.cards[card] == self.me if "if you take it" not in title else self.took == card

    def turn(self) -> tuple[list[str], bool]:
        for title, lines in sections(self.text):
            if self.line(title, lines):
                return self.chosen, True
        return self.chosen, False

    def line(self, title: str, lines: list[str]) -> bool:
        rng, kind = self.rng, kind_of(title)
        if kind == "look" and rng.random() < 0.2 and (self.holds("witch", title) or self.state.turn.witch_open):
            rats = [t for ts in self.now().rats.values() for t in ts if t not in self.state.turn.witch_looked]
            if rats:
                self.chosen.append(f"look {rng.choice(rats)}")
                return True
        elif kind == "take" and rng.random() < 0.6:
            self.took = rng.choice(items(lines))
            self.chosen.append(f"take {self.took}")
        elif kind == "place" and lines and (self.state.phase is not Phase.FINAL or rng.random() < 0.5):
            region, n = rng.choice(items(lines)).split()
            self.chosen.append(f"place {region} {n}")
        elif title.startswith("(if you take the Peasant") and self.took == "peasant" and self.chosen:
            self.peasant_more()
        elif kind == "king" and lines and self.holds("king", title) and rng.random() < 0.6:
            regions = [r for r in items(lines) if self.king_can(r)]
            if regions:
                self.chosen.append(f"king {rng.choice(regions)}")
                self.changed = True
        elif title.startswith("merchant FROM") and self.holds("merchant", title) and rng.random() < 0.6:
            self.merchant(lines)
        elif title.startswith("monk TOKEN") and self.holds("monk", title) and rng.random() < 0.6:
            self.monk(lines)
        elif kind == "plague":
            self.plague(Reader("en").destinations(lines))
        elif kind == "spread" and lines:
            self.chosen += spreads(self.state.turn.spread_left, items(lines), rng)
        elif kind == "flip" and lines:
            self.chosen.append("flip " + " ".join(rng.sample(items(lines), len(items(lines)))))
        elif kind == "end":
            self.chosen.append("end")
        return False

    def peasant_more(self) -> None:
        """'if you take the Peasant: 1 more, or 1 where no rat is' (R5.5), while the supply lasts."""
        last = self.chosen[-1].split()
        if last[0] != "place" or self.rng.random() < 0.3:
            return
        now = self.state
        if now.supply[self.me] > int(last[2]):
            self.chosen[-1] = f"place {last[1]} {int(last[2]) + 1}"
        else:
            empty = [r for r in now.regions if not now.rats[r]]
            if empty and now.supply[self.me]:
                self.chosen[-1] = f"place {self.rng.choice(empty)} 1"

    def king_can(self, region: str) -> bool:
        now = self.now()  # the note: an earlier line may have changed the board
        return not self.changed or (now.cubes[region].get(self.me, 0) > 0 and not now.rats[region])

    def merchant(self, lines: list[str]) -> None:
        now = self.now()
        joined = " ".join(lines)
        if joined.startswith("to a neighbour (the board); FROM 1-N:"):
            offered = [(r, list(now.neighbours[r]), int(n)) for r, n in
                       (i.split() for i in items([joined.split(":", 1)[1]]))]
        else:
            offered = []
            for line in lines:
                found = MOVES.fullmatch(line)
                assert found is not None, line
                offered.append((found["what"], [r.strip() for r in found["to"].split(",")], int(found["most"] or 1)))
        source, targets, most = self.rng.choice(offered)
        most = min(most, now.cubes[source].get(self.me, 0)) if self.changed else most
        if most:
            self.chosen.append(f"merchant {source} {self.rng.choice(targets)} {self.rng.randint(1, most)}")
            self.changed = True

    def monk(self, lines: list[str]) -> None:
        now = self.now()
        joined = " ".join(lines)
        if joined.startswith("any rat, to a neighbour with under 3 rats"):
            offered = [([t], [n for n in now.neighbours[r] if len(now.rats[n]) < 3]) for r in now.regions
                       for t in now.rats[r]]
        else:
            offered = []
            for line in lines:
                found = MOVES.fullmatch(line)
                assert found is not None, line
                offered.append(([t.strip() for t in found["what"].split(",")],
                                [r.strip() for r in found["to"].split(",")]))
        offered = [(ts, rs) for ts, rs in offered if rs]
        if offered:
            tokens, targets = self.rng.choice(offered)
            self.chosen.append(f"monk {self.rng.choice(tokens)} {self.rng.choice(targets)}")
            self.changed = True

    def plague(self, destinations: list[tuple[str, int, list[str]]]) -> None:
        path, n, room = self.rng.choice(destinations)
        if self.changed:  # the note: count the rats again on the board as the lines left it (R4.1)
            now = self.now()
            there = len(now.rats[path])
            room = [r + (" (1)" if len(now.rats[r]) == 2 else "") for r in now.neighbours[path]
                    if len(now.rats[r]) < 3]
            n = min(there, 2) if room else 0
            n = min(n, len(now.rat_supply))
        self.chosen.append(f"plague {path}")
        self.chosen += spreads(n, room, self.rng)


def judged(game: Game, text: str, chosen: list[str]) -> Any:
    move = parse_move(("\n".join(live(text) + chosen) + "\n").encode())
    try:
        return referee.judge(game, move)
    except RulesError as err:
        raise AssertionError(f"{chosen}\n{text}\n{err}") from None


def test_r7_5_a_move_written_from_the_templates_own_words_is_never_refused_300_positions(
        games: dict[int, Game]) -> None:
    """Over 300 random positions a player writes the turn from the template's lines alone,
    the Merchant's moves, the Monk's rats, the King's regions and the Peasant's +1 among
    them: every such move is accepted (R7.5, R3.2, R5.1-R5.5); the kinds of line tried are
    counted and all must occur."""
    rng = random.Random(32)
    seen: set[str] = set()
    for size, state in positions(300, 32):
        game = dataclasses.replace(games[size], state=state)
        text = template(SeatView(game, str(state.to_move)))
        assert max(len(x) for x in text.splitlines()) < 40 and len(text.splitlines()) <= 45, text
        chosen, stop = Player(text, state, rng).turn()
        assert judged(game, text, chosen).complete != stop, (chosen, text)
        seen |= {line.split()[0] for line in chosen}
        seen |= {"peasant +1" for line in chosen if line.startswith("place") and "take peasant" in chosen}
    assert seen >= {"take", "place", "king", "merchant", "monk", "plague", "spread", "look", "peasant +1"}, seen


def peasant_board(holder: str | None) -> State:
    return board(plague="hispania", players=THREE, rats={"anglia": ["t01"], "gallia": ["t02", "t03"]},
                 cards={"peasant": holder} if holder else {})


@pytest.mark.parametrize("lang", ["en", "hu", "el", "uk"])
def test_r5_5_the_peasants_held_counts_already_include_her_cube_and_say_so_once(
        games: dict[int, Game], lang: str) -> None:
    """R5.5: holding the Peasant, Anglia with 1 rat is offered as 'anglia 1, anglia 2' and the
    note says the +1 is already in; 'place anglia 2' (the larger, as written) is accepted, and
    no line says to add a cube more."""
    state = peasant_board("red")
    game = dataclasses.replace(games[3], state=state)
    text = template(SeatView(game, "red"), lang=lang)
    if lang == "en":
        assert "(these counts already include the\n#  Peasant's +1, R5.5)" in text, text
        assert "1 cube more" not in text and "if you take the Peasant" not in text, text
        assert "anglia 1, anglia 2" in text
    verdict = judged(game, text, ["place anglia 2", "plague italia"])
    assert verdict.complete
    with pytest.raises(AssertionError, match=r"R3\.2|R5\.5"):
        judged(game, text, ["place anglia 3", "plague italia"])  # what the old note led players to write


def test_r5_5_the_peasant_not_held_is_one_more_only_if_you_take_her(
        games: dict[int, Game]) -> None:
    """R5.5, R3.1: the Peasant is free; the list is without her, and the note says 'if you take
    the Peasant: 1 more'; taking her, 'place anglia 2' (1 rat, +1) and 'place hispania 1' (no
    rat) are accepted; without taking her, 'anglia 1' as listed."""
    state = peasant_board(None)
    game = dataclasses.replace(games[3], state=state)
    text = template(SeatView(game, "red"))
    assert "(if you take the Peasant, R5.5: 1\n#  more, or 1 where no rat is)" in text, text
    assert "#   anglia 1, gallia 2" in text, text
    for lines in (["take peasant", "place anglia 2"], ["take peasant", "place hispania 1"], ["place anglia 1"]):
        assert judged(game, text, [*lines, "plague italia"]).complete


def test_r5_2_r5_3_the_merchants_destinations_and_the_monks_regions_are_listed(
        games: dict[int, Game]) -> None:
    """R5.2: 'merchant FROM TO N' lists, per region with the player's cubes, where they may go
    and how many; R5.3: 'monk TOKEN REGION' lists each region's rats and where they may go (a
    neighbour with fewer than 3 rats); a card not held says 'if you take it'."""
    state = board(plague="hispania", players=THREE, rats={"anglia": ["t01"], "gallia": ["t02", "t03", "t04"]},
                  cubes={"anglia": {"red": 2}}, cards={"merchant": "red"})
    game = dataclasses.replace(games[3], state=state)
    text = template(SeatView(game, "red"))
    assert "# merchant FROM TO N (R5.2), one of:\n#   anglia to scandia, gallia: 1-2\n" in text, text
    monk = "# monk TOKEN REGION (R5.3), if you take\n#  it, one of:\n#   t01 to scandia\n#   t02, t03, t04 to"
    assert monk in text, text
    assert judged(game, text, ["merchant anglia gallia 2", "place gallia 3", "plague italia"]).complete
    assert judged(game, text, ["take monk", "monk t01 scandia", "place gallia 3", "plague italia"]).complete
    with pytest.raises(AssertionError, match=r"R3\.1|R5\.3|Monk"):
        judged(game, text, ["monk t01 scandia", "place gallia 3", "plague italia"])  # not taken: refused
