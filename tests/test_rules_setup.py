"""RULES.md R1 (components) and R2 (setup), one rule per test."""

from __future__ import annotations

import hashlib

import pytest
from boards import FOUR, THREE, TWO, board, faces, play, refused, tiny_board, tok

from pbem.data import default_board, default_catalogue
from pbem.fair import protocol
from pbem.fair.dealing import start_state
from pbem.rules import (
    King,
    Merchant,
    Monk,
    MovePlague,
    Phase,
    Place,
    Spread,
    State,
    TakeCard,
    WitchLook,
    new_state,
)
from pbem.rules.data import Catalogue, GameDataError
from pbem.rules.events import CardTaken, TokenLooked


def seed(text: str) -> bytes:
    return hashlib.sha256(text.encode()).digest()


def dealt(n: int, k: int = 0, first: str | None = None) -> protocol.Deal:
    return protocol.deal(
        seed(f"setup/{n}/{k}"), FOUR[:n], first, default_board(), default_catalogue()
    )


def setup_state(players: tuple[str, ...] = THREE, first: str = "red") -> State:
    """R2.1-R2.4 done on the tiny map: one starting rat on each region in use."""
    m = tiny_board()
    in_use = m.regions_in_use(len(players))
    return new_state(
        players, first, in_use, m.adjacency(in_use),
        {r: [f"r{i}"] for i, r in enumerate(in_use)}, ["s1", "s2"], (), in_use[0],
    )


# --- R1 Components -------------------------------------------------------------------


@pytest.mark.parametrize(("n", "count"), [(2, 8), (3, 10), (4, 12)])
def test_r1_2_regions_in_use_are_8_10_12_by_shade(n: int, count: int) -> None:
    in_use = default_board().regions_in_use(n)
    assert len(in_use) == count
    shades = {r.id: r.shade for r in default_board().regions}
    allowed = {2: {"light"}, 3: {"light", "middle"}, 4: {"light", "middle", "dark"}}[n]
    assert {shades[r] for r in in_use} == allowed


def test_r1_2_a_region_not_in_use_is_nobodys_neighbour() -> None:
    m = default_board()
    two = m.adjacency(m.regions_in_use(2))
    assert "russia" not in two and "russia" not in two["scandia"]  # scandia-russia: dark
    assert "bulgaria" not in two["italia"]  # italia->bulgaria arrow: middle
    four = m.adjacency(m.regions_in_use(4))
    assert "russia" in four["scandia"] and "bulgaria" in four["italia"]


def test_r1_2_no_cube_rat_or_plague_piece_enters_a_region_not_in_use() -> None:
    # Two players on the tiny map: the isle (middle) and the marsh (dark) are not in use.
    state = board(
        players=TWO, map_=tiny_board(), plague="north",
        rats={"west": ["w1"], "south": ["x1"]}, cubes={"west": {"red": 3}},
        cards={"merchant": "red", "monk": "red", "peasant": "red"},
    )
    assert state.neighbours["west"] == ("north", "south")  # west->marsh arrow is gone
    assert refused(state, "red", Place("marsh", 1)).rule == "R1.2"
    assert refused(state, "red", Merchant("west", "marsh", 1)).rule == "R5.2"
    assert refused(state, "red", Monk("x1", "isle")).rule == "R5.3"
    play(state, "red", [Place("west", 1)])
    assert refused(state, "red", MovePlague(("marsh",))).rule == "R3.3"


def test_r1_2_spread_cannot_reach_a_region_not_in_use() -> None:
    state = board(
        players=THREE, map_=tiny_board(), plague="south", rats={"isle": ["i1"]},
        supply={"red": 0},
    )
    # Three players: the isle is in use, the marsh is not; the isle's only neighbour in use
    # is the south.
    assert state.neighbours["isle"] == ("south",)
    play(state, "red", [MovePlague(("isle",))])
    assert refused(state, "red", Spread("marsh")).rule == "R4.1"
    play(state, "red", [Spread("south")])
    assert state.rats["south"] == ["s1"] and "marsh" not in state.rats


