"""RULES.md R6 (the end of the game: end conditions, final round, final sweep, winner)."""

from __future__ import annotations

import pytest
from boards import FOUR, board, faces, final_round, kinds, of_kind, play, refused, tok

from pbem.rules import (
    EndTurn,
    FaceUnknown,
    Flip,
    King,
    KnightMove,
    Merchant,
    Monk,
    MovePlague,
    Phase,
    Place,
    Spread,
    Stage,
    TakeCard,
    WitchLook,
    WitchSwap,
    winner,
)
from pbem.rules.events import EndReason, GameEnding, GameOver, PlagueMoved, TokenFlipped

# --- R6.1 End conditions -----------------------------------------------------------------------


def test_r6_1_the_game_ends_after_the_turn_the_rat_supply_ran_out() -> None:
    state = board(plague="anglia", rats={"gallia": ["g1"]}, rat_supply=["s1"], placed=True)
    events = play(state, "red", [MovePlague(("gallia",)), Spread("italia")])
    assert GameEnding(EndReason.RAT_SUPPLY, ("yellow", "blue", "green")) in events
    assert state.phase is Phase.FINAL and state.to_move == "yellow"


def test_r6_1_the_turn_in_which_the_supply_runs_out_is_played_to_its_end() -> None:
    state = board(plague="anglia", rats={"gallia": ["g1"]}, cubes={"gallia": {"blue": 1}},
                  rat_supply=["s1"], placed=True)
    play(state, "red", [MovePlague(("gallia",)), Spread("italia")])
    assert state.phase is Phase.TURN and state.rat_supply == []  # the outbreak comes first
    events = play(state, "red", [Flip("g1")], faces(g1=tok(1, "A")))
    assert kinds(events)[:3] == ["token_flipped", "cube_removed", "game_ending"]


def test_r6_1_the_game_ends_after_the_turn_a_player_places_their_last_cube() -> None:
    state = board(plague="anglia", rats={"gallia": ["g1", "g2"]}, supply={"red": 2})
    events = play(state, "red", [Place("gallia", 2), MovePlague(("scandia",))])
    assert state.supply["red"] == 0
    assert events[-2] == GameEnding(
        EndReason.CUBE_SUPPLY, ("yellow", "blue", "green")
    )


def test_r6_1_otherwise_the_game_goes_on() -> None:
    state = board(plague="anglia", rats={"gallia": ["g1"]}, rat_supply=["s1", "s2"],
                  placed=True)
    events = play(state, "red", [MovePlague(("gallia",)), Spread("italia")])
    assert "game_ending" not in kinds(events) and state.phase is Phase.TURN


def test_r6_1_ruling_a_turn_that_ends_with_no_rat_on_the_board_ends_the_game() -> None:
    """A built position: red's outbreak in Gallia, whose rat g1 is the last on the board
    (the supply still holds rats).  Once g1 is flipped no rat can ever come back, so the
    game ends after this turn instead of going on for ever."""
    state = board(plague="gallia", rats={"gallia": ["g1"]}, cubes={"gallia": {"red": 1}},
                  rat_supply=["s1", "s2"], placed=True)
    state.turn.stage = Stage.OUTBREAK  # the spread is done (built position)
    events = play(state, "red", [Flip("g1")], faces(g1=tok(4, "M")))
    assert not any(state.rats[r] for r in state.regions) and state.rat_supply
    assert events[-2] == GameEnding(EndReason.NO_RATS, ("yellow", "blue", "green"))
    assert state.phase is Phase.FINAL


def test_r6_1_ruling_a_rat_left_anywhere_lets_the_game_go_on() -> None:
    state = board(plague="gallia", rats={"gallia": ["g1"], "italia": ["i1"]},
                  cubes={"gallia": {"red": 1}}, rat_supply=["s1", "s2"], placed=True)
    state.turn.stage = Stage.OUTBREAK
    events = play(state, "red", [Flip("g1")], faces(g1=tok(4, "M")))
    assert "game_ending" not in kinds(events) and state.phase is Phase.TURN


# --- R6.2 The final round ------------------------------------------------------------------------


