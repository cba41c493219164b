"""The ``digest`` mail mode and the observers: at most one summary a day of what happened in a game.

A seat whose mail mode is ``digest`` (:data:`pbem.host.settings.MAIL_MODES`) gets its
turn's mails as a ``turn`` seat does, and besides, at the end of a mail run, one summary
of the entries and the press since its last summary, once a day at most (the host's
clock, R8's).  An observer (``watch GAME``, :mod:`pbem.host.lobby`) gets the same summary
of the public game alone: the public report and board, and press to all; never a
template, a Witch's look or press to a seat (P10); and its last summary once the game is
over.  ``mail-digest.txt`` in the game's folder keeps, for each reader, the last entry and
press a summary told and when it was queued (``READER SEQ AT PRESS``, the host's own, mode
0600).

A seat's summary is its holder's, never the seat's alone: its reader is ``SEAT:ADDRESS``, the
seat with the address holding it, and the press to a seat it tells is the press sent while
that address held the seat (the ``holders`` of :class:`pbem.host.press.Press`).  A stranger who takes a
seat after its player left starts a summary of its own, and never reads the press that
waited for the player before; the player who leaves is given that press with the leave's
answer (:func:`left_press`).
"""

from __future__ import annotations

import logging
from pathlib import Path

from pbem.files import write_atomic
from pbem.host.games import load_game
from pbem.host.press import Press, read_press, waiting
from pbem.host.settings import SETTINGS_NAME, load_settings, normal_address
from pbem.i18n import Msg, translator
from pbem.log.clock import now, seconds
from pbem.log.game import Game
from pbem.log.logfile import LOG_NAME, locked
from pbem.log.records import Entry
from pbem.mail.outbox import Queue
from pbem.mail.outgoing import compose, lead, tag
from pbem.record import Record
from pbem.referee.deadlines import when_text
from pbem.views.narrate import final_round_lines, result_lines
from pbem.views.report import report_lines
from pbem.views.text import board_lines

_log = logging.getLogger("pbem.mail.host")
DIGEST_NAME = "mail-digest.txt"
DAY = 24 * 3600


def told(path: Path) -> dict[str, tuple[int, str, int]]:
    """Reader (a seat, or an observer's address) -> (the last entry its summary told, when it was
    queued, the last press it told)."""
    target = path / DIGEST_NAME
    out: dict[str, tuple[int, str, int]] = {}
    if target.is_file():
        for line in target.read_text("utf-8", "replace").splitlines():
            parts = line.split()
            if len(parts) in (3, 4) and parts[1].isdigit() and (len(parts) == 3 or parts[3].isdigit()):
                out[parts[0]] = (int(parts[1]), parts[2], int(parts[3]) if len(parts) == 4 else 0)
    return out


def digests(games: Path, queue: Queue, from_address: str, folders: list[Path] | None = None) -> int:
    """Each due summary of every game (or of the game ``folders`` alone: those with a reader of a
    summary), queued; returns how many (one game's trouble stops no other's)."""
    queued = 0
    for child in (sorted(games.iterdir()) if folders is None else folders) if games.is_dir() else []:
        if not ((child / SETTINGS_NAME).is_file() and (child / LOG_NAME).is_file()):
            continue
        try:
            queued += _game_digests(child, queue, from_address)
        except Exception as err:  # logged: the game's other mail goes on
            _log.warning("no summaries for %s: %s", child.name, err)
    return queued


class Reader(Record):
    """Who reads a summary: its key in ``mail-digest.txt`` (the seat, or the observer's address),
    its address and language, and its seat (None: an observer, who reads what the public reads)."""

    key: str
    address: str
    lang: str
    seat: str | None


def _readers(path: Path) -> list[Reader]:
    settings = load_settings(path)
    seats = [Reader(holder_key(s, a), a, settings.language(s), s) for s, a in settings.emails.items()
             if settings.mail_mode(s) == "digest"]
    return seats + [Reader(a, a, lang, None) for a, lang in sorted(settings.watchers.items())]


