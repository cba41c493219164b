"""RULES.md R4 (the plague: spread, outbreak, a flipped rat), with the rulebook's example."""

from __future__ import annotations

import pytest
from boards import board, faces, kinds, of_kind, play, refused, tok

from pbem.rules import (
    Event,
    Flip,
    KnightCubes,
    MappingFaces,
    Monk,
    MovePlague,
    Place,
    RuleError,
    Spread,
    Stage,
    State,
    TakeCard,
    apply_all,
    check,
)
from pbem.rules.data import Token
from pbem.rules.events import CubeRemoved, PlagueMoved, RatDrawn, TokenFlipped


def removed(events: list[Event]) -> list[tuple[str, str]]:
    """(player, symbol) of every cube removed, in order."""
    return [(e.player, e.symbol) for e in events if isinstance(e, CubeRemoved)]


# --- The rulebook's worked example (R4.1-R4.3) -------------------------------------------


def rulebook_example() -> tuple[State, MappingFaces]:
    """Yellow holds the Knight; green the Peasant and Merchant; blue the Monk, Witch, King.
    Gallia: three rats, two green cubes and one yellow. Red has placed its cube on
    Germania (phase B) and is about to move the plague from Anglia into Gallia."""
    state = board(
        plague="anglia",
        rats={"gallia": ["g1", "g2", "g3"], "germania": ["e1"]},
        cubes={"gallia": {"green": 2, "yellow": 1}},
        cards={
            "knight": "yellow", "peasant": "green", "merchant": "green",
            "monk": "blue", "witch": "blue", "king": "blue",
        },
        rat_supply=["s1", "s2", "s3"],
    )
    seam = faces(
        g1=tok(1, "merchant", "monk"),
        g2=tok(3, "A"),  # shows no symbol that matters: its threshold is not reached
        g3=tok(2, "M", "merchant", "monk"),
    )
    play(state, "red", [Place("germania", 1)])
    return state, seam


def test_r4_3_rulebook_example_gallia_is_emptied() -> None:
    state, seam = rulebook_example()

    events = play(state, "red", [MovePlague(("gallia",))], seam)
    assert events == [PlagueMoved(("gallia",), 2)]  # 3 rats in Gallia: 2 are drawn
    events = play(state, "red", [Spread("hispania"), Spread("hispania")], seam)
    assert events == [RatDrawn("s1", "hispania"), RatDrawn("s2", "hispania")]
    assert state.rats["hispania"] == ["s1", "s2"]
    assert state.turn.stage is Stage.OUTBREAK

    first = play(state, "red", [Flip("g1")], seam)
    # threshold 1, 3 cubes: green (Merchant) loses one; blue (Monk) has none there
    assert first[0] == TokenFlipped("g1", "1:merchant+monk", "gallia", 3, 1, True)
    assert removed(first) == [("green", "merchant")]

    second = play(state, "red", [Flip("g2")], seam)
    # threshold 3, only 2 cubes left: nothing happens
    assert second == [TokenFlipped("g2", "3:A", "gallia", 2, 3, False)]

    third = play(state, "red", [Flip("g3")], seam)
    # threshold 2: green and yellow tie for the majority and each remove one
    assert third[0] == TokenFlipped("g3", "2:M+merchant+monk", "gallia", 2, 2, True)
    assert removed(third) == [("green", "M"), ("yellow", "M")]

    assert state.cubes["gallia"] == {}
    assert state.supply["green"] == 20 and state.supply["yellow"] == 20  # 2 and 1 back
    assert state.flipped == ["g1", "g2", "g3"] and state.rats["gallia"] == []
    assert state.to_move == "green"  # red's turn is over


def test_r4_2_rulebook_example_with_the_default_flip_order() -> None:
    state, seam = rulebook_example()
    new, events = apply_all(
        state, "red", [MovePlague(("gallia",)), Spread("hispania"), Spread("hispania")], seam
    )
    assert [e.token for e in of_kind(events, TokenFlipped)] == ["g1", "g2", "g3"]
    assert removed(events) == [("green", "merchant"), ("green", "M"), ("yellow", "M")]
    assert new.cubes["gallia"] == {} and new.rats["hispania"] == ["s1", "s2"]


# --- R4.1 Spread ---------------------------------------------------------------------------


