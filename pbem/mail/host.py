"""`pbem mail`: the host's mailbox loop, and applying one received message.

Each new message of the inbox Maildir is taken in arrival order and handled on its
own (issue 10):

* size, header and MIME limits are checked on the raw bytes, and the sender on the
  headers alone, before the body is parsed (:func:`pbem.mail.message.parse_mail`);
* a registered player's move is applied, or refused with the CLI's one-paragraph
  error; either way the replies are spooled to the queue (``GAMES/+mail-queue``)
  before the message is filed as seen (``cur/``, flag ``S``);
* a message whose handling fails (a stranger's mail, a hostile header, a bomb, an
  internal error) is moved to the inbox's ``.Quarantine`` folder, kept and logged
  with its id; a registered sender is told, truthfully, whether the move was applied;
* each player gets one mail per applied move: the report and log, the mover's
  result, the next template, and that player's own private reveal only;
* invitations for the opening's rounds are queued once each.

Delivery is a separate step (:meth:`Queue.flush`): what the server refuses stays
queued for the next run or ``--flush``; each reply keeps its Message-ID.  Every
reply comes from the host's configured address, never from an incoming header.
An applied message's id is kept in the game's ``mail-seen.txt``, so the same
message is never applied twice; a resent move in a new message is refused by the
log itself (P7).
"""

from __future__ import annotations

import hashlib
import logging
import mailbox
import os
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from email import policy
from email.message import EmailMessage
from email.parser import BytesHeaderParser
from email.utils import formatdate, getaddresses
from pathlib import Path
from typing import Any

from pbem.errors import Exit, FormatError, PbemError, StaleError
from pbem.files import write_atomic
from pbem.host.games import Applied, apply_move, game_dir, load_game
from pbem.host.settings import SETTINGS_NAME, load_settings, normal_address, record_seen, seen_ids
from pbem.log.game import Game
from pbem.log.logfile import LOG_NAME, locked
from pbem.mail.accept import check_sender, public_text, refused_text
from pbem.mail.message import (
    MAIL_LIMIT,
    MSGID_RE,
    HostileMail,
    Mail,
    clean_text,
    header_block,
    mail_move,
    parse_mail,
)
from pbem.mail.outbox import QUEUE_NAME, Queue, file_as_seen, new_messages
from pbem.views.report import report_lines
from pbem.views.template import template
from pbem.views.text import board_lines

Send = Callable[[EmailMessage], None]
_log = logging.getLogger("pbem.mail.host")


# --- the mailbox loop ----------------------------------------------------------------------

QUARANTINE = ".Quarantine"  # a Maildir++ subfolder of the inbox: kept, never deleted
SUBJECT_LIMIT = 160
_ADDRESS_RE = re.compile(r"^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?\Z")


class Unwanted(PbemError):
    """A message the host will not answer: its sender is no registered player."""

    exit_code = Exit.FORMAT
    label = "not a player's message"


@dataclass
class Processed:
    key: str
    sender: str | None
    result: str  # "applied ..." / "refused: ..." / "ignored: ..." / "quarantined: ..."

    @property
    def quarantined(self) -> bool:
        return self.result.startswith("quarantined")


def checked_address(address: str, what: str) -> str:
    """A bare address safe for a header and an SMTP envelope, or :class:`FormatError`."""
    if not _ADDRESS_RE.match(address) or ".." in address:
        raise FormatError(f"{what} {address!r} is not a plain e-mail address (local@domain)", "P1")
    return address


def safe_header(value: str, limit: int = SUBJECT_LIMIT) -> str:
    """A header value made of printable text only: controls (CR, LF...) and separators
    become spaces, runs of spaces one, and the length is capped."""
    out = "".join(" " if unicodedata.category(ch)[0] in ("C", "Z") else ch for ch in value)
    out = " ".join(out.split())
    return out if len(out) <= limit else out[: limit - 3].rstrip() + "..."



def message_key(data: bytes, message_id: str | None) -> str:
    """What makes a message the same message: its Message-ID, else its bytes."""
    return message_id if message_id else "sha256:" + hashlib.sha256(data).hexdigest()


