"""A message is the same message by its key, not by its folder (P7).

A Maildir that an IMAP server also serves holds in ``cur/`` the messages another client has
already seen; `pbem mail` reads them too, applies each once, says so, and never answers
one twice (pbem.mail.ledger)."""

from __future__ import annotations

import mailbox
import os
from pathlib import Path

from clitools import ok
from mailtools import HOST, eml, load_log, plain, red_move, replies, signed, started  # noqa: F401 (a fixture)


def mail_run(games: Path, inbox: Path, outbox: Path) -> str:
    return ok("mail", "--inbox", inbox, "--outbox", outbox, "--games", games, "--from", HOST)


def seen_by_another_client(inbox: Path, data: bytes) -> str:
    """The message delivered, then read by another client: new/KEY -> cur/KEY:2,S."""
    key = mailbox.Maildir(str(inbox)).add(data)
    os.rename(inbox / "new" / key, inbox / "cur" / f"{key}:2,S")
    return key


def test_a_move_another_client_saw_first_is_applied_once_and_said(
    started: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    games, inbox, outbox = started
    before = load_log(games).last_seq
    data = eml("red@example.org", signed(red_move(games), tmp_path / "red.key", tmp_path), msgid="<seen@example.org>")
    key = seen_by_another_client(inbox, data)
    out = mail_run(games, inbox, outbox)
    assert "applied: game g" in out and "seen by another mail client first" in out, out
    after = load_log(games).last_seq
    assert after > before
    assert mail_run(games, inbox, outbox).startswith("0 message(s) processed")  # once
    assert load_log(games).last_seq == after
    assert (inbox / "cur" / f"{key}:2,S").is_file()  # the other client's file is left as it is
    answers = [m for m in replies(outbox) if m["In-Reply-To"] == "<seen@example.org>"]
    assert len(answers) == 1 and "Your move was accepted." in plain(answers[0])


def test_the_same_message_in_new_and_in_cur_is_applied_once(
    started: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    games, inbox, outbox = started
    before = load_log(games).last_seq
    data = eml("red@example.org", signed(red_move(games), tmp_path / "red.key", tmp_path), msgid="<twice@example.org>")
    seen_by_another_client(inbox, data)
    mailbox.Maildir(str(inbox)).add(data)  # a second copy, still new
    out = mail_run(games, inbox, outbox)
    assert out.count("applied: game g") == 1 and "already applied" in out, out
    moves = [e for e in load_log(games).entries[before + 1:] if e.player == "red"]
    assert len(moves) == 1  # P7: one move, however many copies
    texts = [plain(m) for m in replies(outbox)
             if m["In-Reply-To"] == "<twice@example.org>"]
    assert sorted(t.splitlines()[0] for t in texts) == [
        "Your move was accepted.",
        f"Your move was already applied, as entry {before + 1}; this copy of it changed nothing."]


def test_messages_pbem_filed_itself_are_not_read_again(started: tuple[Path, Path, Path], tmp_path: Path) -> None:
    games, inbox, outbox = started
    mailbox.Maildir(str(inbox)).add(eml("red@example.org", signed(red_move(games), tmp_path / "red.key", tmp_path)))
    assert "applied: game g" in mail_run(games, inbox, outbox)
    assert mail_run(games, inbox, outbox).startswith("0 message(s) processed")


def test_the_seen_list_is_appended_and_a_line_the_disk_cut_short_is_skipped(tmp_path: Path) -> None:
    """record_seen appends one synced line (mode 0600); a last line a crash cut short (no
    newline) is not read, and the next line starts on a line of its own."""
    from pbem.host.settings import SEEN_NAME, record_seen, seen_ids

    record_seen(tmp_path, "<a@example.org>", 3)
    record_seen(tmp_path, "<b@example.org>", 12)
    path = tmp_path / SEEN_NAME
    assert path.read_text() == "<a@example.org> 3\n<b@example.org> 12\n"
    assert path.stat().st_mode & 0o777 == 0o600
    assert seen_ids(tmp_path) == {"<a@example.org>": 3, "<b@example.org>": 12}
    path.write_bytes(path.read_bytes()[:-2])  # '<b@example.org> 1': cut short
    assert seen_ids(tmp_path) == {"<a@example.org>": 3}
    record_seen(tmp_path, "<c@example.org>", 13)
    assert seen_ids(tmp_path) == {"<a@example.org>": 3, "<c@example.org>": 13}
