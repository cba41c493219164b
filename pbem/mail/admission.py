"""One mail admission path: a message in, a typed verdict recorded, then the replies out.

A transport hands :meth:`Admission.admit` the raw bytes of one message and its own
key for this delivery (:class:`Inbound`); the Maildir reader of ``pbem mail``
(:class:`pbem.mail.host.MailHost`), the IMAP reader and ``pbem apply MSG.eml``
(:func:`apply_mail_file`) are its transports.  It works in two steps, as boardgame.io's
``Master`` decides and its transport then tells the players:

1. :meth:`Admission.decide`, the authority: the limits, then the headers, then the body
   (:func:`pbem.mail.headers.parse_mail`, :func:`pbem.mail.message.mail_move`); a lobby
   command from any address (``join``, ``leave``, ``watch``, ``unwatch``, ``games``, ``press``
   and the ``confirm CODE`` of a held wish: :mod:`pbem.mail.lobby`, :mod:`pbem.mail.press`); the
   sender (P8 notes: a game that lists addresses takes a move only from an address of
   the move's seat; one that lists none binds no seat to an address); the message
   counted once; the move through the host's step (:func:`pbem.host.games.apply_move`:
   the start, the stand-ins and the bot seats answer in the same lock).  It returns a
   :data:`~pbem.mail.verdict.Verdict` (one result type, with what it carries) and composes nothing.
2. :class:`pbem.mail.answers.Answers`, the transport's side: the replies composed from
   the verdict and the entries it recorded (the reports, the templates, the pages and
   pictures, a refusal, a one-time code, a command's answer), spooled in the outbox
   (``GAMES/+mail-queue``).

A message counts as applied only once its replies are spooled: a run stopped in between
leaves it unreported, and the next run reports it (:meth:`Admission._unreported`); a
message applied before is refused.  Without the host's own From address (``--from``,
``$PBEM_FROM``, ``mail_from``) nothing can be mailed: the verdict is the same and no
reply is queued.
"""

from __future__ import annotations

import hashlib
import os
import time
from pathlib import Path
from typing import assert_never

from pbem.errors import FormatError, PbemError, SignatureError, StaleError, StateError, UnknownError
from pbem.host.games import apply_move, game_dir, load_game
from pbem.host.keyconfirm import Confirmation, Held, code_in, confirm, hold, registers_key
from pbem.host.lobby import held
from pbem.host.press import held_in as held_press
from pbem.host.private import PRIVATE_DIR, seat_view
from pbem.host.settings import SETTINGS_NAME, load_settings, normal_address, record_seen, seen_ids
from pbem.host.step import Applied
from pbem.i18n import Msg
from pbem.log.logfile import LOG_NAME, locked
from pbem.log.records import Reveal, Standin, Start
from pbem.log.records.sent import MoveFile
from pbem.mail.accept import check_sender, message_applied
from pbem.mail.answers import Answers
from pbem.mail.away import away_move, signing_answer
from pbem.mail.bodytext import body_text
from pbem.mail.commands import AWAY, answer, command_of, settle
from pbem.mail.headers import Admit, HostileMail, Mail, checked_address, parse_mail
from pbem.mail.lobby import Asking, confirmed, lobby_of
from pbem.mail.lobby import answer as lobby_answer
from pbem.mail.message import mail_move
from pbem.mail.outbox import QUEUE_NAME, Queue
from pbem.mail.press import confirmed_press, press_answer
from pbem.mail.threads import thread_of
from pbem.mail.verdict import Answered, Handled, Ignored, KeyHeld, Known, Recorded, Refused, Unfinished, Verdict
from pbem.record import Record
from pbem.referee.admit import read_names, sent_key

_HOSTS_OWN = (Standin, Start, Reveal)  # entries the host adds after a move, in the same apply


