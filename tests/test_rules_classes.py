"""RULES.md R5 (class abilities), with the rulebook's Knight example."""

from __future__ import annotations

from boards import board, faces, of_kind, play, refused, tok

from pbem.rules import (
    Flip,
    King,
    KnightCubes,
    MappingFaces,
    Merchant,
    Monk,
    MovePlague,
    Place,
    Spread,
    State,
    TakeCard,
    WitchLook,
    WitchSwap,
    legal_actions,
)
from pbem.rules.events import (
    CubeRemoved,
    CubesMoved,
    CubeToPalace,
    KnightCubesDeclared,
    RatMoved,
    TokenFlipped,
    TokenLooked,
    TokensSwapped,
)

# --- R5.1 King ---------------------------------------------------------------------------------


def test_r5_1_king_moves_a_cube_from_a_region_without_rats_to_the_palace() -> None:
    state = board(plague="anglia", cubes={"italia": {"red": 2}}, cards={"king": "red"})
    assert play(state, "red", [King("italia")]) == [CubeToPalace("red", "italia")]
    assert state.cubes["italia"] == {"red": 1} and state.palace["red"] == 1


def test_r5_1_king_cannot_take_from_a_region_with_rats() -> None:
    state = board(
        plague="anglia", rats={"italia": ["i1"]}, cubes={"italia": {"red": 2}},
        cards={"king": "red"},
    )
    err = refused(state, "red", King("italia"))
    assert err.rule == "R5.1" and "has rats" in err.message


def test_r5_1_king_moves_only_your_own_cube() -> None:
    state = board(plague="anglia", cubes={"italia": {"blue": 2}}, cards={"king": "red"})
    assert refused(state, "red", King("italia")).rule == "R5.1"


def test_r5_1_palace_cubes_are_safe_and_count_at_the_end() -> None:
    state = board(
        plague="anglia", rats={"gallia": ["g1"]}, cubes={"gallia": {"red": 2, "blue": 1}},
        cards={"king": "red"}, palace={"red": 3}, placed=True,
    )
    play(state, "red", [MovePlague(("gallia",)), Spread("italia"), Flip("g1")],
         faces(g1=tok(1, "A", "A")))
    assert state.cubes["gallia"] == {} and state.palace["red"] == 3
    assert state.scores()["red"] == 3 and state.scores()["blue"] == 0


def test_r5_1_king_acts_once_per_turn_and_only_for_its_holder() -> None:
    state = board(plague="anglia", cubes={"italia": {"red": 2, "green": 2}},
                  cards={"king": "green"})
    assert refused(state, "red", King("italia")).rule == "R5.1"  # green holds the King
    state.cards["king"] = "red"
    play(state, "red", [King("italia")])
    err = refused(state, "red", King("italia"))
    assert err.rule == "R5.1" and "already used" in err.message


# --- R5.2 Merchant ------------------------------------------------------------------------------


def test_r5_2_merchant_moves_up_to_three_cubes_to_a_neighbour() -> None:
    state = board(plague="anglia", cubes={"gallia": {"red": 4}}, cards={"merchant": "red"})
    events = play(state, "red", [Merchant("gallia", "hispania", 3)])
    assert events == [CubesMoved("red", "gallia", "hispania", 3)]
    assert state.cubes["gallia"] == {"red": 1} and state.cubes["hispania"] == {"red": 3}


def test_r5_2_merchant_moves_one_to_three_cubes_not_more() -> None:
    state = board(plague="anglia", cubes={"gallia": {"red": 4}}, cards={"merchant": "red"})
    assert refused(state, "red", Merchant("gallia", "hispania", 4)).rule == "R5.2"
    assert refused(state, "red", Merchant("gallia", "hispania", 0)).rule == "R5.2"


def test_r5_2_merchant_moves_only_to_a_neighbouring_region() -> None:
    state = board(plague="anglia", cubes={"gallia": {"red": 2}}, cards={"merchant": "red"})
    err = refused(state, "red", Merchant("gallia", "polonia", 1))
    assert err.rule == "R5.2" and "not a neighbour" in err.message


def test_r5_2_merchant_moves_only_cubes_you_have_there() -> None:
    state = board(plague="anglia", cubes={"gallia": {"red": 1, "blue": 3}},
                  cards={"merchant": "red"})
    err = refused(state, "red", Merchant("gallia", "italia", 2))
    assert err.rule == "R5.2" and "only 1" in err.message


