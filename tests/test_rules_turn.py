"""RULES.md R3 (the turn), and the engine's entry points (R7.3: refused whole, named rule)."""

from __future__ import annotations

import copy

import pytest
from boards import NO_FACES, board, faces, kinds, of_kind, play, refused, tok

from pbem.i18n import Name
from pbem.rules import (
    Action,
    EndTurn,
    FaceUnknown,
    Flip,
    KnightCubes,
    KnightMove,
    MappingFaces,
    Merchant,
    Monk,
    MovePlague,
    NoFaces,
    Phase,
    Place,
    RuleError,
    Spread,
    Stage,
    State,
    TakeCard,
    WitchLook,
    apply_all,
    apply_in_place,
    check,
    legal_actions,
    step,
)
from pbem.rules import play as play_move
from pbem.rules.data import Token
from pbem.rules.events import (
    EndReason,
    CubeRemoved,
    CubesPlaced,
    GameEnding,
    PlagueMoved,
    TokenFlipped,
    TurnStarted,
)

# --- R3.1 Phase A ----------------------------------------------------------------------


def test_r3_1_take_an_unowned_card_or_another_players() -> None:
    state = board(plague="anglia", rats={"gallia": ["g1"]}, cards={"king": "blue"})
    play(state, "red", [TakeCard("king")])
    assert state.holder("king") == "red"
    state = board(plague="anglia", rats={"gallia": ["g1"]})
    play(state, "red", [TakeCard("witch")])
    assert state.holder("witch") == "red"


def test_r3_1_at_most_one_card_per_turn() -> None:
    state = board(plague="anglia", rats={"gallia": ["g1"]})
    play(state, "red", [TakeCard("witch")])
    err = refused(state, "red", TakeCard("king"))
    assert err.rule == "R3.1" and "already taken" in err.message


def test_r3_1_a_card_you_hold_cannot_be_taken_again() -> None:
    state = board(plague="anglia", rats={"gallia": ["g1"]}, cards={"king": "red"})
    assert refused(state, "red", TakeCard("king")).rule == "R3.1"


def test_r3_1_cards_are_kept_across_turns_and_a_player_may_hold_several() -> None:
    state = board(plague="anglia", rats={"gallia": ["g1"]}, cards={"monk": "red"})
    play(state, "red", [Place("gallia", 1), TakeCard("king"), MovePlague(("scandia",))])
    assert state.to_move == "green"
    assert state.holds("red", "monk") and state.holds("red", "king")
    assert TakeCard("monk") in legal_actions(state)  # green may take it from red


# --- R3.2 Phase B ----------------------------------------------------------------------


def test_r3_2_place_as_many_cubes_as_the_region_has_rats() -> None:
    state = board(plague="anglia", rats={"gallia": ["g1", "g2", "g3"], "germania": ["e1"]})
    err = refused(state, "red", Place("gallia", 2))
    assert err.rule == "R3.2" and "place 3" in err.message
    play(state, "red", [Place("germania", 1)])  # the rulebook's phase B example
    assert state.cubes["germania"] == {"red": 1} and state.supply["red"] == 19


def test_r3_2_a_region_without_rats_cannot_be_chosen() -> None:
    state = board(plague="anglia", rats={"gallia": ["g1"]})
    err = refused(state, "red", Place("italia", 1))
    assert err.rule == "R3.2" and "no rats" in err.message
    assert refused(state, "red", Place("italia", 0)).rule == "R3.2"


def test_r3_2_only_one_placement_per_turn() -> None:
    state = board(plague="anglia", rats={"gallia": ["g1"], "italia": ["i1"]})
    play(state, "red", [Place("gallia", 1)])
    assert refused(state, "red", Place("italia", 1)).rule == "R3.2"


def test_r3_2_phase_b_is_compulsory_when_a_cube_can_be_placed() -> None:
    state = board(plague="anglia", rats={"gallia": ["g1"]})
    err = refused(state, "red", MovePlague(("scandia",)))
    assert err.rule == "R3.2" and "compulsory" in err.message
    assert not any(isinstance(a, MovePlague) for a in legal_actions(state))


def test_r3_2_phase_b_is_skipped_when_no_region_has_rats() -> None:
    state = board(plague="anglia")
    assert not any(isinstance(a, Place) for a in legal_actions(state))
    events = play(state, "red", [MovePlague(("scandia",))])  # no R3.2 refusal: nothing to place
    assert state.plague == "scandia" and state.supply["red"] == 20
    # R6.1 ruling: a turn that ends with no rat on the board ends the game
    assert GameEnding(EndReason.NO_RATS, ("yellow", "blue", "green")) in events
    assert state.phase is Phase.FINAL and state.to_move == "yellow"


