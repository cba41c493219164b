"""`pbem mail`: the host's mailbox loop, the Maildir transport of the one admission path.

Each new message of the inbox Maildir is taken in arrival order and handed, with its
Maildir key, to :meth:`pbem.mail.admission.Admission.admit` (the verdict, the move
through the host's step, the replies), on its own:

* size, header and MIME limits are checked on the raw bytes, and the sender on the
  headers alone, before the body is parsed (:func:`pbem.mail.headers.parse_mail`);
* a registered player's move is applied, or refused with the CLI's one-paragraph
  error; either way the replies are spooled to the queue (``GAMES/+mail-queue``)
  before the message is filed as seen (``cur/``, flag ``S``);
* a message whose handling fails (a stranger's mail, a hostile header, a bomb, an
  internal error) is moved to the inbox's ``.Quarantine`` folder, kept and logged
  with its id; a registered sender is told, truthfully, whether the move was applied;
* each player gets one mail per applied move: the report and log, the mover's
  result, the next template, and that player's own private reveal only;
* invitations for the opening's rounds are queued once each (:mod:`pbem.mail.invite`).

The replies themselves are composed by :mod:`pbem.mail.replies`; ``pbem apply MSG.eml``
is the other transport of the same path.

Delivery is a separate step (:meth:`Queue.flush`): what the server refuses stays
queued for the next run or ``--flush``; each reply keeps its Message-ID.  Every
reply comes from the host's configured address, never from an incoming header.
An applied message's key (its Message-ID, else a hash of its bytes) is kept in the
game's ``mail-seen.txt``, so the same message is never applied twice, by either
transport; a resent move in a new message is refused by the log itself (P7).
"""

from __future__ import annotations

import logging
import mailbox
import os
from collections.abc import Callable
from dataclasses import dataclass
from email import policy
from email.message import EmailMessage
from email.parser import BytesHeaderParser
from email.utils import formatdate, getaddresses
from pathlib import Path

from pbem.errors import FormatError, PbemError, Unwanted
from pbem.host.gamesets import changes
from pbem.host.settings import SETTINGS_NAME, load_settings, normal_address
from pbem.i18n import Msg, error_text, translator
from pbem.mail.accept import public_text
from pbem.mail.admission import Admission, Admitted, Inbound
from pbem.mail.commands import language_of
from pbem.mail.digest import digests
from pbem.mail.final import announce_ends
from pbem.mail.headers import (
    HEADER_LIMIT,
    MAIL_LIMIT,
    Mail,
    checked_address,
    clean_text,
    header_block,
    too_large,
)
from pbem.mail.invite import invite
from pbem.mail.ledger import ledger_for, maildir_messages
from pbem.mail.lobby import asks_lobby, screened
from pbem.mail.outbox import Queue, file_as_seen
from pbem.mail.outgoing import safe_header
from pbem.mail.ratelimit import within
from pbem.mail.verdict import Known, Quarantined, Unfinished, Verdict, stopped

Send = Callable[[EmailMessage], None]
_log = logging.getLogger("pbem.mail.host")


# --- the mailbox loop ----------------------------------------------------------------------

QUARANTINE = ".Quarantine"  # a Maildir++ subfolder of the inbox: kept, never deleted




@dataclass
class Processed:
    """One message of a run: its key, its sender, what became of it and the line said of it."""

    key: str
    sender: str | None
    outcome: Verdict | Quarantined
    result: str  # the verdict's line, as the host's log shows it

    @property
    def quarantined(self) -> bool:
        return isinstance(self.outcome, Quarantined)


PLAIN_TYPES = ("text/plain", "multipart/alternative", "multipart/mixed")  # a person's mail
SEEN_MAIL = "index-seen-mail"  # in the queue's folder: the host's index's version its mail passes have seen


