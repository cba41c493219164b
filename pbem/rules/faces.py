"""The face seam (R7.2): the only way the rules learn what a token shows.

The rules core never holds the seed.  When a token is flipped or looked at it
asks a :class:`Faces` object.  The host's comes from the secret; a replay's
from the reveals recorded in the public log; an audit's from the revealed
seed; a simulation's from a plain mapping.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

from pbem.rules.data import Token


class FaceUnknown(LookupError):
    """The face source cannot (or may not) tell this token's face."""


class Faces(Protocol):
    def face(self, token: str) -> Token:
        """The face of the token ``token`` (``"t07"``), which is being flipped face up."""
        ...

    def look(self, token: str) -> str | None:
        """R5.6: the id the Witch's holder sees on ``token``; None where this source
        may not tell (a public replay: a look is private)."""
        ...


class MappingFaces:
    """Faces from a plain ``{public name: Token}`` mapping (simulations, tests)."""

    def __init__(self, faces: Mapping[str, Token]) -> None:
        self._faces = faces

    def face(self, token: str) -> Token:
        try:
            return self._faces[token]
        except KeyError:
            raise FaceUnknown(f"no face known for token {token}") from None

    def look(self, token: str) -> str | None:
        return self.face(token).id
