"""`pbem tick`'s work on the games whose time has come (:mod:`pbem.mail.tick`): the timeout
recorded (R8.2, played by the stand-in, R8.3), its notices and the turn's reminder queued
through the mail host's durable outbox, and each game's next look set in the host's index."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable
from email.message import EmailMessage
from pathlib import Path

from pbem.errors import PbemError
from pbem.host.gamerow import wake_at
from pbem.host.games import game_dir, load_game, timeout
from pbem.host.head import Head, head_of
from pbem.host.index import Index
from pbem.host.private import seat_view
from pbem.host.settings import load_settings
from pbem.i18n import Msg, translator
from pbem.log.clock import now
from pbem.log.game import Game
from pbem.log.logfile import LOG_NAME, gzip_log, locked
from pbem.log.records import Standin, Start, Timeout
from pbem.mail.host import MailHost, host_address
from pbem.mail.notices import Tick, note, notices_sent
from pbem.mail.outgoing import lead, octet_part, turn_subject
from pbem.mail.replies import attach_page, composer_page, log_name, log_text, move_text, page_text, tag
from pbem.mail.threads import note_threads
from pbem.referee.deadlines import due, phrase, remind_at
from pbem.referee.seatview import SeatView
from pbem.views.narrate import entry_lines
from pbem.views.template import template
from pbem.views.text import board_lines
from pbem.views.trust import mark_lines

_log = logging.getLogger("pbem.mail.tick")


def tick_games(games: Path, folders: list[Path] | None, from_address: str | None, result: Tick,
               index: Index | None) -> None:
    """Each game of ``folders`` (None: every game folder), its deadline and mail; then, where the
    host keeps an index, its next look."""
    host: MailHost | None = None
    for child in sorted(c for c in games.iterdir() if (c / LOG_NAME).is_file()) if folders is None else folders:
        try:
            host = _tick_game(games, child, from_address, host, result)
        except PbemError as err:
            result.lines.append(f"{child.name}: {err}")
            _log.warning("tick: %s: %s", child.name, err)
        if index is not None:
            _rewake(index, child)


def _tick_game(games: Path, child: Path, from_address: str | None, host: MailHost | None,
               result: Tick) -> MailHost | None:
    """One game's deadline and mail: what :func:`tick` does for it; the mail host, once made."""
    head = _head(child)
    if head is not None and not head.deadline:
        return host
    if head is not None and not (head.due is not None and now() >= head.due[1]):
        emails = load_settings(child).emails
        if emails and host is None:  # as below: a bad From is said at once
            host = MailHost(games, lambda _m: None, host_address(games, from_address))
        if not emails or not _owes(child, head):
            return host
    game = load_game(child)
    if game.deadline is None:
        return host
    found = due(game)
    if found is not None and now() >= found[1]:
        applied = timeout(games, game.game_id)
        if applied is not None:
            result.timeouts += 1
            result.lines.append(f"{game.game_id}: timeout recorded as entry {applied.entries[0].seq} "
                                f"({found[0]}'s deadline {found[1]} passed; R8.2)")
            game = applied.game
    if load_settings(child).emails:
        if host is None:
            host = MailHost(games, lambda _m: None, host_address(games, from_address))
        result.queued += _mail(host, child, game, result.lines)
    return host


def _rewake(index: Index, child: Path) -> None:
    """The game's next look by `pbem tick`, now that the notices it recorded are known (under its lock)."""
    with contextlib.suppress(PbemError, OSError), locked(child, timeout=0.0):
        head = _head(child)
        try:
            emails = bool(load_settings(child).emails)
        except PbemError:
            emails = True
        index.settle(child, wake_at(head, emails, frozenset(notices_sent(child))))


def _head(path: Path) -> Head | None:
    """The game's head index, or None: read the log, which says what is wrong."""
    try:
        return head_of(path)
    except PbemError:
        return None


def _owes(path: Path, head: Head) -> bool:
    """Does this game with addresses, whose deadline has not passed, still owe its players a mail (a timeout's
    notice, the turn's reminder)?  What :func:`_mail` would queue, from the head alone."""
    sent = notices_sent(path)
    if any(f"notice {seq}" not in sent for seq in head.timeouts):
        return True
    return (head.remind is not None and head.due is not None and now() >= head.remind
            and f"remind {head.turn_since}" not in sent)


def _mail(host: MailHost, path: Path, game: Game, lines: list[str]) -> int:
    """Queue what this game still owes its players: stand-in notices, then the reminder."""
    assert host.queue is not None
    queued = 0
    emails = load_settings(path).emails
    with locked(path):
        sent = notices_sent(path)
        for seq, entry in enumerate(game.entries):
            if not isinstance(entry, Timeout) or f"notice {seq}" in sent:
                continue
            batch = host.queue.game_batch("notice", game, seq)
            messages = _notice(host, game, seq, emails, batch, load_settings(path).language)
            if game.to_move in emails and _answered_up_to(game, seq) == game.last_seq:  # a Reply is a move
                note_threads(host.queue.path, [(str(m["Message-ID"]), game, game.to_move) for m in messages
                                               if str(m["To"]) == emails[game.to_move]])
            spooled = bool(messages) and host.queue.put(batch, f"notice {seq}", messages)
            note(path, f"notice {seq}")
            if spooled:
                queued += len(messages)
                lines.append(f"{game.game_id}: {len(messages)} notice(s) of entry {seq} queued")
            elif messages:  # said as it is: nothing new goes out
                lines.append(f"{game.game_id}: the notices of entry {seq} were queued before")
        at = remind_at(game)
        found = due(game)
        item = f"remind {game.turn_since}"
        if at is not None and found is not None and now() >= at and item not in sent:
            player = found[0]
            if player in emails:
                batch = host.queue.game_batch("remind", game, game.turn_since)
                lang = load_settings(path).language(player)
                reminder = _reminder(host, game, player, emails[player], batch, lang)
                note_threads(host.queue.path, [(str(reminder["Message-ID"]), game, player)])  # a Reply is a move
                if host.queue.put(batch, item, [reminder]):
                    queued += 1
                    lines.append(f"{game.game_id}: reminder queued for {player} (due {found[1]})")
                else:  # said as it is: nothing new goes out
                    lines.append(f"{game.game_id}: the reminder for {player} was queued before")
            note(path, item)
    return queued


