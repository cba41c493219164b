"""`pbem serve`: the mail host as one long-running command.

It fetches, applies, runs the deadlines and delivers, round after round; SIGTERM stops it
cleanly; a server that is down is said once, retried with a growing wait, and its return
is said; and `kill -9` at any moment over a whole game loses nothing and doubles nothing:
every move applied once (P7), every reply delivered at most once (counted at the SMTP
server by Message-ID) and none lost but the ones a kill caught in the server's hands,
which pbem files as failed rather than risk sending twice; no temporary file left."""

from __future__ import annotations

import mailbox
import os
import random
import signal
import subprocess
import sys
import time
from collections import Counter
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser
from pathlib import Path
from typing import Any

import pytest
from clitools import ok
from dovecot import Dovecot, dovecot_server, stopped
from endtools import audits_alone, new_game
from mailgame import HOST, THREE, Table, attachments, read_game
from mailtools import smtp_server

from pbem.mail.imap import ImapBox
from pbem.mail.serve import Server

ROOT = Path(__file__).resolve().parent.parent


class Counted:
    """An SMTP server's handler that keeps every message it took (a thread of its own)."""

    def __init__(self) -> None:
        self.messages: list[EmailMessage] = []

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        parsed = BytesParser(policy=policy.default).parsebytes(envelope.content)
        assert isinstance(parsed, EmailMessage)
        self.messages.append(parsed)
        return "250 OK"


def serve_process(games: Path, inbox: Path, smtp: str, out: Path) -> subprocess.Popen[bytes]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    with out.open("ab") as log:
        return subprocess.Popen(
            [sys.executable, "-m", "pbem", "serve", "--inbox", str(inbox), "--smtp", smtp, "--games", str(games),
             "--from", HOST, "--interval", "0.05"], stdout=log, stderr=subprocess.STDOUT, env=env)


def temp_files(*roots: Path) -> list[Path]:
    return [p for root in roots for p in root.rglob("*")
            if p.name.endswith(".tmp") or (p.parent.name == "tmp" and p.is_file())]


def campaign(tmp: Path, kills: int, seed: int) -> None:
    """A whole 3-player game through `pbem serve`, killed with SIGKILL ``kills`` times at
    random moments and started again; the players answer what they receive, and ask for
    their template by mail when nothing comes for a while."""
    rng = random.Random(seed)
    games, inbox = tmp / "games", tmp / "inbox"
    mailbox.Maildir(str(inbox), create=True)
    new_game(games)
    table = Table(THREE, seed=seed)
    counted = Counted()
    log = tmp / "serve.out"
    with smtp_server(counted) as smtp:
        proc = serve_process(games, inbox, smtp, log)
        killed, seen, quiet = 0, 0, time.monotonic()
        next_kill = time.monotonic() + rng.uniform(0.1, 1.5)
        deadline = time.monotonic() + 600
        try:
            while time.monotonic() < deadline:
                if killed < kills and time.monotonic() >= next_kill:
                    proc.send_signal(signal.SIGKILL)
                    proc.wait()
                    killed += 1
                    proc = serve_process(games, inbox, smtp, log)
                    next_kill = time.monotonic() + rng.uniform(0.1, 1.5)
                fresh = counted.messages[seen:]
                seen += len(fresh)
                if fresh:
                    quiet = time.monotonic()
                    table.receive(fresh)
                    for data in table.answers():
                        mailbox.Maildir(str(inbox)).add(data)
                elif time.monotonic() - quiet > 3:  # a reply a kill caught never came: ask by mail
                    quiet = time.monotonic()
                    for data in table.ask_templates():
                        mailbox.Maildir(str(inbox)).add(data)
                if all(s.final is not None for s in table.seats.values()) and killed == kills:
                    break
                time.sleep(0.05)
            else:
                raise AssertionError(f"the game did not end: {log.read_text()[-3000:]}")
        finally:
            # a run started just now may not have set its SIGTERM handler yet: wait for its
            # start line (one a run), so the signal asks it to stop rather than killing it
            started = time.monotonic() + 20
            while log.read_text().count("pbem serve: every") < killed + 1 and time.monotonic() < started:
                time.sleep(0.05)
            proc.send_signal(signal.SIGTERM)
            assert proc.wait(timeout=30) == 0, log.read_text()[-3000:]
    assert killed == kills
    host_log = (games / "g" / "log.yaml").read_bytes()
    game = read_game(host_log)
    assert game.over and game.secret is not None
    sent = [(e.player, str(e.raw.get("move"))) for e in game.entries if e.raw.get("move") is not None]
    assert len(sent) == len(set(sent))  # P7: every move applied once
    ids = Counter(str(m["Message-ID"]) for m in counted.messages)
    assert not [mid for mid, n in ids.items() if n > 1], "a reply was delivered twice"
    failed = (games / "+mail-queue" / "failed" / "failed.log")
    lost = failed.read_text().splitlines() if failed.exists() else []
    assert len(lost) <= kills and all("stopped while delivering" in line for line in lost)
    assert temp_files(games, inbox) == []
    for seat in table.seats.values():
        assert seat.final is not None
        audits_alone(attachments(seat.final)["log.yaml.gz"], tmp / f"kept-{seat.player}")