def _game_digests(path: Path, queue: Queue, from_address: str) -> int:
    readers = _readers(path)
    if not readers:
        return 0
    game = load_game(path)
    press = read_press(path)
    moment = now()
    with locked(path):
        done = told(path)
        for reader in readers:  # a summary kept under the seat alone (an older pbem's): its holder's now
            if reader.seat is not None and reader.key not in done and reader.seat in done:
                done[reader.key] = done.pop(reader.seat)
        out = []
        for reader in readers:
            if game.over and reader.seat is not None:  # the end's own mail tells a seat the rest (pbem.mail.final)
                continue
            seq, at, last = done.get(reader.key, (0, "", 0))
            news = [p for p in press if p.n > last and _reads(p, reader)]
            if (game.last_seq <= seq or game.state is None) and not news:
                continue  # the opening's commitments are no day's news: the summary after the start tells them
            if at and seconds(moment) - seconds(at) < DAY and not (game.over and reader.seat is None):
                continue  # once a day; an observer's last summary, at the end, at once
            batch = queue.batch_id(f"digest:{game.game_id}:{reader.key}:{game.last_seq}:{len(press)}")
            subject, text = summary(game, game.entries[seq + 1:], news, reader.lang)
            out.append((batch, compose(from_address, reader.address, subject, text,
                                       queue.message_id(batch, 0, from_address))))
            done[reader.key] = (game.last_seq, moment, press[-1].n if press else 0)
        for batch, msg in out:
            queue.put(batch, "digest", [msg])
        if out:
            write_atomic(path / DIGEST_NAME, "".join(f"{k} {q} {a} {n}\n" for k, (q, a, n) in sorted(done.items()))
                         .encode(), 0o600)
    return len(out)


def holder_key(seat: str, address: str) -> str:
    """A digest seat's reader in ``mail-digest.txt``: the seat and the address holding it."""
    return f"{seat}:{normal_address(address)}"


def _reads(press: Press, reader: Reader) -> bool:
    """Whether ``reader``'s summary tells ``press``: press to all (but a seat's own); press to
    a seat only to the address that held the seat when it was sent (never its next holder)."""
    if press.public:
        return press.sender != reader.seat
    return reader.seat is not None and press.for_seat(reader.seat) and press.sender != reader.seat and (
        press.holder(reader.seat) == normal_address(reader.address))


def left_press(path: Path, address: str) -> list[Press]:
    """The press to a digest seat of ``address`` that its summaries have not told yet: given
    to the player who leaves the seat (never to the seat's next holder)."""
    settings = load_settings(path)
    done = told(path)
    out: list[Press] = []
    for seat in settings.players_of(address):
        if settings.mail_mode(seat) == "digest":
            out += waiting(path, seat, address, done.get(holder_key(seat, address), (0, "", 0))[2])
    return out


def summary(game: Game, entries: list[Entry], news: list[Press], lang: str) -> tuple[str, str]:
    """A summary's subject and text: the public report of ``entries`` and the board (P10: the
    public game only), then the press its reader may read."""
    said = translator(lang)
    if entries and game.over:  # the last page of the story: how it ended, and who won it
        what = said.say(Msg("the end: the last summary, entries {first} to {last}", first=entries[0].seq,
                            last=game.last_seq))
        text = "\n".join([said.say(Msg("Game {game} is over. How it ended:", game=game.game_id)), "",
                          *final_round_lines(game, lang, since=entries[0].seq), "", *result_lines(game, lang), "",
                          *board_lines(game, notes=False, lang=lang)]) + "\n"
    elif entries:
        what = said.say(Msg("the day's summary, entries {first} to {last}", first=entries[0].seq,
                            last=game.last_seq))
        text = "\n".join(report_lines(game, entries, private_hint=False, lang=lang)) + "\n\n" + "\n".join(
            board_lines(game, notes=False, lang=lang)) + "\n"
    else:
        what, text = said.say(Msg("the day's summary: press")), ""
    if news:
        text += ("\n" if text else "") + said.say(Msg("Press since the last summary, each the words of the seat "
                                                      "that sent it (a player, not the host):")) + "\n"
        for p in news:
            body = "\n".join("    > " + line for line in p.text.split("\n"))
            text += f"\n  {p.sender} -> {', '.join(p.to)} ({when_text(p.at, lang)}):\n{body}\n"
    return lead(f"{tag(game.game_id)} {what}"), text