@dataclass
class MailHost:
    """One run over an inbox: each message is applied (or refused, or quarantined) and its
    replies spooled to the queue (:class:`Queue`); :meth:`flush` then delivers the queue."""

    games: Path
    send: Send
    from_address: str
    done: list[Processed] = field(default_factory=list)
    queue: Queue | None = None

    def __post_init__(self) -> None:
        self.from_address = checked_address(self.from_address, "the host's From address")
        if self.queue is None:
            self.queue = Queue(self.games / QUEUE_NAME)
        self._players: dict[str, str] | None = None

    def run(self, inbox: Path) -> list[Processed]:
        box = mailbox.Maildir(str(inbox), factory=None, create=False)
        for key, name in new_messages(inbox, box.colon):
            self.one(inbox, key, name, box.colon)
        self.invite()
        return self.done

    # --- one message, isolated ------------------------------------------------------------

    def one(self, inbox: Path, key: str, name: str, colon: str = ":") -> None:
        """Handle one message; whatever fails is caught and the message quarantined."""
        state: dict[str, Any] = {}
        try:
            result = self._handle(inbox / "new" / name, key, state)
        except Exception as err:  # isolation: no message stops the run (issue 10, item 1)
            self._quarantine(inbox, key, name, colon, err, state)
            return
        file_as_seen(inbox, name, colon)
        self.done.append(Processed(key, state.get("sender"), result))

    def _handle(self, path: Path, key: str, state: dict[str, Any]) -> str:
        assert self.queue is not None
        with path.open("rb") as handle:
            if os.fstat(handle.fileno()).st_size > MAIL_LIMIT:
                raise HostileMail(f"the message is larger than the {MAIL_LIMIT // 1024 // 1024} MiB allowed")
            data = handle.read(MAIL_LIMIT + 1)
        state["data"] = data
        mail = parse_mail(data, admit=self._admit)
        state["sender"] = mail.sender
        ident = message_key(data, mail.message_id)
        state["ident"] = ident
        batch = self.queue.batch_id(ident)
        if self.queue.handled(batch, key):  # a run stopped after spooling: filed now, once
            return "already handled (its replies were queued by an earlier run)"
        if mail.automatic:
            return "ignored: an automatic message"
        sender = state["to"] = checked_address(normal_address(mail.sender or ""), "the sender")
        try:
            move, where = mail_move(mail)
            applied = self._accept(mail, ident, move, where, state)
        except HostileMail:
            raise
        except PbemError as err:
            self.queue.put(batch, key, [self._reply(mail, sender, refused_text(err), batch, 0)])
            return f"refused: {err}"
        replies = self._applied(mail, applied, batch)
        self.queue.put(batch, key, replies)
        return f"applied: game {applied.game.game_id}, entry {applied.entries[0]['seq']}"

    def _accept(self, mail: Mail, ident: str, move: Any, where: str, state: dict[str, Any]) -> Applied:
        """:func:`accept_mail`, noting in ``state`` the moment the log changed."""
        path = game_dir(self.games, move.game)
        check_sender(load_settings(path), mail, move, where)
        seen = seen_ids(path)
        if ident in seen:
            raise StaleError(
                f"this message was already applied, as entry {seen[ident]}; nothing was changed", "P7",
            )
        applied = apply_move(self.games, move)
        state["applied"] = f"game {applied.game.game_id}, entry {applied.entries[0]['seq']}"
        with locked(path):
            record_seen(path, ident, applied.entries[0]["seq"])
        return applied

    def _admit(self, mail: Mail) -> None:
        """Before the body is parsed: only registered players' mail is worth more work."""
        if mail.automatic:
            return
        if mail.sender is None:
            raise Unwanted("the message has no single From address")
        if normal_address(mail.sender) not in self.players():
            raise Unwanted(f"{safe_header(mail.sender, 80)} is not registered for any game on this host")

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

    def _quarantine(
        self, inbox: Path, key: str, name: str, colon: str, err: Exception, state: dict[str, Any]
    ) -> None:
        assert self.queue is not None
        why = f"{type(err).__name__}: {err}" if not isinstance(err, PbemError) else str(err)
        why = safe_header(why, 300)
        folder = inbox / QUARANTINE
        for sub in ("tmp", "new", "cur"):
            (folder / sub).mkdir(mode=0o700, parents=True, exist_ok=True)
        src = inbox / "new" / name
        if src.exists():
            os.rename(src, folder / "cur" / f"{key}{colon}2,")
        ident = state.get("ident", "?")
        line = f"{formatdate(localtime=True)}\t{key}\t{safe_header(str(ident), 300)}\t{why}\n"
        fd = os.open(folder / "pbem-quarantine.log", os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(fd, line.encode("utf-8", "replace"))
        finally:
            os.close(fd)
        _log.warning("quarantined %s (%s): %s", key, ident, why)
        to = state.get("to") or self._registered_sender(state.get("data"))
        if to is not None:  # a registered player: told, in words that are true
            applied = state.get("applied")
            if applied is not None:
                text = (f"Your move was applied ({applied}), but the host could not finish "
                        "handling your message; it was kept for the host to look at.\n")
            elif isinstance(err, PbemError):
                text = ("Your message was not applied; nothing was changed. It was kept for the "
                        f"host to look at.\n\npbem: {public_text(str(err))}\n")
            else:
                text = ("Your message was not applied: the host could not handle it, and kept it "
                        "to look at. Please send your move again in a new plain-text message.\n")
            text += f"\nReference: {key}\n"
            try:
                batch = self.queue.batch_id("quarantine:" + key)
                msg = self._message(to, "pbem: your message was kept by the host", text,
                                    self.queue.message_id(batch, 0, self.from_address))
                self.queue.put(batch, key, [msg])
            except Exception as notice_err:  # pragma: no cover - the notice is best effort
                _log.warning("no notice for %s: %s", key, notice_err)
        self.done.append(Processed(key, state.get("sender") or to, f"quarantined: {why}"))

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
            return checked_address(address, "the sender")
        except Exception:  # no notice then
            return None

    # --- invitations (issue 10, item 5) ----------------------------------------------------

    def _invite_round(self, path: Path, game: Game) -> set[str]:
        """The players to invite to the opening round the game is in now, if nobody was
        invited to it yet (the round is then marked as invited); else nobody."""
        rnd = game.opening.value
        if rnd not in ("commit", "reveal", "started"):
            return set()
        with locked(path):
            done = invited_rounds(path)
            if rnd in done:
                return set()
            write_atomic(path / INVITED_NAME, "".join(f"{r}\n" for r in sorted(done | {rnd})).encode(), 0o600)
        if rnd == "started":  # the first move's template goes with the per-move mail / below
            return set()
        return set(game.awaited)

    def invite(self) -> None:
        """Invitations not yet sent: each awaited player's commitment template once the game
        is created, the reveal template once every commitment is in, the first move's
        template at the start; each round once, spooled like every reply."""
        assert self.queue is not None
        if not self.games.is_dir():
            return
        for child in sorted(self.games.iterdir()):
            if not ((child / SETTINGS_NAME).is_file() and (child / LOG_NAME).is_file()):
                continue
            try:
                emails = load_settings(child).emails
                if not emails:
                    continue
                game = load_game(child)
                if game.opening.value in invited_rounds(child):
                    continue
                started = game.opening.value == "started"
                players = self._invite_round(child, game)
                to_move = game.to_move()
                if started and to_move is not None:  # started without a mail (pbem waive...)
                    players = {to_move}
                batch = self.queue.batch_id(f"invite:{game.game_id}:{game.opening.value}")
                out = []
                for index, player in enumerate(sorted(p for p in players if p in emails)):
                    subject = (f"[pbem {game.game_id}] your move, {player} (after entry {game.last_seq})"
                               if started else f"[pbem {game.game_id}] {ROUND_SUBJECTS[game.opening.value]}")
                    text = template(game, player)
                    msg = self._message(emails[player], subject, ROUND_TEXT + "\n\n" + text,
                                        self.queue.message_id(batch, index, self.from_address))
                    msg.add_attachment(text.encode("utf-8"), maintype="application", subtype="yaml",
                                       filename=f"{game.game_id}-{game.opening.value}-{player}.yaml")
                    out.append(msg)
                if out:
                    self.queue.put(batch, "invite", out)
            except Exception as err:  # one game's trouble stops no other game's invitations
                _log.warning("no invitations for %s: %s", child.name, err)

    # --- the replies --------------------------------------------------------------------

    def _message(self, to: str, subject: str, body: str, message_id: str) -> EmailMessage:
        msg = EmailMessage()
        msg["From"] = self.from_address  # the host's, never an incoming message's
        msg["To"] = checked_address(to, "a reply's address")
        msg["Subject"] = safe_header(subject)
        msg["Date"] = formatdate(localtime=True)
        msg["Message-ID"] = message_id
        msg["Auto-Submitted"] = "auto-replied"
        msg.set_content(public_text(body))
        return msg

    def _reply(self, mail: Mail, to: str, body: str, batch: str, index: int) -> EmailMessage:
        assert self.queue is not None
        subject = safe_header(mail.subject) or "your move"
        subject = subject if subject.lower().startswith("re:") else f"Re: {subject}"
        msg = self._message(to, subject, body, self.queue.message_id(batch, index, self.from_address))
        if mail.message_id and MSGID_RE.match(mail.message_id):
            msg["In-Reply-To"] = mail.message_id
            msg["References"] = mail.message_id
        return msg

    def _applied(self, mail: Mail, applied: Applied, batch: str = "") -> list[EmailMessage]:
        assert self.queue is not None
        game = applied.game
        path = game_dir(self.games, game.game_id)
        emails = load_settings(path).emails
        batch = batch or self.queue.batch_id(f"{game.game_id}:{game.last_seq}")
        counter = iter(range(1, 10_000))

        def msgid() -> str:
            assert self.queue is not None
            return self.queue.message_id(batch, next(counter), self.from_address)

        lines = report_lines(applied.game, applied.entries, private_hint=False)
        mover = applied.entries[0].get("player", "host")
        sender = normal_address(mail.sender or "")
        tag = f"[pbem {game.game_id}]"
        log_bytes = (path / LOG_NAME).read_bytes()
        board = "\n".join(board_lines(game))
        to_move = game.to_move()
        privates = {p.stem: p for p in applied.private}
        picture = board_picture(game)  # one drawing for every player: public state only (P10)
        out: list[EmailMessage] = []
        mover_told = False
        inviting = self._invite_round(path, game)
        # one mail per player per applied move (issue 10, item 7): the mover's result, the
        # public report and log, the next template, and that player's private reveal only
        for player in game.players:
            if player not in emails:
                continue
            is_mover = normal_address(emails[player]) == sender and player == mover
            subject = f"{tag} entry {game.last_seq}: {mover}"
            parts = []
            if is_mover:
                parts.append("Your move was accepted.")
            parts += ["\n".join(lines), board, "The public log is attached; anyone can check it with "
                      "'pbem verify log.yaml'."]
            if player == to_move:
                subject += f"; your move, {player}"
                parts.append("It is your move. Fill in the attached move file (or the copy below), sign "
                             "it if you registered a key ('pbem sign'), and send it back as an attachment "
                             "or as the text of a plain-text message.\n\n" + template(game, player))
            if player in inviting:
                subject += f"; {ROUND_SUBJECTS[game.opening.value]}"
                parts.append(ROUND_TEXT + "\n\n" + template(game, player))
            if player in privates:
                subject += f"; private to {player}: your Witch look"
                parts.append("For your eyes only (attached): what your Witch saw, with the salt to check "
                             "it against the commitment in the start entry (P6). Do not forward this message.")
            body = "\n\n".join(parts) + "\n"
            if is_mover:
                mover_told = True
                msg = self._reply(mail, checked_address(emails[player], "a player's address"), body, batch, 0)
                msg.replace_header("Subject", safe_header(subject))
            else:
                msg = self._message(emails[player], subject, body, msgid())
            if picture is not None:  # inline, after the text part: mail clients that show no SVG
                msg.add_attachment(picture, maintype="image", subtype="png", disposition="inline",
                                   filename=f"{game.game_id}-{game.last_seq}.png")
            msg.add_attachment(log_bytes, maintype="application", subtype="yaml", filename="log.yaml")
            if player == to_move:
                msg.add_attachment(
                    template(game, player).encode("utf-8"), maintype="application", subtype="yaml",
                    filename=f"{game.game_id}-{game.last_seq}-{player}.yaml",
                )
            if player in inviting:
                msg.add_attachment(
                    template(game, player).encode("utf-8"), maintype="application", subtype="yaml",
                    filename=f"{game.game_id}-{game.opening.value}-{player}.yaml",
                )
            if player in privates:
                msg.add_attachment(
                    privates[player].read_bytes(), maintype="application", subtype="yaml",
                    filename=f"{game.game_id}-private-{player}.yaml",
                )
            out.append(msg)
        if not mover_told:  # the sender's address is not the mover's registered one
            out.insert(0, self._reply(mail, checked_address(sender, "the sender"),
                                      "Your move was accepted.\n\n" + "\n".join(lines) + "\n", batch, 0))
        return out


def board_picture(game: Game) -> bytes | None:
    """The board as a PNG for the report mails; a mail without it beats no mail (logged)."""
    try:
        from pbem.views.svg import board_png, board_svg  # the rasterizer only where a picture is sent

        return board_png(board_svg(game))
    except Exception as err:  # e.g. resvg-py missing or failing: the words still go out
        _log.warning("no board picture for %s: %s", game.game_id, err)
        return None


INVITED_NAME = "mail-invited.txt"  # the opening rounds whose invitations were queued
ROUND_SUBJECTS = {
    "commit": "round 1 of 2: commit to a nonce",
    "reveal": "round 2 of 2: reveal your nonce",
    "started": "the game has started",
}
ROUND_TEXT = ("Your part of the opening (P4): fill in the attached file as its comments say "
              "('pbem nonce' can write it for you) and send it back.")


def invited_rounds(path: Path) -> set[str]:
    target = path / INVITED_NAME
    return set(target.read_text("utf-8").split()) if target.is_file() else set()


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
        return checked_address(found.pop(), "the stored mail_from")
    raise FormatError(
        "pbem mail needs the host's own From address: give --from ADDRESS (or $PBEM_FROM), "
        "or store 'mail_from' in the games' host.yaml; replies never take it from a message",
        "P1",
    )


