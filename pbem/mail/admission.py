"""One mail admission path: a message in, a verdict and the replies out.

A transport hands :meth:`Admission.admit` the raw bytes of one message and its own
key for this delivery (:class:`Inbound`); the Maildir reader of ``pbem mail``
(:class:`pbem.mail.host.MailHost`) and ``pbem apply MSG.eml`` (:func:`apply_mail_file`)
are two transports, and a third (IMAP, a web page's submission) needs nothing else.
One function decides, for every transport:

* the limits, then the headers, then the body (:func:`pbem.mail.headers.parse_mail`,
  :func:`pbem.mail.message.mail_move`); a transport may screen the headers first
  (the Maildir's: only mail from an address registered on this host is read on);
* the sender (P8 notes), one rule: a game that lists addresses (``pbem new --email``)
  takes a move only from an address of the move's seat; a game that lists none binds
  no seat to an address, so its moves are judged on their own (and on their
  signatures, P8, where the game has keys) whichever way they came;
* the message counted once, keyed by its Message-ID and a hash of its bytes
  (:func:`message_key`): a message counts as applied only once its replies are
  spooled in the outbox (``GAMES/+mail-queue``); a message applied before is
  refused; a move whose replies a stopped run never spooled gets them now;
* the move applied through the host's step (:func:`pbem.host.games.apply_move`: the
  start, the stand-ins and the bot seats answer in the same lock);
* the replies: the report to every player, the result to the mover, a refusal to the
  sender (when the sender is registered on this host).  Without the host's own From
  address (``--from``, ``$PBEM_FROM``, ``mail_from``) nothing can be mailed: the
  verdict is the same and no reply is queued.
"""

from __future__ import annotations

import hashlib
import os
import time
from email.message import EmailMessage
from pathlib import Path
from typing import Any

from pbem.errors import FormatError, PbemError, SignatureError, StaleError, StateError
from pbem.host.games import apply_move, game_dir, load_game
from pbem.host.keyconfirm import Held, code_in, confirm, confirm_text, hold, registers_key
from pbem.host.private import PRIVATE_DIR, seat_view
from pbem.host.settings import SETTINGS_NAME, load_settings, normal_address, record_seen, seen_ids
from pbem.host.step import Applied
from pbem.i18n import Msg, translator
from pbem.log.logfile import LOG_NAME, locked
from pbem.log.records import Reveal, Standin, Start
from pbem.mail.accept import check_sender, refused_text
from pbem.mail.commands import Command, answer, attach, command_of, language_of, seat_template
from pbem.mail.headers import UTF8, Admit, HostileMail, Mail, parse_mail
from pbem.mail.invite import invite_round
from pbem.mail.message import body_text, mail_move
from pbem.mail.outbox import QUEUE_NAME, Queue
from pbem.mail.ratelimit import PER_HOUR, within
from pbem.mail.replies import Report, applied_mails, checked_address, compose, reply, set_subject
from pbem.record import Record
from pbem.referee.admit import read_names, sent_key

_HOSTS_OWN = (Standin, Start, Reveal)  # entries the host adds after a move, in the same apply


class Inbound(Record):
    """One delivery of a message: its raw bytes and the transport's key for this delivery
    (a Maildir file's key; a file's own for ``pbem apply``)."""

    data: bytes
    key: str


class Admitted(Record):
    """The verdict: one line, the refusal (an error with its exit code) or what was applied."""

    result: str
    refusal: PbemError | None
    applied: Applied | None


def message_key(data: bytes, message_id: str | None) -> str:
    """What makes a message the same message: its Message-ID, else its bytes."""
    return message_id if message_id else "sha256:" + hashlib.sha256(data).hexdigest()