class Inbound(Record):
    """One delivery of a message: its raw bytes and the transport's key for this delivery
    (a Maildir file's key; a file's own for ``pbem apply``)."""

    data: bytes
    key: str


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
        self.answers = Answers(games, from_address, self.queue, self.players)

    def admit(self, inbound: Inbound, screen: Admit | None = None, parsed: Admit | None = None) -> Admitted:
        """One message: decided and recorded (:meth:`decide`), then its replies composed and
        spooled (:class:`pbem.mail.answers.Answers`), then counted as applied.  A transport's
        ``screen`` sees the headers before the body is parsed, its ``parsed`` the whole message.
        A failure is raised as :class:`Unfinished`, with what was known of the message then."""
        known = Known(inbound.data, None, None, None, None)
        try:
            mail = parse_mail(inbound.data, admit=screen)
            known = Known(inbound.data, mail.sender, None, None, None)
            if parsed is not None:
                parsed(mail)
            ident = message_key(inbound.data, mail.message_id)
            known = Known(inbound.data, mail.sender, ident, None, None)
            queue, key = self.queue, inbound.key
            batch = queue.batch_id(ident)
            answered = queue.spooled(batch)  # this very message was answered before
            if answered and not queue.handled(batch, key):
                # received again (a new delivery): new replies, with Message-IDs of their own
                batch = queue.batch_id(f"{ident}\0{key}")
            if queue.handled(batch, key):  # a run stopped after spooling: filed now, once
                return Admitted(mail.sender, Handled(Msg("already handled (its replies were queued by an earlier "
                                                         "run)")))
            verdict = self.decide(mail, ident, answered)
            known = _known(known, verdict, mail)
            verdict = self.answers.spool(mail, verdict, batch, key)
            if isinstance(verdict, Recorded):
                # Only once its replies are spooled is the message counted as applied: a run stopped in
                # between leaves it unreported, and the next run reports it (see _unreported).
                path = game_dir(self.games, verdict.applied.game.game_id)
                with locked(path):
                    record_seen(path, ident, verdict.applied.entries[0].seq)
        except Unfinished as stop:  # from the decision, which knows no bytes
            was = stop.known
            known = Known(inbound.data, was.sender, was.ident, was.to, was.recorded)
            raise Unfinished(stop.cause, known) from stop.cause
        except Exception as err:
            raise Unfinished(err, known) from err
        return Admitted(mail.sender, verdict)

    def decide(self, mail: Mail, ident: str, answered: bool = False) -> Verdict:
        """The verdict on ``mail`` (``ident``: what makes it the same message), recorded through
        the host's step where it is a move; no reply is composed here."""
        if mail.automatic:
            return Ignored(Msg("ignored: an automatic message"))
        try:
            to = checked_address(normal_address(mail.sender or ""), Msg("the sender"))
        except PbemError as err:
            return _refused(err, None)
        try:
            lobby_verdict = self._lobby(mail, to)
            if lobby_verdict is not None:  # open games, observers and press (pbem.mail.lobby)
                return lobby_verdict
            return self._command_or_move(mail, to, ident, answered)
        except PbemError as err:
            if isinstance(err, HostileMail):
                raise Unfinished(err, Known(b"", mail.sender, ident, to, None)) from err
            return _refused(err, to)
        except Exception as err:
            raise Unfinished(err, Known(b"", mail.sender, ident, to, None)) from err

    def _command_or_move(self, mail: Mail, to: str, ident: str, answered: bool) -> Verdict:
        command = command_of(mail)
        away = None
        if command is not None and command.word == AWAY:  # R8.5: a move the host writes for the seat
            away = away_move(self.games, to, command)
            if away is None:  # P8: a keyed seat signs its own; the move to sign goes to its address only
                return Answered(Msg("answered: away for {to}", to=to), signing_answer(self.games, to, command),
                                to, None)
        elif command is not None:  # a question, not a move; a setting it changes is changed now
            settle(self.games, to, command)
            asked = f"{command.word} {command.rule}" if command.rule else command.word
            return Answered(Msg("answered: {command} for {to}", command=asked, to=to),
                            answer(self.games, to, command), to, None)  # public, or the seat's own view
        move, where, code = (away, "away", None) if away is not None else self._move_or_code(mail)
        if move is None:  # P8: a held key confirmed from its seat's address (host.keyconfirm)
            applied = confirm(self.games, code, mail.sender or "") if code is not None else _never()
            return _recorded(applied)
        found = self._accept(mail, move, where, to, ident, answered)
        if isinstance(found, Held):
            line = Msg("held: game {game}, {seat}'s commitment registers a key; a one-time "
                       "code went to {seat}'s address", game=found.game, seat=found.seat)
            return KeyHeld(Msg("{line} (P8)", line=line), found)
        return found if isinstance(found, Refused) else _recorded(found)

    def _lobby(self, mail: Mail, to: str) -> Verdict | None:
        """A lobby command (join, leave, watch, unwatch, games, press) or the ``confirm CODE`` of a
        held lobby wish or of a keyed seat's held press, answered; None for any other message.
        Its refusal goes to the sender even if no game knows the address (``Refused.lobby``),
        rate-limited as every answer (a stranger's, within the budget of the game it names)."""
        found = code_in(mail.subject, body_text(mail.message))
        pressed = held_press(self.games, found.code) if found is not None else None
        path = held(self.games, found.code) if found is not None and pressed is None else None
        game: str | None = None
        try:
            if found is not None and pressed is not None:  # P8: a keyed seat's press, confirmed from its address
                return Answered(Msg("answered: {command} for {to}", command="confirm press", to=to),
                                confirmed_press(self.games, pressed, found.code, to), to, None)
            if found is not None and path is None and found.signature is None and to not in self.players():
                raise UnknownError(Msg("no join, leave or watch awaits this code (a code is used once); "
                                       "nothing was changed"), "P1")
            if found is not None and path is not None:
                game = path.name
                answered = confirmed(self.games, path, found.code, to)
                self._players = None  # an address seated or unseated: the registered addresses change
                return Answered(Msg("answered: {command} for {to}", command="confirm", to=to), answered, to, game)
            asked = lobby_of(mail)
            if asked is None:
                return None
            named = self.games / (asked.game or "+") / LOG_NAME  # a game that exists: its own budget of answers
            game = asked.game if asked.game is not None and named.is_file() else None
            answered = press_answer(self.games, to, asked) if asked.word is Asking.PRESS else lobby_answer(
                self.games, to, asked)
        except PbemError as err:
            if isinstance(err, HostileMail):
                raise
            return _refused(err, to, lobby=True, game=game)
        return Answered(Msg("answered: {command} for {to}", command=asked.word, to=to), answered, to, game)

    def _move_or_code(self, mail: Mail) -> tuple[MoveFile | None, str, Confirmation | None]:
        """The message's move; else the one-time code of its 'confirm CODE' line (P8). A
        message that carries a move is a move, even one that quotes a code mail."""
        try:
            move, where = mail_move(mail, thread_of(self.games, mail))
        except FormatError:
            code = code_in(mail.subject, body_text(mail.message))
            if code is None:
                raise
            return None, "", code
        return move, where, None

    def _accept(self, mail: Mail, move: MoveFile, where: str, to: str, ident: str,
                answered: bool) -> Applied | Held | Refused:
        """The sender, the seen messages, then the move through the host's step."""
        path = game_dir(self.games, move.game)
        settings = load_settings(path)
        seat = None
        if settings.emails:  # the one sender rule (see the module)
            check_sender(settings, mail, move, where)
            seat = (path, move.player)  # the sender is this seat's: a stale move gets its template
        try:
            seen = seen_ids(path)
            if ident in seen:
                raise message_applied(seen[ident])
            if registers_key(move):  # P8: held until confirmed from the seat's address
                if self.from_address is None:
                    raise SignatureError(Msg(
                        "the commitment registers a key, which is confirmed by a code mailed to the seat's "
                        "address, and this host mails nothing (no From address); nothing was changed"), "P8",
                    )
                return hold(self.games, move, mail.sender or "")
            try:
                return apply_move(self.games, move)
            except StaleError:
                unreported = None if answered else self._unreported(path, move, seen)
                if unreported is None:
                    raise
                return unreported
        except PbemError as err:
            if isinstance(err, HostileMail):
                raise
            return _refused(err, to, seat=seat)

    def _unreported(self, path: Path, move: MoveFile, seen: dict[str, int]) -> Applied | None:
        """This message's move, already in the log but never reported: a run stopped (or a
        message quarantined) between the log's write and the spooling of its replies.

        It is the log's latest move but for the host's own answers after it (bot seats,
        stand-ins, the start and the reveal), no message is counted as having applied it,
        and no reply to this message was ever spooled.  Its replies are then written as
        they would have been (a reply is never lost); anything else is the duplicate the
        log refused."""
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