@pytest.mark.parametrize(("rats", "drawn"), [(0, 0), (1, 1), (2, 2), (3, 2)])
def test_r4_1_rats_in_the_plague_region_decide_how_many_are_drawn(rats: int, drawn: int) -> None:
    tokens = ["g1", "g2", "g3"][:rats]
    state = board(plague="anglia", rats={"gallia": tokens, "italia": ["i1"]})
    play(state, "red", [Place("italia", 1)])
    [moved, *_] = play(state, "red", [MovePlague(("gallia",))])
    assert moved == PlagueMoved(("gallia",), drawn)
    if drawn:
        assert state.turn.stage is Stage.SPREAD and state.turn.spread_left == drawn


def test_r4_1_two_rats_may_go_one_each_on_two_neighbours() -> None:
    state = board(plague="anglia", rats={"gallia": ["g1", "g2"]}, placed=True)
    play(state, "red", [MovePlague(("gallia",)), Spread("italia"), Spread("anglia")])
    assert state.rats["italia"] == ["s1"] and state.rats["anglia"] == ["s2"]
    assert state.rat_supply == ["s3", "s4", "s5", "s6"]


def test_r4_1_a_rat_goes_only_on_a_neighbour_of_the_plague_region() -> None:
    state = board(plague="anglia", rats={"gallia": ["g1"]}, placed=True)
    play(state, "red", [MovePlague(("gallia",))])
    err = refused(state, "red", Spread("polonia"))
    assert err.rule == "R4.1" and "not a neighbour" in err.message
    assert refused(state, "red", Spread("gallia")).rule == "R4.1"  # not the region itself


def test_r4_1_a_neighbour_with_three_rats_cannot_receive_one() -> None:
    state = board(
        plague="anglia", rats={"gallia": ["g1"], "italia": ["i1", "i2", "i3"]},
        placed=True,
    )
    play(state, "red", [MovePlague(("gallia",))])
    err = refused(state, "red", Spread("italia"))
    assert err.rule == "R4.1" and "another neighbour" in err.message
    play(state, "red", [Spread("hispania")])
    assert state.rats["hispania"] == ["s1"]


def test_r4_1_rats_that_do_not_fit_are_not_drawn() -> None:
    # Hispania's neighbours: Gallia (full) and Italia (room for one).
    state = board(
        plague="gallia",
        rats={"hispania": ["h1", "h2"], "gallia": ["g1", "g2", "g3"], "italia": ["i1", "i2"]},
        placed=True,
    )
    [moved, *_] = play(state, "red", [MovePlague(("hispania",)), Spread("italia")])
    assert moved == PlagueMoved(("hispania",), 1)
    assert state.rats["italia"] == ["i1", "i2", "s1"] and state.rat_supply[0] == "s2"


def test_r4_1_every_neighbour_full_draws_nothing() -> None:
    state = board(
        plague="gallia",
        rats={"hispania": ["h1"], "gallia": ["g1", "g2", "g3"], "italia": ["i1", "i2", "i3"]},
        placed=True,
    )
    [moved, *_] = play(state, "red", [MovePlague(("hispania",))])
    assert moved == PlagueMoved(("hispania",), 0)
    assert len(state.rat_supply) == 6


def test_r4_1_a_short_supply_draws_what_there_is() -> None:
    state = board(plague="anglia", rats={"gallia": ["g1", "g2"]}, rat_supply=["s1"],
                  placed=True)
    [moved, *_] = play(state, "red", [MovePlague(("gallia",)), Spread("italia")])
    assert moved == PlagueMoved(("gallia",), 1)
    assert state.rat_supply == [] and state.rats["italia"] == ["s1"]


def test_r4_1_a_drawn_rat_is_the_next_of_the_supply_and_arrives_last() -> None:
    state = board(
        plague="anglia", rats={"gallia": ["g1"], "italia": ["i1", "i2"]},
        rat_supply=["s9", "s1"], placed=True,
    )
    play(state, "red", [MovePlague(("gallia",)), Spread("italia")])
    assert state.rats["italia"] == ["i1", "i2", "s9"] and state.rat_supply == ["s1"]


# --- R4.2 Outbreak --------------------------------------------------------------------------


def test_r4_2_no_outbreak_without_a_player_cube() -> None:
    state = board(plague="anglia", rats={"gallia": ["g1"]}, placed=True)
    events = play(state, "red", [MovePlague(("gallia",)), Spread("italia")])
    assert "token_flipped" not in kinds(events)
    assert state.rats["gallia"] == ["g1"] and state.flipped == []


