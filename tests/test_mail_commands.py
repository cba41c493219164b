"""What a player asks by mail, and a stale move answered with the template.

A message whose subject or first line is `board`, `template`, `log`, `history` or
`rules R3.2` is answered for the sender's game (found from the sender's registered
address), to the sender alone, and changes no game file.  The template comes from the
asking seat's own view only (P10).  A stale move (P7) is refused with the seat's current
template attached."""

from __future__ import annotations

import mailbox
from email.message import EmailMessage
from email.utils import make_msgid
from pathlib import Path

from clitools import ok
from mailtools import (  # noqa: F401 (started: a fixture)
    ADDRESSES,
    HOST,
    attachment,
    eml,
    game_files,
    load_log,
    red_move,
    replies,
    signed,
    started,
    to_of,
)

from pbem.host.private import seat_view
from pbem.views.rulesref import lookup
from pbem.views.template import template
from pbem.views.text import board_lines
from pbem.views.timeline import history_lines, read_checked


def ask(games: Path, inbox: Path, outbox: Path, sender: str, subject: str, body: str = "thanks") -> EmailMessage:
    """One message asking, one run; the one reply (to the sender alone), and no game file changed."""
    before = game_files(games)
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = sender, HOST, subject
    msg["Message-ID"] = make_msgid(domain="example.org")
    msg.set_content(body + "\n")
    mailbox.Maildir(str(inbox)).add(bytes(msg))
    out = ok("mail", "--inbox", inbox, "--outbox", outbox, "--games", games, "--from", HOST)
    assert game_files(games) == before
    got = replies(outbox)
    mailbox.Maildir(str(outbox)).clear()
    assert len(got) == 1 and to_of(got[0]) == sender, out
    assert got[0]["In-Reply-To"] == msg["Message-ID"]
    return got[0]


def text_of(msg: EmailMessage) -> str:
    body = msg.get_body(("plain",))
    assert isinstance(body, EmailMessage)
    return str(body.get_content()).replace("\r\n", "\n")


def test_board_by_subject_gets_the_text_board_and_its_picture(started: tuple[Path, Path, Path]) -> None:
    games, inbox, outbox = started
    got = ask(games, inbox, outbox, ADDRESSES["blue"], "board")
    assert "\n".join(board_lines(load_log(games))) in text_of(got)
    picture = attachment(got, ".png")
    assert picture is not None and picture.startswith(b"\x89PNG")


def test_template_gets_the_seats_own_template_from_its_view(started: tuple[Path, Path, Path]) -> None:
    games, inbox, outbox = started
    game = load_log(games)
    for player in ("red", "blue"):  # red is to move; blue's template says whose turn it is
        got = ask(games, inbox, outbox, ADDRESSES[player], "Re: [rattus g] question", body="template")
        expected = template(seat_view(games / "g", game, player))
        assert attachment(got, f"-{player}.txt") == expected.encode()
        assert expected in text_of(got)


def test_log_gets_the_log_attached(started: tuple[Path, Path, Path]) -> None:
    games, inbox, outbox = started
    got = ask(games, inbox, outbox, ADDRESSES["red"], "log")
    assert attachment(got, "log.yaml") == (games / "g" / "log.yaml").read_bytes()


def test_history_gets_the_history_text(started: tuple[Path, Path, Path]) -> None:
    games, inbox, outbox = started
    got = ask(games, inbox, outbox, ADDRESSES["blue"], "history")
    assert "\n".join(history_lines(*read_checked(games / "g" / "log.yaml"))) in text_of(got)


def test_rules_gets_the_rules_text(started: tuple[Path, Path, Path]) -> None:
    games, inbox, outbox = started
    got = ask(games, inbox, outbox, ADDRESSES["blue"], "hello", body="rules R3.2\n\nwhat does it say?")
    assert "\n".join(lookup("R3.2")) in text_of(got) and "R3.2" in str(got["Subject"])
    unknown = ask(games, inbox, outbox, ADDRESSES["blue"], "rules R99.9")
    assert "not applied; nothing was changed" in text_of(unknown) and "R99.9" in text_of(unknown)


def test_a_player_of_several_games_names_the_game_in_the_subject(started: tuple[Path, Path, Path]) -> None:
    games, inbox, outbox = started
    ok("new", "g2", "--players", "red,blue", "--seat-email", f"red={ADDRESSES['red']}",
       "--seat-email", f"blue={ADDRESSES['blue']}", "--games", games)
    ok("mail", "--inbox", inbox, "--outbox", outbox, "--games", games, "--from", HOST)  # g2's invitations
    mailbox.Maildir(str(outbox)).clear()
    refusal = text_of(ask(games, inbox, outbox, ADDRESSES["blue"], "log"))
    assert "plays several games here: g (blue), g2 (blue)" in refusal and "[rattus GAME]" in refusal
    got = ask(games, inbox, outbox, ADDRESSES["blue"], "[rattus g2] log")
    assert attachment(got, "log.yaml") == (games / "g2" / "log.yaml").read_bytes()


def test_a_stale_move_is_refused_with_the_seats_current_template(
    started: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    """P7: a move written against an old entry is refused; its seat gets the template it
    needs now, built from that seat's own view (P10)."""
    games, inbox, outbox = started
    stale = red_move(games)
    stale["after"] = {"seq": 0, "hash": load_log(games).hashes[0][:16]}
    before = game_files(games)
    mailbox.Maildir(str(inbox)).add(eml(ADDRESSES["red"], signed(stale, tmp_path / "red.key", tmp_path)))
    out = ok("mail", "--inbox", inbox, "--outbox", outbox, "--games", games, "--from", HOST)
    assert "refused:" in out and game_files(games) == before
    got = replies(outbox)
    assert len(got) == 1 and to_of(got[0]) == ADDRESSES["red"]
    text = text_of(got[0])
    assert "Your message was not applied; nothing was changed." in text and "written against entry 0" in text
    current = template(seat_view(games / "g", load_log(games), "red"))
    assert attachment(got[0], "-red.txt") == current.encode() and current in text


def test_pbem_apply_of_a_mail_command_records_nothing_and_queues_the_answer(
    started: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    from clitools import cli

    from pbem.errors import Exit

    games, inbox, outbox = started
    before = game_files(games)
    message = tmp_path / "ask.eml"
    message.write_bytes(eml(ADDRESSES["blue"], "board").replace(b"Subject: my move", b"Subject: board"))
    result = cli("apply", message, "--games", games, "--from", HOST)
    assert result.exit_code == Exit.STATE and "a mail command" in result.stderr, result.stderr
    assert game_files(games) == before
    ok("mail", "--inbox", inbox, "--outbox", outbox, "--games", games, "--from", HOST)
    got = replies(outbox)
    assert len(got) == 1 and to_of(got[0]) == ADDRESSES["blue"] and "the board" in str(got[0]["Subject"])
