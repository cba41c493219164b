"""Actions: the small steps a turn is made of, as plain data.

Each action has a ``kind`` and a few fields; :func:`parse_action` and
:meth:`Action.to_dict` convert to and from the move-file form
``{action: place, region: gallia, count: 2}``.  Shape errors (a missing field,
a wrong type) raise :class:`ActionFormatError`; whether the action is *legal*
is for :func:`pbem.rules.step` to say.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from pbem.errors import FormatError
from pbem.i18n import N_, Msg
from pbem.record import Record


class ActionFormatError(FormatError):
    """The action is not of a known kind or its fields have the wrong shape (P7)."""


class Action(Record):
    """One kind of action, declared once: its fields (the log's, the schemas', the notation's,
    in this order), its rule, and its lines in the notation's reference (``pbem rules
    notation``): each line's form, starting with the keyword a player writes, its explanation
    (translated, ``N_``; ``{cards}``: the class cards' ids) and its rule.  ``most`` bounds a
    ``count`` field (``schemas/move.json``).  A kind whose line is its keyword and then its
    fields in order is read and written by the notation from this alone; the plague's, the
    Knight's and the flips' lines have their own readers there.  ``said``: the action in a
    report's sentence (``N_``, its fields as the placeholders:
    :func:`pbem.views.text.describe_action`), for a kind the text view does not write out
    itself (a card of a deck of one's own)."""

    kind: ClassVar[str] = ""
    rule: ClassVar[str] = ""
    lines: ClassVar[tuple[tuple[str, str, str], ...]] = ()
    most: ClassVar[int] = 0
    said: ClassVar[str] = ""

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
    lines = (("take CARD", N_("take a class card: {cards}"), "R3.1"),)
    card: str


class Place(Action):
    """R2.5 initial cubes, R3.2 phase B, R5.5/R6.3 the Peasant's cube."""

    kind: ClassVar[str] = "place"
    rule: ClassVar[str] = "R3.2"
    lines = (("place REGION N", N_("place N cubes on REGION (setup: 2 cubes)"), "R3.2"),)
    most = 20  # R1.3: a player's cubes
    region: str
    count: int


class King(Action):
    """R5.1: one cube from a region with no rats to the palace."""

    kind: ClassVar[str] = "king"
    rule: ClassVar[str] = "R5.1"
    lines = (("king REGION", N_("the King: a cube from REGION (no rats) to the palace"), "R5.1"),)
    region: str


class Merchant(Action):
    """R5.2: up to 3 cubes from one region to a neighbouring one."""

    kind: ClassVar[str] = "merchant"
    rule: ClassVar[str] = "R5.2"
    lines = (("merchant FROM TO N", N_("the Merchant: N cubes (up to 3) from FROM to TO"), "R5.2"),)
    most = 3
    source: str
    target: str
    count: int


class Monk(Action):
    """R5.3: one rat token to a neighbouring region holding fewer than 3."""

    kind: ClassVar[str] = "monk"
    rule: ClassVar[str] = "R5.3"
    lines = (("monk TOKEN REGION", N_("the Monk: rat TOKEN (t07) to REGION"), "R5.3"),)
    token: str
    target: str


class WitchLook(Action):
    """R5.6: look at a token on the board (first, then maybe a second)."""

    kind: ClassVar[str] = "witch_look"
    rule: ClassVar[str] = "R5.6"
    lines = (("look TOKEN", N_("the Witch: look at rat TOKEN (the move may stop here)"), "R5.6"),)
    token: str


class WitchSwap(Action):
    """R5.6: swap the two tokens just looked at."""

    kind: ClassVar[str] = "witch_swap"
    rule: ClassVar[str] = "R5.6"
    lines = (("swap", N_("the Witch: swap the two rats you looked at"), "R5.6"),)


class MovePlague(Action):
    """R3.3 Phase C: move the plague piece (two steps with the Knight, R5.4)."""

    kind: ClassVar[str] = "move_plague"
    rule: ClassVar[str] = "R3.3"
    lines = (("plague REGION", N_("move the plague to REGION"), "R3.3"),
             ("plague VIA REGION", N_("the Knight: move the plague two steps"), "R5.4"))
    path: tuple[str, ...]


class Spread(Action):
    """R4.1: put the next drawn rat face down on a neighbour of the plague region."""

    kind: ClassVar[str] = "spread"
    rule: ClassVar[str] = "R4.1"
    lines = (("spread REGION", N_("put the next drawn rat on REGION, a line per rat"), "R4.1"),)
    region: str


class KnightCubes(Action):
    """R5.4: the plague piece counts as 2 neutral cubes this turn."""

    kind: ClassVar[str] = "knight_cubes"
    rule: ClassVar[str] = "R5.4"
    lines = (("knight cubes", N_("the Knight: the plague piece counts as 2 neutral cubes"), "R5.4"),)


class Flip(Action):
    """R4.2: flip this rat of the plague region next."""

    kind: ClassVar[str] = "flip"
    rule: ClassVar[str] = "R4.2"
    lines = (("flip TOKEN ...", N_("the flip order, a preference: these rats first"), "R4.2"),)
    token: str


class KnightMove(Action):
    """R6.3: in the final round, move the plague piece up to two steps."""

    kind: ClassVar[str] = "knight_move"
    rule: ClassVar[str] = "R6.3"
    lines = (("knight REGION [REGION]", N_("final round: the Knight moves the plague"), "R6.3"),)
    path: tuple[str, ...]


class EndTurn(Action):
    """R6.2: finish your part of the final round."""

    kind: ClassVar[str] = "end"
    rule: ClassVar[str] = "R6.2"
    lines = (("end", N_("final round: your go is finished"), "R6.2"),)


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


def parse_action(raw: Mapping[str, Any], types: Mapping[str, type[Action]] = ACTION_TYPES) -> Action:
    """Build an action of one of ``types`` from its move-file form; :class:`ActionFormatError` if
    malformed (``pbem.rules.action_from_dict``: of the game's deck)."""
    if not isinstance(raw, Mapping):
        raise ActionFormatError("an action must be a mapping such as {action: place, ...}", "P7")
    kind = raw.get("action")
    cls = types.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise ActionFormatError(Msg("unknown action {kind}; known actions: {known}", kind=repr(kind),
                                    known=", ".join(sorted(types))), "P7")
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
