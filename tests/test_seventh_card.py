"""A seventh class card, declared once: a deck of its own (the six cards of R1.5 and a
Herald) whose card, action and rule are written in one place, tests/heraldtools.py, and then taken by
every part pbem derives from a deck: the schema's card and action parts, the notation's
words, the engine and the generators (a whole game played through the checked path), the
text's names and sentences, the greedy bot's weight.

The Herald is this test's card, not Rattus's.  Its rule, "R5.7" here: once a turn, as
the other abilities before phase C or in the final round, its holder puts one cube from
their supply in a region where they have none.

What a deck of one's own does not reach: a log records no deck (entry 0 names the edition,
P3), so the referee, the log's shape check and the shipped schemas play the six cards only
(the last test holds that they refuse the Herald's action, as they must).
"""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path

import jsonschema
import pytest
from boards import NO_FACES, board, final_round, refused
from heraldtools import SEVEN, Herald

from pbem.errors import FormatError
from pbem.host.games import load_game
from pbem.i18n import translator
from pbem.log import notation, notation_write, schemaparts
from pbem.log.moves import SCHEMA_NAMES, SCHEMAS, parse_move
from pbem.log.notation import NotationError
from pbem.rules import (
    DECK,
    EndTurn,
    Phase,
    State,
    TakeCard,
    action_from_dict,
    apply_in_place,
    legal_actions,
    new_state,
)
from pbem.rules.actions import ActionFormatError
from pbem.rules.cards import FINAL, MAIN, RULES, WEIGHTS, action_from_dict
from pbem.rules.data import CLASSES
from pbem.rules.events import CubesPlaced
from pbem.rules.state import Deck, Stage, Table
from pbem.sim.simulate import check_invariants, new_random_game
from pbem.views.svg import board_svg
from pbem.views.text import board_lines, describe_action, region_word

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


# --- the deck -----------------------------------------------------------------------------

def test_the_deck_of_seven_is_the_shipped_one_and_the_herald() -> None:
    assert SEVEN.cards == (*DECK.cards, "herald") and len(DECK.cards) == 6
    assert list(SEVEN.action_types) == [*DECK.action_types, "herald"]
    assert SEVEN.kinds[Phase.TURN, MAIN[1]][-1] is Herald and SEVEN.kinds[FINAL][-1] is Herald
    assert SEVEN.weights["herald"] == 0.2


def test_a_deck_refuses_a_card_it_does_not_weigh_or_an_ability_of_no_card_of_it() -> None:
    with pytest.raises(ValueError, match="each once"):
        Deck.make((*CLASSES, "herald"), WEIGHTS, RULES)
    with pytest.raises(ValueError, match="each once"):
        Deck.make(CLASSES, WEIGHTS, SEVEN.rules)


# --- the schema ---------------------------------------------------------------------------

def _schemas(deck: Deck) -> dict[str, dict[str, object]]:
    texts = ((name, (SCHEMAS / name).read_text(encoding="utf-8")) for name in SCHEMA_NAMES)
    return {name: json.loads(text) for name, text in schemaparts.generated(texts, deck).items()}


def _move(*actions: dict[str, object]) -> dict[str, object]:
    return {"game": "g", "player": "red", "kind": "move", "after": {"seq": 3, "hash": "0" * 64},
            "actions": list(actions)}


def test_the_schema_made_from_the_deck_takes_the_heralds_card_and_action() -> None:
    move = jsonschema.Draft202012Validator(_schemas(SEVEN)["move.json"])
    assert move.is_valid(_move({"action": "take_card", "card": "herald"}, {"action": "herald", "region": "gallia"}))
    assert not move.is_valid(_move({"action": "herald"}))  # its field is required
    assert not move.is_valid(_move({"action": "herald", "region": "gallia", "count": 1}))  # and the only one
    assert not move.is_valid(_move({"action": "herald", "region": "Not A Region"}))
    event = _schemas(SEVEN)["entry.json"]["$defs"]
    assert isinstance(event, dict) and "herald" in json.dumps(event["event"])


def test_the_shipped_schema_and_readers_know_six_cards_only() -> None:
    """A log records no deck: what pbem reads is the shipped deck's (the Herald is refused there)."""
    shipped = jsonschema.Draft202012Validator(_schemas(DECK)["move.json"])
    assert not shipped.is_valid(_move({"action": "herald", "region": "gallia"}))
    assert not shipped.is_valid(_move({"action": "take_card", "card": "herald"}))
    with pytest.raises(FormatError, match="herald"):
        parse_move(json.dumps(_move({"action": "herald", "region": "gallia"})).encode(), "the move")
    with pytest.raises(ActionFormatError, match="unknown action 'herald'"):
        action_from_dict({"action": "herald", "region": "gallia"})
    assert action_from_dict({"action": "herald", "region": "gallia"}, SEVEN) == Herald("gallia")


# --- the notation -------------------------------------------------------------------------

def test_r7_3_the_notation_reads_and_writes_the_heralds_line() -> None:
    text = "game g red\nafter 3 0000000000000000\ntake Herald\nHerald Gallia\n"
    move = notation.parse(text, deck=SEVEN)
    assert move["actions"] == [{"action": "take_card", "card": "herald"}, {"action": "herald", "region": "gallia"}]
    lines = [notation_write.action_line(action_from_dict(a, SEVEN), SEVEN) for a in move["actions"]]
    assert lines == ["take herald", "herald gallia"]
    with pytest.raises(NotationError, match="the line is 'herald REGION'"):
        notation.parse("herald gallia anglia\n", deck=SEVEN)
    with pytest.raises(NotationError, match="is not a move line"):
        notation.parse("herald gallia\n")  # the shipped words have no 'herald'
    with pytest.raises(NotationError, match="'Herald' is not a card name"):
        notation.parse(text)  # nor the shipped cards a Herald


