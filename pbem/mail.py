"""`pbem mail`: the host's mailbox loop, and applying one received message.

Each new message of the inbox Maildir is taken in arrival order and handled on its
own (issue 10):

* size, header and MIME limits are checked on the raw bytes, and the sender on the
  headers alone, before the body is parsed (:func:`pbem.mailmsg.parse_mail`);
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
import shutil
import smtplib
import ssl
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from email import policy
from email.message import EmailMessage
from email.parser import BytesHeaderParser, BytesParser
from email.utils import formatdate, getaddresses
from pathlib import Path
from typing import Any

from pbem.errors import Exit, FormatError, PbemError, StaleError
from pbem.game import Game
from pbem.host import Applied, apply_move, game_dir, load_game
from pbem.logfile import LOG_NAME, locked
from pbem.mailmsg import (
    MAIL_LIMIT,
    MSGID_RE,
    HostileMail,
    Mail,
    clean_text,
    header_block,
    mail_move,
    parse_mail,
)
from pbem.report import report_lines
from pbem.settings import SETTINGS_NAME, load_settings, normal_address, record_seen, seen_ids
from pbem.view import board_lines, template
from pbem.yamlio import write_atomic

Send = Callable[[EmailMessage], None]
_log = logging.getLogger("pbem.mail")


class SenderError(PbemError):
    """The From address does not fit the move (or is not registered at all)."""

    exit_code = Exit.SIGNATURE
    label = "sender refused"


# --- applying one message ----------------------------------------------------------------

def accept_mail(games: Path, mail: Mail, require_sender: bool = True) -> Applied:
    """Apply the move a message carries, after checking its sender and Message-ID.

    ``require_sender``: the game must list the sender's address (``pbem mail``);
    without it (``pbem apply MSG.eml``) the address is checked only when the game
    lists addresses at all.
    """
    move, where = mail_move(mail)
    path = game_dir(games, move.game)
    settings = load_settings(path)
    if settings.emails or require_sender:
        check_sender(settings, mail, move, where)
    if mail.message_id is not None:
        seen = seen_ids(path)
        if mail.message_id in seen:
            raise StaleError(
                f"this message ({mail.message_id}) was already applied, as entry "
                f"{seen[mail.message_id]}; nothing was changed", "P7",
            )
    applied = apply_move(games, move)
    if mail.message_id is not None:
        with locked(path):
            record_seen(path, mail.message_id, applied.entries[0]["seq"])
    return applied


def apply_mail_file(games: Path, data: bytes) -> Applied:
    """``pbem apply MESSAGE.eml``."""
    return accept_mail(games, parse_mail(data), require_sender=False)


# --- the mailbox loop ----------------------------------------------------------------------

QUARANTINE = ".Quarantine"  # a Maildir++ subfolder of the inbox: kept, never deleted
QUEUE_NAME = "+mail-queue"  # in the games folder; '+' is never part of a game id
SUBJECT_LIMIT = 160
_ADDRESS_RE = re.compile(r"^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?\Z")
_PATH_RE = re.compile(r"(?<![\w.])/(?:[^\s'\"/]+/)+[^\s'\"]*")


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


def public_text(text: str) -> str:
    """What a mailed text may say: no path of the host's files."""
    return _PATH_RE.sub("<path>", text)


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

        lines = report_lines(applied, private_hint=False)
        mover = applied.entries[0].get("player", "host")
        sender = normal_address(mail.sender or "")
        tag = f"[pbem {game.game_id}]"
        log_bytes = (path / LOG_NAME).read_bytes()
        board = "\n".join(board_lines(game))
        to_move = game.to_move()
        privates = {p.stem: p for p in applied.private}
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


def check_sender(settings: Any, mail: Mail, move: Any, where: str) -> None:
    if mail.sender is None:
        raise SenderError("the message has no single From address to check", "P1")
    players = settings.players_of(mail.sender)
    if not players:
        raise SenderError(
            f"{mail.sender} is not the address of any player of game {move.game!r}; "
            "nothing was changed", "P1",
        )
    if move.player not in players:
        raise SenderError(
            f"this message comes from {mail.sender}, the address of {', '.join(players)}, "
            f"but the move ({where}) is {move.player}'s; nothing was changed", "P1",
        )