def test_r1_3_every_player_starts_with_20_cubes_in_supply() -> None:
    state = setup_state(FOUR)
    assert state.supply == dict.fromkeys(FOUR, 20)
    assert state.palace == dict.fromkeys(FOUR, 0)
    assert all(not per_player for per_player in state.cubes.values())


def test_r1_3_a_cube_is_in_supply_a_region_or_the_palace() -> None:
    state = board(
        plague="anglia", rats={"gallia": ["g1", "g2"]}, cubes={"italia": {"red": 2}},
        cards={"king": "red"},
    )
    play(state, "red", [King("italia"), Place("gallia", 2)])
    assert state.supply["red"] == 16
    assert state.cubes["gallia"]["red"] == 2 and state.cubes["italia"]["red"] == 1
    assert state.palace["red"] == 1
    total = state.supply["red"] + sum(c.get("red", 0) for c in state.cubes.values())
    assert total + state.palace["red"] == 20


def test_r1_4_the_catalogue_has_49_tokens_12_of_them_starting_rats() -> None:
    cat = default_catalogue()
    assert len(cat.tokens) == 49
    assert len(cat.starting) == 12 and len(cat.normal) == 37
    assert all(t.threshold >= 1 and t.symbols for t in cat.tokens)
    data = cat.to_data()
    data["tokens"] = data["tokens"][:-1]
    with pytest.raises(GameDataError, match=r"R1\.4"):
        Catalogue.from_data(data)


def test_r1_4_a_face_is_asked_only_when_a_token_is_looked_at_or_flipped() -> None:
    # NO_FACES raises if asked: placing, moving and spreading never look at a face.
    state = board(
        plague="anglia", rats={"gallia": ["g1"], "italia": ["i1"]},
        cubes={"italia": {"blue": 1}}, cards={"witch": "red"},
    )
    play(state, "red", [Place("italia", 1), MovePlague(("gallia",)), Spread("hispania")])
    assert state.to_move == "green"


def test_r1_4_a_look_keeps_the_face_out_of_the_public_event() -> None:
    state = board(plague="anglia", rats={"gallia": ["g1"]}, cards={"witch": "red"})
    [event] = play(state, "red", [WitchLook("g1")], faces(g1=tok(2, "king", tid="S06")))
    assert isinstance(event, TokenLooked) and event.token_id == "S06"
    assert "token_id" not in event.to_dict() and "S06" not in str(event.to_dict())


def test_r1_5_six_class_cards_start_beside_the_board() -> None:
    state = setup_state()
    assert state.cards == dict.fromkeys(
        ["peasant", "merchant", "monk", "knight", "witch", "king"], None
    )


def test_r1_5_a_card_is_in_front_of_one_player_at_a_time() -> None:
    state = board(plague="anglia", rats={"gallia": ["g1"]}, cards={"monk": "blue"})
    events = play(state, "red", [TakeCard("monk")])
    assert events == [CardTaken("red", "monk", "blue")]
    assert state.holder("monk") == "red" and not state.holds("blue", "monk")


def test_r1_5_there_is_no_seventh_card() -> None:
    state = board(plague="anglia", rats={"gallia": ["g1"]})
    assert refused(state, "red", TakeCard("jester")).rule == "R1.5"


def test_r1_6_the_plague_piece_starts_in_a_region_in_use() -> None:
    m = default_board()
    in_use = m.regions_in_use(2)
    with pytest.raises(ValueError, match=r"R1\.6"):
        new_state(TWO, "red", in_use, m.adjacency(in_use), {}, [], [], "russia")


def test_r1_6_the_plague_piece_is_in_exactly_one_region_after_moving() -> None:
    state = board(plague="anglia", supply={"red": 0})
    play(state, "red", [MovePlague(("gallia",))])
    assert state.plague == "gallia"


def test_r1_7_a_region_never_holds_more_than_three_rats() -> None:
    state = board(
        plague="anglia", rats={"gallia": ["g1", "g2", "g3"], "italia": ["i1"]},
        cards={"monk": "red"},
    )
    err = refused(state, "red", Monk("i1", "gallia"))
    assert err.rule == "R1.7" and "3 rats" in err.message


# --- R2 Setup --------------------------------------------------------------------------