def test_r4_2_no_outbreak_without_rats() -> None:
    state = board(plague="anglia", rats={"italia": ["i1"]}, cubes={"gallia": {"blue": 3}}, placed=True)
    events = play(state, "red", [MovePlague(("gallia",))])
    assert kinds(events) == ["plague_moved", "turn_started"]


def test_r4_2_flipping_stops_when_no_cube_is_left() -> None:
    state = board(
        plague="gallia", rats={"italia": ["i1", "i2", "i3"]},
        cubes={"italia": {"blue": 1, "green": 1}}, placed=True,
    )
    seam = faces(i1=tok(1, "A"), i2=tok(1, "A"), i3=tok(1, "A"))
    events = play(state, "red", [MovePlague(("italia",)), Spread("hispania"),
                                 Spread("hispania"), Flip("i2")], seam)
    assert removed(events) == [("green", "A"), ("blue", "A")]
    assert state.rats["italia"] == ["i1", "i3"]  # not flipped: they stay face down
    assert state.flipped == ["i2"] and state.to_move == "green"


def test_r4_2_flipped_rats_leave_the_game() -> None:
    state = board(
        plague="anglia", rats={"gallia": ["g1"]}, cubes={"gallia": {"blue": 2}},
        placed=True,
    )
    play(state, "red", [MovePlague(("gallia",)), Spread("italia"), Flip("g1")],
         faces(g1=tok(4, "A")))
    assert state.flipped == ["g1"]
    assert all("g1" not in rats for rats in state.rats.values())
    assert "g1" not in state.rat_supply


def test_r4_2_the_player_on_turn_names_the_flip_order() -> None:
    state = board(
        plague="anglia", rats={"gallia": ["g1", "g2", "g3"]},
        cubes={"gallia": {"blue": 1}}, placed=True,
    )
    seam = faces(g1=tok(1, "A"), g2=tok(4, "A"), g3=tok(4, "A"))
    play(state, "red", [MovePlague(("gallia",)), Spread("italia"), Spread("italia"),
                        Flip("g3"), Flip("g2"), Flip("g1")], seam)
    assert state.flipped == ["g3", "g2", "g1"] and state.cubes["gallia"] == {}


def test_r4_2_only_rats_of_the_plague_region_are_flipped() -> None:
    state = board(
        plague="anglia", rats={"gallia": ["g1"]}, cubes={"gallia": {"blue": 1}},
        placed=True,
    )
    play(state, "red", [MovePlague(("gallia",)), Spread("italia")])
    assert refused(state, "red", Flip("s1")).rule == "R4.2"  # just spread to Italia


def test_r4_2_by_default_rats_flip_in_arrival_order() -> None:
    # Gallia's starting rat g1 came first; the Monk brings i1 in last.
    state = board(
        plague="anglia", rats={"gallia": ["g1"], "italia": ["i1"], "germania": ["e1"]},
        cubes={"gallia": {"blue": 3}}, cards={"monk": "red"},
    )
    seam = faces(g1=tok(4, "A"), i1=tok(1, "A"))
    new, events = apply_all(state, "red", [
        Monk("i1", "gallia"), Place("germania", 1), MovePlague(("gallia",)),
        Spread("italia"), Spread("italia"),
    ], seam)
    assert [e.token for e in of_kind(events, TokenFlipped)] == ["g1", "i1"]
    assert new.cubes["gallia"] == {"blue": 2}


def outbreak_with_one_cube() -> tuple[State, MappingFaces]:
    """Gallia: three rats and one blue cube; g1 takes the cube away (threshold 1, A),
    g2 and g3 would not (threshold 4): the outbreak stops at the first flip of g1."""
    state = board(
        plague="anglia", rats={"gallia": ["g1", "g2", "g3"]},
        cubes={"gallia": {"blue": 1}}, placed=True,
    )
    return state, faces(g1=tok(1, "A"), g2=tok(4, "A"), g3=tok(4, "A"))


TO_GALLIA = [MovePlague(("gallia",)), Spread("italia"), Spread("italia")]


def test_r4_2_a_named_rat_never_reached_stays_face_down_without_error() -> None:
    state, seam = outbreak_with_one_cube()
    named = [Flip("g1"), Flip("g3"), Flip("g2")]
    check(state, "red", [*TO_GALLIA, *named])  # the order is a preference: admitted as it is
    new, events = apply_all(state, "red", [*TO_GALLIA, *named], seam)
    assert [e.token for e in of_kind(events, TokenFlipped)] == ["g1"]
    assert removed(events) == [("blue", "A")]
    assert new.flipped == ["g1"] and new.rats["gallia"] == ["g2", "g3"]  # named, never reached
    assert new.to_move == "green"


