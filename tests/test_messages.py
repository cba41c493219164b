"""The messages a new player met, each as they expect it; the rules
reference; faces in words."""

from __future__ import annotations

import dataclasses
import random
import re
from pathlib import Path
from typing import Any

import pytest
from clitools import cli

from pbem.bots.randombot import random_action
from pbem.data import default_catalogue
from pbem.errors import FormatError, PbemError, RulesError, StaleError
from pbem.host.create import NewGame, create
from pbem.log.game import Game
from pbem.log.moves import after_of, parse_move
from pbem.log.records import move_of
from pbem.mail.accept import refused_text
from pbem.referee import admit as referee
from pbem.referee.seatview import Look, SeatView
from pbem.rules import NoFaces, Phase, apply_in_place
from pbem.rules.data import face_words
from pbem.rules.events import TokenFlipped
from pbem.sim.demo import open_game
from pbem.views.rulesref import rules, sentence
from pbem.views.text import describe_event, private_lines

PBEM = Path(__file__).resolve().parent.parent / "pbem"


@pytest.fixture(scope="module")
def game(tmp_path_factory: pytest.TempPathFactory) -> Game:
    """Red's first turn of a 3-player game, every card unowned, one rat a region."""
    games = tmp_path_factory.mktemp("games")
    create(games, NewGame("g", ("red", "green", "blue"), secret=bytes(32), first="red"))
    started = open_game(games, "g", nonces={p: bytes([i]) * 16 for i, p in enumerate(("red", "green", "blue"))})
    assert started.state is not None
    state = started.state.copy()
    rng = random.Random(3)
    while state.phase is Phase.SETUP:
        apply_in_place(state, state.to_move or "", random_action(state, rng), NoFaces())
    return dataclasses.replace(started, state=state)


def move_text(game: Game, actions: str, after: dict[str, Any] | None = None) -> str:
    after = after or after_of(game)
    return (f"game: g\nplayer: red\nkind: move\nafter: {{seq: {after['seq']}, hash: \"{after['hash']}\"}}\n"
            f"actions:\n{actions}")


def refusal(game: Game, text: str | bytes) -> PbemError:
    data = text.encode() if isinstance(text, str) else text
    with pytest.raises(PbemError) as caught:
        referee.judge(game, parse_move(data))
    return caught.value


def place_line(game: Game, avoid: str = "") -> str:
    assert game.state is not None
    region = next(r for r in game.state.regions if game.state.rats[r] and r != avoid)
    return f"  - {{action: place, region: {region}, count: {len(game.state.rats[region])}}}\n"


def test_region_names_in_any_case_are_normalised(game: Game) -> None:
    assert game.state is not None
    region = next(r for r in game.state.regions if game.state.rats[r])
    name = game.board.name_of(region)  # as 'pbem show' prints it: "Gallia"
    move = parse_move(move_text(game, f"  - {{action: place, region: {name}, count: 1}}\n").encode())
    assert move.to_raw()["actions"][0]["region"] == region
    with pytest.raises(RulesError, match=r"R7\.5"):  # the name is known; only the turn is unfinished
        referee.judge(game, move)


def test_a_misspelt_region_gets_did_you_mean(game: Game) -> None:
    err = refusal(game, move_text(game, "  - {action: place, region: galia, count: 1}\n"))
    assert isinstance(err, RulesError)
    assert "'galia' is not a region in use in this game; did you mean gallia?" in err.message


def test_a_non_neighbour_lists_the_neighbours(game: Game) -> None:
    assert game.state is not None
    plague = game.state.plague
    far = next(r for r in game.state.regions if r != plague and r not in game.state.neighbours[plague])
    err = refusal(game, move_text(game, place_line(game) + f"  - {{action: move_plague, path: [{far}]}}\n"))
    assert f"{far} is not a neighbour of {plague} (its neighbours: " \
           f"{', '.join(game.state.neighbours[plague])})" in err.message


def test_one_spread_too_many_says_how_many_were_drawn(game: Game) -> None:
    assert game.state is not None
    s = game.state
    # a neighbour of the plague with one rat and no cube: it spreads 1 rat, and no outbreak follows
    dest = next(r for r in s.neighbours[s.plague] if len(s.rats[r]) == 1 and not any(s.cubes[r].values()))
    room = next(n for n in s.neighbours[dest] if len(s.rats[n]) < 3)
    err = refusal(game, move_text(game, place_line(game, avoid=dest))
                  + f"  - {{action: move_plague, path: [{dest}]}}\n"
                  + f"  - {{action: spread, region: {room}}}\n" * 2)
    assert err.rule == "R4.1"
    assert "action 4 (spread): only 1 rat was drawn when the plague moved" in err.message
    assert "turn" not in err.message


