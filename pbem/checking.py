"""`pbem check`: what a player runs before mailing a move, with the public log only."""

from __future__ import annotations

from pathlib import Path

from pbem.errors import FormatError, RulesError, StateError, UnknownError
from pbem.gamedata import Token
from pbem.logfile import read_log
from pbem.moves import check_fresh, read_move
from pbem.replay import parse_actions, replay
from pbem.rules import ActionFormatError, FaceUnknown, RuleError, apply_in_place


class HiddenFaces:
    """A player cannot see face-down tokens: any flip or look stops the check there."""

    def face(self, token: str) -> Token:
        raise FaceUnknown(token)

    def look(self, token: str) -> str | None:
        raise FaceUnknown(token)


def check_move(move_file: Path, log: Path) -> list[str]:
    """Schema, game, player, staleness, then the rules as far as public data allows."""
    move = read_move(move_file)
    entries, hashes = read_log(log)
    game = replay(entries, hashes)
    if move.game != game.game_id:
        raise UnknownError(f"the move is for game {move.game!r}, the log is game {game.game_id!r}", "P1")
    if move.player not in game.players:
        raise UnknownError(f"{move.player!r} is not a player in game {game.game_id!r}", "R2.1")
    check_fresh(game, move)
    if game.keys or "signature" in move.data or "key" in move.data:  # P8, as the host will check
        from pbem.signing import check_move as check_signature

        check_signature(game, move)
    if move.kind == "nonce":
        if game.started:
            raise StateError("the game has started: nonces are taken only before the start", "P4")
        return ["ok: a well-formed nonce, written against entry 0 (P4)"]
    if game.state is None:
        raise StateError("the game has not started yet", "P4")
    state = game.state.copy()
    try:
        actions = parse_actions(move.data["actions"])
    except ActionFormatError as err:
        raise FormatError(str(err), "P7") from None
    for index, action in enumerate(actions, start=1):
        try:
            apply_in_place(state, move.player, action, HiddenFaces())
        except RuleError as err:
            raise RulesError(f"action {index} ({action.kind}): {err.message}", err.rule) from None
        except FaceUnknown:
            rest = len(actions) - index
            return [
                f"ok: actions 1-{index - 1} are legal" if index > 1 else "ok: the move is well formed",
                f"action {index} ({action.kind}) turns a face-down rat: only the host can resolve it"
                + (f"; the {rest} action(s) after it are checked when the host applies the move" if rest else ""),
            ]
    return [f"ok: all {len(actions)} action(s) are legal against entry {game.last_seq}; mail it"]
