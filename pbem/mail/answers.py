"""The replies to a verdict, composed by the transport's side after the host's step recorded it.

:meth:`pbem.mail.admission.Admission.decide` decides and records; :class:`Answers` then
composes what goes out from the :data:`~pbem.mail.verdict.Verdict` alone and the
entries it recorded, and spools it in the outbox (:class:`pbem.mail.outbox.Queue`):

* a move applied: the mails each registered seat asked for (:mod:`pbem.mail.replies`:
  its mail mode, its language, its own view), and the result to a sender whose address is
  not the mover's;
* a refusal: to a registered sender, in its seat's language; a stale move from its seat's
  own address gets the seat's current template too;
* a commitment held (P8): its one-time code, to the seat's address only;
* a mail command: its answer (:func:`pbem.mail.commands.answer`).

A reply that changes nothing (a refusal, a one-time code, a command's answer) goes to an
address at most :data:`pbem.mail.ratelimit.PER_HOUR` times an hour
(:func:`pbem.mail.ratelimit.within`): a forged From amplifies nothing.  Beyond it the
message is filed with no reply, and the verdict's line says so.

Each mail carrying a seat's template is noted with its game, seat and entry before it is
spooled (:mod:`pbem.mail.threads`), so that a plain Reply to it is read as a move.
"""

from __future__ import annotations

from collections.abc import Callable
from email.message import EmailMessage
from pathlib import Path
from typing import assert_never

from pbem.errors import AlreadyApplied, FormatError, PbemError, StaleError
from pbem.host.games import game_dir, load_game
from pbem.host.keyconfirm import Held, confirm_text
from pbem.host.settings import load_settings, normal_address
from pbem.host.step import Applied
from pbem.i18n import Msg, translator
from pbem.log.game import Game
from pbem.mail.accept import refused_text
from pbem.mail.commands import Answer, attach, language_of, seat_template, sender_seat
from pbem.mail.headers import Mail
from pbem.mail.invite import invite_round
from pbem.mail.outbox import Queue
from pbem.mail.press import Relayed
from pbem.mail.ratelimit import PER_HOUR, within
from pbem.mail.replies import Report, applied_mails, compose, octet_part, reply, set_subject, turn_subject
from pbem.mail.resend import awaited_seats
from pbem.mail.threads import note_threads, thread_of
from pbem.mail.verdict import Answered, Handled, Ignored, KeyHeld, Recorded, Refused, Verdict, noted