def test_r5_2_merchant_acts_once_per_turn() -> None:
    state = board(plague="anglia", cubes={"gallia": {"red": 4}}, cards={"merchant": "red"})
    play(state, "red", [Merchant("gallia", "italia", 1)])
    assert refused(state, "red", Merchant("gallia", "italia", 1)).rule == "R5.2"


# --- R5.3 Monk --------------------------------------------------------------------------------


def test_r5_3_monk_moves_a_rat_to_a_neighbour_where_it_arrives_last() -> None:
    state = board(plague="anglia", rats={"gallia": ["g1", "g2"], "italia": ["i1"]},
                  cards={"monk": "red"})
    assert play(state, "red", [Monk("g1", "italia")]) == [RatMoved("g1", "gallia", "italia")]
    assert state.rats["gallia"] == ["g2"] and state.rats["italia"] == ["i1", "g1"]


def test_r5_3_monk_cannot_fill_a_region_beyond_three_rats() -> None:
    state = board(plague="anglia", rats={"gallia": ["g1"], "italia": ["i1", "i2", "i3"]},
                  cards={"monk": "red"})
    assert refused(state, "red", Monk("g1", "italia")).rule == "R1.7"


def test_r5_3_monk_moves_only_to_a_neighbour_and_only_a_rat_on_the_board() -> None:
    state = board(plague="anglia", rats={"gallia": ["g1"]}, cards={"monk": "red"})
    assert refused(state, "red", Monk("g1", "polonia")).rule == "R5.3"
    err = refused(state, "red", Monk("s1", "italia"))  # s1 is in the supply
    assert err.rule == "R5.3" and "not face down on the board" in err.message


def test_r5_3_monk_may_act_after_placing_cubes() -> None:
    # The rulebook: 3 rats, 3 cubes placed there, then the Monk moves a rat away.
    state = board(plague="anglia", rats={"gallia": ["g1", "g2", "g3"]}, cards={"monk": "red"})
    play(state, "red", [Place("gallia", 3), Monk("g2", "hispania")])
    assert state.cubes["gallia"] == {"red": 3} and state.rats["hispania"] == ["g2"]


def test_r5_3_monk_may_act_before_placing_cubes() -> None:
    state = board(plague="anglia", rats={"gallia": ["g1", "g2", "g3"]}, cards={"monk": "red"})
    play(state, "red", [Monk("g2", "hispania")])
    assert refused(state, "red", Place("gallia", 3)).rule == "R3.2"  # now 2 rats there
    play(state, "red", [Place("gallia", 2)])


# --- R5.4 Knight -------------------------------------------------------------------------------


def knights_example(declare: bool) -> tuple[list[TokenFlipped], dict[str, int]]:
    """The rulebook: the plague in Italia; the Knight's holder (red) moves it to Scandia
    in two steps; Scandia holds two cubes (green, blue) and two rats, thresholds 4 and 3."""
    state = board(
        plague="italia", rats={"scandia": ["k4", "k3"]},
        cubes={"scandia": {"green": 1, "blue": 1}}, cards={"knight": "red"},
        placed=True,
    )
    seam = faces(k4=tok(4, "knight"), k3=tok(3, "M"))
    play(state, "red", [MovePlague(("germania", "scandia")), Spread("polonia"),
                        Spread("polonia")], seam)
    assert state.plague == "scandia"
    events = play(state, "red", [KnightCubes()] if declare else [], seam)
    events += play(state, "red", [Flip("k4"), Flip("k3")], seam)
    return of_kind(events, TokenFlipped), dict(state.cubes["scandia"])


def test_r5_4_knights_example_neutral_cubes_make_thresholds_3_and_4_break_out() -> None:
    flipped, left = knights_example(declare=True)
    assert [(f.cubes, f.threshold, f.outbreak) for f in flipped] == [(4, 4, True), (4, 3, True)]
    # k4 (knight): red has no cube there.  k3 (M): green and blue tie at 1; the 2 neutral
    # cubes are no part of the majority and are never removed.
    assert left == {}


def test_r5_4_knights_example_without_the_declaration_nothing_breaks_out() -> None:
    flipped, left = knights_example(declare=False)
    assert [(f.cubes, f.outbreak) for f in flipped] == [(2, False), (2, False)]
    assert left == {"green": 1, "blue": 1}


