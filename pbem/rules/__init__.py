"""The rules of Rattus (RULES.md R1-R6) as a pure core.

State + action -> new state + events; no files, no YAML, no crypto, no clock.
Token faces come only through the :class:`Faces` seam (R7.2).
"""

from pbem.rules.actions import (
    ACTION_TYPES,
    Action,
    ActionFormatError,
    EndTurn,
    Flip,
    King,
    KnightCubes,
    KnightMove,
    Merchant,
    Monk,
    MovePlague,
    Place,
    Spread,
    TakeCard,
    WitchLook,
    WitchSwap,
)
from pbem.rules.cards import DECK, action_from_dict, new_state
from pbem.rules.checks import can_place
from pbem.rules.engine import apply_in_place, step
from pbem.rules.errors import RuleError
from pbem.rules.events import Event
from pbem.rules.faces import Faces, FaceUnknown, MappingFaces
from pbem.rules.legal import legal_actions, legal_by_kind, legal_of
from pbem.rules.play import NoFaces, apply_all, check, default_flips, play
from pbem.rules.state import Deck, Phase, Stage, State, Table
from pbem.rules.turnflow import winner

__all__ = [
    "ACTION_TYPES",
    "DECK",
    "Action",
    "ActionFormatError",
    "Deck",
    "EndTurn",
    "Event",
    "FaceUnknown",
    "Faces",
    "Flip",
    "King",
    "KnightCubes",
    "KnightMove",
    "MappingFaces",
    "Merchant",
    "Monk",
    "MovePlague",
    "NoFaces",
    "Phase",
    "Place",
    "RuleError",
    "Spread",
    "Stage",
    "State",
    "Table",
    "TakeCard",
    "WitchLook",
    "WitchSwap",
    "action_from_dict",
    "apply_all",
    "apply_in_place",
    "can_place",
    "check",
    "default_flips",
    "legal_actions",
    "legal_by_kind",
    "legal_of",
    "new_state",
    "play",
    "step",
    "winner",
]