class Answers:
    """The composer of every reply to a decided message (see the module)."""

    def __init__(self, games: Path, from_address: str | None, queue: Queue,
                 players: Callable[[], dict[str, str]]) -> None:
        self.games = games
        self.from_address = from_address
        self.queue = queue
        self.players = players  # every registered address (normalized) -> as registered

    def spool(self, mail: Mail, verdict: Verdict, batch: str, key: str) -> Verdict:
        """The replies ``verdict`` calls for, composed and spooled under ``batch`` (nothing
        without the host's From address); the verdict, its line saying so if the reply to an
        address was held back by the rate limit."""
        if self.from_address is None:
            return verdict
        relays = verdict.answer.relays if isinstance(verdict, Answered) and isinstance(verdict.answer, Relayed) else ()
        if self._limited(verdict):  # press already kept is relayed all the same
            self.queue.put(batch, key, self.relays(relays, batch))
            return noted(verdict, Msg.plural("{line}; not mailed: {n} answer to that address in the last hour",
                                             "{line}; not mailed: {n} answers to that address in the last hour",
                                             PER_HOUR, line=verdict.result))
        out: list[EmailMessage] = []
        threads: list[tuple[str, Game, str]] = []
        match verdict:
            case Recorded(applied=applied):
                out = [m for m in self.applied(mail, applied, batch, threads)
                       if normal_address(str(m["To"])) in self.players()]
            case Refused(refusal=refusal, to=to, seat=seat, lobby=lobby):
                if to is not None and (to in self.players() or lobby):
                    out = [self.refusal(mail, to, refusal, batch, seat, threads)]
            case KeyHeld(held=held):
                out = [self.held(held, batch)]
            case Answered(answer=answer, to=to):
                out = [self.answer(mail, answer, to, batch), *self.relays(relays, batch)]
            case Ignored() | Handled():
                return verdict
            case _:
                assert_never(verdict)
        if out:
            sent = {str(m["Message-ID"]): m for m in out}
            note_threads(self.queue.path, [(mid, game, seat) for mid, game, seat in threads if mid in sent])
            self.queue.put(batch, key, out)
        return verdict

    def _limited(self, verdict: Verdict) -> bool:
        """True if ``verdict`` calls for a reply that changes nothing and its address has had
        its :data:`~pbem.mail.ratelimit.PER_HOUR` answers this hour (the reply is counted if not)."""
        to: str | None = None
        game: str | None = None
        match verdict:
            case KeyHeld(held=held):
                to = held.to
            case Refused(to=to, lobby=lobby, game=game):
                if to not in self.players() and not lobby:
                    return False  # no reply at all: nothing to count
            case Answered(to=to, game=game):
                pass
            case _:
                return False
        stranger = to not in self.players()
        return to is not None and not within(self.queue.path, to, stranger=stranger, game=game)

    # --- one mail ------------------------------------------------------------------------

    def sender_address(self) -> str:
        if self.from_address is None:  # pragma: no cover - nothing is composed without it
            raise FormatError(Msg("no From address for the host's replies"), "P1")
        return self.from_address

    def message(self, to: str, subject: str, body: str, message_id: str) -> EmailMessage:
        return compose(self.sender_address(), to, subject, body, message_id)

    def reply(self, mail: Mail, to: str, body: str, batch: str, index: int, lang: str = "en") -> EmailMessage:
        host = self.sender_address()
        return reply(host, mail, to, body, self.queue.message_id(batch, index, host), lang)

    # --- by outcome ----------------------------------------------------------------------

    def applied(self, mail: Mail, applied: Applied, batch: str,
                threads: list[tuple[str, Game, str]] | None = None) -> list[EmailMessage]:
        """The mails of an applied move: what each seat asked for (:func:`pbem.mail.replies.applied_mails`)."""
        queue, host = self.queue, self.sender_address()
        game = applied.game
        path = game_dir(self.games, game.game_id)
        emails = load_settings(path).emails
        batch = batch or queue.batch_id(f"{game.game_id}:{game.last_seq}")
        report = Report.of(applied, path)
        inviting = invite_round(path, game)
        return applied_mails(
            host, mail, report, emails, inviting,
            lambda index: queue.message_id(batch, index, host), normal_address(mail.sender or ""),
            threads,
        )

    def refusal(self, mail: Mail, to: str, err: PbemError, batch: str, seat: tuple[Path, str] | None,
                threads: list[tuple[str, Game, str]] | None = None) -> EmailMessage:
        """The refusal; for a stale move (P7) from its seat's own address, with the seat's
        current template, built from that seat's view alone (P10)."""
        # the seat's language; else that of the sender's one seat on this host, if it has one
        lang = load_settings(seat[0]).language(seat[1]) if seat is not None else language_of(self.games, to)
        text = refused_text(err, lang)
        current = (self.current_template(*seat, lang)  # a copy of a move already in: nothing to redo
                   if isinstance(err, StaleError) and not isinstance(err, AlreadyApplied) and seat is not None
                   else None)
        if current is not None:
            moved_on = Msg("The game has moved on: your current template is attached (and below). Fill it in and "
                           "send it back; a message whose subject is 'template' gets a fresh one.")
            text += "\n" + translator(lang).say(moved_on) + "\n\n" + current[2]
        msg = self.reply(mail, to, text, batch, 0, lang)
        if current is not None and seat is not None:
            game = current[0]
            if seat[1] in awaited_seats(game):  # "your move" only to a seat whose move the game waits for
                set_subject(msg, turn_subject(game, lang))
            msg.add_attachment(current[2].encode("utf-8"), **octet_part(current[1]))
            if threads is not None:
                threads.append((str(msg["Message-ID"]), game, seat[1]))
        elif threads is not None and (awaited := self.awaited_seat(mail, to, seat)) is not None:
            threads.append((str(msg["Message-ID"]), *awaited))  # a Reply with the corrected move is a move
        return msg

    def awaited_seat(self, mail: Mail, to: str, seat: tuple[Path, str] | None) -> tuple[Game, str] | None:
        """The game and the seat of the sender's address whose move the game awaits, if a refused
        message came from one: the move's seat, else that of the host's mail it answered, else the
        address's one seat here.  A Reply to the refusal then reads as that seat's move after the
        game's last entry, as a Reply to its "your move" mail does."""
        if seat is None:
            noted = thread_of(self.games, mail)
            try:
                seat = ((game_dir(self.games, str(noted["game"])), str(noted["player"])) if noted is not None
                        else sender_seat(self.games, to, None))
                if seat[1] not in load_settings(seat[0]).players_of(to):
                    return None
            except PbemError:  # no game, or several: a Reply to the refusal names its own
                return None
        try:
            game = load_game(seat[0])
        except PbemError:
            return None
        return (game, seat[1]) if seat[1] in awaited_seats(game) else None

    @staticmethod
    def current_template(path: Path, player: str, lang: str = "en") -> tuple[Game, str, str] | None:
        """(the game, the file name, the text) of the seat's template now, in ``lang``; None
        once the game is over."""
        try:
            game = load_game(path)
            return game, f"{game.game_id}-{game.last_seq}-{player}.txt", seat_template(path, game, player, lang)
        except PbemError:  # the game is over (or its log unreadable): the refusal alone
            return None

    def relays(self, relays: tuple[tuple[str, str, str], ...], batch: str) -> list[EmailMessage]:
        """The press relayed to its readers (pbem.mail.press), each a mail of its own."""
        host = self.sender_address()
        return [self.message(to, subject, text, self.queue.message_id(batch, index, host))
                for index, (to, subject, text) in enumerate(relays, start=1)]

    def held(self, held: Held, batch: str) -> EmailMessage:
        """The one-time code, mailed to the seat's address only (never to the sender), in the
        seat's language (:func:`pbem.host.keyconfirm.confirm_text`)."""
        lang = load_settings(game_dir(self.games, held.game)).language(held.seat)
        subject, body = confirm_text(held, lang)
        return self.message(held.to, subject, body, self.queue.message_id(batch, 0, self.sender_address()))

    def answer(self, mail: Mail, found: Answer, to: str, batch: str) -> EmailMessage:
        """A mail command's answer, as a reply to the sender alone (pbem.mail.commands); with
        no subject of its own, "Re:" the sender's."""
        msg = self.reply(mail, to, found.text, batch, 0)
        if found.subject:
            set_subject(msg, found.subject)
        attach(msg, found)
        return msg
