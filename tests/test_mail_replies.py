"""Every Reply understood, every mail answered, as a player with a default mutt meets them: a
receipt of each recorded move, a Reply to a refusal read as the move, another seat's absence
leaving your move standing (R8.5), a stranger's command on its first line answered, the end
told as the last page of a story, and the small ones (tests/mutt.py renders each mail as its
pager does and replies as mutt does)."""

from __future__ import annotations

import mailbox
from email.message import EmailMessage
from email.utils import make_msgid
from pathlib import Path

import pytest
from clitools import cli, ok
from deadlinetools import new_game
from lobbytools import Host, letter, text_of
from mailtools import deliver, replies, setup_game
from mutt import HOST, MailTable, asks, leaves, pbem, quoted, reply, shown

from pbem.errors import Exit
from pbem.host.settings import load_settings
from pbem.i18n import translator
from pbem.log.clock import at_of, now, seconds
from pbem.mail.outgoing import REPLY_SUBJECT

THREE = {"red": "red@example.org", "green": "green@example.com", "blue": "blue@example.net"}
RECEIPT_BYTES = 3000  # a receipt, whole: read at a glance
ABSENCE = ("--deadline", "3d", "--reminder", "1d", "--absence", "7")


@pytest.fixture(autouse=True)
def no_picture(monkeypatch: pytest.MonkeyPatch) -> None:
    """A 'turn' mail carries no picture; the end and 'every' mails skip its 0.2 s a mail here."""
    monkeypatch.setattr("pbem.mail.replies.board_picture", lambda game, lang="en": None)


def opened(tmp_path: Path, langs: dict[str, str] | None = None, options: tuple[str, ...] = ()) -> MailTable:
    """A 3-player game by mail (default mode) whose opening is done: the first 'your move' is out."""
    return MailTable(tmp_path, THREE, "turn", langs=langs, options=options).through_the_opening()


def your_move(t: MailTable) -> tuple[str, EmailMessage]:
    seat = t.game().to_move
    assert seat is not None
    lang = next((lang for s, lang in t.langs.items() if s == seat), "en")
    words = translator(lang).gettext(REPLY_SUBJECT)  # 'your move' in the seat's language
    return seat, next(m for m in reversed(t.players[seat].got) if words in str(m["Subject"])[:40])


def command(t: MailTable, seat: str, subject: str, text: str = "thanks\n") -> None:
    note = EmailMessage()
    note["From"], note["To"], note["Subject"] = THREE[seat], HOST, subject
    note["Message-ID"] = make_msgid(domain="example.org")
    note.set_content(text)
    mailbox.Maildir(str(t.inbox)).add(bytes(note))


def refusals(mails: list[tuple[str, EmailMessage]], seat: str) -> list[EmailMessage]:
    return [m for s, m in mails if s == seat and "Your message was not applied" in shown(m)]


# --- a receipt of each recorded move ---------------------------------------------------------

def test_a_recorded_move_is_answered_in_the_same_run_with_a_short_receipt(tmp_path: Path) -> None:
    """A move sent by a plain Reply: in the same run its sender gets a receipt, a reply to its own
    mail, its text alone (mutt shows no attachment line) within 3 KB, saying the entry it became;
    in the seat's language."""
    t = opened(tmp_path, langs={"green": "uk"})
    seen: set[str] = set()
    for _ in range(8):  # turns in a row, green's in Ukrainian
        seat, msg = your_move(t)
        sent = reply(msg, THREE[seat], t.players[seat].move_lines(msg), "bare")
        mailbox.Maildir(str(t.inbox)).add(sent)
        got = [m for s, m in t.run() if s == seat]
        assert len(got) == 1
        if t.game().to_move == seat:  # its turn again (the setup's snake): that mail says it was accepted
            continue
        receipt = got[0]
        assert len(leaves(receipt)) == 1 and "[-- Attachment" not in shown(receipt)
        assert len(bytes(receipt)) <= RECEIPT_BYTES, len(bytes(receipt))
        assert str(receipt["In-Reply-To"]) in sent.decode()
        seq = next(e.seq for e in reversed(t.game().entries) if e.player == seat)
        words = "Ваш хід занесено до журналу як запис" if seat == "green" else "Your move was recorded as entry"
        assert f"{words} {seq}." in shown(receipt), shown(receipt)
        assert asks(receipt) is None  # nothing to do: no 'your move' in its subject
        seen.add(seat)
    assert seen == set(THREE)


