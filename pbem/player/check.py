"""`pbem check`: the host's verdict on a move, offline, from the public log alone (P10).

It asks the same referee the host asks (``pbem.referee.admit``), in the same order,
so every refusal is the host's word for word.  What only the host can add is
the resolution with the faces, which never refuses.
"""

from __future__ import annotations

from pathlib import Path
from typing import assert_never

from pbem.files import read_limited
from pbem.i18n import Msg
from pbem.log.logfile import read_log
from pbem.log.records import AwayMove, CommitMove, NonceMove, ResignMove, TurnMove
from pbem.log.yamlio import MOVE_LIMIT
from pbem.referee import admit as referee
from pbem.referee.owed import owed
from pbem.referee.replay import replay


def _named(move_file: Path) -> Msg:
    return Msg("move file {name}", name=move_file.name)


def move_game(move_file: Path) -> str:
    """The game a move file names (read and checked as the host reads it)."""
    return referee.read(read_limited(move_file, MOVE_LIMIT, Msg("move file")), _named(move_file)).game


def check_move(move_file: Path, log: Path) -> list[str]:
    """The referee's verdict on ``move_file`` against ``log``; refusals raise."""
    move = referee.read(read_limited(move_file, MOVE_LIMIT, Msg("move file")), _named(move_file))
    entries, hashes = read_log(log)
    game = replay(entries, hashes)
    verdict = referee.judge(game, move)
    match move:
        case CommitMove():
            return [Msg("ok: {player}'s nonce commitment would be recorded (P4); keep your nonce secret "
                        "until every seat has committed", player=move.player)]
        case NonceMove():
            return [Msg("ok: {player}'s nonce matches the commitment and would be recorded (P4)",
                        player=move.player)]
        case ResignMove():
            return [Msg("ok: {player}'s resignation would be recorded against entry {seq}; from then on the "
                        "stand-in rule plays the seat at once (R8.4)", player=move.player, seq=game.last_seq)]
        case AwayMove():
            return [Msg.plural("ok: {player}'s absence of {n} day would be recorded against entry {seq}, from when "
                               "the host records it; it extends {player}'s deadlines while it lasts (R8.5)",
                               "ok: {player}'s absence of {n} days would be recorded against entry {seq}, from when "
                               "the host records it; it extends {player}'s deadlines while it lasts (R8.5)",
                               move.days, player=move.player, seq=game.last_seq)]
        case TurnMove():
            pass
        case _:
            assert_never(move)
    head = Msg.plural("ok: the host would accept the {n} action against entry {seq} (P10)",
                      "ok: the host would accept all {n} actions against entry {seq} (P10)",
                      len(verdict.actions), seq=game.last_seq)  # one English form; other languages have theirs
    if verdict.complete or verdict.state is None:
        return [head, Msg("the turn is complete: mail it")]
    return [head, Msg("the turn is not finished: {owed}; add those lines, or mail this and send the rest in "
                      "another move file", owed=owed(verdict.state, move.player, game.board.name_of))]
