"""Delivery that gives up honestly (a 550 kept in failed/ and told
once, a 451 retried with backoff, no temporary folder left, no reply sent twice), an
outbox folder made a Maildir, and pipe mode (``pbem mail --stdin``).  Against a real
aiosmtpd server on 127.0.0.1; the clock is pinned (``--now``), nothing sleeps."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from clitools import cli as run
from clitools import ok
from mailtools import (
    HOST,
    Collect,
    commit,
    deliver,
    eml,
    free_port,
    load_log,
    replies,
    setup_game,
    smtp_server,
    to_of,
)

from pbem.cli import main
from pbem.errors import Exit

BLUE = "blue@example.net"
QUEUE = "+mail-queue"


class Refusing(Collect):
    """Answers RCPT TO for the addresses in ``codes`` with that code (550, 451...)."""

    def __init__(self) -> None:
        super().__init__()
        self.codes: dict[str, str] = {}
        self.tries: list[str] = []

    async def handle_RCPT(self, server: Any, session: Any, envelope: Any, address: str, options: Any) -> str:
        self.tries.append(address)
        if address in self.codes:
            return self.codes[address]
        envelope.rcpt_tos.append(address)
        return "250 OK"


@pytest.fixture()
def refusing() -> Iterator[tuple[str, Refusing]]:
    handler = Refusing()
    with smtp_server(handler) as where:
        yield where, handler


def mail(games: Path, *args: str | Path) -> Any:
    return run("mail", "--games", games, "--from", HOST, *args)


def to_blue(handler: Collect) -> list[str]:
    return [str(m["Message-ID"]) for _r, m in handler.messages if to_of(m) == BLUE]


def test_a_550_goes_to_failed_is_told_once_and_never_retried(
    tmp_path: Path, refusing: tuple[str, Refusing]
) -> None:
    server, handler = refusing
    handler.codes[BLUE] = "550 5.1.1 no such mailbox"
    games, inbox = setup_game(tmp_path, key_for_red=False)
    deliver(inbox, eml("red@example.org", commit(games, "red")))
    first = mail(games, "--inbox", inbox, "--smtp", server)
    assert first.exit_code == Exit.UNDELIVERED, first.output
    refused = handler.tries.count(BLUE)
    assert refused >= 1 and f"{refused} failed for good" in first.output and "0 kept" in first.output
    failed = games / QUEUE / "failed"
    assert len(list(failed.glob("*.eml"))) == refused
    lines = (failed / "failed.log").read_text().splitlines()
    assert len(lines) == refused and all("550" in line and BLUE in line for line in lines)
    assert handler.messages and not to_blue(handler)  # red's replies went; blue's did not
    # the next run neither retries it nor tells the host again
    again = mail(games, "--inbox", inbox, "--smtp", server)
    assert again.exit_code == 0 and "0 kept" in again.output and "failed" not in again.output, again.output
    assert handler.tries.count(BLUE) == refused
    assert len((failed / "failed.log").read_text().splitlines()) == refused


def test_a_451_is_retried_with_backoff_then_delivered_once(
    tmp_path: Path, refusing: tuple[str, Refusing]
) -> None:
    server, handler = refusing
    handler.codes[BLUE] = "451 4.3.0 try again later"
    games, inbox = setup_game(tmp_path, key_for_red=False)
    deliver(inbox, eml("red@example.org", commit(games, "red")))
    first = mail(games, "--inbox", inbox, "--smtp", server, "--now", "2026-11-30T09:00:00Z")
    assert first.exit_code == Exit.DEFERRED, first.output
    waiting = handler.tries.count(BLUE)
    assert waiting >= 1 and f"{waiting} kept for the next run" in first.output
    retries = sorted((games / QUEUE).glob("*/*.eml.retry"))
    assert [r.read_text().split() for r in retries] == [["1", "2026-11-30T09:05:00Z"]] * waiting
    # before the next try is due: not even tried
    early = mail(games, "--inbox", inbox, "--smtp", server, "--now", "2026-11-30T09:04:59Z")
    assert early.exit_code == Exit.DEFERRED and handler.tries.count(BLUE) == waiting
    # due, refused again: the wait grows (15 minutes after the second try)
    mail(games, "--inbox", inbox, "--smtp", server, "--now", "2026-11-30T09:05:00Z")
    assert handler.tries.count(BLUE) == 2 * waiting
    assert {r.read_text().strip() for r in retries} == {"2 2026-11-30T09:20:00Z"}
    # the server recovers: delivered, once, and nothing is kept
    del handler.codes[BLUE]
    assert "0 kept" in ok("mail", "--games", games, "--from", HOST, "--inbox", inbox, "--smtp", server,
                          "--now", "2026-11-30T09:20:00Z")
    assert len(to_blue(handler)) == len(set(to_blue(handler))) == waiting
    assert not list((games / QUEUE).glob("*/*.retry"))
    assert "0 repl(ies) delivered, 0 kept" in ok("mail", "--games", games, "--from", HOST, "--flush",
                                                 "--smtp", server)


def test_no_server_is_temporary(tmp_path: Path) -> None:
    games, inbox = setup_game(tmp_path, key_for_red=False)
    deliver(inbox, eml("red@example.org", commit(games, "red")))
    result = mail(games, "--inbox", inbox, "--smtp", f"127.0.0.1:{free_port()}")
    assert result.exit_code == Exit.DEFERRED and "kept for the next run" in result.output, result.output
    assert not (games / QUEUE / "failed").exists()


def test_a_killed_runs_temporary_batch_is_removed_by_the_next_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import pbem.files
    import pbem.mail.outbox
    import pbem.mail.run

    games, inbox = setup_game(tmp_path, key_for_red=False)
    outbox = tmp_path / "outbox"
    deliver(inbox, eml("red@example.org", commit(games, "red")))
    real = pbem.files.write_folder

    def killed(folder: Path, files: dict[str, bytes], *args: Any, **kwargs: Any) -> None:
        real(folder, dict(list(files.items())[:1]), *args, **kwargs)  # the first reply of the batch
        raise SystemExit(137)  # and the run dies half-way

    monkeypatch.setattr(pbem.mail.outbox, "write_folder", killed)
    with pytest.raises(SystemExit):
        pbem.mail.run.process(inbox, games, outbox, None, HOST)
    monkeypatch.undo()
    queue = games / QUEUE
    assert [p.name for p in queue.iterdir() if p.name.endswith(".tmp")]  # the killed run's leftover
    stale = queue / f".{'ab' * 16}.1.tmp"  # another process's (PID 1 lives), but hours old
    stale.mkdir()
    old = time.time() - 2 * 3600
    os.utime(stale, (old, old))
    fresh = queue / f".{'cd' * 16}.1.tmp"  # a live process's, just made: not ours to remove
    fresh.mkdir()
    now = time.time()  # "just made" by this process's clock (under faketime the files' clock differs)
    os.utime(fresh, (now, now))
    out = ok("mail", "--inbox", inbox, "--outbox", outbox, "--games", games, "--from", HOST)
    assert "applied: game g, entry 1" in out, out
    assert [p.name for p in queue.iterdir() if p.name.endswith(".tmp")] == [fresh.name]
    ids = [str(m["Message-ID"]) for m in replies(outbox)]
    assert ids and len(ids) == len(set(ids))


def test_a_maildir_reply_is_on_the_disk_with_its_journal_line_before_it_is_delivered(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An outbox Maildir's reply is written to its tmp/ and synced in one commit with the
    journal's "sending" line, then linked into new/: a run killed in between gives it up to
    failed/ (it may have arrived), never sends it twice; the others are delivered once."""
    import pbem.files
    import pbem.mail.run
    from pbem.mail.delivery import Staged

    games, inbox = setup_game(tmp_path, key_for_red=False)
    outbox = tmp_path / "outbox"
    deliver(inbox, eml("red@example.org", commit(games, "red")))
    synced: list[list[int]] = []
    real_sync = pbem.files.sync_all

    def sync_all(fds: list[int]) -> None:
        synced.append(list(fds))
        real_sync(fds)

    def killed(self: Staged) -> None:
        assert synced and self.fd in synced[-1] and len(synced[-1]) == 2  # with the journal's line
        assert "sending" in (games / QUEUE / "sent.log").read_text().splitlines()[-1]
        raise SystemExit(137)

    monkeypatch.setattr(pbem.mail.outbox, "sync_all", sync_all)
    monkeypatch.setattr(Staged, "deliver", killed)
    with pytest.raises(SystemExit):
        pbem.mail.run.process(inbox, games, outbox, None, HOST)
    monkeypatch.undo()
    assert not replies(outbox) and not list((outbox / "tmp").iterdir())
    lost = (games / QUEUE / "sent.log").read_text().split()[-1]
    again = mail(games, "--inbox", inbox, "--outbox", outbox)
    assert again.exit_code == Exit.UNDELIVERED and "1 failed for good" in again.output, again.output
    ids = [str(m["Message-ID"]) for m in replies(outbox)]
    assert ids and lost not in ids and len(ids) == len(set(ids))
    assert lost in (games / QUEUE / "failed" / "failed.log").read_text()
    assert ok("mail", "--inbox", inbox, "--outbox", outbox, "--games", games, "--from", HOST)
    assert sorted(str(m["Message-ID"]) for m in replies(outbox)) == sorted(ids)  # nothing sent twice
    left = outbox / "tmp" / "1700000000.M1P999999999Q1.pbem.host"  # staged by a run killed before its link
    left.write_bytes(b"x")
    ok("mail", "--inbox", inbox, "--outbox", outbox, "--games", games, "--from", HOST)
    assert not left.exists() and sorted(str(m["Message-ID"]) for m in replies(outbox)) == sorted(ids)