def test_r2_1_the_named_first_player_begins_and_turns_follow_seat_order() -> None:
    state = setup_state(FOUR, first="blue")
    assert state.to_move == "blue"
    order = []
    while state.phase is Phase.SETUP:
        order.append(state.to_move)
        play(state, state.to_move or "", [Place("north", 2)])
    assert order == ["blue", "yellow", "red", "green", "green", "red", "yellow", "blue"]
    assert state.to_move == "blue"


def test_r2_1_an_unnamed_first_player_is_drawn_from_the_seed() -> None:
    firsts = {dealt(4, k).first_player for k in range(40)}
    assert firsts == set(FOUR)  # any seat may be drawn...
    assert dealt(4, 7).first_player == dealt(4, 7).first_player  # ...the same for one seed
    assert dealt(4, 7, first="green").first_player == "green"


@pytest.mark.parametrize("n", [2, 3, 4])
def test_r2_2_one_starting_rat_face_down_on_each_region_in_use(n: int) -> None:
    deal = dealt(n)
    cat = default_catalogue()
    assert [r for r, _ in deal.board] == list(default_board().regions_in_use(n))
    assert all(cat.by_id(deal.id_of(name)).start for _, name in deal.board)
    state = start_state(deal, default_board(), FOUR[:n])
    assert all(len(state.rats[r]) == 1 for r in state.regions)


@pytest.mark.parametrize(
    ("n", "removed", "supply", "starting_in_supply"), [(2, 12, 29, 4), (3, 6, 33, 2), (4, 0, 37, 0)]
)
def test_r2_3_supply_and_removed_rats_by_player_count(
    n: int, removed: int, supply: int, starting_in_supply: int
) -> None:
    deal = dealt(n)
    cat = default_catalogue()
    assert len(deal.removed) == removed and len(deal.supply) == supply
    assert not any(cat.by_id(deal.id_of(t)).start for t in deal.removed)  # normal rats only
    assert sum(cat.by_id(deal.id_of(t)).start for t in deal.supply) == starting_in_supply
    every = [t for _, t in deal.board] + list(deal.supply) + list(deal.removed)
    assert len(every) == len(set(every)) == 49
    state = start_state(deal, default_board(), FOUR[:n])
    assert state.rat_supply == list(deal.supply) and state.removed == deal.removed


def test_r2_4_the_plague_piece_starts_on_a_random_region_in_use() -> None:
    starts = {dealt(2, k).plague_start for k in range(60)}
    assert starts <= set(default_board().regions_in_use(2))
    assert len(starts) > 1


def test_r2_5_initial_cubes_go_in_snake_order() -> None:
    state = setup_state(THREE)  # A B C C B A
    order = []
    while state.phase is Phase.SETUP:
        order.append(state.to_move)
        play(state, state.to_move or "", [Place("west", 2)])
    assert order == ["red", "green", "blue", "blue", "green", "red"]
    assert state.cubes["west"] == dict.fromkeys(THREE, 4)
    assert state.supply == dict.fromkeys(THREE, 16)


def test_r2_5_each_initial_placement_is_exactly_two_cubes_on_any_region_in_use() -> None:
    state = setup_state(THREE)
    state.rats["east"].clear()
    assert refused(state, "red", Place("west", 3)).rule == "R2.5"
    assert refused(state, "red", Place("west", 1)).rule == "R2.5"
    assert refused(state, "red", Place("marsh", 2)).rule == "R1.2"  # not in use with 3
    assert refused(state, "green", Place("west", 2)).rule == "R3"  # not green's placement
    assert refused(state, "red", TakeCard("king")).rule == "R2.5"  # nothing else in setup
    play(state, "red", [Place("east", 2)])  # a region without rats is fine in setup
    assert state.cubes["east"] == {"red": 2}


def test_r2_6_after_setup_the_first_player_takes_the_first_turn() -> None:
    state = setup_state(TWO, first="green")
    for player in ["green", "red", "red", "green"]:
        play(state, player, [Place("south", 2)])
    assert state.phase is Phase.TURN
    assert state.to_move == "green" and state.turn_number == 1
