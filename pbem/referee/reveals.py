"""The faces a log entry reveals (PROTOCOL.md P6): each flip's token id and salt, checked
against its commitment before the rules may use it."""

from __future__ import annotations

from pbem.errors import TamperError
from pbem.fair.tokens import check_reveal, position_of
from pbem.i18n import Msg
from pbem.log.game import Game
from pbem.log.records import Entry
from pbem.rules import FaceUnknown
from pbem.rules.data import Token


class RevealFaces:
    """The faces recorded in one entry's outcome, each checked against its commitment."""

    def __init__(self, game: Game, entry: Entry) -> None:
        self._game = game
        self._seq = entry.seq
        self._reveals = {flip.token: (flip.token_id, flip.salt) for flip in entry.reveals}

    def face(self, token: str) -> Token:
        if token not in self._reveals:
            raise FaceUnknown(token)
        token_id, salt = self._reveals[token]
        position = position_of(token)
        commit = self._game.commitments[position - 1]
        if not check_reveal(commit, position, salt, token_id):
            raise TamperError(
                Msg("entry {seq}: the reveal of {token} ({token_id}) does not match its "
                    "commitment in the start entry", seq=self._seq, token=token, token_id=token_id),
                "P6",
            )
        try:
            return self._game.catalogue.by_id(token_id)
        except KeyError:
            raise TamperError(
                Msg("entry {seq}: {token} is revealed as {token_id}, which is not in the game's catalogue",
                    seq=self._seq, token=token, token_id=repr(token_id)),
                "P6",
            ) from None

    def look(self, token: str) -> str | None:
        return None

    def salt(self, token: str) -> str:
        return self._reveals[token][1]
