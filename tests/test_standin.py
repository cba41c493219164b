"""R8.3 The stand-in rule, part by part, on small boards (tests/boards.py).

The tiny map (two players use its ring): north, west, east, south in map order;
north - west, north - east, west - south, east - south.
"""

from __future__ import annotations

from boards import TWO, board, faces, final_round, tiny_board, tok

from pbem.rules import EndTurn, MovePlague, Place, Spread, play
from pbem.rules.standin import placement, plague_step, spread_target, standin_actions
from pbem.rules.state import Phase, Stage


def tiny(**kw: object) -> object:
    return board(players=TWO, map_=tiny_board(), **kw)  # type: ignore[arg-type]


def test_r8_3_phase_b_places_the_required_cubes_on_the_region_with_fewest_rats() -> None:
    # R8.3: fewest rats (at least one): west has 1, north 2, east 0 (no rat: not a choice)
    state = board(players=TWO, map_=tiny_board(), plague="south",
                  rats={"north": ["n1", "n2"], "west": ["w1"], "south": ["s9", "s8"]})
    assert placement(state, "red") == Place("west", 1)


def test_r8_3_a_tie_goes_to_the_first_region_in_map_order() -> None:
    # R8.3: north and east both hold 2; north comes first in map order
    state = board(players=TWO, map_=tiny_board(), plague="south",
                  rats={"east": ["e1", "e2"], "north": ["n1", "n2"], "south": ["s9", "s8", "s7"]})
    assert placement(state, "red") == Place("north", 2)


def test_r8_3_no_card_no_ability_not_even_the_peasants_extra_cube() -> None:
    # R8.3: no ability used: the Peasant's holder places the normal number (R3.2), not one more
    state = board(players=TWO, map_=tiny_board(), plague="south", cards={"peasant": "red", "witch": "red"},
                  rats={"west": ["w1", "w2"]})
    actions = standin_actions(state)
    assert actions[0] == Place("west", 2)
    assert not any(a.kind in ("take_card", "witch_look", "king", "merchant", "monk", "knight_cubes")
                   for a in actions)


def test_r8_3_with_only_the_peasant_able_to_place_one_cube_on_the_first_region() -> None:
    # R8.3: no rat on the board, the seat holds the Peasant: one cube on the first region in map order
    state = board(players=TWO, map_=tiny_board(), plague="south", cards={"peasant": "red"})
    assert placement(state, "red") == Place("north", 1)
    # without the Peasant phase B is not compulsory (R3.2 ruling): no placement
    assert placement(board(players=TWO, map_=tiny_board(), plague="south"), "red") is None


def test_r8_3_phase_b_with_a_short_supply_places_what_is_left() -> None:
    state = board(players=TWO, map_=tiny_board(), plague="south", supply={"red": 1},
                  rats={"west": ["w1", "w2"]})
    assert placement(state, "red") == Place("west", 1)  # R3.2: all the cubes left


def test_r8_3_the_plague_moves_one_step_to_the_neighbour_with_fewest_cubes_of_the_seat() -> None:
    # R8.3: from south, the neighbours in map order are west, east; red has 2 in west, 1 in east
    state = board(players=TWO, map_=tiny_board(), plague="south", placed=True,
                  cubes={"west": {"red": 2, "green": 0}, "east": {"red": 1, "green": 5}})
    assert plague_step(state, "red") == MovePlague(("east",))
    # a tie: the first in map order (west), whatever the other seat has there
    state.cubes["east"]["red"] = 2
    assert plague_step(state, "red") == MovePlague(("west",))


def test_r8_3_never_two_steps_even_with_the_knight() -> None:
    state = board(players=TWO, map_=tiny_board(), plague="south", placed=True, cards={"knight": "red"})
    assert len(plague_step(state, "red").path) == 1


def test_r8_3_each_drawn_rat_goes_to_the_first_neighbour_that_can_take_it() -> None:
    # R8.3 (R4.1): the plague moves from south to west (red's fewest: 0 there); west's
    # neighbours in map order: north (full, 3 rats), south (1 rat): both drawn rats go to south
    state = board(players=TWO, map_=tiny_board(), plague="south", placed=True,
                  rats={"west": ["w1", "w2"], "north": ["n1", "n2", "n3"], "south": ["s1"]},
                  cubes={"east": {"red": 1}}, rat_supply=("x1", "x2", "x3"))
    actions = standin_actions(state)
    assert actions == [MovePlague(("west",)), Spread("south"), Spread("south")]
    after, _events = play(state, "red", actions[:2])
    assert spread_target(after) == "south"  # room for one more there (2 of 3)


def test_r8_3_rats_flip_in_the_default_order() -> None:
    # R8.3: no flip is named; the outbreak resolves oldest first (R4.2 ruling)
    state = board(players=TWO, map_=tiny_board(), plague="south", placed=True,
                  rats={"west": ["w1", "w2"]}, cubes={"west": {"red": 1}, "east": {"red": 3}},
                  rat_supply=())
    actions = standin_actions(state)
    assert actions == [MovePlague(("west",))]  # no spread (empty supply), no flip named
    seam = faces(w1=tok(1, "A"), w2=tok(1, "A"))
    _after, events = play(state, "red", actions, seam)
    flipped = [e.token for e in events if e.kind == "token_flipped"]  # type: ignore[attr-defined]
    assert flipped == ["w1"]  # the oldest first; the outbreak stops when red's cube is gone


def test_r8_3_in_the_final_round_a_stand_in_does_nothing() -> None:
    state = final_round(board(players=TWO, map_=tiny_board(), plague="south",
                              cards={"peasant": "red", "king": "red"}), last="green", order=["red"])
    assert state.phase is Phase.FINAL
    assert standin_actions(state) == [EndTurn()]


def test_r8_3_plays_only_what_is_left_of_a_turn() -> None:
    # R8.2: after the player placed (and looked with the Witch), the stand-in only moves the plague
    state = board(players=TWO, map_=tiny_board(), plague="south", placed=True, rats={"north": ["n1"]})
    assert standin_actions(state) == [MovePlague(("west",))]
    assert state.turn.stage is Stage.MAIN  # the stand-in's choice changed nothing in the state


def test_r8_3_ruling_initial_placement() -> None:
    # pbem's ruling (R8.3 names no initial placement, R2.5): 2 cubes, R8.3's phase-B choice
    state = board(players=TWO, map_=tiny_board(), plague="south",
                  rats={"north": ["n1"], "west": ["w1"], "east": ["e1"], "south": ["s1"]})
    state.phase = Phase.SETUP
    assert standin_actions(state) == [Place("north", 2)]


def test_the_stand_in_never_asks_for_a_face() -> None:
    # P10: standin_actions plays forward with a seam that cannot tell a face; an outbreak
    # region full of rats and cubes changes nothing in the choice
    state = board(players=TWO, map_=tiny_board(), plague="south",
                  rats={"west": ["w1", "w2", "w3"], "east": ["e1"]}, cubes={"west": {"red": 4}})
    assert standin_actions(state) == [Place("east", 1), MovePlague(("east",)), Spread("north")]