def refused_text(err: PbemError) -> str:
    from pbem.rulesref import sentence  # the rule's own words, so a player need not look it up

    quote = sentence(err.rule) if err.rule else None
    rule = f"\n\n{err.rule} says: \"{quote}\" ('pbem rules {err.rule}' has the rest)" if quote else ""
    return f"Your message was not applied; nothing was changed.\n\npbem: {public_text(str(err))}{rule}\n"


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


# --- the queue: replies spooled before the message leaves new/, delivered apart -----------

class Queue:
    """Replies on disk, one folder a handled message (``BATCH/NN.eml``, ``BATCH/key``),
    written whole (a temporary folder renamed) before the message is filed.  Delivery
    renames each sent reply ``NN.eml.sent``; what fails stays for the next run."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def batch_id(self, ident: str) -> str:
        return hashlib.sha256(ident.encode("utf-8", "surrogatepass")).hexdigest()[:32]

    def message_id(self, batch: str, index: int, from_address: str) -> str:
        """Stable: the same reply has the same Message-ID on every try."""
        return f"<pbem.{batch}.{index}@{from_address.rsplit('@', 1)[1]}>"

    def handled(self, batch: str, key: str) -> bool:
        marker = self.path / batch / "key"
        return marker.is_file() and marker.read_text("utf-8").strip() == key

    def put(self, batch: str, key: str, messages: list[EmailMessage]) -> None:
        self.path.mkdir(mode=0o700, parents=True, exist_ok=True)
        os.chmod(self.path, 0o700)
        final = self.path / batch
        if final.exists():  # the same message again (a new Maildir key): replies of a new try
            batch = f"{batch}-{hashlib.sha256(key.encode()).hexdigest()[:8]}"
            final = self.path / batch
            if final.exists():
                return
        tmp = self.path / f".{batch}.{os.getpid()}.tmp"
        if tmp.exists():
            shutil.rmtree(tmp)
        tmp.mkdir(mode=0o700)
        for index, msg in enumerate(messages):
            wire = msg.as_bytes(policy=policy.default.clone(linesep="\r\n"))  # SMTP's line ends
            write_atomic(tmp / f"{index:03d}.eml", wire, 0o600)
        write_atomic(tmp / "key", key.encode() + b"\n", 0o600)
        os.rename(tmp, final)

    def pending(self) -> list[Path]:
        if not self.path.is_dir():
            return []
        batches = sorted((p for p in self.path.iterdir() if p.is_dir() and not p.name.startswith(".")),
                         key=lambda p: (p.stat().st_mtime_ns, p.name))
        return [eml for batch in batches for eml in sorted(batch.glob("*.eml"))]

    def flush(self, deliver: Callable[[bytes, str], None]) -> tuple[int, int]:
        """Deliver what is queued: (sent, kept for the next run)."""
        sent = kept = 0
        for path in self.pending():
            data = path.read_bytes()
            head = BytesParser(policy=policy.default).parsebytes(data, headersonly=True)
            to = str(head.get("To", ""))
            try:
                deliver(data, to)
            except (smtplib.SMTPException, OSError) as err:
                kept += 1
                _log.warning("reply %s kept for the next run: %s", path.name, err)
                continue
            os.rename(path, path.with_name(path.name + ".sent"))
            sent += 1
        return sent, kept


# --- Maildir details --------------------------------------------------------------------

_KEY_TIME = re.compile(r"^(\d+)\.(?:M(\d+))?")


def new_messages(inbox: Path, colon: str = ":") -> list[tuple[str, str]]:
    """(key, file name) of the messages in ``new/``, oldest delivery first."""
    folder = inbox / "new"
    found: list[tuple[float, str, str]] = []
    for entry in os.scandir(folder):
        if entry.name.startswith(".") or not entry.is_file():
            continue
        key = entry.name.split(colon)[0]
        match = _KEY_TIME.match(key)
        when = (
            int(match.group(1)) + int(match.group(2) or 0) / 1e6
            if match else entry.stat().st_mtime
        )
        found.append((when, key, entry.name))
    return [(key, name) for _when, key, name in sorted(found)]


def file_as_seen(inbox: Path, name: str, colon: str = ":") -> None:
    """Maildir: new/KEY -> cur/KEY:2,S (the message's bytes are not touched)."""
    key = name.split(colon)[0]
    os.rename(inbox / "new" / name, inbox / "cur" / f"{key}{colon}2,S")


# --- delivering replies -------------------------------------------------------------------

class MaildirOutbox:
    def __init__(self, path: Path) -> None:
        self.box = mailbox.Maildir(str(path), create=True)

    def __call__(self, data: bytes, to: str) -> None:
        self.box.add(data)


class SmtpOutbox:
    """One SMTP connection, opened on the first reply; STARTTLS if offered.  A refused
    reply (4xx/5xx) raises; a dropped connection is opened again on the next reply."""

    def __init__(self, server: str, from_address: str) -> None:
        host, _, port = server.rpartition(":") if ":" in server else (server, "", "587")
        if not host or not port.isdigit():
            raise FormatError(f"--smtp {server!r}: give HOST:PORT")
        self.host, self.port = host, int(port)
        self.from_address = from_address
        self.conn: smtplib.SMTP | None = None

    def __call__(self, data: bytes, to: str) -> None:
        if self.conn is None:
            self.conn = self._connect()
        try:
            self.conn.sendmail(self.from_address, [to], data)
        except (smtplib.SMTPServerDisconnected, OSError):
            self.conn = None
            raise
        except smtplib.SMTPException:
            try:
                self.conn.rset()
            except (smtplib.SMTPException, OSError):
                self.conn = None
            raise

    def _connect(self) -> smtplib.SMTP:
        context = ssl.create_default_context()
        conn: smtplib.SMTP
        if self.port == 465:
            conn = smtplib.SMTP_SSL(self.host, self.port, timeout=60, context=context)
        else:
            conn = smtplib.SMTP(self.host, self.port, timeout=60)
        conn.ehlo()
        secure = self.port == 465
        if not secure and conn.has_extn("starttls"):
            conn.starttls(context=context)
            conn.ehlo()
            secure = True
        user = os.environ.get("PBEM_SMTP_USER")
        if user:
            if not secure and self.host not in ("localhost", "127.0.0.1", "::1"):
                conn.close()
                raise PbemError(
                    f"{self.host}:{self.port} offers no STARTTLS: pbem will not send the SMTP "
                    "password in clear text"
                )
            conn.login(user, os.environ.get("PBEM_SMTP_PASSWORD", ""))
        return conn

    def close(self) -> None:
        if self.conn is not None:
            try:
                self.conn.quit()
            except (smtplib.SMTPException, OSError):
                self.conn.close()
            self.conn = None


@dataclass
class Run:
    """What one ``pbem mail`` run did."""

    done: list[Processed]
    sent: int
    kept: int

    @property
    def quarantined(self) -> int:
        return sum(1 for p in self.done if p.quarantined)


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


def process(
    inbox: Path, games: Path, outbox: Path | None, smtp: str | None, from_address: str | None,
    flush_only: bool = False,
) -> Run:
    """``pbem mail``: one pass over the inbox, then delivery of the queue."""
    if outbox is None and smtp is None:
        raise FormatError("give --outbox MAILDIR or --smtp HOST:PORT for the replies")
    address = host_address(games, from_address)
    if not flush_only and (not (inbox / "new").is_dir() or not (inbox / "cur").is_dir()):
        raise FormatError("the inbox is not a Maildir (it needs new/ and cur/)")
    senders: list[Callable[[bytes, str], None]] = []
    if outbox is not None:
        senders.append(MaildirOutbox(outbox))
    smtp_box = SmtpOutbox(smtp, address) if smtp is not None else None
    if smtp_box is not None:
        senders.append(smtp_box)

    def deliver(data: bytes, to: str) -> None:
        for each in senders:
            each(data, to)

    host = MailHost(games, lambda _msg: None, address)
    assert host.queue is not None
    try:
        done = [] if flush_only else host.run(inbox)
        sent, kept = host.queue.flush(deliver)
    finally:
        if smtp_box is not None:
            smtp_box.close()
    return Run(done, sent, kept)