def test_a_reply_the_server_took_is_never_sent_again_after_a_kill(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, refusing: tuple[str, Refusing]
) -> None:
    """Killed right after the server accepted a reply: before the journal said so, the
    reply is given up to failed/ (it may have arrived) and told; after, it is only filed."""
    import pbem.mail.run
    from pbem.mail.delivery import SmtpOutbox
    from pbem.mail.outbox import Queue

    server, handler = refusing
    games, inbox = setup_game(tmp_path, key_for_red=False)
    deliver(inbox, eml("red@example.org", commit(games, "red")))
    real = SmtpOutbox.__call__

    def accepted_then_killed(self: SmtpOutbox, data: bytes, to: str) -> None:
        real(self, data, to)
        raise SystemExit(137)

    monkeypatch.setattr(SmtpOutbox, "__call__", accepted_then_killed)
    with pytest.raises(SystemExit):
        pbem.mail.run.process(inbox, games, None, server, HOST)
    monkeypatch.undo()
    assert len(handler.messages) == 1
    first = str(handler.messages[0][1]["Message-ID"])
    again = mail(games, "--inbox", inbox, "--smtp", server)
    assert again.exit_code == Exit.UNDELIVERED and "1 failed for good" in again.output, again.output
    ids = [str(m["Message-ID"]) for _r, m in handler.messages]
    assert ids.count(first) == 1 and len(ids) == len(set(ids))
    assert first in (games / QUEUE / "failed" / "failed.log").read_text()

    # killed after the journal noted "sent", before the reply was filed: only filed next run
    deliver(inbox, eml("blue@example.net", commit(games, "blue")))
    real_done = Queue._done

    def filed_then_killed(self: Queue, path: Path) -> None:
        raise SystemExit(137)

    monkeypatch.setattr(Queue, "_done", filed_then_killed)
    with pytest.raises(SystemExit):
        pbem.mail.run.process(inbox, games, None, server, HOST)
    monkeypatch.setattr(Queue, "_done", real_done)
    count = len(handler.messages)
    after = mail(games, "--inbox", inbox, "--smtp", server)
    assert after.exit_code == 0, after.output
    ids = [str(m["Message-ID"]) for _r, m in handler.messages]
    assert len(ids) == len(set(ids)) and len(ids) == count + 1  # the other reply only
    assert not [p for p in (games / QUEUE).glob("*/*.eml") if p.parent.name != "failed"]


