"""The public report of what an accepted step added, as lines (the CLI prints them,
the mail host sends them to every player)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from pbem.i18n import Msg, translator
from pbem.log.game import Game
from pbem.log.records import Entry, Played
from pbem.referee.deadlines import phrase
from pbem.referee.owed import owed, unfinished
from pbem.rules.events import TurnStarted
from pbem.views.narrate import entry_lines
from pbem.views.text import next_step
from pbem.views.trust import mark_lines, opening_line, trust_lines


def report_lines(
    game: Game, entries: Sequence[Entry], private: Sequence[Path] = (), private_hint: bool = True,
    lang: str = "en", full_trust: bool | None = None,
) -> list[str]:
    """What ``pbem apply`` prints: the new entries, then what comes next.

    With ``private_hint`` the host is told where a Witch's private reveal was
    written (the CLI); a mail to every player leaves that out.  ``full_trust`` says
    the trust statement and the notices in full (by default with ``private_hint``:
    the host's terminal); else one line each (:func:`pbem.views.trust.mark_lines`,
    every mail but the invitation and the end mail, which say them in full).
    """
    said = translator(lang)
    lines: list[str] = []
    for entry in entries:
        lines.extend(entry_lines(game, entry, lang))
    if private_hint:
        for path in private:
            lines.append(said.say(Msg("private reveal for {player} written to {path} (send it to {player} only)",
                                      player=path.stem, path=str(path))))
    mover = entries[-1].player if entries else None
    last = entries[-1] if entries else None
    if game.state is not None and isinstance(last, Played) and isinstance(mover, str):
        lines += _what_followed(game, last, mover, lang)
    if game.state is not None:
        lines.append(said.say(Msg("next: {step}", step=next_step(game.state, lang))))
        due = phrase(game, lang=lang)
        if due is not None:
            lines.append(said.say(Msg("deadline: {due} (R8.1)", due=due)))
    else:
        lines.append(said.say(Msg("next: {step}", step=opening_line(game, lang))))
    lines.append(said.say(Msg("log now ends at entry {seq} ({hash})", seq=game.last_seq, hash=game.last_hash[:16])))
    lines.extend(trust_lines(game, lang) if (private_hint if full_trust is None else full_trust)
                 else mark_lines(game, lang))
    return lines


def _what_followed(game: Game, entry: Played, mover: str, lang: str) -> list[str]:
    """After a mover's entry: that the setup is over and the first turn began (R2.5-R2.6; the
    snake order gives the last placer the first turn, so it is the mover's move again, but a new
    one), or what the mover's unfinished turn still owes (R7.5)."""
    state = game.state
    assert state is not None
    began = [e for e in entry.outcome if isinstance(e, TurnStarted)]
    if began and began[-1].phase == "turn" and state.turn_number == 1 and state.to_move == mover:
        return [translator(lang).say(Msg("the setup is over (R2.5): {player} placed the last initial cubes and "
                                         "plays the first turn now, a new move (R2.6)", player=mover))]
    if began or not unfinished(state, mover):
        return []
    return [translator(lang).say(Msg("{player}'s turn is not finished: {owed}", player=mover,
                                     owed=owed(state, mover, game.board.name_of)))]
