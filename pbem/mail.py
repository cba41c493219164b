"""`pbem mail`: the host's mailbox loop, and applying one received message.

Each new message of the inbox Maildir is taken in arrival order, applied if
it holds a good move from a registered address, filed as seen (``cur/``, flag
``S``) and answered:

* the sender gets the result, or the same one-paragraph error the CLI prints;
* every player gets the public report, with the updated log attached;
* the player now to move gets their move template (:func:`pbem.view.template`);
* a Witch's holder gets their private reveal file, and nobody else does.

Refused messages change no file of the game.  An applied message's
Message-ID is kept in the game's ``mail-seen.txt``, so the same message is
never applied twice; a resent move in a new message is refused by the log
itself (P7).  Replies go to an outbox Maildir, or through SMTP (STARTTLS when
the server offers it; ``PBEM_SMTP_USER`` / ``PBEM_SMTP_PASSWORD`` to log in).
"""

from __future__ import annotations

import mailbox
import os
import re
import smtplib
import socket
import ssl
from collections.abc import Callable
from dataclasses import dataclass, field
from email.message import EmailMessage
from email.utils import formatdate, make_msgid
from pathlib import Path
from typing import Any

from pbem.errors import Exit, FormatError, PbemError, StaleError
from pbem.host import Applied, apply_move, game_dir
from pbem.logfile import LOG_NAME, locked
from pbem.mailmsg import Mail, mail_move, parse_mail
from pbem.report import report_lines
from pbem.settings import SETTINGS_NAME, load_settings, normal_address, record_seen, seen_ids
from pbem.view import board_lines, template

Send = Callable[[EmailMessage], None]


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

@dataclass
class Processed:
    key: str
    sender: str | None
    result: str  # "applied ..." / "refused: ..." / "ignored: ..."


@dataclass
class MailHost:
    """One run over an inbox; ``send`` delivers each reply (outbox Maildir or SMTP)."""

    games: Path
    send: Send
    from_address: str | None = None
    done: list[Processed] = field(default_factory=list)

    def run(self, inbox: Path) -> list[Processed]:
        box = mailbox.Maildir(str(inbox), factory=None, create=False)
        for key, name in new_messages(inbox, box.colon):
            self.one(inbox, box, key, name)
        return self.done

    def one(self, inbox: Path, box: mailbox.Maildir, key: str, name: str) -> None:
        try:
            mail = parse_mail(box.get_bytes(key))
        except PbemError as err:
            self._file(inbox, name, Processed(key, None, f"ignored: {err}"))
            return
        if mail.automatic or mail.sender is None:
            why = "an automatic message" if mail.automatic else "no single From address"
            self._file(inbox, name, Processed(key, mail.sender, f"ignored: {why}"))
            return
        replies: list[EmailMessage] = []
        if not self._registered(mail.sender):
            unknown = SenderError(
                f"{mail.sender} is not registered for any game on this host; "
                "nothing was changed", "P1",
            )
            replies.append(self._reply(mail, refused_text(unknown)))
            result = f"refused: {unknown}"
        else:
            try:
                applied = accept_mail(self.games, mail)
            except PbemError as err:
                replies.append(self._reply(mail, refused_text(err)))
                result = f"refused: {err}"
            except Exception as err:  # a bug in pbem: answer, file it, go on
                text = (
                    f"pbem: internal error ({type(err).__name__}: {err}). No file was changed. "
                    "The host has been told."
                )
                replies.append(self._reply(mail, f"Your message was not applied.\n\n{text}\n"))
                result = f"refused: internal error ({type(err).__name__}: {err})"
            else:
                replies.extend(self._applied(mail, applied))
                result = f"applied: game {applied.game.game_id}, entry {applied.entries[0]['seq']}"
        for reply in replies:
            self.send(reply)
        self._file(inbox, name, Processed(key, mail.sender, result))

    def _file(self, inbox: Path, name: str, processed: Processed) -> None:
        file_as_seen(inbox, name)
        self.done.append(processed)

    def _registered(self, address: str) -> bool:
        address = normal_address(address)
        if not self.games.is_dir():
            return False
        for child in self.games.iterdir():
            if (child / SETTINGS_NAME).is_file() and (child / LOG_NAME).is_file():
                try:
                    if load_settings(child).players_of(address):
                        return True
                except PbemError:
                    continue
        return False

    # --- the replies --------------------------------------------------------------------

    def _message(self, to: str, subject: str, body: str, sender: str | None = None) -> EmailMessage:
        msg = EmailMessage()
        msg["From"] = sender or self.from_address or f"pbem@{socket.getfqdn()}"
        msg["To"] = to
        msg["Subject"] = subject
        msg["Date"] = formatdate(localtime=True)
        msg["Message-ID"] = make_msgid(domain=_domain(msg["From"]))
        msg["Auto-Submitted"] = "auto-replied"
        msg.set_content(body)
        return msg

    def _reply(self, mail: Mail, body: str) -> EmailMessage:
        assert mail.sender is not None
        subject = mail.subject if mail.subject.lower().startswith("re:") else f"Re: {mail.subject}"
        msg = self._message(mail.sender, subject.strip(), body, self.from_address or mail.to)
        if mail.message_id:
            msg["In-Reply-To"] = mail.message_id
            msg["References"] = mail.message_id
        return msg

    def _applied(self, mail: Mail, applied: Applied) -> list[EmailMessage]:
        game = applied.game
        path = game_dir(self.games, game.game_id)
        emails = load_settings(path).emails
        sender = self.from_address or mail.to
        lines = report_lines(applied, private_hint=False)
        out = [self._reply(mail, "Your move was accepted.\n\n" + "\n".join(lines) + "\n")]
        tag = f"[pbem {game.game_id}]"
        log_bytes = (path / LOG_NAME).read_bytes()
        board = "\n".join(board_lines(game))
        for player in game.players:
            if player not in emails:
                continue
            msg = self._message(
                emails[player],
                f"{tag} entry {game.last_seq}: {applied.entries[0].get('player', 'host')}",
                "\n".join(lines) + "\n\n" + board + "\n\nThe public log is attached; anyone can "
                "check it with 'pbem verify log.yaml'.\n",
                sender,
            )
            msg.add_attachment(log_bytes, maintype="application", subtype="yaml", filename="log.yaml")
            out.append(msg)
        to_move = game.to_move()
        if to_move is not None and to_move in emails:
            text = template(game, to_move)
            msg = self._message(
                emails[to_move],
                f"{tag} your move, {to_move} (after entry {game.last_seq})",
                "It is your move. Fill in the attached move file (or the copy below), sign it "
                "if you registered a key ('pbem sign'), and send it back as an attachment or "
                "as the text of a plain-text message.\n\n" + text,
                sender,
            )
            msg.add_attachment(
                text.encode("utf-8"), maintype="application", subtype="yaml",
                filename=f"{game.game_id}-{game.last_seq}-{to_move}.yaml",
            )
            out.append(msg)
        for private in applied.private:
            player = private.stem
            if player not in emails:
                continue
            msg = self._message(
                emails[player],
                f"{tag} private to {player}: your Witch look (entry {game.last_seq})",
                "For your eyes only: what your Witch saw, with the salt to check it against the "
                "commitment in the start entry (P6). Do not forward this message.\n",
                sender,
            )
            msg.add_attachment(
                private.read_bytes(), maintype="application", subtype="yaml",
                filename=f"{game.game_id}-private-{player}.yaml",
            )
            out.append(msg)
        return out