def test_r3_2_phase_b_is_skipped_when_the_supply_is_empty() -> None:
    state = board(plague="anglia", rats={"gallia": ["g1"]}, supply={"red": 0})
    assert refused(state, "red", Place("gallia", 1)).rule == "R3.2"
    play(state, "red", [MovePlague(("scandia",))])
    assert state.plague == "scandia"


def test_r3_2_a_short_supply_places_all_it_has_left() -> None:
    state = board(plague="anglia", rats={"gallia": ["g1", "g2", "g3"]}, supply={"red": 2})
    assert refused(state, "red", Place("gallia", 3)).rule == "R3.2"
    play(state, "red", [Place("gallia", 2)])
    assert state.cubes["gallia"] == {"red": 2} and state.supply["red"] == 0


# --- R3.3 Phase C ----------------------------------------------------------------------


def test_r3_3_the_plague_moves_to_a_neighbouring_region() -> None:
    state = board(plague="anglia", rats={"italia": ["i1"]}, placed=True)  # phase B done
    assert refused(state, "red", MovePlague(("italia",))).rule == "R3.3"  # not a neighbour
    assert refused(state, "red", MovePlague(())).rule == "R3.3"
    [moved, _] = play(state, "red", [MovePlague(("gallia",))])
    assert moved == PlagueMoved(("gallia",), 0) and state.plague == "gallia"


def test_r3_3_the_plague_may_not_stay_where_it_is() -> None:
    state = board(plague="anglia")
    assert refused(state, "red", MovePlague(("anglia",))).rule == "R3.3"


def test_r3_3_without_the_knight_the_plague_moves_one_step() -> None:
    state = board(plague="italia", supply={"red": 0})
    err = refused(state, "red", MovePlague(("germania", "scandia")))
    assert "one step" in err.message


def test_r3_3_spread_comes_first_then_outbreak() -> None:
    state = board(
        plague="anglia", rats={"gallia": ["g1"]}, cubes={"gallia": {"blue": 1}},
    )
    seam = faces(g1=tok(1, "A"))
    play(state, "red", [Place("gallia", 1), MovePlague(("gallia",))], seam)
    assert state.turn.stage is Stage.SPREAD
    assert refused(state, "red", Flip("g1"), seam).rule == "R4.2"  # not before spreading
    play(state, "red", [Spread("italia")], seam)
    assert state.turn.stage is Stage.OUTBREAK  # type: ignore[comparison-overlap]  # play() moved it on
    events = play(state, "red", [Flip("g1")], seam)
    assert kinds(events) == ["token_flipped", "cube_removed", "cube_removed", "turn_started"]


def test_r3_3_nothing_but_the_plague_after_phase_c_begins() -> None:
    state = board(
        plague="anglia", rats={"gallia": ["g1"]}, cards={"merchant": "red"},
        cubes={"italia": {"red": 2}}, supply={"red": 0},
    )
    play(state, "red", [MovePlague(("gallia",))])
    assert refused(state, "red", TakeCard("king")).rule == "R3.3"
    assert refused(state, "red", Merchant("italia", "gallia", 1)).rule == "R5"
    assert refused(state, "red", MovePlague(("italia",))).rule == "R3.3"


# --- R3.4 End of the turn ----------------------------------------------------------------


def test_r3_4_after_the_plague_the_next_player_in_order_takes_a_turn() -> None:
    state = board(plague="anglia", current="yellow", rats={"italia": ["i1"]}, placed=True)
    events = play(state, "yellow", [MovePlague(("gallia",))])
    assert events[-1] == TurnStarted("red", "turn")
    assert state.to_move == "red" and state.turn_number == 2
    assert not state.turn.placed and not state.turn.card_taken and not state.turn.used


def test_r3_4_a_turn_ends_by_moving_the_plague_not_by_end() -> None:
    state = board(plague="anglia", supply={"red": 0})
    assert refused(state, "red", EndTurn()).rule == "R3.4"
    assert refused(state, "red", KnightMove(("gallia",))).rule == "R6.3"


def test_r3_4_only_the_player_on_turn_acts() -> None:
    state = board(plague="anglia", rats={"gallia": ["g1"]})
    err = refused(state, "green", Place("gallia", 1))
    assert err.rule == "R3" and "red's turn" in err.message
    assert refused(state, "mauve", Place("gallia", 1)).rule == "R2.1"