def test_receipts_off_by_mail_stops_them_and_receipts_on_brings_them_back(tmp_path: Path) -> None:
    t = opened(tmp_path)
    seat, msg = your_move(t)
    command(t, seat, "receipts off")
    answered = t.run()
    assert [s for s, _m in answered] == [seat] and "without a receipt" in shown(answered[0][1])
    assert f"no_receipts:\n- {seat}" in (t.games / "g" / "host.yaml").read_text()
    mailbox.Maildir(str(t.inbox)).add(reply(msg, THREE[seat], t.players[seat].move_lines(msg), "quote"))
    assert seat not in [s for s, _m in t.run()]  # recorded, and nothing mailed to its sender
    command(t, seat, "Re: hello", "receipts on\n")  # the command on the text's first line
    assert "short receipt" in shown(t.run()[0][1])
    assert "no_receipts" not in (t.games / "g" / "host.yaml").read_text()


def test_a_keyed_seat_turns_receipts_off_only_with_the_code_mailed_to_it(tmp_path: Path) -> None:
    """P8: red holds a key, so a 'receipts off' from red's address (maybe forged) is held and its
    code goes to red's own address; 'receipts off CODE' changes it."""
    games, inbox = setup_game(tmp_path)  # red has a key, blue none
    outbox = tmp_path / "outbox"
    ok("mail", "--inbox", inbox, "--outbox", outbox, "--games", games, "--from", HOST)  # the invitations
    mailbox.Maildir(str(outbox)).clear()
    deliver(inbox, letter("red@example.org", "receipts off"))
    ok("mail", "--inbox", inbox, "--outbox", outbox, "--games", games, "--from", HOST)
    (held,) = replies(outbox)
    assert str(held["To"]) == "red@example.org" and "confirm: receipts off for red" in str(held["Subject"])
    assert "no_receipts" not in (games / "g" / "host.yaml").read_text()
    line = next(x.strip() for x in text_of(held).splitlines() if x.strip().startswith("receipts off "))
    deliver(inbox, letter("red@example.org", "Re: " + str(held["Subject"]), line + "\n"))
    ok("mail", "--inbox", inbox, "--outbox", outbox, "--games", games, "--from", HOST)
    assert load_settings(games / "g").no_receipts == ["red"]


def test_an_absence_by_mail_gets_its_receipt(tmp_path: Path) -> None:
    t = opened(tmp_path, options=ABSENCE)
    away = next(s for s in THREE if s != t.game().to_move)
    command(t, away, "away 2")
    got = [m for s, m in t.run() if s == away]
    assert len(got) == 1 and "absence recorded as entry" in str(got[0]["Subject"])
    assert "is away for 2 days" in shown(got[0]) and len(bytes(got[0])) <= RECEIPT_BYTES


# --- a Reply to a refusal is a move -----------------------------------------------------------

@pytest.mark.parametrize("how", ["bare", "quote"])
def test_a_reply_to_a_refusal_with_the_corrected_move_is_the_move(tmp_path: Path, how: str) -> None:
    """mutt's Reply to the refusal (quoting it, or not): the corrected lines alone are read as
    the refused seat's move after the game's last entry, and recorded."""
    t = opened(tmp_path)
    seat, msg = your_move(t)
    lines = t.players[seat].move_lines(msg)
    mailbox.Maildir(str(t.inbox)).add(reply(msg, THREE[seat], [*lines, "place nowhere 2"], "quote"))
    refused = refusals(t.run(), seat)
    assert len(refused) == 1
    before = t.game().last_seq
    mailbox.Maildir(str(t.inbox)).add(reply(refused[0], THREE[seat], lines, how))
    new = t.run()
    assert not refusals(new, seat) and t.game().last_seq > before
    assert t.game().entries[before + 1].player == seat


# --- R8.5: another seat's absence leaves your move standing ---------------------------------