def test_r4_2_named_rats_go_first_then_the_rest_oldest_first() -> None:
    state, _ = outbreak_with_one_cube()
    state.cubes["gallia"]["blue"] = 3
    state.supply["blue"] -= 2
    seam = faces(g1=tok(4, "A"), g2=tok(4, "A"), g3=tok(2, "A"))  # g3 takes one cube of three
    new, events = apply_all(state, "red", [*TO_GALLIA, Flip("g3")], seam)
    assert [e.token for e in of_kind(events, TokenFlipped)] == ["g3", "g1", "g2"]
    assert new.flipped == ["g3", "g1", "g2"] and new.cubes["gallia"] == {"blue": 2}


def test_r4_2_the_same_named_order_is_admitted_whichever_rat_ends_the_outbreak() -> None:
    state, _ = outbreak_with_one_cube()
    actions = [*TO_GALLIA, Flip("g2"), Flip("g3"), Flip("g1")]
    for ender, flipped in (("g2", ["g2"]), ("g3", ["g2", "g3"]), ("g1", ["g2", "g3", "g1"])):
        seam = faces(**{t: tok(1 if t == ender else 4, "A") for t in ("g1", "g2", "g3")})
        new, _events = apply_all(state, "red", actions, seam)
        assert new.flipped == flipped, ender
        assert new.rats["gallia"] == [t for t in ("g1", "g2", "g3") if t not in flipped]


def test_r4_2_a_flip_order_and_the_knights_cubes_close_a_turn_with_no_outbreak() -> None:
    """R4.2 ruling: Gallia holds a rat but no cube, so no outbreak follows the spread; the
    Knight's declaration and the flip order are still accepted and simply have no effect."""
    state = board(plague="anglia", rats={"gallia": ["g1"]}, cards={"knight": "red"}, placed=True)
    move = [MovePlague(("gallia",)), Spread("italia"), KnightCubes(), Flip("g1")]
    after = check(state, "red", move)
    assert after.to_move != "red" and after.rats["gallia"] == ["g1"]
    resolved, events = apply_all(state, "red", move, faces(g1=tok(1, "A")))
    assert "token_flipped" not in kinds(events) and "knight_cubes" not in kinds(events)
    assert resolved.rats["gallia"] == ["g1"] and resolved.flipped == []


def test_r4_2_r5_7_a_knight_taken_this_turn_may_declare_his_cubes_with_no_outbreak() -> None:
    """R5.7: a card taken this turn works this turn, so the Knight just taken may close a turn
    with no outbreak by his declaration (R4.2 ruling), as his holder from before could."""
    state = board(plague="anglia", rats={"gallia": ["g1"], "hispania": ["h1"]}, cards={"knight": "blue"})
    move = [TakeCard("knight"), Place("hispania", 1), MovePlague(("gallia",)), Spread("italia"), KnightCubes()]
    after = check(state, "red", move)
    assert after.to_move != "red" and after.cards["knight"] == "red"


def test_r4_2_a_flip_order_closes_a_turn_whose_plague_region_has_no_rat() -> None:
    state = board(plague="anglia", cubes={"gallia": {"blue": 2}}, placed=True)
    after = check(state, "red", [MovePlague(("gallia",)), Flip("g1"), Flip("g2")])
    assert after.to_move != "red" and after.cubes["gallia"] == {"blue": 2}


def test_r4_2_with_no_outbreak_the_closing_lines_are_still_checked() -> None:
    state = board(plague="anglia", rats={"gallia": ["g1"]}, placed=True)
    with pytest.raises(RuleError) as not_knight:  # R5.4: only the Knight's holder declares
        check(state, "red", [MovePlague(("gallia",)), Spread("italia"), KnightCubes()])
    assert not_knight.value.rule == "R5.4"
    with pytest.raises(RuleError) as twice:
        check(state, "red", [MovePlague(("gallia",)), Spread("italia"), Flip("g1"), Flip("g1")])
    assert twice.value.rule == "R4.2"
    with pytest.raises(RuleError) as more:  # R7.4: nothing but the closing lines follows the plague
        check(state, "red", [MovePlague(("gallia",)), Spread("italia"), Flip("g1"), Place("gallia", 1)])
    assert more.value.rule == "R7.4" and "your turn ended" in more.value.message