def test_r6_2_the_final_round_goes_backwards_from_the_last_player() -> None:
    # A, B, C, D = red, green, blue, yellow; D plays the last turn: C, then B, then A.
    state = board(plague="anglia", current="yellow", rat_supply=[], placed=True)
    play(state, "yellow", [MovePlague(("gallia",))])
    order = []
    while state.phase is Phase.FINAL:
        order.append(state.to_move)
        play(state, state.to_move or "", [EndTurn()])
    assert order == ["blue", "green", "red"]
    assert state.phase is Phase.OVER and state.to_move is None


def test_r6_2_no_card_is_taken_no_cube_placed_and_the_plague_does_not_move() -> None:
    state = final_round(
        board(plague="anglia", rats={"gallia": ["g1"]}, cards={"king": "green"}),
        last="red", order=["yellow", "blue", "green"],
    )
    assert refused(state, "yellow", TakeCard("king")).rule == "R6.2"
    assert refused(state, "yellow", Place("gallia", 1)).rule == "R6.3"  # no Peasant
    assert refused(state, "yellow", MovePlague(("gallia",))).rule == "R6.2"
    assert refused(state, "yellow", Spread("gallia")).rule == "R6.2"


def test_r6_2_each_player_uses_each_ability_once_more() -> None:
    state = final_round(
        board(plague="anglia", cubes={"italia": {"blue": 4}}, cards={"merchant": "blue"}),
        last="yellow", order=["blue", "green", "red"],
    )
    play(state, "blue", [Merchant("italia", "hispania", 3)])
    assert refused(state, "blue", Merchant("italia", "hispania", 1)).rule == "R5.2"
    assert refused(state, "red", EndTurn()).rule == "R3"  # one player at a time
    play(state, "blue", [EndTurn()])
    assert state.to_move == "green"
    assert refused(state, "green", Merchant("hispania", "italia", 1)).rule == "R5.2"  # blue's


# --- R6.3 Peasant and Knight in the final round ----------------------------------------------------


def test_r6_3_the_peasant_places_one_cube_on_any_region_in_use() -> None:
    state = final_round(board(plague="anglia", cards={"peasant": "blue"}),
                        last="yellow", order=["blue", "green", "red"])
    assert refused(state, "blue", Place("italia", 2)).rule == "R6.3"
    assert refused(state, "blue", Place("atlantis", 1)).rule == "R1.2"
    play(state, "blue", [Place("italia", 1)])  # Italia has no rats
    assert state.cubes["italia"] == {"blue": 1} and state.supply["blue"] == 19
    assert refused(state, "blue", Place("gallia", 1)).rule == "R6.3"  # once


def test_r6_3_the_knight_moves_the_plague_up_to_two_steps() -> None:
    state = final_round(board(plague="italia", cards={"knight": "blue"}),
                        last="yellow", order=["blue", "green", "red"])
    assert refused(state, "blue", KnightMove(("germania", "italia"))).rule == "R6.3"
    assert refused(state, "blue", KnightMove(("scandia",))).rule == "R6.3"
    events = play(state, "blue", [KnightMove(("germania", "scandia"))])
    assert events == [PlagueMoved(("germania", "scandia"), 0)] and state.plague == "scandia"
    assert state.rats["scandia"] == [] and state.to_move == "blue"  # no spread, no outbreak
    assert refused(state, "blue", KnightMove(("anglia",))).rule == "R6.3"  # once
    play(state, "blue", [EndTurn()])
    assert refused(state, "green", KnightMove(("anglia",))).rule == "R6.3"  # not the holder


def test_r6_3_king_merchant_monk_and_witch_act_as_usual() -> None:
    state = final_round(
        board(
            plague="anglia", rats={"gallia": ["g1"], "polonia": ["p1"]},
            cubes={"italia": {"blue": 3}},
            cards={"king": "blue", "merchant": "blue", "monk": "blue", "witch": "blue"},
        ),
        last="yellow", order=["blue", "green", "red"],
    )
    seam = faces(g1=tok(2, "A"), p1=tok(3, "M"))
    play(state, "blue", [
        King("italia"), Merchant("italia", "hispania", 2), Monk("g1", "hispania"),
        WitchLook("g1"), WitchLook("p1"), WitchSwap(),
    ], seam)
    assert state.palace["blue"] == 1 and state.cubes["hispania"] == {"blue": 2}
    assert state.rats["hispania"] == ["p1"] and state.rats["polonia"] == ["g1"]


