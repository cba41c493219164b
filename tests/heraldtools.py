"""The seventh class card of tests/test_seventh_card.py and tests/test_card_cost.py, declared once:
a Herald (this test's card, not Rattus's; its rule "R5.7" here: once a turn, as the other abilities
before phase C or in the final round, its holder puts one cube from their supply in a region where
they have none), its action, check, effect and generator, and a deck of the six cards and it."""

from __future__ import annotations

from typing import ClassVar

from pbem.i18n import Msg, Name
from pbem.rules import Action, Faces, State
from pbem.rules.cards import FINAL, MAIN, RULES, WEIGHTS
from pbem.rules.checks import Refusal, ability_refusal, region_refusal, require
from pbem.rules.data import CLASSES
from pbem.rules.events import CubesPlaced, Event
from pbem.rules.state import ActionRule, Deck


class Herald(Action):
    """R5.7 (this test's): a cube from the holder's supply to a region where they have none."""

    kind: ClassVar[str] = "herald"
    rule: ClassVar[str] = "R5.7"
    lines: ClassVar[tuple[tuple[str, str, str], ...]] = (
        ("herald REGION", "the Herald: a cube from your supply to REGION, where you have none", "R5.7"),)
    said: ClassVar[str] = "Herald: place a cube in {region}"
    region: str


_HAS_CUBE = Refusal("R5.7", lambda s, p, region: Msg("you already have a cube in {region}",
                                                     region=Name.region(region)))
_NO_SUPPLY = Refusal("R5.7", "you have no cube left in your supply")


def herald_refusal(state: State, player: str, region: str) -> Refusal | None:
    if not state.supply[player]:
        return _NO_SUPPLY
    return _HAS_CUBE if state.cubes[region].get(player) else None


def check_herald(state: State, player: str, action: Action) -> None:
    assert isinstance(action, Herald)
    require(ability_refusal, state, player, "herald", "R5.7")
    require(region_refusal, state, action.region)
    require(herald_refusal, state, player, action.region)


def herald_effect(state: State, player: str, action: Action, faces: Faces, out: list[Event]) -> None:
    assert isinstance(action, Herald)
    state.turn.used.add("herald")
    state.supply[player] -= 1
    state.cubes[action.region][player] = 1
    out.append(CubesPlaced(player, action.region, 1))


def heralds(state: State, player: str) -> list[Action]:
    if ability_refusal(state, player, "herald", "R5.7") is not None:
        return []
    return [Herald(r) for r in state.regions if herald_refusal(state, player, r) is None]


SEVEN = Deck.make(
    (*CLASSES, "herald"), {**WEIGHTS, "herald": 0.2},
    (*RULES, ActionRule(Herald, "herald", check_herald, herald_effect, heralds, "herald", (MAIN, FINAL),
                        ("class abilities come before phase C (moving the plague)", "R5"))),
)