def _never() -> Applied:  # pragma: no cover - _move_or_code returns a move or a code
    raise FormatError(Msg("the message carries no move"), "P1")


def apply_mail_file(games: Path, data: bytes, from_address: str | None) -> Applied:
    """``pbem apply MESSAGE.eml``: the file transport.  Its replies are queued as
    ``pbem mail``'s are (a later ``pbem mail`` delivers them); a refusal is raised."""
    key = f"file.{time.time_ns()}.{os.getpid()}"  # each apply is a delivery of its own
    try:
        verdict = Admission(games, from_address).admit(Inbound(data, key)).verdict
    except Unfinished as stop:
        raise stop.cause from None
    match verdict:
        case Recorded(applied=applied):
            return applied
        case Refused(refusal=refusal):
            raise refusal
        case KeyHeld(held=held):
            raise StateError(Msg("nothing recorded yet: {result}", result=Msg(
                "held: game {game}, {seat}'s commitment registers a key; a one-time "
                "code went to {seat}'s address", game=held.game, seat=held.seat)), "P8")
        case Answered(result=result):
            raise StateError(Msg("nothing recorded: the message is a mail command ({result}); its answer "
                                 "is queued for 'pbem mail' to deliver", result=result), "P1")
        case Ignored(result=result) | Handled(result=result):
            raise FormatError(Msg("the message was not applied: {result}", result=result), "P1")
        case _:
            assert_never(verdict)


