"""The smaller mail holes, each as its attack, then closed:

* an IMAP folder renumbered by its server (a new UIDVALIDITY) had every old message answered
  again; now a message handled under an earlier UIDVALIDITY is filed, not answered;
* `pbem mail --stdin` (an MTA's pipe) exited 9 for a move applied while SMTP was down and 3
  for a stranger's mail, so the MTA bounced both; now 0 once the message is kept, 75
  (EX_TEMPFAIL) only when it could not be, so that the MTA tries again;
* a registered player's oversize mail was quarantined without a word; now they are told,
  with the limit;
* thirty forged `log` requests made thirty mails of the log; now an address gets at most
  PER_HOUR answers an hour;
* `pbem apply MSG.eml` answered a mail command from an address registered nowhere;
* an unsigned forged `language el` changed a keyed seat's language; now the change waits for
  the one-time code mailed to the seat's address (P8).
"""

from __future__ import annotations

import mailbox
import re
from email.message import EmailMessage
from email.utils import make_msgid
from pathlib import Path

import pytest
from click.testing import CliRunner
from clitools import cli, snapshot
from dovecot import Dovecot
from endtools import new_game
from imaptools import append, client, delivered, dovecot, imap, run_mail  # noqa: F401
from mailgame import THREE, Table
from mailtools import HOST, Collect, commit, deliver, eml, free_port, replies, setup_game, smtp_server

from pbem.cli import main
from pbem.errors import Exit
from pbem.host.settings import load_settings
from pbem.mail.headers import MAIL_LIMIT
from pbem.mail.ratelimit import PER_HOUR