@pytest.mark.slow  # ~20 s; the fast suite keeps SIGTERM and backoff, the slow one 3 and 30 kills
def test_three_kills_over_a_game_lose_nothing_and_double_nothing(tmp_path: Path) -> None:
    campaign(tmp_path, kills=3, seed=5)


@pytest.mark.slow
def test_thirty_kills_over_a_game_lose_nothing_and_double_nothing(tmp_path: Path) -> None:
    campaign(tmp_path, kills=30, seed=17)


def test_sigterm_stops_serve_cleanly_between_messages(tmp_path: Path) -> None:
    """SIGTERM: the message in hand is finished, no half state; the next start goes on."""
    games, inbox = tmp_path / "games", tmp_path / "inbox"
    mailbox.Maildir(str(inbox), create=True)
    new_game(games)
    table = Table(THREE)
    counted = Counted()
    with smtp_server(counted) as smtp:
        proc = serve_process(games, inbox, smtp, tmp_path / "serve.out")
        for _ in range(200):
            if len(counted.messages) >= 3:
                break
            time.sleep(0.05)
        table.receive(counted.messages)
        for data in table.answers():  # three commitments
            mailbox.Maildir(str(inbox)).add(data)
        time.sleep(0.1)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 0
        out = (tmp_path / "serve.out").read_text()
        assert "pbem serve: stopped" in out, out
        assert temp_files(games, inbox) == []
        applied = read_game((games / "g" / "log.yaml").read_bytes()).commits
        assert len(list((inbox / "new").iterdir())) == 3 - len(applied)  # each message applied, or untouched
        ok("mail", "--inbox", inbox, "--smtp", smtp, "--games", games, "--from", HOST)  # the rest, later
    assert sorted(read_game((games / "g" / "log.yaml").read_bytes()).commits) == sorted(THREE)


@pytest.fixture(scope="module")
def dovecot() -> Any:
    with dovecot_server() as server:
        yield server


def test_a_server_down_is_said_once_retried_with_backoff_and_its_return_said(
    dovecot: Dovecot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in dovecot.env().items():
        monkeypatch.setenv(name, value)
    games = tmp_path / "games"
    new_game(games)
    said: list[str] = []
    server = Server(games, None, ImapBox(dovecot.address, "INBOX"), tmp_path / "out", None, HOST, 0.01, said.append)
    server.serve(rounds=1)
    assert not [line for line in said if "down" in line]
    with stopped(dovecot):
        server.serve(rounds=5)
    assert len([line for line in said if "the mail server is down" in line]) == 1, said
    assert server.waits[1:] == [0.02, 0.04, 0.08, 0.16, 0.32], server.waits  # doubled while down
    server.serve(rounds=7)
    assert [line for line in said if "is back" in line] == ["pbem serve: the mail server is back; going on"]
    assert server.waits[-1] == 0.01  # the usual pace again