class Admission:
    """The one admission path over the games folder ``games`` (see the module)."""

    def __init__(self, games: Path, from_address: str | None, queue: Queue | None = None) -> None:
        self.games = games
        self.from_address = from_address
        self.queue = queue if queue is not None else Queue(games / QUEUE_NAME)
        self._players: dict[str, str] | None = None

    def admit(self, inbound: Inbound, state: dict[str, Any] | None = None, screen: Admit | None = None) -> Admitted:
        """One message's verdict, its move applied and its replies spooled; ``state`` notes
        what is known so far, for a transport that keeps a message whose handling fails."""
        state = {} if state is None else state
        state["data"] = inbound.data
        mail = parse_mail(inbound.data, admit=screen)
        state["sender"] = mail.sender
        ident = state["ident"] = message_key(inbound.data, mail.message_id)
        queue, key = self.queue, inbound.key
        batch = queue.batch_id(ident)
        answered = queue.spooled(batch)  # this very message was answered before
        if answered and not queue.handled(batch, key):
            # received again (a new delivery): new replies, with Message-IDs of their own
            batch = queue.batch_id(f"{ident}\0{key}")
        if queue.handled(batch, key):  # a run stopped after spooling: filed now, once
            return Admitted(Msg("already handled (its replies were queued by an earlier run)"), None, None)
        if mail.automatic:
            return Admitted(Msg("ignored: an automatic message"), None, None)
        try:
            state["to"] = checked_address(normal_address(mail.sender or ""), Msg("the sender"))
            command = command_of(mail)
            if command is not None:  # a question, not a move (pbem.mail.commands)
                return self._answer(mail, command, state["to"], batch, key)
            move, where, code = self._move_or_code(mail)
            if move is None:  # P8: a held key confirmed from its seat's address (host.keyconfirm)
                applied = confirm(self.games, code, mail.sender or "")
                state["applied"] = f"game {applied.game.game_id}, entry {applied.entries[0].seq}"
            else:
                found = self._accept(mail, ident, move, where, state, answered)
                if isinstance(found, Held):
                    return self._held(found, batch, key)
                applied = found
        except HostileMail:
            raise
        except PbemError as err:
            to = state.get("to")
            if self.from_address is not None and to is not None and to in self.players():
                limited = not within(queue.path, to)  # pbem.mail.ratelimit: a forged From amplifies nothing
                queue.put(batch, key, [] if limited else [self._refusal(mail, to, err, batch, state.get("seat"))])
            return Admitted(f"refused: {err}", err, None)
        if self.from_address is not None:  # mail goes to addresses registered on this host only
            replies = self._applied(mail, applied, batch)
            queue.put(batch, key, [m for m in replies if normal_address(str(m["To"])) in self.players()])
        # Only once its replies are spooled is the message counted as applied: a run stopped
        # in between leaves it unreported, and the next run reports it (see _unreported).
        path = game_dir(self.games, applied.game.game_id)
        with locked(path):
            record_seen(path, ident, applied.entries[0].seq)
        return Admitted(f"applied: game {applied.game.game_id}, entry {applied.entries[0].seq}", None, applied)

    @staticmethod
    def _move_or_code(mail: Mail) -> tuple[Any, str, Any]:
        """The message's move; else the one-time code of its 'confirm CODE' line (P8). A
        message that carries a move is a move, even one that quotes a code mail."""
        try:
            move, where = mail_move(mail)
        except FormatError:
            code = code_in(mail.subject, body_text(mail.message))
            if code is None:
                raise
            return None, "", code
        return move, where, ""

    def _accept(
        self, mail: Mail, ident: str, move: Any, where: str, state: dict[str, Any], answered: bool
    ) -> Applied | Held:
        """The sender, the seen messages, then the move through the host's step; notes in
        ``state`` the moment the log changed."""
        path = game_dir(self.games, move.game)
        settings = load_settings(path)
        if settings.emails:  # the one sender rule (see the module)
            check_sender(settings, mail, move, where)
            state["seat"] = (path, move.player)  # the sender is this seat's: a stale move gets its template
        seen = seen_ids(path)
        if ident in seen:
            raise StaleError(
                Msg("this message was already applied, as entry {seq}; nothing was changed", seq=seen[ident]), "P7",
            )
        if registers_key(move):  # P8: held until confirmed from the seat's address
            if self.from_address is None:
                raise SignatureError(Msg(
                    "the commitment registers a key, which is confirmed by a code mailed to the seat's "
                    "address, and this host mails nothing (no From address); nothing was changed"), "P8",
                )
            return hold(self.games, move, mail.sender or "")
        try:
            applied = apply_move(self.games, move)
        except StaleError:
            unreported = None if answered else self._unreported(path, move, seen)
            if unreported is None:
                raise
            applied = unreported
        state["applied"] = f"game {applied.game.game_id}, entry {applied.entries[0].seq}"
        return applied

    def _unreported(self, path: Path, move: Any, seen: dict[str, int]) -> Applied | None:
        """This message's move, already in the log but never reported: a run stopped (or a
        message quarantined) between the log's write and the spooling of its replies.

        It is the log's latest move but for the host's own answers after it (bot seats,
        stand-ins, the start and the reveal), no message is counted as having applied it,
        and no reply to this message was ever spooled.  Its replies are then written as
        they would have been (a reply is never lost); anything else is the
        duplicate the log refused."""
        game = load_game(path)
        seq = game.sent.get(sent_key(read_names(game, move)))
        if seq is None or seq in seen.values():
            return None
        if any(e.player not in game.bots and not isinstance(e, _HOSTS_OWN)
               for e in game.entries[seq + 1:]):
            return None
        private = [path / PRIVATE_DIR / f"{player}.yaml" for player in game.players
                   if any(look.seq >= seq for look in seat_view(path, game, player).looks)]
        return Applied(game.entries[seq:], [], private, game)

    def _answer(self, mail: Mail, command: Command, to: str, batch: str, key: str) -> Admitted:
        """A mail command's answer, as a reply to the sender alone (pbem.mail.commands)."""
        found = answer(self.games, to, command)
        asked = f"{command.word} {command.rule}" if command.rule else command.word
        if self.from_address is not None and not within(self.queue.path, to):  # pbem.mail.ratelimit
            self.queue.put(batch, key, [])
            return Admitted(Msg("answered: {command} for {to}, not mailed: {limit} answers to that address in "
                                "the last hour", command=asked, to=to, limit=PER_HOUR), None, None)
        if self.from_address is not None:
            msg = self._reply(mail, to, found.text, batch, 0)
            set_subject(msg, found.subject)
            attach(msg, found)
            self.queue.put(batch, key, [msg])
        return Admitted(Msg("answered: {command} for {to}", command=asked, to=to), None, None)

    def _refusal(self, mail: Mail, to: str, err: PbemError, batch: str, seat: tuple[Path, str] | None) -> EmailMessage:
        """The refusal; for a stale move (P7) from its seat's own address, with the seat's
        current template, built from that seat's view alone (P10)."""
        # the seat's language; else that of the sender's one seat on this host, if it has one
        lang = load_settings(seat[0]).language(seat[1]) if seat is not None else language_of(self.games, to)
        text = refused_text(err, lang)
        current = (self._current_template(*seat, lang) if isinstance(err, StaleError) and seat is not None
                   else None)
        if current is not None:
            moved_on = Msg("The game has moved on: your current template is attached (and below). Fill it in and "
                           "send it back; a message whose subject is 'template' gets a fresh one.")
            text += "\n" + translator(lang).say(moved_on) + "\n\n" + current[1]
        msg = self._reply(mail, to, text, batch, 0, lang)
        if current is not None:
            msg.add_attachment(current[1].encode("utf-8"), maintype="text", subtype="plain", params=UTF8,
                               filename=current[0])
        return msg

    @staticmethod
    def _current_template(path: Path, player: str, lang: str = "en") -> tuple[str, str] | None:
        """(file name, text) of the seat's template now, in ``lang``; None once the game is over."""
        try:
            game = load_game(path)
            return f"{game.game_id}-{game.last_seq}-{player}.txt", seat_template(path, game, player, lang)
        except PbemError:  # the game is over (or its log unreadable): the refusal alone
            return None

    def _held(self, held: Held, batch: str, key: str) -> Admitted:
        """The one-time code, mailed to the seat's address only (never to the sender), in the
        seat's language (:func:`pbem.host.keyconfirm.confirm_text`)."""
        lang = load_settings(game_dir(self.games, held.game)).language(held.seat)
        subject, body = confirm_text(held, lang)
        index = 0
        mailed = within(self.queue.path, held.to)  # pbem.mail.ratelimit: forged commitments amplify nothing
        self.queue.put(batch, key, [self._message(held.to, subject, body,
                                                  self.queue.message_id(batch, index, self._sender_address()))]
                       if mailed else [])
        line = (Msg("held: game {game}, {seat}'s commitment registers a key; a one-time "
                    "code went to {seat}'s address", game=held.game, seat=held.seat) if mailed else
                Msg("held: game {game}, {seat}'s commitment registers a key; no code mailed: {limit} answers "
                    "to {seat}'s address in the last hour", game=held.game, seat=held.seat, limit=PER_HOUR))
        return Admitted(Msg("{line} (P8)", line=line), None, None)

    def players(self) -> dict[str, str]:
        """Every registered address (normalized) -> the address as registered."""
        if self._players is None:
            found: dict[str, str] = {}
            if self.games.is_dir():
                for child in sorted(self.games.iterdir()):
                    if (child / SETTINGS_NAME).is_file() and (child / LOG_NAME).is_file():
                        try:
                            emails = load_settings(child).emails
                        except PbemError:
                            continue
                        for address in emails.values():
                            found[normal_address(address)] = address
            self._players = found
        return self._players

    # --- the replies: pbem.mail.replies ----------------------------------------------------

    def _sender_address(self) -> str:
        if self.from_address is None:  # pragma: no cover - admit composes nothing without it
            raise FormatError(Msg("no From address for the host's replies"), "P1")
        return self.from_address

    def _message(self, to: str, subject: str, body: str, message_id: str) -> EmailMessage:
        return compose(self._sender_address(), to, subject, body, message_id)

    def _reply(self, mail: Mail, to: str, body: str, batch: str, index: int, lang: str = "en") -> EmailMessage:
        host = self._sender_address()
        return reply(host, mail, to, body, self.queue.message_id(batch, index, host), lang)

    def _applied(self, mail: Mail, applied: Applied, batch: str = "") -> list[EmailMessage]:
        """One mail per player per applied move, and the mover's result."""
        queue, host = self.queue, self._sender_address()
        game = applied.game
        path = game_dir(self.games, game.game_id)
        emails = load_settings(path).emails
        batch = batch or queue.batch_id(f"{game.game_id}:{game.last_seq}")
        report = Report.of(applied, path)
        inviting = invite_round(path, game)
        return applied_mails(
            host, mail, report, emails, inviting,
            lambda index: queue.message_id(batch, index, host), normal_address(mail.sender or ""),
        )