# --- R6.4 The final sweep ----------------------------------------------------------------------------


def test_r6_4_the_plague_piece_counts_as_two_neutral_cubes_in_its_region() -> None:
    state = final_round(
        board(plague="gallia", rats={"gallia": ["g1"], "italia": ["i1"]},
              cubes={"gallia": {"blue": 1}, "italia": {"blue": 1}}),
        last="red", order=["yellow", "blue", "green"],
    )
    seam = faces(g1=tok(3, "M"), i1=tok(3, "M"))
    events = play(state, "yellow", [EndTurn()], seam)
    events += play(state, "blue", [EndTurn()], seam)
    events += play(state, "green", [EndTurn()], seam)
    [g1, i1] = of_kind(events, TokenFlipped)
    assert (g1.token, g1.cubes, g1.outbreak) == ("g1", 3, True)  # 1 cube + 2 neutral
    assert (i1.token, i1.cubes, i1.outbreak) == ("i1", 1, False)
    assert state.cubes["gallia"] == {} and state.cubes["italia"] == {"blue": 1}


def test_r6_4_every_rat_is_flipped_region_by_region_in_arrival_order() -> None:
    # Map order: anglia, scandia, russia, gallia, ..., hispania, italia, ...
    state = final_round(
        board(plague="turcia",
              rats={"italia": ["i2", "i1"], "gallia": ["g1", "g2", "g3"], "anglia": ["a1"]},
              cubes={"gallia": {"green": 1}}),
        last="green", order=["red"],
    )
    seam = faces(a1=tok(1, "A"), g1=tok(1, "A"), g2=tok(1, "M"), g3=tok(2, "A"),
                 i1=tok(1, "A"), i2=tok(1, "A"))
    events = play(state, "red", [EndTurn()], seam)
    flipped = of_kind(events, TokenFlipped)
    # the sweep goes on after Gallia's last cube is gone, so every token is revealed
    assert [f.token for f in flipped] == ["a1", "g1", "g2", "g3", "i2", "i1"]
    assert all(not rats for rats in state.rats.values())
    assert sorted(state.flipped) == ["a1", "g1", "g2", "g3", "i1", "i2"]
    assert isinstance(events[-1], GameOver) and state.phase is Phase.OVER


def test_r6_4_nothing_more_is_played_after_the_sweep() -> None:
    state = final_round(board(plague="anglia"), last="green", order=["red"])
    play(state, "red", [EndTurn()])
    assert refused(state, "red", EndTurn()).rule == "R6.5"


# --- R6.5 The winner -------------------------------------------------------------------------------------


def test_r6_5_most_cubes_on_the_board_and_in_the_palace_wins() -> None:
    state = final_round(
        board(plague="anglia", cubes={"italia": {"green": 3, "blue": 4}},
              palace={"green": 2}),
        last="red", order=["yellow", "blue", "green"],
    )
    events = play(state, "yellow", [EndTurn()])
    events += play(state, "blue", [EndTurn()])
    events += play(state, "green", [EndTurn()])
    [over] = of_kind(events, GameOver)
    assert dict(over.scores) == {"red": 0, "green": 5, "blue": 4, "yellow": 0}
    assert over.winner == "green"


def test_r6_5_a_tie_goes_to_who_would_have_played_soonest() -> None:
    # After D's (yellow's) last turn: A (red), then B, C, D.
    state = board(plague="anglia", cubes={"italia": {"red": 2, "blue": 2, "yellow": 2}})
    state.last_player = FOUR.index("yellow")
    assert winner(state) == "red"
    # After A's (red's) last turn: B (green), then C (blue), D, and A last.
    state.last_player = FOUR.index("red")
    assert winner(state) == "blue"
    state.cubes["italia"] = {"red": 2, "yellow": 2}
    assert winner(state) == "yellow"


def test_r6_4_an_unknown_face_stops_the_sweep_before_anything_changes() -> None:
    state = final_round(
        board(plague="anglia", rats={"anglia": ["a1"], "gallia": ["g1"]},
              cubes={"anglia": {"red": 1}}),
        last="green", order=["red"],
    )
    before = state.copy()
    with pytest.raises(FaceUnknown):
        play(state, "red", [EndTurn()], faces(a1=tok(1, "A")))  # g1's face unknown
    assert state == before
