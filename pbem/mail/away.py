"""R8.5 by mail: ``away 3`` or ``away until 2026-12-10`` declares the sender's absence.

The absence is a move like any other (recorded in the log, checked by every reader), so a
mail command only writes it for the sender's seat, found from the sender's registered
address (:func:`pbem.mail.commands.sender_seat`): the host then admits it through the one
path every mailed move takes (the sender rule, freshness, the allowance left).  A seat that
holds a signing key (P8) has its moves signed by its player, so the host cannot write it:
the answer, mailed to the seat's registered address only, is the move to sign and send back
(a forged From records nothing and learns nothing).
"""

from __future__ import annotations

from pathlib import Path

from pbem.host.games import load_game
from pbem.host.private import seat_view
from pbem.host.settings import load_settings
from pbem.i18n import Msg, translator
from pbem.log.clock import now
from pbem.log.moves import after_of
from pbem.log.records import AwayMove
from pbem.log.records.sent import MoveFile
from pbem.mail.commands import Answer, Command, sender_seat
from pbem.referee.absence import days_asked
from pbem.referee.admit import judge
from pbem.views.template import away_template


def away_move(games: Path, address: str, command: Command) -> MoveFile | None:
    """The absence move of the sender's seat, to be admitted as a mailed move; None for a seat
    that holds a key (P8: :func:`signing_answer` answers it).  A refusal (no allowance, too
    many days, a malformed date) is raised before anything is written."""
    path, player = sender_seat(games, address, command.tag)
    game = load_game(path)
    days = days_asked((command.rule or "").split(), now())
    move = AwayMove.write(game.game_id, player, after_of(game), days)
    judge(game, move, signatures=False)  # R8.5's refusals, for a keyed seat too, before any answer
    return None if game.keys.get(player) is not None else move


def signing_answer(games: Path, address: str, command: Command) -> Answer:
    """P8: the absence move for a keyed seat to sign ('pbem sign') and mail back, in its language."""
    path, player = sender_seat(games, address, command.tag)
    game = load_game(path)
    lang = load_settings(path).language(player)
    said = translator(lang)
    days = days_asked((command.rule or "").split(), now())
    text = away_template(seat_view(path, game, player), days, lang)
    subject = Msg("[rattus {game}] sign your absence, {player}", game=game.game_id, player=player)
    how = Msg("Seat {player} holds a signing key (P8), so its absence is recorded only as a move signed with "
              "it. Save the lines below as away.txt, sign them with 'pbem sign away.txt --key YOUR_KEY', and "
              "mail the signed text back.", player=player)
    warn = Msg("If you did not ask for it, do not reply: nothing changes.")
    return Answer(said.say(subject), said.say(how) + "\n\n" + text + "\n" + said.say(warn) + "\n", [])