def test_outbox_on_an_empty_folder_makes_it_a_maildir(tmp_path: Path) -> None:
    games, inbox = setup_game(tmp_path, key_for_red=False)
    outbox = tmp_path / "out"
    outbox.mkdir()
    deliver(inbox, eml("red@example.org", commit(games, "red")))
    out = ok("mail", "--inbox", inbox, "--outbox", outbox, "--games", games, "--from", HOST)
    assert "0 kept" in out and "Errno" not in out, out
    assert replies(outbox) and all((outbox / sub).is_dir() for sub in ("tmp", "new", "cur"))


def test_pipe_mode_applies_a_message_once_and_delivers_its_replies(
    tmp_path: Path, refusing: tuple[str, Refusing]
) -> None:
    server, handler = refusing
    games, _inbox = setup_game(tmp_path, key_for_red=False)
    message = eml("red@example.org", commit(games, "red"))
    runner = CliRunner()
    args = ["mail", "--stdin", "--smtp", server, "--games", str(games), "--from", HOST]
    result = runner.invoke(main, args, input=message, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert "applied: game g, entry 1" in result.output and "0 kept" in result.output
    assert set(load_log(games).commits) == {"red"} and len(load_log(games).entries) == 2
    assert "red@example.org" in [to_of(m) for _r, m in handler.messages]
    count = len(handler.messages)
    # the MTA pipes the very same message again: refused as the duplicate it is, nothing changes
    result = runner.invoke(main, args, input=message, catch_exceptions=False)
    assert result.exit_code == 0 and "already applied" in result.output, result.output
    assert len(load_log(games).entries) == 2 and len(handler.messages) == count + 1
    # a stranger's mail is quarantined, as from a Maildir, and taken (exit 0: the MTA bounces nothing)
    stranger = eml("eve@example.com", commit(games, "blue"))
    result = runner.invoke(main, args, input=stranger, catch_exceptions=False)
    assert result.exit_code == 0 and "quarantined" in result.output, result.output
    assert not list((games / "+mail-in" / "new").iterdir())


def test_stdin_and_inbox_do_not_mix(tmp_path: Path) -> None:
    games, inbox = setup_game(tmp_path, key_for_red=False)
    result = CliRunner().invoke(main, ["mail", "--stdin", "--inbox", str(inbox), "--outbox", str(tmp_path / "o"),
                                       "--games", str(games), "--from", HOST], input=b"")
    assert result.exit_code == Exit.FORMAT and "not both" in result.output + result.stderr
    result = run("mail", "--outbox", tmp_path / "o", "--games", games, "--from", HOST)
    assert result.exit_code == Exit.FORMAT and "--inbox" in result.output + result.stderr


def test_one_mail_run_at_a_time(tmp_path: Path) -> None:
    """Two MTA pipes at once: the second run waits for the first (here: gives up, busy)."""
    from pbem.errors import BusyError
    from pbem.mail.run import one_run

    queue = tmp_path / QUEUE
    with one_run(queue), pytest.raises(BusyError), one_run(queue, timeout=0.1):
        pass  # pragma: no cover - never reached
    with one_run(queue, timeout=0.1):  # free again
        pass


def test_only_a_5xx_to_the_replys_own_transaction_is_for_good() -> None:
    import smtplib

    from pbem.mail.outbox import permanent

    assert permanent(smtplib.SMTPRecipientsRefused({BLUE: (550, b"no such user")}))
    assert permanent(smtplib.SMTPDataError(554, b"rejected"))
    assert permanent(smtplib.SMTPSenderRefused(553, b"not yours", HOST))
    assert not permanent(smtplib.SMTPRecipientsRefused({BLUE: (451, b"later")}))
    assert not permanent(smtplib.SMTPDataError(452, b"full"))
    assert not permanent(smtplib.SMTPAuthenticationError(535, b"bad password"))  # the host's setup
    assert not permanent(ConnectionRefusedError())