def refused_text(err: PbemError) -> str:
    return f"Your message was not applied; nothing was changed.\n\npbem: {err}\n"


def _domain(address: str) -> str | None:
    match = re.search(r"@([A-Za-z0-9.-]+)", address)
    return match.group(1) if match else None


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

    def __call__(self, msg: EmailMessage) -> None:
        self.box.add(msg)


class SmtpOutbox:
    """One SMTP connection, opened on the first reply; STARTTLS if offered."""

    def __init__(self, server: str) -> None:
        host, _, port = server.rpartition(":") if ":" in server else (server, "", "587")
        if not host or not port.isdigit():
            raise FormatError(f"--smtp {server!r}: give HOST:PORT")
        self.host, self.port = host, int(port)
        self.conn: smtplib.SMTP | None = None

    def __call__(self, msg: EmailMessage) -> None:
        if self.conn is None:
            self.conn = self._connect()
        self.conn.send_message(msg)

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
            except smtplib.SMTPException:
                self.conn.close()
            self.conn = None


def process(
    inbox: Path, games: Path, outbox: Path | None, smtp: str | None, from_address: str | None
) -> list[Processed]:
    """``pbem mail``: one pass over the inbox."""
    if outbox is None and smtp is None:
        raise FormatError("give --outbox MAILDIR or --smtp HOST:PORT for the replies")
    if not (inbox / "new").is_dir() or not (inbox / "cur").is_dir():
        raise FormatError(f"{inbox} is not a Maildir (it needs new/ and cur/)")
    senders: list[Any] = []
    if outbox is not None:
        senders.append(MaildirOutbox(outbox))
    smtp_box = SmtpOutbox(smtp) if smtp is not None else None
    if smtp_box is not None:
        senders.append(smtp_box)

    def send(msg: EmailMessage) -> None:
        for deliver in senders:
            deliver(msg)

    try:
        return MailHost(games, send, from_address).run(inbox)
    finally:
        if smtp_box is not None:
            smtp_box.close()
