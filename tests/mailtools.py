"""Shared helpers for the tests of the mail host: a game set up for mail, messages as players'
clients send them, a real SMTP server on 127.0.0.1 (aiosmtpd), and the replies a run left."""

from __future__ import annotations

import gzip
import mailbox
import random
import re
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser
from email.utils import make_msgid, parseaddr
from pathlib import Path
from typing import Any

import pytest
from clitools import cli as run
from clitools import ok, snapshot

from pbem.bots.randombot import bot_actions
from pbem.errors import Exit
from pbem.log.game import Game
from pbem.log.logfile import LOG_NAME, parse_log
from pbem.log.moves import after_of
from pbem.log.yamlio import dump_yaml, load_stream
from pbem.player.nonces import commit_move, reveal_move
from pbem.referee.replay import replay

ADDRESSES = {"red": "red@example.org", "blue": "blue@example.net"}
HOST = "rattus@host.example"


def eml(sender: str, move: dict[str, Any] | str, attach: bool = False, msgid: str | None = None) -> bytes:
    """A message as a player's client sends it: the move inline, or attached."""
    text = move if isinstance(move, str) else dump_yaml(move)
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = HOST
    msg["Subject"] = "my move"
    msg["Message-ID"] = msgid or make_msgid(domain="example.org")
    if attach:
        msg.set_content("My move is attached.\n\n-- \nA player\n")
        msg.add_attachment(text.encode(), maintype="application", subtype="x-yaml", filename="move.yaml")
    else:
        msg.set_content(f"Here it is:\n\n{text}\n-- \nA player\n")
    return bytes(msg)


def deliver(inbox: Path, data: bytes) -> None:
    mailbox.Maildir(str(inbox), create=True).add(data)


def read_game(log_bytes: bytes) -> Game:
    entries = load_stream(log_bytes.decode(), "log")
    return replay(*parse_log(entries))


def setup_game(tmp: Path, key_for_red: bool = True, options: tuple[str, ...] = ()) -> tuple[Path, Path]:
    games, inbox = tmp / "games", tmp / "inbox"
    mailbox.Maildir(str(inbox), create=True)
    args: list[str | Path] = ["new", "g", "--players", "red,blue", "--first", "red", "--games", games,
                              "--mail", "every", *options]  # a report of every entry, as these tests read them
    for player, address in ADDRESSES.items():
        args += ["--seat-email", f"{player}={address}"]
    for name in ("host", "red", "blue"):
        ok("keygen", "--out", tmp / f"{name}.key")
    if key_for_red:
        args += ["--seat-key", f"red={tmp / 'red.key.pub'}", "--host-key", tmp / "host.key"]
    ok(*args)
    return games, inbox


NONCES = {"red": bytes(range(1, 33)), "blue": bytes(range(101, 133))}


def commit(games: Path, player: str) -> dict[str, Any]:
    """P4 round 1: the player's nonce commitment, answering entry 0."""
    return commit_move(load_log(games), player, NONCES[player])


def reveal(games: Path, player: str) -> dict[str, Any]:
    """P4 round 2: the player's nonce, answering entry 0."""
    return reveal_move(load_log(games), player, NONCES[player])


def signed(data: dict[str, Any], key: Path, tmp: Path) -> str:
    path = tmp / f"to-sign-{random.random()}.yaml"
    path.write_text(dump_yaml(data))
    ok("sign", path, "--key", key)
    return path.read_text()


def signed_text(text: str, key: Path, tmp: Path) -> str:
    path = tmp / f"to-sign-{random.random()}.txt"
    path.write_text(text)
    ok("sign", path, "--key", key)
    return path.read_text()


def load_log(games: Path) -> Game:
    return read_game((games / "g" / LOG_NAME).read_bytes())


# --- the SMTP server ----------------------------------------------------------------------

class Collect:
    def __init__(self) -> None:
        self.messages: list[tuple[list[str], EmailMessage]] = []

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        parsed = BytesParser(policy=policy.default).parsebytes(envelope.content)
        assert isinstance(parsed, EmailMessage)
        self.messages.append((list(envelope.rcpt_tos), parsed))
        return "250 OK"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@contextmanager
