"""One message through two transports at once: `pbem mail` (the Maildir) and `pbem apply
MSG.eml` (a file) handing the same message to the one admission path at the same moment.

The attack: a host (or an MTA's pipe and a cron job) gives one message to both.  Before,
the second transport to spool its replies hit the first's batch (`OSError: Directory not
empty` on the reply queue): an internal error, or a quarantine with a false "your message
was kept" mail.  Now the batch spooled first stands, the other transport's replies are
not written, and the move is applied and reported once."""

from __future__ import annotations

import mailbox
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from hardening import PBEM, judge
from mailtools import HOST, deliver, eml, load_log, red_move, replies, signed, started  # noqa: F401

from pbem.errors import Exit
from pbem.mail import outbox
from pbem.mail.admission import apply_mail_file
from pbem.mail.outbox import QUEUE_NAME, Queue
from pbem.mail.run import process


def test_a_batch_spooled_by_another_transport_meanwhile_stands(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The queue alone: the other transport spools the same batch between this one's check and its rename."""
    from email.message import EmailMessage

    queue = Queue(tmp_path / QUEUE_NAME)
    mine, theirs = EmailMessage(), EmailMessage()
    mine["Subject"], theirs["Subject"] = "mine", "theirs"
    real = outbox.write_folder  # type: ignore[attr-defined]
    raced: list[bool] = []

    def and_the_other(folder: Path, files: dict[str, bytes]) -> None:
        real(folder, files)
        if not raced:
            raced.append(True)
            raced.append(Queue(queue.path).put("b" * 32, "file.1", [theirs]))

    monkeypatch.setattr(outbox, "write_folder", and_the_other)
    assert queue.put("b" * 32, "maildir.1", [mine]) is False  # the other's batch stands
    assert raced == [True, True]
    assert sorted(p.name for p in (queue.path / ("b" * 32)).iterdir()) == ["000.eml", "key"]
    assert b"theirs" in (queue.path / ("b" * 32) / "000.eml").read_bytes()
    assert (queue.path / ("b" * 32) / "key").read_text() == "file.1\n"
    assert not [p for p in queue.path.iterdir() if p.name.endswith(".tmp")]  # nothing left half-made
    assert queue.put("b" * 32, "maildir.2", [mine]) is False  # and never twice afterwards


def test_one_message_through_pbem_mail_and_pbem_apply_at_once_is_applied_and_answered_once(
    started: tuple[Path, Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`pbem apply MSG.eml` admits the message while `pbem mail` is spooling its replies to it."""
    games, inbox, out = started
    data = eml("red@example.org", signed(red_move(games), tmp_path / "red.key", tmp_path))
    deliver(inbox, data)
    before = load_log(games).last_seq
    real = outbox.write_folder  # type: ignore[attr-defined]
    verdicts: list[str] = []

    def apply_meanwhile(folder: Path, files: dict[str, bytes]) -> None:
        real(folder, files)
        if not verdicts:
            verdicts.append("started")
            verdicts.append(str(apply_mail_file(games, data, HOST).entries[0].seq))

    monkeypatch.setattr(outbox, "write_folder", apply_meanwhile)
    run = process(inbox, games, out, None, HOST)
    assert verdicts == ["started", str(before + 1)]  # the file transport came in between
    assert run.quarantined == 0 and all(p.result.startswith("applied") for p in run.done), run.done
    assert load_log(games).last_seq == before + 1  # applied once
    mails = replies(out)
    assert sorted(str(m["To"]) for m in mails) == ["blue@example.net", "red@example.org"]  # reported once
    assert not [m for m in mails if "kept by the host" in str(m["Subject"])]


def _trial(pristine: Path, where: Path, trial: int) -> dict[str, Any]:
    """One message given to `pbem mail` and `pbem apply MSG.eml` at the same moment."""
    shutil.copytree(pristine, where)
    games, inbox, out = where / "games", where / "inbox", where / "outbox"
    message = where / "move.eml"
    data = message.read_bytes()
    deliver(inbox, data)
    before = load_log(games).last_seq
    commands = [[*PBEM, "mail", "--inbox", str(inbox), "--outbox", str(out), "--games", str(games), "--from", HOST],
                [*PBEM, "apply", str(message), "--games", str(games), "--from", HOST]]
    if trial % 2:
        commands.reverse()
    procs = [subprocess.Popen(c, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for c in commands]
    codes = {}
    for c, p in zip(commands, procs, strict=True):
        stdout, stderr = p.communicate(timeout=300)
        judge(p.returncode, stderr, stdout, " ".join(c[3:5]))
        codes[c[3]] = (p.returncode, stdout + stderr)
    subprocess.run([*PBEM, "mail", "--flush", "--outbox", str(out), "--games", str(games), "--from", HOST],
                   check=True, capture_output=True)
    return {"codes": codes, "entries": load_log(games).last_seq - before,
            "kept": (inbox / ".Quarantine").is_dir() and any((inbox / ".Quarantine" / "cur").iterdir()),
            "subjects": [str(m["Subject"]) for m in replies(out)]}


@pytest.mark.slow
def test_one_message_through_both_transports_at_once_many_times(
    started: tuple[Path, Path, Path], tmp_path: Path,
) -> None:
    """The campaign: 12 trials, each transport first in half of them; 0 internal errors, the
    move applied once, its report mailed once to each player, nothing quarantined."""
    games, _inbox, _out = started
    pristine = tmp_path / "pristine"
    pristine.mkdir()
    shutil.copytree(games, pristine / "games")
    mailbox.Maildir(str(pristine / "inbox"), create=True)
    (pristine / "move.eml").write_bytes(eml("red@example.org", signed(red_move(games), tmp_path / "red.key",
                                                                      tmp_path)))
    for trial in range(12):
        found = _trial(pristine, tmp_path / f"trial{trial}", trial)
        mail_code, _mail_out = found["codes"]["mail"]
        apply_code, _apply_out = found["codes"]["apply"]
        assert mail_code == 0 and apply_code in (0, Exit.STALE), found
        assert found["entries"] == 1 and not found["kept"], found
        reports = [s for s in found["subjects"] if s.startswith("[rattus g] ") and "entry 6: red" in s]
        assert len(reports) == 2, found  # one to red (the mover), one to blue
        assert not [s for s in found["subjects"] if "kept by the host" in s], found
        others = [s for s in found["subjects"] if s not in reports]
        assert all(s.startswith("Re: my move") for s in others), found  # at most the later copy's 'already applied'


def test_a_second_delivery_waits_for_the_first_and_gives_up_nothing_it_has_in_hand(tmp_path: Path) -> None:
    """Two deliveries of one queue at once (`pbem mail` and an MTA's `pbem apply`): the second
    waits for the first, then finds the reply sent.  Before, it read the first's "sending" line
    as a stopped run's, gave the reply up to failed/, and its seat was mailed its turn again."""
    import threading
    import time
    from email.message import EmailMessage

    queue = Queue(tmp_path / QUEUE_NAME)
    msg = EmailMessage()
    msg["To"], msg["Subject"], msg["Message-ID"] = "blue@example.net", "your move", "<one@host.example>"
    msg.set_content("Your move.\n")
    assert queue.put("c" * 32, "maildir.1", [msg])
    second: list[outbox.Delivery] = []
    delivered: list[str] = []
    threads: list[threading.Thread] = []

    def deliver_slowly(data: bytes, to: str) -> None:  # the first delivery, while the server has the reply
        other = threading.Thread(target=lambda: second.append(queue.flush(lambda d, t: delivered.append(t))))
        other.start()
        time.sleep(0.5)
        assert other.is_alive() and not second  # the second waits for the first's lock
        delivered.append(to)
        threads.append(other)

    first = queue.flush(deliver_slowly)
    threads[0].join(timeout=30)
    assert (first.sent, first.failed) == (1, 0)
    assert second and (second[0].sent, second[0].failed) == (0, 0)  # nothing left, nothing given up
    assert delivered == ["blue@example.net"] and not (queue.path / "failed").exists()
