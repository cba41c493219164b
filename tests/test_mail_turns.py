"""One short mail when it is your turn, and a plain Reply is a move: games by mail as players
with a default mutt see them (tests/mutt.py renders each mail as its pager does)."""

from __future__ import annotations

import mailbox
import statistics
import sys
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest
from mutt import HOST, MailTable, asks, leaves, looks, own_turns, pbem, quoted, reply, shown

from pbem.i18n import LANGS, translator
from pbem.mail.admission import Admission, Inbound
from pbem.mail.outbox import QUEUE_NAME, Queue
from pbem.mail.outgoing import REPLY_SUBJECT
from pbem.mail.resend import resend_lost
from pbem.mail.verdict import Recorded

THREE = {"red": "red@example.org", "green": "green@example.com", "blue": "blue@example.net"}


@pytest.fixture(autouse=True)
def no_picture(monkeypatch: pytest.MonkeyPatch) -> None:
    """The board's PNG costs ~0.2 s a mail and a 'turn' mail carries none; the 'every' tests skip it."""
    monkeypatch.setattr("pbem.mail.replies.board_picture", lambda game, lang="en": None)


def opened(tmp_path: Path, mode: str = "turn", langs: dict[str, str] | None = None) -> MailTable:
    """A 3-player game by mail whose opening is done: the first 'your move' mail is out."""
    return MailTable(tmp_path, THREE, mode, langs=langs).through_the_opening()


def your_move(t: MailTable) -> tuple[str, EmailMessage]:
    seat = t.game().to_move
    assert seat is not None
    return seat, next(m for m in reversed(t.players[seat].got) if asks(m) == "your move")


def test_a_whole_game_by_mail_is_one_short_mail_a_turn(tmp_path: Path) -> None:
    """The default mode: one mail a player per part of the game (a turn, a setup placement) and
    one at the end, no refusal, and one mail more for each Witch's look (R7.5: a look ends a
    move file); a median mail of at most 25 KB and none over 100 KB.  Each player acts on its
    mails alone, replying by quoting, by a bare reply or by a file in turn."""
    t = MailTable(tmp_path, THREE, "turn", seed=3)
    t.play()
    game = t.game()
    assert game.over and game.secret is not None
    assert not [m for _s, m, _st in t.sent if "Your message was not applied" in shown(m)]  # no refusal
    counted = []
    for seat in THREE:
        turns, looked = own_turns(game, seat), looks(game, seat)
        mails = [m for s, m, started in t.sent if s == seat and started and not receipt(m)]
        receipts = [m for s, m, started in t.sent if s == seat and started and receipt(m)]  # one a turn
        assert turns - looked - 1 <= len(receipts) <= turns + 1 and all(len(bytes(m)) <= 3000 for m in receipts)
        # one mail a part of the game and the end's; each Witch's look one more (R7.5)
        assert len(mails) == turns + looked + 1, (seat, len(mails), turns, looked)
        counted.append((len(mails) - looked, turns))
    # per player per own turn, the end's mail included; a Witch's look is the player's choice to
    # stop and see the face (R7.5), one mail each, counted exactly above (how many varies with the deal)
    assert sum(m for m, _t in counted) / sum(t for _m, t in counted) <= 1.15, counted
    sizes = [len(bytes(m)) for _s, m, _st in t.sent]
    assert statistics.median(sizes) <= 25 * 1024 and max(sizes) <= 100 * 1024, (statistics.median(sizes), max(sizes))
    assert "verdict: FAIR" in pbem("audit", t.games / "g" / "log.yaml")


def receipt(msg: EmailMessage) -> bool:
    """A receipt of the reader's own move (pbem.mail.receipt): its text alone, nothing asked."""
    return "recorded as entry" in str(msg["Subject"]) and len(leaves(msg)) == 1


def test_a_mailed_move_is_logged_before_any_reply_is_composed(tmp_path: Path) -> None:
    """Decide, then reply: following one mailed move from admission to the log's append enters
    no reply composition (the replies are composed after, from the recorded entry)."""
    t = opened(tmp_path)
    seat, msg = your_move(t)
    data = reply(msg, THREE[seat], t.players[seat].move_lines(msg), "bare")
    composing = ("pbem.mail.replies", "pbem.mail.answers", "pbem.mail.outgoing", "pbem.mail.invite",
                 "pbem.views.template", "pbem.views.compose", "pbem.views.seatstate", "pbem.views.svg",
                 "pbem.views.report", "pbem.mail.pictures")
    calls: list[str] = []

    def watch(frame: Any, event: str, _arg: Any) -> None:
        if event != "call":
            return
        module, name = frame.f_globals.get("__name__", ""), frame.f_code.co_name
        if module == "pbem.log.logfile" and name == "append":
            calls.append("append")
        elif module.startswith(composing) and name != "__init__":
            calls.append(f"{module}.{name}")

    admission = Admission(t.games, HOST)
    sys.setprofile(watch)
    try:
        verdict = admission.admit(Inbound(data, "one")).verdict
    finally:
        sys.setprofile(None)
    assert isinstance(verdict, Recorded) and "append" in calls
    before = calls[:calls.index("append")]
    assert before == [], before[:5]
    assert any(c.startswith("pbem.mail.replies") for c in calls)  # composed after, from the entry