def test_another_seats_away_during_your_turn_leaves_your_move_standing(tmp_path: Path) -> None:
    """Green goes away while red is to move; red's Reply to its 'your move' mail, sent before it
    heard of it, is recorded: no refusal, no second 'your move'."""
    t = opened(tmp_path, options=ABSENCE)
    seat, msg = your_move(t)
    other = next(s for s in THREE if s != seat)
    command(t, other, "away 2")
    assert [m for s, m in t.run() if s == seat] == []  # nothing for the mover: its turn is untouched
    mailbox.Maildir(str(t.inbox)).add(reply(msg, THREE[seat], t.players[seat].move_lines(msg), "bare"))
    new = t.run()
    assert not refusals(new, seat) and [e.raw["kind"] for e in t.game().entries[-2:]] == ["away", "move"]
    assert [asks(m) for s, m in new if s == seat] == [None]  # its receipt alone
    ok("verify", t.games / "g" / "log.yaml")


def test_a_seat_past_its_deadline_mailing_away_is_refused_citing_r8_5(tmp_path: Path) -> None:
    t = opened(tmp_path, options=ABSENCE)
    seat, _msg = your_move(t)
    late = at_of(seconds(t.game().entries[-1].at) + 3 * 86400 + 3600)  # an hour past the deadline
    command(t, seat, "away 2")
    before = t.game().last_seq
    got = refusals(t.run("--now", late), seat)
    assert len(got) == 1 and "can no longer declare one" in shown(got[0]) and "R8.5" in shown(got[0])
    assert [e.raw["kind"] for e in t.game().entries[before + 1:]] == ["timeout"]  # the run's tick: R8.2 as due


# --- a stranger's command on the first line -----------------------------------------------------

def test_a_strangers_join_on_the_first_line_and_games_with_a_question_mark_are_answered(tmp_path: Path) -> None:
    host = Host(tmp_path)
    ok("new", "og", "--players", "red,blue", "--seat-email", "red=ann@example.org", "--seat-lang", "red=hu",
       "--open", "1", "--deadline", "3d", "--games", host.games)
    host.send(letter("zoe@example.net", "", "join og\n\n-- \nZoe\n"),
              letter("yan@example.net", "Hello there", "join og\nI'd like to play.\n"),
              letter("xi@example.net", "games?"))
    _out, got = host.run()
    by = {str(m["To"]): m for m in got}
    assert set(by) == {"zoe@example.net", "yan@example.net", "xi@example.net"}, [m["Subject"] for m in got]
    assert "confirm join" in str(by["zoe@example.net"]["Subject"]) and "confirm " in text_of(by["yan@example.net"])
    listing = text_of(by["xi@example.net"])
    assert "og: 1 of 2 seats open; deadline 3d a turn; its players read hu" in listing, listing


def test_a_strangers_other_mail_is_still_not_answered(tmp_path: Path) -> None:
    host = Host(tmp_path)
    ok("new", "og", "--players", "red,blue", "--seat-email", "red=ann@example.org", "--open", "1", "--games", host.games)
    host.send(letter("spam@example.net", "Cheap pills", "Buy now\n"))
    result = cli("mail", "--inbox", host.inbox, "--outbox", host.outbox, "--games", host.games, "--from", HOST)
    assert result.exit_code == Exit.FORMAT and "quarantined: not a player's message" in result.output
    assert not (host.outbox / "new").is_dir() or not list((host.outbox / "new").iterdir())


# --- the end, as the last page of a story --------------------------------------------------------

def test_the_end_mail_tells_how_the_game_ended_before_who_won(tmp_path: Path) -> None:
    t = MailTable(tmp_path, THREE, "turn", seed=3)
    t.play()
    end = next(m for _s, m, _st in t.sent if "] the end: " in str(m["Subject"]))
    text = shown(end)
    ending, scores = text.index("the game ends ("), text.index("Final scores:")
    assert text.startswith("Game g is over. How it ended:") and ending < text.index("game over: ") < scores
    assert text.index("wins") > ending