def test_a_tab_is_named_with_the_fix(game: Game) -> None:
    err = refusal(game, move_text(game, "\t- {action: place, region: gallia, count: 1}\n"))
    assert isinstance(err, FormatError)
    assert "line 6 holds a tab; YAML indents with spaces only: replace the tab with spaces" in err.message


def test_a_utf16_file_is_named_with_the_fix(game: Game) -> None:
    for encoding in ("utf-16", "utf-16-le", "utf-16-be"):
        err = refusal(game, move_text(game, place_line(game)).encode(encoding))
        assert isinstance(err, FormatError)
        assert "is UTF-16 text, not UTF-8: save it again as UTF-8" in err.message


def test_an_old_hash_with_the_right_seq_is_worded_right(game: Game) -> None:
    old = {"seq": game.last_seq, "hash": game.hashes[game.last_seq - 2][:16]}
    err = refusal(game, move_text(game, place_line(game), old))
    assert isinstance(err, StaleError)
    assert f"is the hash of entry {game.last_seq - 2}, not of entry {game.last_seq}" in err.message
    assert "no such entry" not in err.message


def test_actions_count_from_1_in_schema_and_shape_errors(game: Game) -> None:
    err = refusal(game, move_text(game, place_line(game) + "  - {action: place, region: gallia}\n"))
    assert isinstance(err, FormatError)
    assert "at action 2: 'count' is a required property" in err.message
    bad = move_of({**parse_move(move_text(game, place_line(game)).encode()).to_raw(),
                   "actions": [{"action": "place", "region": "gallia", "count": 1},
                               {"action": "monk", "token": "t01"}]})
    with pytest.raises(FormatError, match="action 2: action monk: missing field 'target'"):
        referee.judge(game, bad)


@pytest.mark.parametrize("value", ['""', '"00"', "00"])
def test_placeholders_are_never_accepted(value: str) -> None:
    text = f"game: g\nplayer: red\nkind: nonce\nafter: {{seq: 0, hash: \"{'0' * 16}\"}}\nnonce: {value}\n"
    with pytest.raises(FormatError) as caught:
        parse_move(text.encode())
    if value == '""':
        assert "at nonce: is empty: fill it in" in caught.value.message


# --- item 4: the rules reference ------------------------------------------------------------

def test_every_rule_cited_in_pbem_is_in_the_reference() -> None:
    cited: set[str] = set()
    for path in PBEM.rglob("*.py"):
        cited |= set(re.findall(r"\b(R[1-8](?:\.\d+)?|P(?:10|[1-9]))\b", path.read_text(encoding="utf-8")))
    assert cited, "no rule cited"
    missing = sorted(c for c in cited if c not in rules())
    assert not missing, missing


def test_the_reference_is_numbered_like_the_rules() -> None:
    expected = {f"R{n}.{k}" for n, top in ((1, 7), (2, 6), (3, 4), (4, 5), (5, 7), (6, 5), (7, 4), (8, 4))
                for k in range(1, top + 1)} | {f"P{n}" for n in range(1, 11)}
    assert expected <= set(rules())


def test_pbem_rules_looks_up_a_number_and_a_word() -> None:
    out = cli("rules", "R3.2")
    assert out.exit_code == 0 and out.output.startswith("R3.2  Phase B:")
    assert "R5.6" in cli("rules", "witch").output
    assert cli("rules", "nothing-like-this").exit_code == 6


def test_a_mailed_refusal_quotes_the_rule() -> None:
    text = refused_text(RulesError("you cannot place there", "R3.2"))
    assert f'R3.2 says: "{sentence("R3.2")}"' in text
    assert sentence("R3.2") == ("Phase B: you place on one region in use as many cubes as it holds rats "
                                "(all you have left if your supply is short).")


# --- item 5: faces in words -------------------------------------------------------------------

def test_faces_in_words(game: Game) -> None:
    token = next(t for t in default_catalogue().tokens if "M" in t.symbols and len(t.symbols) > 1)
    words = face_words(token)
    assert words.startswith(f"threshold {token.threshold}: majority, ")
    flipped = describe_event(game, TokenFlipped("t04", token.id, "gallia", 2, token.threshold, True))
    assert words in flipped
    look = private_lines(SeatView(game, game.players[0], [Look(game.last_seq, "t04", token.id, "ab")]))
    assert f"you saw rat t04 = {token.id} ({words}; entry {game.last_seq}; salt ab)" in look[0]