def _reminder(host: MailHost, game: Game, player: str, address: str, batch: str,
              lang: str = "en") -> EmailMessage:
    """The reminder to the seat to move, in its language: when the turn is due, what the
    stand-in would play, and the template."""
    assert host.queue is not None
    say = translator(lang)
    said = phrase(game, lang=lang) or ""
    text = template(SeatView(game, player), lang=lang)
    head = Msg("Reminder (R8.1): {when}.\nIf you do not move by then, the stand-in rule (R8.3) plays "
               "your turn: no card, no ability, cubes on the region with the fewest rats, the plague one "
               "step to where you have the fewest cubes.", when=said)
    page = composer_page(seat_view(game_dir(host.games, game.game_id), game, player), host.from_address, lang)
    body = (say.say(head) + page_text(game, player, page, lang) + "\n\n" + say.say(Msg("Your move file:"))
            + "\n\n" + text)
    found = due(game)
    # in English as it always read (the phrase's "due ..." part); else the moment in digits,
    # which every language reads (2026-12-02 09:15 UTC)
    when = said.split("due ", 1)[-1] if lang == "en" or found is None else f"{found[1][:10]} {found[1][11:16]} UTC"
    subject = say.say(Msg("reminder: your move, {player}, due {when}", player=player, when=when))
    msg = host.answers.message(address, f"{tag(game.game_id)} {subject}", body,
                               host.queue.message_id(batch, 0, host.from_address))
    # the template is in the text already: the file is one no client shows or quotes again
    msg.add_attachment(text.encode("utf-8"), **octet_part(f"{game.game_id}-{game.last_seq}-{player}.txt"))
    attach_page(msg, game, player, page)
    return msg


def _answered_up_to(game: Game, seq: int) -> int:
    """The last entry of the host's step after the timeout ``seq``: the bot seats' and the
    stand-in's entries that followed it in the same write (pbem.host.step)."""
    last = seq
    while last < game.last_seq and (game.entries[last + 1].player in game.bots
                                    or isinstance(game.entries[last + 1], Standin | Start)):
        last += 1
    return last


def _notice(host: MailHost, game: Game, seq: int, emails: dict[str, str], batch: str,
            language: Callable[[str], str] = lambda _seat: "en") -> list[EmailMessage]:
    """The timeout notice: what the stand-in did (to everyone), the template to the player to
    move (who is told so), each in the seat's ``language``.  Built from the log of the
    timeout's moment, public facts only."""
    assert host.queue is not None
    last = _answered_up_to(game, seq)
    told: dict[str, tuple[str, str]] = {}  # language -> (what happened, the board)

    def said_in(lang: str) -> tuple[str, str]:
        if lang not in told:
            lines = entry_lines(game, game.entries[seq], lang=lang)
            for entry in game.entries[seq + 1:last + 1]:  # the bot seats' and stand-in's answers
                lines += entry_lines(game, entry, lang=lang)
            told[lang] = ("\n".join(lines), "\n".join([*board_lines(game, notes=False, lang=lang),
                                                         *mark_lines(game, lang)]))  # the notices in one line each
        return told[lang]

    to_move = game.to_move
    path = game_dir(host.games, game.game_id)
    log_gz = gzip_log((path / LOG_NAME).read_bytes())
    modes = load_settings(path)
    out = []
    for index, player in enumerate(p for p in game.players if p in emails):
        lang = language(player)
        say = translator(lang)
        what = say.say(Msg("entry {seq}: timeout, the stand-in played {player}", seq=seq,
                           player=game.entries[seq].player))
        subject = f"{tag(game.game_id)} {what}"
        parts = list(said_in(lang))
        page: tuple[bytes | None, str] | None = None
        every = modes.mail_mode(player) == "every"  # the log rides with 'every' mails alone
        if every:
            parts.append(log_text(game, lang))
        if player == to_move and last == game.last_seq:
            subject = lead(f"{turn_subject(game, lang)}; {what}")  # what the reader must do, first
            page = composer_page(seat_view(game_dir(host.games, game.game_id), game, player), host.from_address,
                                 lang)  # its own looks in the page (R5.6)
            parts.append(move_text(lang) + page_text(game, player, page, lang) + "\n\n"
                         + template(SeatView(game, player), lang=lang))
        msg = host.answers.message(emails[player], subject, "\n\n".join(parts) + "\n",
                                   host.queue.message_id(batch, index, host.from_address))
        if every:
            msg.add_attachment(log_gz, maintype="application", subtype="gzip", filename=log_name(game))
        if page is not None:  # the template is in the text: the file is one no client quotes again
            msg.add_attachment(template(SeatView(game, player), lang=lang).encode("utf-8"),
                               **octet_part(f"{game.game_id}-{game.last_seq}-{player}.txt"))
            attach_page(msg, game, player, page)
        out.append(msg)
    return out