def apply_mail_file(games: Path, data: bytes, from_address: str | None) -> Applied:
    """``pbem apply MESSAGE.eml``: the file transport.  Its replies are queued as
    ``pbem mail``'s are (a later ``pbem mail`` delivers them); a refusal is raised."""
    key = f"file.{time.time_ns()}.{os.getpid()}"  # each apply is a delivery of its own
    verdict = Admission(games, from_address).admit(Inbound(data, key))
    if verdict.refusal is not None:
        raise verdict.refusal
    if verdict.applied is None and verdict.result.startswith("held"):
        raise StateError(Msg("nothing recorded yet: {result}", result=_without_rule(verdict.result)), "P8")
    if verdict.applied is None and verdict.result.startswith("answered"):
        raise StateError(Msg("nothing recorded: the message is a mail command ({result}); its answer "
                             "is queued for 'pbem mail' to deliver", result=verdict.result), "P1")
    if verdict.applied is None:
        raise FormatError(Msg("the message was not applied: {result}", result=verdict.result), "P1")
    return verdict.applied


def _without_rule(result: str) -> str:
    """The verdict's line without its closing rule (the refusal gives it), in its language."""
    if isinstance(result, Msg) and result.msgid == "{line} (P8)":
        return str(result.params["line"]) if not isinstance(result.params["line"], Msg) else result.params["line"]
    return result.removesuffix(" (P8)")
