"""The ``digest`` mail mode: at most one summary a day of what happened in a game.

A seat whose mail mode is ``digest`` (:data:`pbem.host.settings.MAIL_MODES`) gets its
turn's mails as a ``turn`` seat does, and besides, at the end of a mail run, one summary
of the entries since its last summary, once a day at most (the host's clock, R8's).
``mail-digest.txt`` in the game's folder keeps, for each such seat, the last entry a
summary told and when it was queued (``SEAT SEQ AT``, the host's own, mode 0600).
"""

from __future__ import annotations

import logging
from pathlib import Path

from pbem.files import write_atomic
from pbem.host.games import load_game
from pbem.host.settings import SETTINGS_NAME, load_settings
from pbem.i18n import Msg, translator
from pbem.log.clock import now, seconds
from pbem.log.logfile import LOG_NAME, locked
from pbem.mail.outbox import Queue
from pbem.mail.outgoing import compose, lead, tag
from pbem.views.report import report_lines
from pbem.views.text import board_lines

_log = logging.getLogger("pbem.mail.host")
DIGEST_NAME = "mail-digest.txt"
DAY = 24 * 3600


def told(path: Path) -> dict[str, tuple[int, str]]:
    """Seat -> (the last entry its summary told, when it was queued)."""
    target = path / DIGEST_NAME
    out: dict[str, tuple[int, str]] = {}
    if target.is_file():
        for line in target.read_text("utf-8", "replace").splitlines():
            parts = line.split()
            if len(parts) == 3 and parts[1].isdigit():
                out[parts[0]] = (int(parts[1]), parts[2])
    return out


def digests(games: Path, queue: Queue, from_address: str) -> int:
    """Each due summary of every game, queued; returns how many (one game's trouble stops no other's)."""
    queued = 0
    for child in sorted(games.iterdir()) if games.is_dir() else []:
        if not ((child / SETTINGS_NAME).is_file() and (child / LOG_NAME).is_file()):
            continue
        try:
            queued += _game_digests(child, queue, from_address)
        except Exception as err:  # logged: the game's other mail goes on
            _log.warning("no summaries for %s: %s", child.name, err)
    return queued


def _game_digests(path: Path, queue: Queue, from_address: str) -> int:
    settings = load_settings(path)
    seats = [s for s in settings.emails if settings.mail_mode(s) == "digest"]
    if not seats:
        return 0
    game = load_game(path)
    if game.over:  # the end's own mail tells the rest (pbem.mail.final)
        return 0
    moment = now()
    with locked(path):
        done = told(path)
        due = [s for s in seats if game.last_seq > done.get(s, (0, ""))[0]
               and (not done.get(s, (0, ""))[1] or seconds(moment) - seconds(done[s][1]) >= DAY)]
        out = []
        for seat in due:
            lang = settings.language(seat)
            said = translator(lang)
            entries = game.entries[done.get(seat, (0, ""))[0] + 1:]
            subject = lead(f"{tag(game.game_id)} " + said.say(Msg("the day's summary, entries {first} to {last}",
                                                                   first=entries[0].seq, last=game.last_seq)))
            text = "\n".join(report_lines(game, entries, private_hint=False, lang=lang)) + "\n\n" + "\n".join(
                board_lines(game, notes=False, lang=lang)) + "\n"
            batch = queue.batch_id(f"digest:{game.game_id}:{seat}:{game.last_seq}")
            out.append((batch, compose(from_address, settings.emails[seat], subject, text,
                                       queue.message_id(batch, 0, from_address))))
            done[seat] = (game.last_seq, moment)
        for batch, msg in out:
            queue.put(batch, "digest", [msg])
        if out:
            write_atomic(path / DIGEST_NAME, "".join(f"{s} {q} {a}\n" for s, (q, a) in sorted(done.items())).encode(),
                         0o600)
    return len(out)