@pytest.fixture(autouse=True)
def no_picture(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("pbem.mail.replies.board_picture", lambda game, lang="en": None)


def text_mail(sender: str, subject: str, text: str = "", msgid: str | None = None) -> bytes:
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = sender, HOST, subject
    msg["Message-ID"] = msgid or make_msgid(domain="example.org")
    msg.set_content(text + "\n")
    return msg.as_bytes()


def mail_run(games: Path, inbox: Path, outbox: Path) -> str:
    return cli("mail", "--inbox", inbox, "--outbox", outbox, "--games", games, "--from", HOST).output


# --- IMAP: a renumbered folder ----------------------------------------------------------------

def test_a_folder_the_server_renumbered_is_not_answered_again(imap: tuple[Dovecot, str],
                                                              tmp_path: Path) -> None:
    server, folder = imap
    games = tmp_path / "games"
    new_game(games)
    table = Table(THREE)
    collected = Collect()
    with smtp_server(collected) as smtp:
        run_mail(server, folder, smtp, games)
        table.receive(delivered(collected))  # the invitations: round 1
        for data in table.answers():  # three commitments
            append(server, folder, data)
        append(server, folder, text_mail(THREE["red"], "rules R3.2"))  # and a question
        out = run_mail(server, folder, smtp, games)
        assert out.count("applied: game g") == 3 and "answered: rules R3.2" in out, out
        assert delivered(collected)
        with client(server) as conn:  # the server renumbers the folder: the same messages, new UIDs
            conn.select(folder)
            old = conn.response("UIDVALIDITY")[1][0]
            _typ, found = conn.uid("FETCH", "1:*", "(BODY.PEEK[])")
            kept = [part[1] for part in found if isinstance(part, tuple)]
            conn.close()
            assert conn.delete(folder)[0] == "OK" and conn.create(folder)[0] == "OK"
        for data in kept:
            append(server, folder, data)
        with client(server) as conn:
            conn.select(folder)
            assert conn.response("UIDVALIDITY")[1][0] != old
        again = run_mail(server, folder, smtp, games)
        assert again.count("the server renumbered the folder") == 4, again
        assert "applied:" not in again and "refused:" not in again and "answered:" not in again, again
        assert delivered(collected) == []  # nothing answered twice
        append(server, folder, text_mail(THREE["green"], "rules R4.2"))  # a new one: answered
        out = run_mail(server, folder, smtp, games)
        assert "answered: rules R4.2" in out and "renumbered" not in out, out
        assert len(delivered(collected)) == 1


# --- pipe mode: the exit codes an MTA expects -------------------------------------------------

def test_pipe_mode_exits_0_once_the_message_is_kept_and_75_when_it_must_be_retried(tmp_path: Path) -> None:
    games, _inbox = setup_game(tmp_path, key_for_red=False)
    down = f"127.0.0.1:{free_port()}"  # no SMTP server there
    runner = CliRunner()
    args = ["mail", "--stdin", "--smtp", down, "--games", str(games), "--from", HOST]
    # a move piped while SMTP is down: applied, its replies kept for a later run; taken (0), no bounce
    result = runner.invoke(main, args, input=eml("red@example.org", commit(games, "red")), catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert "applied: game g, entry 1" in result.output and "kept for the next run" in result.output
    # a stranger's mail: quarantined, unanswered, taken (0): a bounce would tell the stranger nothing useful
    result = runner.invoke(main, args, input=eml("eve@example.com", commit(games, "blue")), catch_exceptions=False)
    assert result.exit_code == 0 and "quarantined" in result.output, result.output
    # the host's setup is not whole (no From address anywhere): not taken, the MTA tries again (75)
    before = snapshot(games)
    bare = ["mail", "--stdin", "--smtp", down, "--games", str(games)]
    result = runner.invoke(main, bare, input=eml("blue@example.net", commit(games, "blue")), env={"PBEM_FROM": ""},
                           catch_exceptions=False)
    assert result.exit_code == 75, result.output
    assert "the message was not taken; the mail system keeps it and tries again later" in result.stderr
    assert snapshot(games) == before  # nothing kept: the MTA still has it


# --- an oversize mail from a registered player ------------------------------------------------

def test_an_oversize_mail_from_a_registered_player_is_answered_with_the_limit(tmp_path: Path) -> None:
    games, inbox = setup_game(tmp_path, key_for_red=False)
    outbox = tmp_path / "outbox"
    big = EmailMessage()
    big["From"], big["To"], big["Subject"] = "red@example.org", HOST, "my move, and a photo of the board"
    big["Message-ID"] = make_msgid(domain="example.org")
    big.set_content("my move is attached\n")
    big.add_attachment(b"\xff" * (MAIL_LIMIT + MAIL_LIMIT // 16), maintype="image", subtype="jpeg",
                       filename="board.jpg")
    deliver(inbox, bytes(big))
    stranger = bytes(big).replace(b"red@example.org", b"eve@example.com")
    deliver(inbox, stranger)
    out = mail_run(games, inbox, outbox)
    assert out.count("quarantined: malformed input (P1): the message is larger than the 8 MiB") == 2, out
    told = [m for m in replies(outbox) if "kept by the host" in str(m["Subject"])]
    assert [str(m["To"]) for m in told] == ["red@example.org"]  # the player, never the stranger
    text = told[0].get_body(("plain",)).get_content()  # type: ignore[union-attr]
    assert "Your message was not applied" in text and "larger than the 8 MiB a message may be" in text


# --- answers per address, rate-limited --------------------------------------------------------

def test_thirty_forged_log_requests_do_not_make_thirty_log_mails(tmp_path: Path) -> None:
    games, inbox = setup_game(tmp_path, key_for_red=False)
    outbox = tmp_path / "outbox"
    mail_run(games, inbox, outbox)
    mailbox.Maildir(str(outbox)).clear()
    for _ in range(30):  # forged: From red, by anyone
        deliver(inbox, text_mail("red@example.org", "log"))
    out = mail_run(games, inbox, outbox)
    assert out.count("answered: log for red@example.org") == 30, out
    assert out.count("not mailed") == 30 - PER_HOUR
    logs = [m for m in replies(outbox) if "the log" in str(m["Subject"])]
    assert len(logs) == PER_HOUR < 30
    # blue's own question is answered: the limit is per address
    deliver(inbox, text_mail("blue@example.net", "log"))
    assert "not mailed" not in mail_run(games, inbox, outbox)
    # forged refusals count too: no more mail to red this hour
    mailbox.Maildir(str(outbox)).clear()
    deliver(inbox, text_mail("red@example.org", "not a move at all"))
    assert "refused" in mail_run(games, inbox, outbox) and replies(outbox) == []


# --- pbem apply MSG.eml: mail commands from registered senders only ----------------------------

def test_pbem_apply_answers_a_mail_command_from_a_registered_sender_only(tmp_path: Path) -> None:
    games, _inbox = setup_game(tmp_path, key_for_red=False)
    stranger = tmp_path / "stranger.eml"
    stranger.write_bytes(text_mail("eve@example.com", "rules R3.2"))
    before = snapshot(games)
    result = cli("apply", stranger, "--games", games, "--from", HOST)
    assert result.exit_code == Exit.UNKNOWN, result.output
    assert "eve@example.com plays no game on this host, and mail commands are answered for its players only" \
        in result.stderr
    assert snapshot(games) == before  # nothing queued for the stranger
    player = tmp_path / "player.eml"
    player.write_bytes(text_mail("blue@example.net", "rules R3.2"))
    result = cli("apply", player, "--games", games, "--from", HOST)
    assert result.exit_code == Exit.STATE and "its answer is queued" in result.stderr


# --- a keyed seat's settings change only once confirmed -----------------------------------------

def test_a_forged_language_change_of_a_keyed_seat_changes_nothing(tmp_path: Path) -> None:
    """P8: red holds a key.  A forged 'language el' from red's address is held: the code goes
    to red's own address, and only 'language el CODE' changes it.  Blue, with no key, changes
    at once, as before."""
    games, inbox = setup_game(tmp_path)  # red has a key, blue none
    outbox = tmp_path / "outbox"
    mail_run(games, inbox, outbox)
    mailbox.Maildir(str(outbox)).clear()
    deliver(inbox, text_mail("red@example.org", "language el"))  # forged
    out = mail_run(games, inbox, outbox)
    assert "answered: language el for red@example.org" in out, out
    assert load_settings(games / "g").language("red") == "en"  # unchanged
    (held,) = replies(outbox)
    assert str(held["To"]) == "red@example.org" and "confirm: red to read" in str(held["Subject"])
    code = re.search(r"^ {4}language el ([A-Z2-7]{16})\r?$", held.get_body(("plain",)).get_content(),  # type: ignore[union-attr]
                     re.MULTILINE)
    assert code is not None
    mailbox.Maildir(str(outbox)).clear()
    deliver(inbox, text_mail("red@example.org", "language el AAAAAAAAAAAAAAAA"))  # a guessed code
    assert "no change of red's settings to 'language el' awaits this code" in mail_run(games, inbox, outbox)
    deliver(inbox, text_mail("red@example.org", f"language uk {code.group(1)}"))  # another change: refused
    assert "(P8)" in mail_run(games, inbox, outbox) and load_settings(games / "g").language("red") == "en"
    # the code is used up by the wrong change: red asks again, and confirms
    mailbox.Maildir(str(outbox)).clear()
    deliver(inbox, text_mail("red@example.org", "language el"))
    mail_run(games, inbox, outbox)
    fresh = re.search(r"language el ([A-Z2-7]{16})", replies(outbox)[0].get_body(("plain",)).get_content())  # type: ignore[union-attr]
    assert fresh is not None
    deliver(inbox, text_mail("red@example.org", f"Re: language el {fresh.group(1).lower()}"))
    mail_run(games, inbox, outbox)
    assert load_settings(games / "g").language("red") == "el"
    # blue holds no key: changed at once
    deliver(inbox, text_mail("blue@example.net", "language hu"))
    mail_run(games, inbox, outbox)
    assert load_settings(games / "g").language("blue") == "hu"


def test_a_forged_mail_mode_change_of_a_keyed_seat_changes_nothing(tmp_path: Path) -> None:
    """P8: what a keyed seat is mailed is its setting as much as its language.  A forged 'mail
    digest' from red's address is held, its code mailed to red's own address; only 'mail digest
    CODE' changes it: its code confirms that change and no other."""
    games, inbox = setup_game(tmp_path)  # red has a key, blue none
    outbox = tmp_path / "outbox"
    mail_run(games, inbox, outbox)
    mailbox.Maildir(str(outbox)).clear()
    deliver(inbox, text_mail("red@example.org", "mail digest"))  # forged
    mail_run(games, inbox, outbox)
    assert load_settings(games / "g").mail_mode("red") == "every"  # unchanged (the tests' host mails every entry)
    (held,) = replies(outbox)
    assert str(held["To"]) == "red@example.org" and "confirm: red to be mailed: digest" in str(held["Subject"])
    code = re.search(r"^ {4}mail digest ([A-Z2-7]{16})\r?$", held.get_body(("plain",)).get_content(),  # type: ignore[union-attr]
                     re.MULTILINE)
    assert code is not None
    deliver(inbox, text_mail("red@example.org", f"mail turn {code.group(1)}"))  # another change: refused
    assert "no change of red's settings to 'mail turn' awaits this code" in mail_run(games, inbox, outbox)
    assert load_settings(games / "g").mail_mode("red") == "every"
    mailbox.Maildir(str(outbox)).clear()
    deliver(inbox, text_mail("red@example.org", "mail digest"))
    mail_run(games, inbox, outbox)
    fresh = re.search(r"mail digest ([A-Z2-7]{16})", replies(outbox)[0].get_body(("plain",)).get_content())  # type: ignore[union-attr]
    assert fresh is not None
    deliver(inbox, text_mail("red@example.org", f"mail digest {fresh.group(1)}"))
    mail_run(games, inbox, outbox)
    assert load_settings(games / "g").mail_mode("red") == "digest"
    deliver(inbox, text_mail("blue@example.net", "mail turn"))  # blue holds no key: changed at once
    mail_run(games, inbox, outbox)
    assert load_settings(games / "g").mail_mode("blue") == "turn"
