"""Shared helpers for the tests against a real dovecot (tests/dovecot.py): the server for a
module, a fresh folder per test, another IMAP client, and one run of `pbem mail --imap`."""

from __future__ import annotations

import imaplib
import itertools
import ssl
from collections.abc import Iterator
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest
from clitools import ok
from dovecot import Dovecot, dovecot_server
from mailgame import HOST
from mailtools import Collect

_folders = itertools.count()


@pytest.fixture(scope="module")
def dovecot() -> Iterator[Dovecot]:
    with dovecot_server() as server:
        yield server


@pytest.fixture()
def imap(dovecot: Dovecot, monkeypatch: pytest.MonkeyPatch) -> tuple[Dovecot, str]:
    """The server, with a fresh folder for this test, and the host's login in the environment."""
    for name, value in dovecot.env().items():
        monkeypatch.setenv(name, value)
    folder = f"rattus{next(_folders)}"
    with client(dovecot) as conn:
        assert conn.create(folder)[0] == "OK"
    return dovecot, folder


class client:
    """Another IMAP client: a player's mail program, or the host's own."""

    def __init__(self, server: Dovecot) -> None:
        self.server = server

    def __enter__(self) -> imaplib.IMAP4:
        self.conn = imaplib.IMAP4(self.server.host, self.server.port, timeout=30)
        self.conn.starttls(ssl.create_default_context(cafile=str(self.server.cafile)))
        self.conn.login(self.server.user, self.server.password)
        return self.conn

    def __exit__(self, *exc: Any) -> None:
        self.conn.logout()


def append(server: Dovecot, folder: str, data: bytes, flags: str | None = None) -> None:
    """A message arrives in the folder (as the MTA delivers it), maybe already flagged."""
    with client(server) as conn:
        assert conn.append(folder, flags, None, data)[0] == "OK"


def flags_of(server: Dovecot, folder: str) -> list[bytes]:
    with client(server) as conn:
        conn.select(folder)
        _typ, data = conn.uid("FETCH", "1:*", "(FLAGS)")
        return [d for d in data if isinstance(d, bytes)]


def run_mail(server: Dovecot, folder: str, smtp: str, games: Path) -> str:
    return ok("mail", "--imap", server.address, "--folder", folder, "--smtp", smtp, "--games", games, "--from", HOST)


def delivered(collected: Collect) -> list[EmailMessage]:
    batch = [m for _rcpt, m in collected.messages]
    collected.messages = []
    return batch
