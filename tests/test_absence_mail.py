"""R8.5 by mail: 'away 3' (or 'away until DATE') from a seat's registered address records the
seat's absence as a move; a seat that holds a key signs its own, so the host answers, at the
seat's own address only, with the move to sign; a forged From or a stranger records nothing.

Red signs its moves (a key named at 'pbem new'), blue does not (tests/mailtools.py); the game
has a deadline of 3 days and an allowance of 7 days a seat.
"""

from __future__ import annotations

import mailbox
from email.message import EmailMessage
from email.utils import make_msgid
from pathlib import Path

from clitools import cli, ok
from mailtools import HOST, committed, deliver, eml, game_files, load_log, replies, reveal, signed, signed_text, to_of

OPTIONS = ("--deadline", "3d", "--absence", "7")


def started_with_allowance(tmp_path: Path) -> tuple[Path, Path, Path]:
    games, inbox, outbox = committed(tmp_path, options=OPTIONS)
    deliver(inbox, eml("red@example.org", signed(reveal(games, "red"), tmp_path / "red.key", tmp_path)))
    deliver(inbox, eml("blue@example.net", reveal(games, "blue")))
    ok("mail", "--inbox", inbox, "--outbox", outbox, "--games", games, "--from", HOST)
    assert load_log(games).started
    mailbox.Maildir(str(outbox)).clear()
    return games, inbox, outbox


def command(inbox: Path, sender: str, subject: str) -> None:
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = sender, HOST, subject
    msg["Message-ID"] = make_msgid(domain="example.org")
    msg.set_content("thanks\n")
    deliver(inbox, msg.as_bytes())


def run(games: Path, inbox: Path, outbox: Path) -> list[EmailMessage]:
    ok("mail", "--inbox", inbox, "--outbox", outbox, "--games", games, "--from", HOST)
    got = replies(outbox)
    mailbox.Maildir(str(outbox)).clear()
    return got


def text_of(msg: EmailMessage) -> str:
    body = msg.get_body(("plain",))
    assert isinstance(body, EmailMessage)
    return str(body.get_content()).replace("\r\n", "\n")


def test_an_unkeyed_seat_mails_away_3_and_its_absence_is_recorded(tmp_path: Path) -> None:
    games, inbox, outbox = started_with_allowance(tmp_path)
    command(inbox, "blue@example.net", "[rattus g] away 3")
    got = run(games, inbox, outbox)
    game = load_log(games)
    last = game.entries[-1]
    assert last.raw["kind"] == "away" and last.raw["player"] == "blue" and last.raw["move"]["days"] == 3
    assert "signature" not in last.raw["move"]  # an unsigned seat's move, as its other moves
    reports = {to_of(m): text_of(m) for m in got}
    assert "blue is away for 3 days" in reports["red@example.org"]  # the other seat is told (mail every)
    ok("verify", games / "g" / "log.yaml")


def test_an_absence_over_the_allowance_by_mail_is_refused_and_changes_no_file(tmp_path: Path) -> None:
    games, inbox, outbox = started_with_allowance(tmp_path)
    before = game_files(games)
    command(inbox, "blue@example.net", "away 8")
    got = run(games, inbox, outbox)
    assert game_files(games) == before
    assert [to_of(m) for m in got] == ["blue@example.net"] and "R8.5" in text_of(got[0])


def test_a_keyed_seat_gets_the_move_to_sign_at_its_own_address_and_a_forged_from_records_nothing(
        tmp_path: Path) -> None:
    games, inbox, outbox = started_with_allowance(tmp_path)
    before = game_files(games)
    command(inbox, "red@example.org", "away 2")  # whoever wrote it: the From is red's
    got = run(games, inbox, outbox)
    assert game_files(games) == before  # nothing recorded: red's moves are signed with red's key
    assert [to_of(m) for m in got] == ["red@example.org"]  # the answer goes to red's own address only
    text = text_of(got[0])
    assert "holds a signing key (P8)" in text and "pbem sign" in text
    move = text[text.index("# red is away"):text.index("away 2\n") + len("away 2\n")]
    deliver(inbox, eml("red@example.org", signed_text(move, tmp_path / "red.key", tmp_path)))
    run(games, inbox, outbox)  # red signs it and mails it back: recorded, signed
    last = load_log(games).entries[-1]
    assert last.raw["kind"] == "away" and last.raw["player"] == "red" and "signature" in last.raw["move"]
    ok("verify", games / "g" / "log.yaml")


def test_a_stranger_mailing_away_records_nothing(tmp_path: Path) -> None:
    games, inbox, outbox = started_with_allowance(tmp_path)
    before = game_files(games)
    command(inbox, "mallory@evil.example", "[rattus g] away 3")
    result = cli("mail", "--inbox", inbox, "--outbox", outbox, "--games", games, "--from", HOST)
    assert "quarantined: not a player's message" in result.output  # kept for the host, never answered
    assert game_files(games) == before and replies(outbox) == []