# --- R4.3 A flipped rat ----------------------------------------------------------------------


def flip_one(
    face: Token, cubes: dict[str, int], cards: dict[str, str] | None = None
) -> tuple[State, list[Event]]:
    """Red moves the plague into Gallia, holding one rat ``g1`` and ``cubes``; g1 is flipped."""
    state = board(
        plague="anglia", rats={"gallia": ["g1"]}, cubes={"gallia": cubes},
        cards=cards or {}, placed=True,
    )
    events = play(state, "red", [MovePlague(("gallia",)), Spread("italia"), Flip("g1")],
                  faces(g1=face))
    return state, events


def test_r4_3_below_the_threshold_nothing_happens() -> None:
    state, events = flip_one(tok(4, "A"), {"blue": 2, "green": 1})
    assert of_kind(events, TokenFlipped)[0].outbreak is False
    assert removed(events) == [] and state.cubes["gallia"] == {"blue": 2, "green": 1}


def test_r4_3_a_count_equal_to_the_threshold_breaks_out_with_all_colours_counted() -> None:
    _, events = flip_one(tok(3, "A"), {"blue": 2, "green": 1})
    [flipped] = of_kind(events, TokenFlipped)
    assert flipped.cubes == 3 and flipped.outbreak
    assert removed(events) == [("green", "A"), ("blue", "A")]


def test_r4_3_a_class_symbol_hits_its_holder_if_they_have_a_cube_there() -> None:
    _, events = flip_one(tok(1, "king", "monk", "witch"), {"blue": 2, "green": 1},
                         cards={"king": "blue", "monk": "yellow"})
    # king: blue loses one; monk: yellow has none there; witch: nobody holds it
    assert removed(events) == [("blue", "king")]


def test_r4_3_majority_is_taken_once_before_other_symbols() -> None:
    # Green and yellow tie at 2.  Were the Merchant (green) to act first, yellow alone
    # would hold the majority; but the majority is taken when the rat is flipped.
    state, events = flip_one(tok(1, "merchant", "M"), {"green": 2, "yellow": 2},
                             cards={"merchant": "green"})
    assert removed(events) == [("green", "M"), ("yellow", "M"), ("green", "merchant")]
    assert state.cubes["gallia"] == {"yellow": 1}


def test_r4_3_every_m_hits_the_majority_taken_at_the_flip() -> None:
    state, events = flip_one(tok(1, "M", "M"), {"green": 3, "yellow": 2})
    assert removed(events) == [("green", "M"), ("green", "M")]
    assert state.cubes["gallia"] == {"green": 1, "yellow": 2}


def test_r4_3_a_tied_majority_hits_every_tied_player() -> None:
    _, events = flip_one(tok(1, "M"), {"green": 2, "yellow": 2, "blue": 1})
    assert removed(events) == [("green", "M"), ("yellow", "M")]


def test_r4_3_a_hits_every_player_with_a_cube_there_after_m_and_classes() -> None:
    state, events = flip_one(tok(1, "A", "king", "M"), {"green": 2, "yellow": 1, "blue": 1},
                             cards={"king": "yellow"})
    # M: green; king: yellow (now 0); A: green, blue (yellow has none left)
    assert removed(events) == [("green", "M"), ("yellow", "king"), ("green", "A"), ("blue", "A")]
    assert state.cubes["gallia"] == {}


# --- R4.4 Removed cubes ----------------------------------------------------------------------


def test_r4_4_removed_cubes_go_back_to_the_supply_and_may_be_placed_again() -> None:
    state, _ = flip_one(tok(1, "A"), {"green": 1})
    assert state.supply["green"] == 20 and state.to_move == "green"
    state.rats["italia"].append("i9")
    play(state, "green", [Place("italia", 2)])  # the spread rat and i9
    assert state.supply["green"] == 18


# --- R4.5 Several cards ------------------------------------------------------------------------


def test_r4_5_a_holder_of_several_cards_is_hit_by_each_symbol() -> None:
    state, events = flip_one(tok(1, "merchant", "monk"), {"green": 3},
                             cards={"merchant": "green", "monk": "green"})
    assert removed(events) == [("green", "merchant"), ("green", "monk")]
    assert state.cubes["gallia"] == {"green": 1}