class MailHost(Admission):
    """One run over an inbox, the Maildir transport of the one admission path
    (:class:`pbem.mail.admission.Admission`): each message is applied (or refused, or
    quarantined) and its replies spooled to the queue (:class:`Queue`); :meth:`flush`
    then delivers the queue."""

    def __init__(self, games: Path, send: Send, from_address: str, queue: Queue | None = None) -> None:
        address = checked_address(from_address, Msg("the host's From address"))
        super().__init__(games, address, queue)
        self.from_address: str = address
        self.send = send
        self.done: list[Processed] = []
        self.stopping: Callable[[], bool] = lambda: False  # pbem serve's SIGTERM: between messages

    def run(self, inbox: Path) -> list[Processed]:
        """Every message of the inbox not handled yet, ``new/`` and ``cur/`` alike (a message
        another client has seen is applied once too, :mod:`pbem.mail.ledger`)."""
        box = mailbox.Maildir(str(inbox), factory=None, create=False)
        ledger = ledger_for(self.queue.path, "maildir:" + str(inbox.resolve()))
        handled = ledger.keys()
        added = False
        try:
            for folder, key, name in maildir_messages(inbox, box.colon):
                if self.stopping():  # stopped between two messages, never inside one
                    break
                if key not in handled:
                    self.one(inbox, key, name, box.colon, folder)
                    if not self.done[-1].quarantined:  # a quarantined one the host puts back is read again
                        ledger.add(key, sync=False)  # its replies are on the disk already (Queue.put)
                        added = True
        finally:
            if added:
                ledger.sync()
        self.invite()
        return self.done

    # --- one message, isolated ------------------------------------------------------------

    def one(self, inbox: Path, key: str, name: str, colon: str = ":", folder: str = "new") -> None:
        """Handle one message; whatever fails is caught and the message quarantined.  A message
        in ``new/`` is filed as seen; one another client filed in ``cur/`` stays as it is."""
        try:
            admitted = self._handle(inbox / folder / name, key)
        except Exception as err:  # isolation: no message stops the run
            self._quarantine(inbox, key, name, colon, err, folder)
            return
        result = admitted.verdict.result
        if folder == "new":
            file_as_seen(inbox, name, colon)
        else:  # said, never skipped silently: another client had seen it
            result += " (it was in cur/: seen by another mail client first)"
        self.done.append(Processed(key, admitted.sender, admitted.verdict, result))

    def _handle(self, path: Path, key: str) -> Admitted:
        with path.open("rb") as handle:
            if os.fstat(handle.fileno()).st_size > MAIL_LIMIT:
                head = handle.read(HEADER_LIMIT + 4)  # its headers only: a registered sender is told
                raise Unfinished(too_large(), Known(head, None, None, None, None))
            data = handle.read(MAIL_LIMIT + 1)
        return self.admit(Inbound(data, key), screen=self._admit, parsed=self._stranger)

    def _admit(self, mail: Mail) -> None:
        """Before the body is parsed: only registered players' mail is worth more work, and a
        stranger's whose subject is a lobby command, or a plain mail whose first line may be one
        (:meth:`_stranger` reads it once parsed)."""
        if mail.automatic:
            return
        if mail.sender is None:
            raise Unwanted(Msg("the message has no single From address"))
        if (normal_address(mail.sender) not in self.players() and not screened(mail.subject)
                and mail.message.get_content_type() not in PLAIN_TYPES):
            raise self._unwanted(mail.sender)

    def _stranger(self, mail: Mail) -> None:
        """Once parsed: a stranger's message is read only for a lobby command (or the code that
        confirms one) in its subject or on its text's first line (:mod:`pbem.mail.lobby`)."""
        if (not mail.automatic and mail.sender is not None and normal_address(mail.sender) not in self.players()
                and not screened(mail.subject) and not asks_lobby(mail)):
            raise self._unwanted(mail.sender)

    @staticmethod
    def _unwanted(sender: str) -> Unwanted:
        return Unwanted(Msg("{sender} is not registered for any game on this host", sender=safe_header(sender, 80)))

    def _quarantine(
        self, inbox: Path, key: str, name: str, colon: str, err: Exception, where: str = "new",
    ) -> None:
        """The Maildir's quarantine: the message moved to ``.Quarantine``, then noted."""
        folder = inbox / QUARANTINE
        for sub in ("tmp", "new", "cur"):
            (folder / sub).mkdir(mode=0o700, parents=True, exist_ok=True)
        src = inbox / where / name
        if src.exists():
            os.rename(src, folder / "cur" / f"{key}{colon}2,")
        self.quarantined(folder / "pbem-quarantine.log", key, err)

    def quarantined(self, log: Path, key: str, failure: Exception) -> None:
        """A message kept for the host (whatever the transport): one line in ``log``, the
        sender told if registered, and the run's record of it (``failure``: an
        :class:`~pbem.mail.verdict.Unfinished` says what was known of the message)."""
        err, known = stopped(failure)
        was = known if known is not None else Known(b"", None, None, None, None)
        why = f"{type(err).__name__}: {err}" if not isinstance(err, PbemError) else str(err)
        why = safe_header(why, 300)
        ident = was.ident or "?"
        line = f"{formatdate(localtime=True)}\t{key}\t{safe_header(str(ident), 300)}\t{why}\n"
        log.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(fd, line.encode("utf-8", "replace"))
        finally:
            os.close(fd)
        _log.warning("quarantined %s (%s): %s", key, ident, why)
        to = was.to or self._registered_sender(was.data)
        if to is not None and within(self.queue.path, to):  # a registered player: told, in words that are
            # true, in the seat's language (at most pbem.mail.ratelimit.PER_HOUR notices an hour)
            try:
                lang = language_of(self.games, to)
            except Exception:  # pragma: no cover - the notice is best effort: English then
                lang = "en"
            said = translator(lang)
            if was.recorded is not None:
                game, seq = was.recorded
                text = said.say(Msg("Your move was applied ({applied}), but the host could not finish "
                                    "handling your message; it was kept for the host to look at.",
                                    applied=Msg("game {game}, entry {seq}", game=game, seq=str(seq)))) + "\n"
            elif isinstance(err, PbemError):
                text = (said.say(Msg("Your message was not applied; nothing was changed. It was kept for the "
                                     "host to look at.")) + f"\n\npbem: {public_text(error_text(err, lang))}\n")
            else:
                text = said.say(Msg("Your message was not applied: the host could not handle it, and kept it "
                                    "to look at. Please send your move again in a new plain-text message.")) + "\n"
            text += "\n" + said.say(Msg("Reference: {key}", key=key)) + "\n"
            try:
                batch = self.queue.batch_id("quarantine:" + key)
                msg = self.answers.message(to, said.say(Msg("pbem: your message was kept by the host")), text,
                                           self.queue.message_id(batch, 0, self.from_address))
                self.queue.put(batch, key, [msg])
            except Exception as notice_err:  # pragma: no cover - the notice is best effort
                _log.warning("no notice for %s: %s", key, notice_err)
        line = f"quarantined: {why}"
        self.done.append(Processed(key, was.sender or to, Quarantined(line), line))

    def _registered_sender(self, data: bytes | None) -> str | None:
        """The registered address a quarantined message is from, if its one From header
        can be read cleanly (the rest of the message may be hostile)."""
        if not data:
            return None
        try:
            head = BytesHeaderParser(policy=policy.default).parsebytes(header_block(data))
            found = head.get_all("From") or []
            if len(found) != 1 or not clean_text(str(found[0])):
                return None
            addresses = [a for _n, a in getaddresses([str(found[0])]) if a]
            if len(addresses) != 1:
                return None
            address = normal_address(addresses[0])
            if address not in self.players():
                return None
            return checked_address(address, Msg("the sender"))
        except Exception:  # no notice then
            return None

    # --- invitations: pbem.mail.invite ----------------------------------

    def invite(self) -> None:
        """Invitations not yet sent, each round once, and the last mail of every game whose
        secret is revealed (:mod:`pbem.mail.final`), spooled like every reply."""
        # the games changed since the last pass, as the host's index says
        with changes(self.games, self.queue.path / SEEN_MAIL) as found:
            folders = None if found is None else found.folders
            trouble = None if found is None else found.trouble
            invite(self.games, self.queue, self.from_address, folders, trouble)
            announce_ends(self.games, self.queue, self.from_address, folders, trouble)
            digests(self.games, self.queue, self.from_address,  # the digest seats' summary of the day
                    None if found is None else found.readers)


def host_address(games: Path, from_address: str | None) -> str:
    """``--from``, else the one ``mail_from`` the games' host settings agree on."""
    if from_address:
        return checked_address(from_address.strip(), "--from")
    found: set[str] = set()
    if games.is_dir():
        for child in games.iterdir():
            if (child / SETTINGS_NAME).is_file():
                try:
                    stored = load_settings(child).mail_from
                except PbemError:
                    continue
                if stored:
                    found.add(stored)
    if len(found) == 1:
        return checked_address(found.pop(), Msg("the stored mail_from"))
    raise FormatError(Msg(
        "pbem mail needs the host's own From address: give --from ADDRESS (or $PBEM_FROM), "
        "or store 'mail_from' in the games' host.yaml; replies never take it from a message"),
        "P1",
    )


