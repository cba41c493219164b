"""Nothing stalls silently: a seat whose turn's mail was lost is told again, and the host sees it.

A reply the outbox gives up (``failed/``: refused for good, or a killed run was handing it to
the server, so it may never have arrived) would leave its seat waiting for a "your move"
that never comes.  So after each delivery :func:`resend_lost` looks at the mails given up
that carried a seat's template (:mod:`pbem.mail.threads`) and, where that seat is still
awaited and no other mail for its turn is in flight, queues a fresh mail with its current
template, once per entry (its batch is keyed by the game, the seat and the entry).
:func:`unmailed` names the awaited seats with no mail in flight for their turn, for
``pbem list``.
"""

from __future__ import annotations

import logging
from pathlib import Path

from pbem.errors import PbemError
from pbem.files import read_limited
from pbem.host.games import load_game
from pbem.host.private import seat_view
from pbem.host.settings import SETTINGS_NAME, load_settings
from pbem.i18n import N_, Msg, translator
from pbem.log.game import Game, Opening
from pbem.log.logfile import LOG_NAME
from pbem.log.records import Commit
from pbem.mail.outbox import FAILED, QUEUE_NAME, Queue
from pbem.mail.outgoing import compose, lead, move_text, octet_part, round_text, turn_subject
from pbem.mail.threads import note_threads, threads
from pbem.views.sincelast import since_last_turn
from pbem.views.template import template

_log = logging.getLogger("pbem.mail.host")
LOST_TEXT = N_("A mail the host sent you for this turn may not have reached you (the mail server did not "
               "take it for certain), so here it is again.")


def failed_ids(queue: Path) -> set[str]:
    """The Message-IDs the outbox gave up (``failed/failed.log``: time, id, address, why)."""
    log = queue / FAILED / "failed.log"
    if not log.is_file():
        return set()
    text = read_limited(log, 64 * 1024 * 1024, Msg("the failed replies' log")).decode("utf-8", "replace")
    return {parts[1] for parts in (line.split("\t") for line in text.splitlines()) if len(parts) >= 2}


def turn_began(game: Game, seat: str) -> int:
    """The entry after which a mail asking ``seat`` for its part counts as this turn's."""
    if game.state is not None:
        entries = since_last_turn(game, seat)
        return entries[0].seq if entries else game.last_seq
    if game.opening is Opening.REVEAL:  # the round began with the last commitment (or waiver)
        return max((e.seq for e in game.entries if isinstance(e, Commit)), default=0)
    return 0


def awaited_seats(game: Game) -> tuple[str, ...]:
    """The seats whose move the game waits for (the opening's, or the seat to move)."""
    if game.over:
        return ()
    if game.state is None:
        return game.awaited
    seat = game.to_move
    return (seat,) if seat is not None else ()


def _in_flight(game: Game, seat: str, noted: dict[str, tuple[str, str, int, str]], failed: set[str]) -> bool:
    since = turn_began(game, seat)
    return any(g == game.game_id and s == seat and seq >= since and mid not in failed
               for mid, (g, s, seq, _h) in noted.items())


def unmailed(games: Path) -> dict[str, list[str]]:
    """Game -> the awaited seats with an address and no mail in flight for their turn."""
    queue = games / QUEUE_NAME
    noted, failed = threads(queue), failed_ids(queue)
    out: dict[str, list[str]] = {}
    for child in sorted(games.iterdir()) if games.is_dir() else []:
        if not ((child / SETTINGS_NAME).is_file() and (child / LOG_NAME).is_file()):
            continue
        try:
            settings = load_settings(child)
            emails = settings.emails
            if not emails or settings.waiting():  # an open game mails nobody until it is full
                continue
            game = load_game(child)
        except PbemError:
            continue
        seats = [s for s in awaited_seats(game) if s in emails and not _in_flight(game, s, noted, failed)]
        if seats:
            out[game.game_id] = seats
    return out


def resend_lost(games: Path, queue: Queue, from_address: str) -> int:
    """A fresh mail for each awaited seat whose turn's mail was given up (see the module);
    returns how many were queued."""
    noted, failed = threads(queue.path), failed_ids(queue.path)
    lost = {(noted[mid][0], noted[mid][1]) for mid in failed if mid in noted}
    queued = 0
    for game_id, seat in sorted(lost):
        try:
            queued += _resend(games / game_id, seat, queue, from_address, noted, failed)
        except Exception as err:  # one game's trouble stops no other game's notice (logged)
            _log.warning("no fresh mail for %s in %s: %s", seat, game_id, err)
    return queued


def _resend(path: Path, seat: str, queue: Queue, from_address: str,
            noted: dict[str, tuple[str, str, int, str]], failed: set[str]) -> int:
    settings = load_settings(path)
    game = load_game(path)
    if seat not in awaited_seats(game) or seat not in settings.emails or _in_flight(game, seat, noted, failed):
        return 0
    batch = queue.batch_id(f"resend:{game.game_id}:{seat}:{game.last_seq}")
    if queue.spooled(batch):  # once per entry: a mail that fails again is the host's to see
        return 0
    lang = settings.language(seat)
    said = translator(lang)
    text = template(seat_view(path, game, seat), lang=lang)
    intro = move_text(lang) if game.state is not None else round_text(lang)
    mid = queue.message_id(batch, 0, from_address)
    msg = compose(from_address, settings.emails[seat], lead(turn_subject(game, lang)),
                  said.gettext(LOST_TEXT) + "\n\n" + intro + "\n\n" + text, mid)
    msg.add_attachment(text.encode("utf-8"), **octet_part(f"{game.game_id}-{game.last_seq}-{seat}.txt"))
    note_threads(queue.path, [(mid, game, seat)])
    queue.put(batch, "resend", [msg])
    return 1