def test_r5_4_neutral_cubes_are_declared_after_spreading_before_the_first_flip() -> None:
    state = board(
        plague="anglia", rats={"gallia": ["g1", "g2"]}, cubes={"gallia": {"blue": 3}},
        cards={"knight": "red"}, placed=True,
    )
    seam = faces(g1=tok(4, "A"), g2=tok(4, "A"))
    play(state, "red", [MovePlague(("gallia",)), Spread("italia")], seam)
    assert refused(state, "red", KnightCubes()).rule == "R5.4"  # still spreading
    play(state, "red", [Spread("italia"), Flip("g1")], seam)
    err = refused(state, "red", KnightCubes())  # after the first flip
    assert err.rule == "R5.4" and "before the first flip" in err.message


def test_r5_4_only_the_knights_holder_declares_neutral_cubes_and_once() -> None:
    state = board(plague="anglia", rats={"gallia": ["g1"]}, cubes={"gallia": {"blue": 1}},
                  cards={"knight": "blue"}, placed=True)
    play(state, "red", [MovePlague(("gallia",)), Spread("italia")])
    assert refused(state, "red", KnightCubes()).rule == "R5.4"
    state.cards["knight"] = "red"
    assert play(state, "red", [KnightCubes()]) == [KnightCubesDeclared("red", "gallia")]
    assert refused(state, "red", KnightCubes()).rule == "R5.4"


def test_r5_4_the_knight_moves_the_plague_one_or_two_steps() -> None:
    state = board(plague="italia", cards={"knight": "red"})
    legal = {a.path for a in legal_actions(state) if isinstance(a, MovePlague)}
    assert ("germania",) in legal and ("germania", "scandia") in legal
    assert refused(state, "red", MovePlague(("germania", "scandia", "anglia"))).rule == "R5.4"
    assert refused(state, "red", MovePlague(("germania", "anglia"))).rule == "R5.4"  # not next
    play(state, "red", [MovePlague(("germania",))])
    assert state.plague == "germania"


def test_r5_4_the_knights_path_may_not_end_where_it_started() -> None:
    state = board(plague="italia", cards={"knight": "red"})
    err = refused(state, "red", MovePlague(("germania", "italia")))
    assert err.rule == "R5.4" and "where it started" in err.message
    assert not any(
        isinstance(a, MovePlague) and a.path[-1] == "italia" for a in legal_actions(state)
    )


# --- R5.5 Peasant ------------------------------------------------------------------------------


def test_r5_5_peasant_places_one_cube_more_than_normal() -> None:
    state = board(plague="anglia", rats={"gallia": ["g1", "g2", "g3"]},
                  cards={"peasant": "red"})
    assert refused(state, "red", Place("gallia", 5)).rule == "R3.2"
    play(state, "red", [Place("gallia", 4)])
    assert state.cubes["gallia"] == {"red": 4}


def test_r5_5_peasant_may_place_the_normal_number() -> None:
    state = board(plague="anglia", rats={"gallia": ["g1", "g2", "g3"]},
                  cards={"peasant": "red"})
    play(state, "red", [Place("gallia", 3)])
    assert state.cubes["gallia"] == {"red": 3}


def test_r5_5_peasant_places_one_cube_on_a_region_without_rats() -> None:
    state = board(plague="anglia", rats={"gallia": ["g1"]}, cards={"peasant": "red"})
    assert refused(state, "red", Place("italia", 2)).rule == "R3.2"
    play(state, "red", [Place("italia", 1)])
    assert state.cubes["italia"] == {"red": 1}


def test_r5_5_peasant_is_limited_by_the_supply() -> None:
    state = board(plague="anglia", rats={"gallia": ["g1", "g2"]}, cards={"peasant": "red"},
                  supply={"red": 2})
    assert refused(state, "red", Place("gallia", 3)).rule == "R3.2"
    play(state, "red", [Place("gallia", 2)])
    assert state.supply["red"] == 0


# --- R5.6 Witch ---------------------------------------------------------------------------------


def witch_board() -> tuple[State, MappingFaces]:
    state = board(plague="anglia", rats={"gallia": ["g1", "g2"], "polonia": ["p1"]},
                  cards={"witch": "red"})
    seam = faces(g1=tok(2, "king", tid="S06"), g2=tok(1, "A", tid="N30"),
                 p1=tok(3, "M", tid="S07"))
    return state, seam


def test_r5_6_witch_looks_at_a_token_and_only_her_holder_learns_it() -> None:
    state, seam = witch_board()
    [looked] = play(state, "red", [WitchLook("g2")], seam)
    assert looked == TokenLooked("red", "g2", "N30")
    assert looked.to_dict() == {"event": "token_looked", "player": "red", "token": "g2"}
    assert state.rats["gallia"] == ["g1", "g2"]  # still face down, in place


