"""What one seat may know about the rats (PROTOCOL P10, R5.6, R7.2): a bot's only window.

A :class:`Knowledge` holds the faces no longer hidden from the seat and nothing
else: every face revealed in public (flipped, R4.2/R6.4) and the seat's own
Witch looks (R5.6).  The faces still hidden from it are only known as a pool:
the catalogue minus every face the seat has seen.  A bot never receives a
:class:`pbem.rules.Faces` that can tell a hidden face; when it wants faces (to
resolve an outbreak in its head, or a playout) it draws a *determinization*
from this pool with :meth:`Knowledge.sample`: every hidden token gets a face
drawn without replacement from the pool, so the sample is consistent with
everything the seat knows and with nothing else.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping
from typing import Any

from pbem.fair.protocol import Deal
from pbem.rules import MappingFaces, State
from pbem.rules.data import Catalogue, Token


class Knowledge:
    """One seat's knowledge of the faces: the public reveals, its own looks, the rest a pool."""

    def __init__(
        self,
        player: str,
        catalogue: Catalogue,
        tokens: Iterable[str],
        revealed: Mapping[str, Token],
        looks: Mapping[str, Token],
    ) -> None:
        self.player = player
        self.catalogue = catalogue
        self.revealed = dict(revealed)  # public: flipped rats (R4.2, R6.4)
        self.looks = {t: f for t, f in looks.items() if t not in self.revealed}  # R5.6, private
        self.tokens = tuple(tokens)  # every public token name of the game (t01..t49)
        self._refresh()

    def _refresh(self) -> None:
        seen = list(self.revealed.values()) + list(self.looks.values())
        pool = list(self.catalogue.tokens)
        for face in seen:
            pool.remove(face)  # a face seen twice would be a broken log; ValueError then
        self.pool: tuple[Token, ...] = tuple(pool)
        self.hidden: tuple[str, ...] = tuple(
            t for t in self.tokens if t not in self.revealed and t not in self.looks
        )

    # --- learning -----------------------------------------------------------------

    def learn_flip(self, token: str, face: Token) -> None:
        """A public reveal (R4.2, R6.4): everyone learns it."""
        self.revealed[token] = face
        self.looks.pop(token, None)
        self._refresh()

    def learn_look(self, token: str, face: Token) -> None:
        """The seat's own Witch look (R5.6)."""
        if token not in self.revealed:
            self.looks[token] = face
            self._refresh()

    # --- using ----------------------------------------------------------------------

    def known(self, token: str) -> Token | None:
        """The face of ``token`` if this seat knows it (its own look), else None."""
        return self.looks.get(token)

    def sample(self, rng: random.Random) -> MappingFaces:
        """A determinization: the hidden tokens get the pool's faces in a random order."""
        pool = list(self.pool)
        rng.shuffle(pool)
        faces: dict[str, Token] = dict(zip(self.hidden, pool, strict=True))
        faces.update(self.looks)
        faces.update(self.revealed)
        return MappingFaces(faces)


def all_tokens(catalogue: Catalogue) -> tuple[str, ...]:
    return tuple(Deal.name(i) for i in range(1, len(catalogue.tokens) + 1))


def from_public(
    player: str, catalogue: Catalogue, revealed: Mapping[str, Token], looks: Mapping[str, Token]
) -> Knowledge:
    """Knowledge from faces already collected (in-memory games: tournaments, tests)."""
    return Knowledge(player, catalogue, all_tokens(catalogue), revealed, looks)


def from_log(
    player: str, entries: Iterable[Mapping[str, Any]], catalogue: Catalogue,
    private: Iterable[Mapping[str, Any]], state: State | None = None,
) -> Knowledge:
    """A seat's knowledge from the public log's reveals (``token_flipped`` outcomes) and
    that seat's own private file (``pbem.host.read_private``): exactly what the seat may know."""
    revealed: dict[str, Token] = {}
    for entry in entries:
        if entry.get("kind") not in ("move", "timeout", "standin"):  # the stand-in flips rats too (R8.3)
            continue
        for event in entry.get("outcome") or ():
            if isinstance(event, Mapping) and event.get("event") == "token_flipped":
                revealed[str(event["token"])] = catalogue.by_id(str(event["token_id"]))
    looks = {
        str(doc["token"]): catalogue.by_id(str(doc["token_id"]))
        for doc in private if "token" in doc and "token_id" in doc
    }
    know = from_public(player, catalogue, revealed, looks)
    if state is not None and set(state.flipped) != set(revealed):  # pragma: no cover - a broken replay
        raise ValueError("the log's reveals do not match the flipped rats")
    return know
