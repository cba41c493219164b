"""One seat's view of a game: everything that seat may see, and nothing else (P10, R5.6).

OpenSpiel's observer, boardgame.io's ``playerView``: a :class:`SeatView` is the
public game (its log, replayed, and every face the log has revealed, whatever
kind of entry flipped it) plus that seat's own Witch looks (R5.6), each checked
against the start entry's commitment (P6).  Every text pbem writes for one seat
is built from it: ``pbem show --as``, the templates, the report mails, the
private file's attachment, and the bots' knowledge; so an entry kind added
later cannot be forgotten by one of them (``tests/test_seatview.py`` checks
that no seat-facing view takes anything else).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from pbem.errors import TamperError, UnknownError
from pbem.fair.tokens import check_reveal, position_of
from pbem.i18n import Msg
from pbem.log.game import Game
from pbem.record import Record
from pbem.rules import State
from pbem.rules.data import Token, face_words


class Look(Record):
    """One Witch look (R5.6) as its holder's private file keeps it: the entry that recorded
    the look, the token's public name, its catalogue id and its salt (P6)."""

    seq: int
    token: str
    token_id: str
    salt: str

    def doc(self, game: Game) -> dict[str, Any]:
        """The look as a private file's document (``pbem.host.private``)."""
        position = position_of(self.token)
        return {"seq": self.seq, "token": self.token, "token_id": self.token_id,
                "face": face_text(game, self.token_id), "salt": self.salt, "position": position,
                "commitment": game.commitments[position - 1]}


def face_text(game: Game, token_id: str) -> str:
    """A face this reader has seen, in words, from the game's own catalogue."""
    return face_words(game.catalogue.by_id(token_id))


def looks_of(game: Game, seat: str, docs: Iterable[Mapping[str, Any]]) -> tuple[Look, ...]:
    """A seat's looks from its private file's documents, up to the game's last entry; each
    must open the start entry's commitment (P6), or the private file was changed."""
    looks: list[Look] = []
    for doc in docs:
        seq, token, token_id, salt = doc.get("seq"), doc.get("token"), doc.get("token_id"), doc.get("salt")
        if type(seq) is not int or seq > game.last_seq:
            continue  # a look of an entry the log does not hold: it never happened (host/private.py)
        if not (isinstance(token, str) and isinstance(token_id, str) and isinstance(salt, str)):
            raise TamperError(Msg("{seat}'s private file: a look of entry {seq} lacks its token, face or salt",
                                  seat=seat, seq=seq), "P6")
        try:
            position = position_of(token)
        except ValueError:
            raise TamperError(Msg("{seat}'s private file: {token} is not a token name", seat=seat, token=repr(token)),
                              "P6") from None
        if not game.commitments or not check_reveal(game.commitments[position - 1], position, salt, token_id):
            raise TamperError(Msg("{seat}'s private file: the look at {token} (entry {seq}) does not open "
                                  "its commitment in the start entry", seat=seat, token=token, seq=seq), "P6")
        looks.append(Look(seq, token, token_id, salt))
    return tuple(looks)


def public_faces(game: Game) -> dict[str, str]:
    """Every face the public log has revealed: token name -> catalogue id (R4.2, R6.4).

    The replay fills it from every record's reveals, whatever its kind: a move, a
    timeout's or a stand-in's turn all flip rats (R8.2-R8.4)."""
    return dict(game.revealed)


class SeatView:
    """What ``seat`` may see of ``game``: the public game and its own looks (P10, R5.6)."""

    __slots__ = ("_public", "game", "looks", "seat")

    def __init__(self, game: Game, seat: str, looks: Iterable[Look] = ()) -> None:
        if seat not in game.players:
            raise UnknownError(Msg("{player} is not a player in game {game}", player=repr(seat),
                                   game=repr(game.game_id)), "R2.1")
        self.game = game
        self.seat = seat
        self.looks = tuple(look for look in looks if look.seq <= game.last_seq)
        self._public: dict[str, str] | None = None

    @property
    def state(self) -> State | None:
        """The public state (no face in it: the rules keep faces behind the Faces seam)."""
        return self.game.state

    @property
    def my_turn(self) -> bool:
        """Is it this seat's turn?"""
        return self.game.to_move == self.seat

    @property
    def public(self) -> dict[str, str]:
        """Faces revealed to everyone: token name -> catalogue id."""
        if self._public is None:
            self._public = public_faces(self.game)
        return self._public

    @property
    def private(self) -> dict[str, str]:
        """Faces only this seat has seen (its looks at rats still face down)."""
        public = self.public
        return {look.token: look.token_id for look in self.looks if look.token not in public}

    def faces(self) -> tuple[dict[str, Token], dict[str, Token]]:
        """(public faces, this seat's private faces) as catalogue tokens (the bots' window)."""
        by_id = self.game.catalogue.by_id
        return ({t: by_id(i) for t, i in self.public.items()}, {t: by_id(i) for t, i in self.private.items()})

    def private_docs(self) -> list[dict[str, Any]]:
        """The seat's looks as its private file's documents (mails, ``show --as --json``)."""
        return [look.doc(self.game) for look in self.looks]