def smtp_server(handler: Any) -> Iterator[str]:
    """A real SMTP server (aiosmtpd) on 127.0.0.1 with ``handler``, for the block: HOST:PORT."""
    controller_mod = pytest.importorskip("aiosmtpd.controller")
    port = free_port()
    controller = controller_mod.Controller(handler, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        yield f"127.0.0.1:{port}"
    finally:
        controller.stop()


@pytest.fixture()
def smtp() -> Iterator[tuple[str, Collect]]:
    handler = Collect()
    with smtp_server(handler) as where:
        yield where, handler


def attachment(msg: EmailMessage, suffix: str) -> bytes | None:
    """The attachment whose name ends with ``suffix``; ``log.yaml`` is also a report's
    compressed ``GAME-SEQ-log.yaml.gz``, inflated as its player would."""
    for part in msg.iter_attachments():
        name = part.get_filename() or ""
        if name.endswith(suffix) or (suffix == "log.yaml" and name.endswith("log.yaml.gz")):
            data = part.get_payload(decode=True)
            assert isinstance(data, bytes)
            return gzip.decompress(data) if name.endswith(".gz") and not suffix.endswith(".gz") else data
    return None


def to_of(msg: EmailMessage) -> str:
    return parseaddr(str(msg["To"]))[1]


@pytest.fixture()
def started(tmp_path: Path) -> tuple[Path, Path, Path]:
    """A started game (red signs, blue does not); replies go to an outbox Maildir."""
    games, inbox, outbox = committed(tmp_path)
    deliver(inbox, eml("red@example.org", signed(reveal(games, "red"), tmp_path / "red.key", tmp_path)))
    deliver(inbox, eml("blue@example.net", reveal(games, "blue")))
    ok("mail", "--inbox", inbox, "--outbox", outbox, "--games", games, "--from", HOST)
    assert load_log(games).started
    mailbox.Maildir(str(outbox)).clear()
    return games, inbox, outbox


def committed(tmp_path: Path, blue_registers: bool = False, options: tuple[str, ...] = ()) -> tuple[Path, Path, Path]:
    """P4 round 1 done by mail: red's commitment signed with the key registered at 'pbem new';
    blue's unsigned, or (``blue_registers``) registering blue's key and signed with it; the game
    made with 'pbem new' ``options``."""
    games, inbox = setup_game(tmp_path, options=options)
    outbox = tmp_path / "outbox"
    deliver(inbox, eml("red@example.org", signed(commit(games, "red"), tmp_path / "red.key", tmp_path)))
    blue = commit(games, "blue")
    if blue_registers:
        blue_text = signed({**blue, "key": (tmp_path / "blue.key.pub").read_text().strip()},
                           tmp_path / "blue.key", tmp_path)
        deliver(inbox, eml("blue@example.net", blue_text))
        out = ok("mail", "--inbox", inbox, "--outbox", outbox, "--games", games, "--from", HOST)
        assert "applied: game g" in out and "held: game g, blue's commitment registers a key" in out, out
        confirm_by_mail(inbox, outbox, games, "blue@example.net", tmp_path / "blue.key")
        return games, inbox, outbox
    else:
        deliver(inbox, eml("blue@example.net", blue))
    out = ok("mail", "--inbox", inbox, "--outbox", outbox, "--games", games, "--from", HOST)
    assert out.count("applied: game g") == 2, out
    mailbox.Maildir(str(outbox)).clear()
    return games, inbox, outbox


def code_mail(outbox: Path) -> EmailMessage:
    """P8: the host's mail carrying the one-time code of a held key."""
    found = [m for m in replies(outbox) if "confirm the key" in str(m["Subject"])]
    assert len(found) == 1, [str(m["Subject"]) for m in replies(outbox)]
    return found[0]


def confirm_by_mail(inbox: Path, outbox: Path, games: Path, sender: str, key: Path) -> str:
    """Reply to the code mail from ``sender`` with the 'confirm CODE SIGNATURE' line, signed
    with ``key`` as 'pbem confirm CODE --key KEY' signs it; the run's output."""
    sent = code_mail(outbox)
    assert str(sent["To"]) == sender
    body = sent.get_body(("plain",))
    assert body is not None
    code = re.search(r"pbem confirm ([A-Z2-7]{16}) --key", body.get_content())
    assert code is not None
    mailbox.Maildir(str(outbox)).clear()
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = sender, HOST, "Re: " + str(sent["Subject"])
    msg["Message-ID"] = make_msgid(domain="example.org")
    line = ok("confirm", code.group(1), "--key", key).splitlines()[0]
    msg.set_content(f"{line}\n")
    deliver(inbox, msg.as_bytes())
    out = ok("mail", "--inbox", inbox, "--outbox", outbox, "--games", games, "--from", HOST)
    mailbox.Maildir(str(outbox)).clear()
    return out


def red_move(games: Path) -> dict[str, Any]:
    game = load_log(games)
    assert game.state is not None and game.state.to_move == "red"
    actions = bot_actions(game.state, random.Random(3))
    return {"game": "g", "player": "red", "kind": "move", "after": after_of(game),
            "actions": [a.to_dict() for a in actions]}


def replies(outbox: Path) -> list[EmailMessage]:
    out = []
    for key in sorted(mailbox.Maildir(str(outbox)).keys()):
        parsed = BytesParser(policy=policy.default).parsebytes(mailbox.Maildir(str(outbox)).get_bytes(key))
        assert isinstance(parsed, EmailMessage)
        out.append(parsed)
    return out


def game_files(games: Path) -> dict[str, Any]:
    """The games' files, without the host's own bookkeeping: the reply queue
    (pbem.mail.outbox.QUEUE_NAME), the invitation rounds sent (pbem.mail.invite.INVITED_NAME) and
    the host's index of its games (pbem.host.marks.INDEX_DIR, made again from the logs at will)."""
    return {k: v for k, v in snapshot(games).items()
            if not k.startswith(("+mail-queue/", "+index/")) and not k.endswith("/mail-invited.txt")}


def refused(games: Path, inbox: Path, outbox: Path, data: bytes, sender: str, why: str, code: Exit) -> None:
    """The message changes no file: `pbem apply MESSAGE` exits with ``code``, and `pbem mail`
    files it and answers its sender alone with the refusal, naming ``why``."""
    before = game_files(games)
    message = inbox.parent / "refused.eml"
    message.write_bytes(data)
    assert run("apply", message, "--games", games).exit_code == code
    assert game_files(games) == before
    deliver(inbox, data)
    out = ok("mail", "--inbox", inbox, "--outbox", outbox, "--games", games, "--from", HOST)
    assert "refused:" in out and why in out, out
    assert game_files(games) == before
    got = replies(outbox)
    assert len(got) == 1 and to_of(got[0]) == sender
    body = got[0].get_body(preferencelist=("plain",))
    assert body is not None
    text = body.get_content()
    assert "nothing was changed" in text and "pbem: " in text and why in text
    assert got[0]["In-Reply-To"]
    mailbox.Maildir(str(outbox)).clear()
    assert not list((inbox / "new").iterdir())


def plain(msg: EmailMessage) -> str:
    """A mail's plain-text body."""
    body = msg.get_body(("plain",))
    assert body is not None, msg["Subject"]
    return str(body.get_content())
