"""Actions: the small steps a turn is made of, as plain data.

Each action has a ``kind`` and a few fields; :func:`action_from_dict` and
:meth:`Action.to_dict` convert to and from the move-file form
``{action: place, region: gallia, count: 2}``.  Shape errors (a missing field,
a wrong type) raise :class:`ActionFormatError`; whether the action is *legal*
is for :func:`pbem.rules.step` to say.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from pbem.errors import FormatError
from pbem.i18n import Msg
from pbem.record import Record


class ActionFormatError(FormatError):
    """The action is not of a known kind or its fields have the wrong shape (P7)."""


class Action(Record):
    kind: ClassVar[str] = ""
    rule: ClassVar[str] = ""

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"action": self.kind}
        for name in self._fields:
            value = getattr(self, name)
            out[name] = list(value) if isinstance(value, tuple) else value
        return out


class TakeCard(Action):
    """R3.1 Phase A: take one class card, unowned or another player's."""

    kind: ClassVar[str] = "take_card"
    rule: ClassVar[str] = "R3.1"
    card: str


class Place(Action):
    """R2.5 initial cubes, R3.2 phase B, R5.5/R6.3 the Peasant's cube."""

    kind: ClassVar[str] = "place"
    rule: ClassVar[str] = "R3.2"
    region: str
    count: int


class King(Action):
    """R5.1: one cube from a region with no rats to the palace."""

    kind: ClassVar[str] = "king"
    rule: ClassVar[str] = "R5.1"
    region: str


class Merchant(Action):
    """R5.2: up to 3 cubes from one region to a neighbouring one."""

    kind: ClassVar[str] = "merchant"
    rule: ClassVar[str] = "R5.2"
    source: str
    target: str
    count: int


class Monk(Action):
    """R5.3: one rat token to a neighbouring region holding fewer than 3."""

    kind: ClassVar[str] = "monk"
    rule: ClassVar[str] = "R5.3"
    token: str
    target: str


class WitchLook(Action):
    """R5.6: look at a token on the board (first, then maybe a second)."""

    kind: ClassVar[str] = "witch_look"
    rule: ClassVar[str] = "R5.6"
    token: str


class WitchSwap(Action):
    """R5.6: swap the two tokens just looked at."""

    kind: ClassVar[str] = "witch_swap"
    rule: ClassVar[str] = "R5.6"


class MovePlague(Action):
    """R3.3 Phase C: move the plague piece (two steps with the Knight, R5.4)."""

    kind: ClassVar[str] = "move_plague"
    rule: ClassVar[str] = "R3.3"
    path: tuple[str, ...]


class Spread(Action):
    """R4.1: put the next drawn rat face down on a neighbour of the plague region."""

    kind: ClassVar[str] = "spread"
    rule: ClassVar[str] = "R4.1"
    region: str


class KnightCubes(Action):
    """R5.4: the plague piece counts as 2 neutral cubes this turn."""

    kind: ClassVar[str] = "knight_cubes"
    rule: ClassVar[str] = "R5.4"


class Flip(Action):
    """R4.2: flip this rat of the plague region next."""

    kind: ClassVar[str] = "flip"
    rule: ClassVar[str] = "R4.2"
    token: str


class KnightMove(Action):
    """R6.3: in the final round, move the plague piece up to two steps."""

    kind: ClassVar[str] = "knight_move"
    rule: ClassVar[str] = "R6.3"
    path: tuple[str, ...]


class EndTurn(Action):
    """R6.2: finish your part of the final round."""

    kind: ClassVar[str] = "end"
    rule: ClassVar[str] = "R6.2"


ACTION_TYPES: dict[str, type[Action]] = {
    cls.kind: cls
    for cls in (
        TakeCard, Place, King, Merchant, Monk, WitchLook, WitchSwap,
        MovePlague, Spread, KnightCubes, Flip, KnightMove, EndTurn,
    )
}

_FIELD_TYPES: dict[str, type] = {
    "card": str, "region": str, "count": int, "source": str, "target": str,
    "token": str, "path": tuple,
}


def action_from_dict(raw: Mapping[str, Any]) -> Action:
    """Build an action from its move-file form; :class:`ActionFormatError` if malformed."""
    if not isinstance(raw, Mapping):
        raise ActionFormatError("an action must be a mapping such as {action: place, ...}", "P7")
    kind = raw.get("action")
    cls = ACTION_TYPES.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise ActionFormatError(Msg("unknown action {kind}; known actions: {known}", kind=repr(kind),
                                    known=", ".join(sorted(ACTION_TYPES))), "P7")
    names = cls._fields
    extra = sorted(set(raw) - {"action", *names})
    if extra:
        raise ActionFormatError(Msg.plural("action {kind}: unexpected field {fields}",
                                           "action {kind}: unexpected fields {fields}",
                                           len(extra), kind=kind, fields=", ".join(extra)), "P7")
    values: dict[str, Any] = {}
    for name in names:
        if name not in raw:
            raise ActionFormatError(Msg("action {kind}: missing field {name}", kind=kind, name=repr(name)), "P7")
        value = raw[name]
        want = _FIELD_TYPES[name]
        if want is tuple:
            if not isinstance(value, list | tuple) or not all(isinstance(v, str) for v in value):
                raise ActionFormatError(Msg("action {kind}: {name} must be a list of region ids", kind=kind,
                                            name=repr(name)), "P7")
            value = tuple(value)
        elif want is int:
            if isinstance(value, bool) or not isinstance(value, int):
                raise ActionFormatError(Msg("action {kind}: {name} must be a whole number", kind=kind,
                                            name=repr(name)), "P7")
        elif not isinstance(value, want):
            raise ActionFormatError(Msg("action {kind}: {name} must be text", kind=kind, name=repr(name)), "P7")
        values[name] = value
    return cls(**values)