# --- R7.3 The engine's entry points ------------------------------------------------------


def outbreak_board() -> tuple[State, MappingFaces]:
    """Gallia: two rats (g1 threshold 4, g2 majority), green 2 cubes and blue 1."""
    state = board(
        plague="anglia",
        rats={"gallia": ["g1", "g2"], "hispania": ["h1"]},
        cubes={"gallia": {"green": 2, "blue": 1}},
    )
    seam = faces(g1=tok(4, "A"), g2=tok(1, "M"))
    return state, seam


TO_OUTBREAK = [Place("hispania", 1), MovePlague(("gallia",)), Spread("italia"), Spread("italia")]
"""Red's phase B and C up to Gallia's outbreak, no flip named."""


def test_r7_3_step_is_pure_and_apply_in_place_changes_the_state() -> None:
    state = board(plague="anglia", rats={"gallia": ["g1"]})
    before = copy.deepcopy(state)
    new, events = step(state, "red", Place("gallia", 1), NO_FACES)
    assert state == before
    assert new.cubes["gallia"] == {"red": 1} and events == [CubesPlaced("red", "gallia", 1)]
    assert apply_in_place(state, "red", Place("gallia", 1), NO_FACES) == events
    assert state == new


def test_r7_3_a_refused_action_leaves_the_state_unchanged_and_names_the_rule() -> None:
    state = board(plague="anglia", rats={"gallia": ["g1", "g2", "g3"]}, cards={"monk": "blue"})
    before = copy.deepcopy(state)
    with pytest.raises(RuleError) as caught:
        apply_in_place(state, "red", Place("gallia", 1), NO_FACES)
    assert caught.value.rule == "R3.2" and str(caught.value).startswith("illegal move (R3.2): ")
    assert caught.value.message
    assert state == before
    with pytest.raises(RuleError):
        step(state, "red", Merchant("gallia", "italia", 1), NO_FACES)
    assert state == before


def test_r7_3_apply_all_is_all_or_nothing() -> None:
    state = board(plague="anglia", rats={"gallia": ["g1"]}, cards={"monk": "blue"})
    before = copy.deepcopy(state)
    with pytest.raises(RuleError) as caught:
        apply_all(state, "red", [TakeCard("monk"), Place("gallia", 1), TakeCard("king")], NO_FACES)
    assert caught.value.rule == "R3.1" and caught.value.message.startswith("action 3 (take)")
    assert state == before  # not even the first two actions stuck


def test_r7_3_apply_all_flips_the_unnamed_rats_oldest_first() -> None:
    state, seam = outbreak_board()
    new, events = apply_all(state, "red", TO_OUTBREAK, seam)
    flipped = of_kind(events, TokenFlipped)
    assert [e.token for e in flipped] == ["g1", "g2"]
    assert not flipped[0].outbreak and flipped[1].outbreak
    assert [e.player for e in of_kind(events, CubeRemoved)] == ["green"]
    assert new.to_move == "green" and new.flipped == ["g1", "g2"]


def test_r7_3_apply_all_keeps_a_named_flip_order() -> None:
    state, seam = outbreak_board()
    actions = [*TO_OUTBREAK, Flip("g2")]
    new, events = apply_all(state, "red", actions, seam)
    assert [e.token for e in of_kind(events, TokenFlipped)] == ["g2", "g1"]
    assert new.flipped == ["g2", "g1"]


def test_r7_3_an_unknown_face_refuses_a_flip_or_look_without_changing_the_state() -> None:
    state, _ = outbreak_board()
    play(state, "red", TO_OUTBREAK)
    before = state.copy()
    with pytest.raises(FaceUnknown):
        apply_in_place(state, "red", Flip("g1"), NO_FACES)
    assert state == before
    state = board(plague="anglia", rats={"gallia": ["g1"]}, cards={"witch": "red"})
    before = state.copy()
    with pytest.raises(FaceUnknown):
        apply_in_place(state, "red", WitchLook("g1"), NO_FACES)
    assert state == before


# --- R7.4 A move is decided on public facts; the outbreak ends the turn ----------------------


class CountingFaces:
    """A face seam that counts every face it is asked for (P10: a refusal asks none)."""

    def __init__(self, **by_name: Token) -> None:
        self.inner = MappingFaces(by_name)
        self.asked: list[str] = []

    def face(self, token: str) -> Token:
        self.asked.append(token)
        return self.inner.face(token)

    def look(self, token: str) -> str | None:
        self.asked.append(token)
        return self.inner.look(token)