def test_a_plain_reply_is_a_move_and_a_reply_to_an_old_mail_is_stale(tmp_path: Path) -> None:
    """P7 with In-Reply-To: a reply that only holds the move's lines (no quote, no header) is
    read against the host's mail it answers and applied; one to an older mail is refused as stale."""
    t = opened(tmp_path)
    seat, msg = your_move(t)
    mailbox.Maildir(str(t.inbox)).add(reply(msg, THREE[seat], t.players[seat].move_lines(msg), "bare"))
    before = t.game().last_seq
    t.run()
    assert t.game().last_seq > before
    again = t.players[seat].move_lines(msg)  # another answer to the same, now old, mail
    mailbox.Maildir(str(t.inbox)).add(reply(msg, THREE[seat], again, "bare"))
    new = t.run()
    refused = [m for s, m in new if s == seat and "stale move (P7)" in shown(m)]
    assert len(refused) == 1 and t.game().last_seq >= before + 1


def test_the_subject_leads_with_your_move_in_every_language(tmp_path: Path) -> None:
    """A phone shows a subject's first 40 characters: 'your move' is in them, in the seat's language."""
    for lang in LANGS:
        folder = tmp_path / lang
        folder.mkdir()
        t = opened(folder, langs={seat: lang for seat in THREE})
        seat = t.game().to_move
        assert seat is not None
        subject = str(t.players[seat].got[-1]["Subject"])
        assert translator(lang).gettext(REPLY_SUBJECT) in subject[:40] and len(subject) <= 60, (lang, subject)


def test_a_reply_quotes_the_text_alone_and_at_most_60_lines(tmp_path: Path) -> None:
    """mutt's Reply quotes what its pager shows: the 'your move' mail's text part, short; the page,
    the template file and the log are files it neither shows nor quotes."""
    t = opened(tmp_path)
    _seat, msg = your_move(t)
    assert leaves(msg)[0].get_content_type() == "text/plain"
    assert {p.get_content_type() for p in leaves(msg)[1:]} <= {"application/octet-stream", "application/gzip"}
    assert all(p.get("Content-Disposition", "").startswith("attachment") for p in leaves(msg)[1:])
    lines = quoted(msg)
    assert len(lines) <= 60 and "<html" not in "\n".join(lines).lower(), len(lines)


def test_mail_every_by_mail_brings_back_the_report_of_every_entry(tmp_path: Path) -> None:
    """'mail every' from a seat: its mode in host.yaml; then it gets a report of every entry,
    while a 'turn' seat gets nothing until its turn."""
    t = opened(tmp_path)
    watcher = next(s for s in THREE if s != t.game().to_move)
    other = next(s for s in THREE if s not in (watcher, t.game().to_move))
    note = EmailMessage()
    note["From"], note["To"], note["Subject"] = THREE[watcher], HOST, "mail every"
    note.set_content("mail every\n")
    mailbox.Maildir(str(t.inbox)).add(bytes(note))
    answered = t.run()
    assert [s for s, _m in answered] == [watcher] and "mail_modes:\n  " + watcher + ": every" in (
        t.games / "g" / "host.yaml").read_text()
    seat, msg = your_move(t)
    t.answer(seat, msg, "quote")
    got = {s for s, _m in t.run()}
    assert watcher in got and (other not in got or other == t.game().to_move)


def test_a_lost_your_move_mail_is_sent_again_and_list_names_the_seat(tmp_path: Path) -> None:
    """A 'your move' mail a killed run was handing to the server goes to failed/ (it may have
    arrived); the host sends the seat its turn again, and 'pbem list' names a seat with none in flight."""
    t = opened(tmp_path)
    seat, _msg = your_move(t)
    queue = t.games / QUEUE_NAME
    assert f"no mail in flight for {seat}" not in pbem("list", "--games", t.games)
    sent_mid = str(t.players[seat].got[-1]["Message-ID"])
    (queue / "failed").mkdir(exist_ok=True)
    (queue / "failed" / "failed.log").write_text(f"2026-12-03T10:00:00Z\t{sent_mid}\t{THREE[seat]}\tlost\n")
    assert f"no mail in flight for {seat}" in pbem("list", "--games", t.games)
    assert resend_lost(t.games, Queue(queue), HOST) == 1
    assert resend_lost(t.games, Queue(queue), HOST) == 0  # once
    assert f"no mail in flight for {seat}" not in pbem("list", "--games", t.games)


def test_a_digest_seat_gets_its_turns_and_at_most_one_summary_a_day(tmp_path: Path) -> None:
    """'digest': the seat's own turns' mails, and one summary of the rest a day at most."""
    t = opened(tmp_path, mode="digest")
    summaries = [s for s, m, _started in t.sent if str(m["Subject"]).startswith("[rattus g] the day's summary")]
    assert sorted(summaries) == sorted(THREE)  # one each, however many runs that day
    seat, msg = your_move(t)
    t.answer(seat, msg, "bare")
    assert not [m for _s, m in t.run() if "summary" in str(m["Subject"])]  # the same day: none more
    later = t.run("--now", "2099-01-01T00:00:00Z")
    assert sorted(s for s, m in later if "summary" in str(m["Subject"])) == sorted(THREE)