def test_an_observers_last_summary_says_the_game_is_over_and_how_it_ended(tmp_path: Path) -> None:
    t = MailTable(tmp_path, THREE, "turn", seed=3)
    mailbox.Maildir(str(t.inbox)).add(letter("obs@example.net", "watch g"))
    invited = t.run()
    code = next(m for m in t.others if "confirm watch" in str(m["Subject"]))
    line = next(x.strip() for x in text_of(code).splitlines() if x.strip().startswith("confirm "))
    mailbox.Maildir(str(t.inbox)).add(letter("obs@example.net", "Re: " + str(code["Subject"]), line + "\n"))
    t.play(new=invited + t.run())
    t.run()  # the next run's summaries: an observer's last one at once, whatever the hour
    final = [m for m in t.others if "the end" in str(m["Subject"])]
    assert len(final) == 1, [str(m["Subject"]) for m in t.others]
    text = text_of(final[0])
    assert text.startswith("Game g is over. How it ended:") and "Final scores:" in text and "wins" in text, text


# --- the small ones ----------------------------------------------------------------------------

def test_a_reply_to_a_reminder_is_a_move(tmp_path: Path) -> None:
    """The reminder's text holds the template and its file is one mutt neither shows nor quotes;
    a bare Reply to the reminder is the move."""
    t = opened(tmp_path, options=ABSENCE)
    seat, _msg = your_move(t)
    soon = at_of(seconds(t.game().entries[-1].at) + 2 * 86400 + 3600)
    pbem("tick", "--now", soon, "--games", t.games, "--from", HOST)
    reminder = next(m for s, m in t.run("--now", soon) if s == seat)
    assert "reminder: your move" in str(reminder["Subject"])
    assert sum(1 for line in quoted(reminder) if line.startswith("> game g ")) == 1  # the template, quoted once
    before = t.game().last_seq
    mailbox.Maildir(str(t.inbox)).add(reply(reminder, THREE[seat], t.players[seat].move_lines(reminder), "bare"))
    assert not refusals(t.run("--now", soon), seat) and t.game().last_seq > before


def test_the_round_1_mail_says_what_the_rounds_protect_once(tmp_path: Path) -> None:
    t = MailTable(tmp_path, THREE, "turn")
    first = next(m for s, m in t.run() if s == "red")
    flat = " ".join(line.lstrip("#").strip() for line in shown(first).splitlines())  # the template unwrapped
    assert flat.count("can choose the order") == 1 and flat.count("so that nobody, the host included") == 1


def test_a_digest_seat_gets_no_summary_of_the_opening(tmp_path: Path) -> None:
    """The opening's commitments are no day's news: the one summary a day waits for the start."""
    t = MailTable(tmp_path, THREE, "digest")
    new = t.run()
    while not t.game().started:
        for seat, msg in new:
            if seat in t.game().awaited and asks(msg) is not None:
                t.answer(seat, msg, "quote")
        new = t.run()
    assert not [m for _s, m, started in t.sent if "summary" in str(m["Subject"]) and not started]


def test_pbem_away_takes_until_date_as_one_quoted_argument(tmp_path: Path) -> None:
    """The help writes 'until 2026-12-10' as one argument; a shell's quotes make it one word."""
    new_game(tmp_path, deadline="30d", absence=7)
    day = at_of(seconds(now()) + 3 * 86400)[:10]
    one = ok("away", "g", f"until {day}", "--player", "green", "--games", tmp_path)
    assert one == ok("away", "g", "until", day, "--player", "green", "--games", tmp_path)


@pytest.mark.parametrize("example", ["rattus-2p", "rattus-3p", "rattus-4p"])
def test_the_end_told_short_still_says_why_the_game_ended(example: str) -> None:
    """R6.1: however long the turn that met the end condition (an outbreak's flips before the
    ending line), the end's story told in a few lines keeps the line saying why the game ends."""
    from pbem.host.games import load_game
    from pbem.views.narrate import final_round_lines

    game = load_game(Path(__file__).resolve().parent.parent / "examples" / example)
    assert len(final_round_lines(game, "en", room=999)) > 8
    for room in (4, 6, 8):
        told = final_round_lines(game, "en", room=room)
        assert len(told) <= room and any("the game ends (" in line for line in told), (room, told)