def test_r5_6_witch_looks_twice_then_swaps_the_tokens_places() -> None:
    state, seam = witch_board()
    events = play(state, "red", [WitchLook("g1"), WitchLook("p1"), WitchSwap()], seam)
    assert [e.token_id for e in of_kind(events, TokenLooked)] == ["S06", "S07"]
    assert events[-1] == TokensSwapped("g1", "p1")
    # each takes the other's place, in its region's arrival order too (R4.2)
    assert state.rats["gallia"] == ["p1", "g2"] and state.rats["polonia"] == ["g1"]


def test_r5_6_witch_may_look_twice_in_one_region_and_not_swap() -> None:
    state, seam = witch_board()
    play(state, "red", [WitchLook("g1"), WitchLook("g2")], seam)
    play(state, "red", [Place("gallia", 2)], seam)
    assert state.rats["gallia"] == ["g1", "g2"]


def test_r5_6_witch_second_look_is_at_another_token() -> None:
    state, seam = witch_board()
    play(state, "red", [WitchLook("g1")], seam)
    assert refused(state, "red", WitchLook("g1"), seam).rule == "R5.6"


def test_r5_6_witch_swaps_only_right_after_two_looks() -> None:
    state, seam = witch_board()
    assert refused(state, "red", WitchSwap(), seam).rule == "R5.6"
    play(state, "red", [WitchLook("g1")], seam)
    assert refused(state, "red", WitchSwap(), seam).rule == "R5.6"


def test_r5_6_any_other_action_ends_the_witchs_use() -> None:
    state, seam = witch_board()
    play(state, "red", [WitchLook("g1"), Place("gallia", 2)], seam)
    err = refused(state, "red", WitchLook("p1"), seam)
    assert err.rule == "R5.6" and "already used" in err.message
    state, seam = witch_board()
    play(state, "red", [WitchLook("g1"), WitchLook("p1"), TakeCard("king")], seam)
    assert refused(state, "red", WitchSwap(), seam).rule == "R5.6"
    assert state.rats["gallia"] == ["g1", "g2"]


def test_r5_6_witch_looks_only_at_rats_on_the_board() -> None:
    state, seam = witch_board()
    assert refused(state, "red", WitchLook("s1"), seam).rule == "R5.6"  # in the supply
    state.cards["witch"] = "blue"
    assert refused(state, "red", WitchLook("g1"), seam).rule == "R5.6"  # not the holder


# --- R5.7 Any order before phase C -------------------------------------------------------------


def test_r5_7_phases_a_and_b_and_abilities_come_in_any_order() -> None:
    state = board(
        plague="anglia", rats={"gallia": ["g1"], "italia": ["i1"]},
        cubes={"hispania": {"red": 3}}, cards={"monk": "red", "king": "red"},
    )
    play(state, "red", [
        Monk("g1", "italia"), King("hispania"), Place("italia", 2), TakeCard("merchant"),
        Merchant("hispania", "gallia", 2),
    ])
    assert state.cubes["italia"] == {"red": 2} and state.cubes["gallia"] == {"red": 2}
    assert state.palace["red"] == 1 and state.holds("red", "merchant")


def test_r5_7_a_card_taken_this_turn_may_be_used_this_turn() -> None:
    state = board(plague="anglia", rats={"gallia": ["g1"]},
                  cubes={"hispania": {"red": 2}}, cards={"merchant": "green"})
    assert refused(state, "red", Merchant("hispania", "italia", 2)).rule == "R5.2"
    play(state, "red", [TakeCard("merchant"), Merchant("hispania", "italia", 2)])
    assert state.cubes["italia"] == {"red": 2}


def test_r5_7_only_the_player_on_turn_uses_abilities() -> None:
    state = board(plague="anglia", cubes={"italia": {"green": 2}}, cards={"king": "green"})
    assert refused(state, "green", King("italia")).rule == "R3"


def test_r5_7_abilities_come_before_phase_c() -> None:
    state = board(
        plague="anglia", rats={"gallia": ["g1"], "italia": ["i1"]},
        cubes={"hispania": {"red": 2}}, cards={"merchant": "red", "monk": "red"}, placed=True,
    )
    play(state, "red", [MovePlague(("gallia",))])
    assert refused(state, "red", Merchant("hispania", "italia", 1)).rule == "R5"
    assert refused(state, "red", Monk("i1", "hispania")).rule == "R5"
    assert not of_kind(play(state, "red", [Spread("italia")]), CubeRemoved)