class Admitted(Record):
    """One message admitted: its sender (for the run's report) and the verdict on it."""

    sender: str | None
    verdict: Verdict


def _recorded(applied: Applied) -> Recorded:
    return Recorded(f"applied: game {applied.game.game_id}, entry {applied.entries[0].seq}", applied)


def _refused(err: PbemError, to: str | None, seat: tuple[Path, str] | None = None, lobby: bool = False,
             game: str | None = None) -> Refused:
    return Refused(f"refused: {err}", err, to, seat, lobby, game)


def _known(known: Known, verdict: Verdict, mail: Mail) -> Known:
    """What a transport is told of a message whose replies then fail: the sender's checked
    address and what the log recorded."""
    match verdict:
        case Recorded(applied=applied):
            return Known(known.data, known.sender, known.ident, _address(mail),
                         (applied.game.game_id, applied.entries[0].seq))
        case Refused(to=to) | Answered(to=to):
            return Known(known.data, known.sender, known.ident, to, None)
        case KeyHeld():
            return Known(known.data, known.sender, known.ident, _address(mail), None)
        case Ignored() | Handled():
            return known
        case _:
            assert_never(verdict)


def _address(mail: Mail) -> str | None:
    try:
        return checked_address(normal_address(mail.sender or ""), Msg("the sender"))
    except PbemError:
        return None