# --- the rules ----------------------------------------------------------------------------

def _heralds_board() -> State:
    return board(plague="italia", deck=SEVEN, cards={"herald": "red"}, cubes={"gallia": {"red": 2}})


def test_r5_7_the_herald_puts_a_cube_from_the_supply_where_its_holder_has_none() -> None:
    state = _heralds_board()
    events = apply_in_place(state, "red", Herald("anglia"), NO_FACES)
    assert events == [CubesPlaced("red", "anglia", 1)]
    assert state.cubes["anglia"] == {"red": 1} and state.supply["red"] == 20 - 2 - 1
    err = refused(state, "red", Herald("hispania"))
    assert err.rule == "R5.7" and "already used" in str(err)


def test_r5_7_the_herald_is_refused_where_the_holder_has_a_cube_and_to_others() -> None:
    state = _heralds_board()
    err = refused(state, "red", Herald("gallia"))
    assert (err.rule, str(err)) == ("R5.7", "illegal move (R5.7): you already have a cube in gallia")
    state.current = state.players.index("green")
    err = refused(state, "green", Herald("anglia"))
    assert (err.rule, str(err)) == ("R5.7", "illegal move (R5.7): you do not hold the Herald card")


def test_r5_the_herald_comes_before_phase_c_and_is_listed_with_the_legal_actions() -> None:
    state = _heralds_board()
    listed = [a for a in legal_actions(state) if isinstance(a, Herald)]
    assert {a.region for a in listed} == set(state.regions) - {"gallia"}
    assert TakeCard("herald") not in legal_actions(state)  # R3.1: red holds it already
    state.turn.stage, state.turn.spread_left = Stage.SPREAD, 1  # phase C: the plague has moved (R3.3)
    err = refused(state, "red", Herald("anglia"))
    assert (err.rule, str(err)) == ("R5", "illegal move (R5): class abilities come before phase C (moving the plague)")


def test_r3_1_another_player_takes_the_herald_and_uses_it_in_the_final_round() -> None:
    state = _heralds_board()
    state.current = state.players.index("green")
    assert TakeCard("herald") in legal_actions(state)
    apply_in_place(state, "green", TakeCard("herald"), NO_FACES)
    assert state.cards["herald"] == "green"
    final_round(state, "yellow", ["green", "red"])
    assert Herald("anglia") in legal_actions(state)
    apply_in_place(state, "green", Herald("anglia"), NO_FACES)
    apply_in_place(state, "green", EndTurn(), NO_FACES)
    assert state.to_move == "red"


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_whole_game_with_seven_cards_through_the_checked_path(seed: int) -> None:
    """From a dealt start to the scores (R6.5), every action chosen among the legal ones and
    applied by the engine's checked path; the Herald is taken and used, no cube is lost (R1.3)."""
    dealt, faces = new_random_game(3, seed)
    state = new_state(dealt.players, dealt.players[dealt.current], dealt.regions, dealt.neighbours,
                      {r: list(t) for r, t in dealt.rats.items()}, dealt.rat_supply, dealt.removed, dealt.plague,
                      dealt.table.catalogue, deck=SEVEN)
    rng = random.Random(seed)
    used = 0
    while (player := state.to_move) is not None:
        options = legal_actions(state)
        heralds_now = [a for a in options if isinstance(a, Herald)]
        action = rng.choice(heralds_now) if heralds_now and rng.random() < 0.5 else rng.choice(options)
        apply_in_place(state, player, action, faces)
        used += isinstance(action, Herald)
        check_invariants(state)
    assert used > 0 and state.phase is Phase.OVER


# --- the text -----------------------------------------------------------------------------

def test_the_text_and_the_picture_name_the_herald_and_the_text_says_its_action(tmp_path: Path) -> None:
    shutil.copytree(EXAMPLES / "rattus-3p", tmp_path / "g", ignore=shutil.ignore_patterns("moves"))
    game = load_game(tmp_path / "g").fork()
    assert game.state is not None
    old = game.state
    table = old.table
    game.state = State(Table(table.players, table.regions, table.neighbours, table.catalogue, SEVEN), old.rats,
                       old.cubes, old.palace, old.supply, old.rat_supply, old.removed, old.flipped,
                       {**old.cards, "herald": "red"}, old.plague, old.phase, old.current, old.queue, old.turn,
                       old.turn_number, old.last_player)
    cards = next(line for line in board_lines(game) if line.strip().startswith("cards:"))
    assert cards.endswith("Herald: red")
    picture = board_svg(game)
    assert 'data-card="herald" data-holder="red"' in picture and ">Herald</text>" in picture
    assert describe_action(game, Herald("gallia")) == "Herald: place a cube in Gallia"
    in_hungarian = translator("hu").say(region_word(game, "gallia"))  # its sentence has no catalog entry: English,
    assert in_hungarian != "gallia"  # with the region as its Hungarian players name it
    assert describe_action(game, Herald("gallia"), "hu") == f"Herald: place a cube in {in_hungarian}"

