"""The opening's invitations: each round's templates mailed once.

Once a game is created each awaited player gets the commitment template, once
every commitment is in the reveal template, and at the start the first move's
template; ``mail-invited.txt`` in the game's folder records the rounds already
invited, so a round is never mailed twice.  The invitations are spooled to the
queue like every reply.
"""

from __future__ import annotations

import logging
from pathlib import Path

from pbem.files import write_atomic
from pbem.host.games import load_game
from pbem.host.settings import SETTINGS_NAME, load_settings
from pbem.i18n import N_, Msg, translator
from pbem.log.game import Game, Opening
from pbem.log.logfile import LOG_NAME, gzip_log, locked
from pbem.mail.outbox import Queue
from pbem.mail.outgoing import (
    attach_page,
    compose,
    lead,
    log_name,
    move_text,
    octet_part,
    page_text,
    round_text,
    turn_subject,
)
from pbem.mail.replies import composer_page
from pbem.mail.threads import note_threads
from pbem.referee.seatview import SeatView
from pbem.views.template import template
from pbem.views.trust import trust_lines

ROUND_1_TEXT = N_(
    "Round 1 of 2 of the opening (P4): the rats' order comes from the host's secret and a secret\n"
    "number from each player; you send a fingerprint of yours now and the number itself in\n"
    "round 2, so that nobody, the host included, can choose the order after seeing the others'.\n"
    "\n"
    "Reply with the template's lines below and your 'commit' line. To make that line:\n"
    "- with pbem installed: save the attached log ({log}) in a folder you keep, and there run\n"
    "    pbem nonce {log} --player {player} --out commit.txt\n"
    "  (it keeps your number in that folder for round 2); reply with the lines of commit.txt;\n"
    "- by hand (a shell with openssl, xxd and sha256sum): paste these three lines whole into\n"
    "  a terminal, and compute nothing yourself (a fingerprint made any other way, such as a\n"
    "  hash of the digits as text, may never match your number, and then the game cannot\n"
    "  start):\n"
    "    N=$(openssl rand -hex 32); echo \"nonce $N\"\n"
    "    C=$( (printf pbem-rattus/v1/nonce; echo $N | xxd -r -p) | sha256sum | cut -c1-64)\n"
    "    echo \"commit $C\"\n"
    "  Reply now with the 'commit' line they print. Keep the 'nonce' line to yourself: it is\n"
    "  your reply in round 2.")
"""The first mail a player gets: what the two rounds protect, in words, and how to answer
from the mail alone (the log it needs is attached)."""

_log = logging.getLogger("pbem.mail.host")

INVITED_NAME = "mail-invited.txt"  # the opening rounds whose invitations were queued


def invited_rounds(path: Path) -> set[str]:
    target = path / INVITED_NAME
    return set(target.read_text("utf-8").split()) if target.is_file() else set()


def invite_round(path: Path, game: Game) -> set[str]:
    """The players to invite to the opening round the game is in now, if nobody was
    invited to it yet (the round is then marked as invited); else nobody."""
    if game.opening is Opening.ABANDONED:
        return set()
    rnd = game.opening.value
    with locked(path):
        done = invited_rounds(path)
        if rnd in done:
            return set()
        write_atomic(path / INVITED_NAME, "".join(f"{r}\n" for r in sorted(done | {rnd})).encode(), 0o600)
    if rnd == "started":  # the first move's template goes with the per-move mail / below
        return set()
    return set(game.awaited)


def invite(games: Path, queue: Queue, from_address: str, folders: list[Path] | None = None,
           trouble: set[str] | None = None) -> None:
    """Invitations not yet sent, for every game (or the game ``folders`` alone: those changed
    since the last pass, :func:`pbem.host.gamesets.changes`); one game's trouble stops no other
    game's, and is added to ``trouble``."""
    if not games.is_dir():
        return
    for child in sorted(games.iterdir()) if folders is None else folders:
        if not ((child / SETTINGS_NAME).is_file() and (child / LOG_NAME).is_file()):
            continue
        try:
            _invite_game(child, queue, from_address)
        except Exception as err:  # one game's trouble stops no other game's invitations
            _log.warning("no invitations for %s: %s", child.name, err)
            if trouble is not None:
                trouble.add(child.name)


def _invite_game(child: Path, queue: Queue, from_address: str) -> None:
    """The invitations to the round one game is in, if that round has none yet."""
    settings = load_settings(child)
    emails = settings.emails
    if not emails or settings.waiting():  # an open game invites once every seat is filled (pbem.host.lobby)
        return
    game = load_game(child)
    if game.opening.value in invited_rounds(child):
        return
    started = game.opening.value == "started"
    players = invite_round(child, game)
    to_move = game.to_move
    if started and to_move is not None:  # started without a mail (pbem waive...)
        players = {to_move}
    batch = queue.game_batch("invite", game, game.opening.value)
    out = []
    invited = sorted(p for p in players if p in emails)
    for index, player in enumerate(invited):
        lang = settings.language(player)  # in the seat's language
        said = translator(lang)
        subject = lead(turn_subject(game, lang))  # what to do first: "your move (turn 1)", a round
        text = template(SeatView(game, player), lang=lang)
        intro = move_text(lang) if started else round_text(lang)  # the first move's template is no nonce
        trust = ""
        if game.opening is Opening.COMMIT:  # the first mail: the rounds in words, the trust statement in full
            intro = said.say(Msg(ROUND_1_TEXT, log=log_name(game), player=player))
            trust = "\n\n" + "\n".join(trust_lines(game, lang))
        page = composer_page(SeatView(game, player), from_address, lang)  # the opening from a page too
        msg = compose(from_address, emails[player], subject, intro + page_text(game, player, page, lang) + "\n\n"
                      + text + trust, queue.message_id(batch, index, from_address))
        msg.add_attachment(text.encode("utf-8"), **octet_part(f"{game.game_id}-{game.opening.value}-{player}.txt"))
        attach_page(msg, game, player, page)
        if not started:  # what 'pbem nonce' reads: the log as it is now (P4), compressed
            msg.add_attachment(gzip_log((child / LOG_NAME).read_bytes()), maintype="application", subtype="gzip",
                               filename=log_name(game))
        out.append(msg)
    if out:
        note_threads(queue.path, [(str(m["Message-ID"]), game, p) for m, p in zip(out, invited, strict=True)])
        if not queue.put(batch, "invite", out):  # the round is marked once, above: said if not
            _log.warning("the invitations of %s to %s were queued before", game.game_id, game.opening.value)