AFTER_OUTBREAK = [
    Place("germania", 1),  # not allowed after the outbreak began, whatever the faces
    Monk("h1", "gallia"),
    MovePlague(("anglia",)),
    TakeCard("king"),
    Spread("italia"),
]


@pytest.mark.parametrize("late", AFTER_OUTBREAK, ids=lambda a: a.kind)
@pytest.mark.parametrize("named", [0, 1, 2])
def test_r7_4_an_action_after_the_outbreak_begins_is_refused_before_any_face(late: Action, named: int) -> None:
    state, _ = outbreak_board()
    state.rats["germania"] = ["e1"]
    state.cards["monk"] = "red"
    actions = [*TO_OUTBREAK, *[Flip(t) for t in ("g2", "g1")[:named]], late]
    before = state.copy()
    messages = set()
    # two seams that would make the outbreak end at different flips, and none at all
    for seam in (CountingFaces(g1=tok(4, "A"), g2=tok(1, "M")), CountingFaces(g1=tok(1, "A"), g2=tok(1, "A"))):
        with pytest.raises(RuleError) as caught:
            apply_all(state, "red", actions, seam)
        assert seam.asked == []  # refused before a single rat was turned
        messages.add((caught.value.rule, caught.value.message))
    with pytest.raises(RuleError) as caught:
        check(state, "red", actions)
    messages.add((caught.value.rule, caught.value.message))
    assert state == before
    [(rule, message)] = messages  # the same verdict, word for word, whatever the faces (P10)
    assert rule == "R7.4" and message.startswith(f"action {len(actions)} ({Name.action(late.kind)}): ")
    assert "outbreak" in message


def test_r7_4_the_knights_cubes_come_first_after_the_spreads_and_only_then() -> None:
    state, seam = outbreak_board()
    state.cards["knight"] = "red"
    _new, events = apply_all(state, "red", [*TO_OUTBREAK, KnightCubes(), Flip("g2")], seam)
    first = of_kind(events, TokenFlipped)[0]
    assert first.token == "g2" and first.cubes == 5  # 3 cubes and the Knight's 2 neutral ones
    counting = CountingFaces(g1=tok(4, "A"), g2=tok(1, "M"))
    with pytest.raises(RuleError) as caught:
        apply_all(state, "red", [*TO_OUTBREAK, Flip("g2"), KnightCubes()], counting)
    assert caught.value.rule == "R5.4" and counting.asked == []


def test_r7_4_a_flip_of_a_rat_outside_the_plague_region_is_refused_before_any_face() -> None:
    state, _ = outbreak_board()
    counting = CountingFaces(g1=tok(4, "A"), g2=tok(1, "M"), h1=tok(1, "A"))
    with pytest.raises(RuleError) as caught:
        apply_all(state, "red", [*TO_OUTBREAK, Flip("g1"), Flip("h1")], counting)
    assert caught.value.rule == "R4.2" and "h1" in caught.value.message and counting.asked == []
    with pytest.raises(RuleError) as caught:
        apply_all(state, "red", [*TO_OUTBREAK, Flip("g1"), Flip("g1")], counting)
    assert caught.value.rule == "R4.2" and "twice" in caught.value.message and counting.asked == []


def test_r7_4_nothing_may_follow_the_end_of_the_turn() -> None:
    state = board(plague="anglia", rats={"italia": ["i1"]}, placed=True)
    with pytest.raises(RuleError) as caught:
        apply_all(state, "red", [MovePlague(("gallia",)), TakeCard("king")], NO_FACES)
    assert caught.value.rule == "R7.4"
    assert caught.value.message.startswith("action 2 (take): your turn ended with the action before it")
    assert "green is to move" in caught.value.message
    assert state.to_move == "red" and state.plague == "anglia"  # refused whole (R7.3)


def test_r7_4_the_check_stops_at_the_outbreak_and_asks_no_face() -> None:
    state, seam = outbreak_board()
    checked = check(state, "red", TO_OUTBREAK)
    assert checked.turn.stage is Stage.OUTBREAK and checked.to_move == "red"
    assert checked.rats["gallia"] == ["g1", "g2"] and checked.flipped == []
    new, _events = play_move(state, "red", TO_OUTBREAK, seam)  # the resolution goes on
    assert new.to_move == "green" and new.flipped == ["g1", "g2"]
    with pytest.raises(FaceUnknown):
        NoFaces().face("g1")
    assert NoFaces().look("g1") is None
