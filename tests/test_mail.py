"""`pbem mail` and `pbem apply MESSAGE.eml`: moves arrive by mail, replies leave by
SMTP (a real aiosmtpd server on 127.0.0.1) or into an outbox Maildir."""

from __future__ import annotations

import mailbox
import random
from email.message import EmailMessage
from email.utils import make_msgid, parseaddr
from pathlib import Path
from typing import Any

import pytest
from clitools import cli as run
from clitools import ok, snapshot
from mailhostile import INJECTED_SUBJECT, hostile_messages, raw_mail
from mailtools import (  # noqa: F401 (fixtures)
    ADDRESSES,
    HOST,
    Collect,
    attachment,
    commit,
    committed,
    deliver,
    eml,
    free_port,
    game_files,
    load_log,
    plain,
    read_game,
    red_move,
    refused,
    replies,
    reveal,
    setup_game,
    signed,
    signed_text,
    smtp,
    started,
    to_of,
)

from pbem.bots.randombot import bot_actions
from pbem.errors import Exit
from pbem.log.logfile import LOG_NAME
from pbem.log.moves import after_of
from pbem.log.notation_write import action_line
from pbem.log.yamlio import dump_yaml
from pbem.mail.answers import Answers
from pbem.mail.verdict import Recorded, Refused
from pbem.rules import Action


@pytest.fixture(autouse=True)
def no_picture(monkeypatch: pytest.MonkeyPatch) -> None:
    """Drawing the board's PNG costs ~0.2 s a mail, so these tests skip it; tests/test_pictures.py
    checks that a real report mail carries it inline."""
    monkeypatch.setattr("pbem.mail.replies.board_picture", lambda game, lang="en": None)


@pytest.mark.parametrize(
    "limit", [6, pytest.param(None, marks=pytest.mark.slow, id="whole-game")], ids=str
)
def test_a_short_game_by_mail_through_a_real_smtp_server(
    tmp_path: Path, smtp: tuple[str, Collect], limit: int | None
) -> None:
    server, collected = smtp
    games, inbox = setup_game(tmp_path)
    # P4 round 1: both commit to a nonce (red signs, and attaches the move; blue writes it inline)
    deliver(inbox, eml("Red <red@example.org>", signed(commit(games, "red"), tmp_path / "red.key", tmp_path),
                       attach=True))
    deliver(inbox, eml("blue@example.net", commit(games, "blue")))
    out = ok("mail", "--inbox", inbox, "--smtp", server, "--games", games, "--from", HOST)
    assert out.count("applied: game g") == 2, out
    assert not list((inbox / "new").iterdir())
    assert sorted(p.name.split(":")[1] for p in (inbox / "cur").iterdir()) == ["2,S", "2,S"]
    assert not load_log(games).started
    assert not [m for _r, m in collected.messages if "your move" in str(m["Subject"])]  # nobody moves yet
    collected.messages = []
    # P4 round 2: both reveal; the last reveal starts the game
    deliver(inbox, eml("red@example.org", signed(reveal(games, "red"), tmp_path / "red.key", tmp_path)))
    deliver(inbox, eml("blue@example.net", reveal(games, "blue"), attach=True))
    out = ok("mail", "--inbox", inbox, "--smtp", server, "--games", games, "--from", HOST)
    assert out.count("applied: game g") == 2, out
    assert load_log(games).started
    rng = random.Random(7)
    moves = 0
    while True:
        # what arrived by SMTP for the last message: one mail per player,
        # the mover's a reply with the result; each with the report and the log
        batch, collected.messages = collected.messages, []
        finals = [m for _r, m in batch if "] the end: " in str(m["Subject"])]  # the game's last mail (P6)
        batch = [(r, m) for r, m in batch if "] the end: " not in str(m["Subject"])]
        assert sorted(to_of(m) for m in finals) == (sorted(ADDRESSES.values()) if read_game(
            (games / "g" / LOG_NAME).read_bytes()).secret is not None else [])
        results = [m for _r, m in batch if m["In-Reply-To"] is not None]
        applied = 1 if moves else 2  # the two reveals, then one move a run
        assert sorted(to_of(m) for _r, m in batch) == sorted(list(ADDRESSES.values()) * applied)
        assert len(results) == applied
        assert all("Your move was accepted." in plain(m) for m in results)
        reports = [m for _r, m in batch if "entry " in str(m["Subject"])]
        log_now = (games / "g" / LOG_NAME).read_bytes()
        assert {to_of(m) for m in reports} == set(ADDRESSES.values())
        for report in reports:
            assert attachment(report, "log.yaml") is not None
        assert attachment(reports[-1], "log.yaml") == attachment(reports[-2], "log.yaml") == log_now
        for _rcpt, msg in batch:  # a Witch's look goes to its holder only
            if "private to" in str(msg["Subject"]):
                holder = str(msg["Subject"]).split("private to ")[1].split(":")[0]
                assert to_of(msg) == ADDRESSES[holder]
            else:
                assert attachment(msg, "-private-" + ("red" if to_of(msg) == ADDRESSES["blue"] else "blue")
                                  + ".yaml") is None
        game = read_game(log_now)
        assert game.state is not None
        player = game.state.to_move
        if player is None or moves == limit:
            break
        templates = [m for _r, m in batch if "your move" in str(m["Subject"])]
        assert len(templates) == 1 and to_of(templates[0]) == ADDRESSES[player]
        template_bytes = attachment(templates[0], f"-{player}.txt")
        assert template_bytes is not None
        after = after_of(game)
        assert f"game g {player}\nafter {after['seq']} {after['hash']}\n" in template_bytes.decode()
        actions: list[Action] = bot_actions(game.state, rng)
        text = template_bytes.decode() + "".join(action_line(a) + "\n" for a in actions)
        if player == "red":  # signed in the notation: 'sig' lines (P8)
            text = signed_text(text, tmp_path / "red.key", tmp_path)
        deliver(inbox, eml(ADDRESSES[player], text, attach=moves % 2 == 0))
        out = ok("mail", "--inbox", inbox, "--smtp", server, "--games", games, "--from", HOST)
        assert "applied: game g" in out, out
        moves += 1
    if limit is not None:
        assert moves == limit
    else:
        assert load_log(games).over and load_log(games).secret is not None  # P6: the step revealed it
        assert "verdict: FAIR" in ok("audit", games / "g" / LOG_NAME)
    verified = ok("verify", games / "g" / LOG_NAME)
    assert "carry the host's signature" in verified and "signed moves verify" in verified


def test_a_forged_signature_is_refused(started: tuple[Path, Path, Path], tmp_path: Path) -> None:
    games, inbox, outbox = started
    ok("keygen", "--out", tmp_path / "mallory.key")
    text = signed(red_move(games), tmp_path / "mallory.key", tmp_path)
    refused(games, inbox, outbox, eml("red@example.org", text), "red@example.org", "signature refused (P8)",
            Exit.SIGNATURE)
    sig = text.split('signature: "')[1][:10]
    forged = text.replace(sig, "A" * 10)
    refused(games, inbox, outbox, eml("red@example.org", forged), "red@example.org", "does not verify",
            Exit.SIGNATURE)


def test_a_move_signed_with_another_players_key_is_refused(
    started: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    games, inbox, outbox = started
    text = signed(red_move(games), tmp_path / "blue.key", tmp_path)
    refused(games, inbox, outbox, eml("red@example.org", text), "red@example.org", "does not verify",
            Exit.SIGNATURE)


def test_a_replayed_message_is_refused(started: tuple[Path, Path, Path], tmp_path: Path) -> None:
    games, inbox, outbox = started
    text = signed(red_move(games), tmp_path / "red.key", tmp_path)
    message = eml("red@example.org", text, msgid="<once@example.org>")
    deliver(inbox, message)
    assert "applied" in ok("mail", "--inbox", inbox, "--outbox", outbox, "--games", games, "--from", HOST)
    assert "<once@example.org>" in (games / "g" / "mail-seen.txt").read_text()
    mailbox.Maildir(str(outbox)).clear()
    refused(games, inbox, outbox, message, "red@example.org", "was already applied", Exit.STALE)
    # the same move in a new message: the log itself refuses it (P7)
    refused(games, inbox, outbox, eml("red@example.org", text), "red@example.org", "already applied, as entry",
            Exit.STALE)


def test_a_copy_of_a_move_already_in_the_log_is_answered_already_applied_not_your_move(
    started: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    """P7: the same move in a second message (a player's second copy, or the same message given
    to two transports at once) is answered as already applied, as entry N; its subject does
    not say 'your move' to red, whose turn it no longer is (blue moves next)."""
    games, inbox, outbox = started
    text = signed(red_move(games), tmp_path / "red.key", tmp_path)
    deliver(inbox, eml("red@example.org", text, msgid="<first@example.org>"))
    assert "applied" in ok("mail", "--inbox", inbox, "--outbox", outbox, "--games", games, "--from", HOST)
    entry = load_log(games).last_seq
    mailbox.Maildir(str(outbox)).clear()
    deliver(inbox, eml("red@example.org", text, msgid="<second@example.org>"))
    out = ok("mail", "--inbox", inbox, "--outbox", outbox, "--games", games, "--from", HOST)
    assert "refused:" in out, out
    got = replies(outbox)
    assert [to_of(m) for m in got] == ["red@example.org"]
    assert "your move" not in str(got[0]["Subject"]), got[0]["Subject"]
    said = got[0].get_body(("plain",))
    assert said is not None and f"already applied, as entry {entry}" in said.get_content()


def test_mail_from_an_unknown_address_is_quarantined_unanswered(started: tuple[Path, Path, Path]) -> None:
    """`pbem apply` refuses it (exit 8); `pbem mail` answers no stranger: the message is
    kept in the inbox's .Quarantine folder, before its body is even parsed, and the run
    exits 3."""
    games, inbox, outbox = started
    data = eml("eve@evil.example", red_move(games))
    message = inbox.parent / "stranger.eml"
    message.write_bytes(data)
    before = game_files(games)
    assert run("apply", message, "--games", games).exit_code == Exit.SIGNATURE
    deliver(inbox, data)
    result = run("mail", "--inbox", inbox, "--outbox", outbox, "--games", games, "--from", HOST)
    assert result.exit_code == Exit.FORMAT, result.output
    assert "quarantined: not a player's message: eve@evil.example is not registered" in result.output
    assert game_files(games) == before and replies(outbox) == []
    assert not list((inbox / "new").iterdir())
    kept = list((inbox / ".Quarantine" / "cur").iterdir())
    assert len(kept) == 1 and kept[0].read_bytes() == data
    assert "eve@evil.example" in (inbox / ".Quarantine" / "pbem-quarantine.log").read_text()


def test_a_move_for_another_player_is_refused(started: tuple[Path, Path, Path]) -> None:
    games, inbox, outbox = started
    refused(games, inbox, outbox, eml("blue@example.net", red_move(games)), "blue@example.net",
            "the move (the message text) is red's", Exit.SIGNATURE)


def test_an_unreadable_move_gets_the_cli_error(started: tuple[Path, Path, Path]) -> None:
    games, inbox, outbox = started
    refused(games, inbox, outbox, eml("red@example.org", "Hello, what's up?\n"), "red@example.org",
            "no move found", Exit.FORMAT)


def test_automatic_messages_are_filed_unanswered(started: tuple[Path, Path, Path]) -> None:
    games, inbox, outbox = started
    before = game_files(games)
    deliver(inbox, b"From: MAILER-DAEMON@host.example\nTo: x@y\nSubject: Undelivered\n\nbounce\n")
    assert "ignored" in ok("mail", "--inbox", inbox, "--outbox", outbox, "--games", games, "--from", HOST)
    assert replies(outbox) == [] and game_files(games) == before


def test_messages_are_taken_in_arrival_order(tmp_path: Path) -> None:
    from pbem.mail.outbox import new_messages

    (tmp_path / "new").mkdir()
    for name in ("1700000002.M5P1.h", "1700000001.M900000P1.h", "1700000001.M10P2.h"):
        (tmp_path / "new" / name).write_bytes(b"x")
    assert [k for k, _n in new_messages(tmp_path)] == [
        "1700000001.M10P2.h", "1700000001.M900000P1.h", "1700000002.M5P1.h",
    ]


def test_pbem_apply_takes_a_message(started: tuple[Path, Path, Path], tmp_path: Path) -> None:
    games, _inbox, _outbox = started
    text = signed(red_move(games), tmp_path / "red.key", tmp_path)
    wrong = tmp_path / "wrong.eml"
    wrong.write_bytes(eml("blue@example.net", text))
    before = snapshot(games)
    result = run("apply", wrong, "--games", games)
    assert result.exit_code == 8 and "sender refused" in result.output
    assert snapshot(games) == before
    good = tmp_path / "message.txt"  # no .eml: found by its headers
    good.write_bytes(eml("Red <red@example.org>", text, attach=True))
    assert "red's move accepted" in ok("apply", good, "--games", games)
    result = run("apply", good, "--games", games)
    assert result.exit_code == 5 and "already applied" in result.output


def test_mail_needs_somewhere_to_reply(tmp_path: Path) -> None:
    mailbox.Maildir(str(tmp_path / "in"), create=True)
    assert run("mail", "--inbox", tmp_path / "in").exit_code == 3


def test_a_witch_look_is_mailed_to_its_holder_only(started: tuple[Path, Path, Path], tmp_path: Path) -> None:
    from pbem.host.step import Applied
    from pbem.mail.headers import parse_mail
    from pbem.mail.host import MailHost

    games, _inbox, _outbox = started
    private = games / "g" / "private" / "blue.yaml"
    private.parent.mkdir()
    game = load_log(games)
    from pbem.host.secret import read_secret
    from pbem.referee.audit import host_faces
    from pbem.referee.seatview import Look

    faces = host_faces(game, read_secret(games / "g")[0])  # a true look at t01 (P6)
    look = Look(3, "t01", faces.face("t01").id, faces.salt("t01"))
    private.write_text("---\n" + dump_yaml(look.doc(game)))
    applied = Applied([game.entries[-1]], [], [private], game)
    sent: list[EmailMessage] = []
    mail = parse_mail(eml("red@example.org", red_move(games)))
    out = MailHost(games, sent.append, HOST).answers.applied(mail, applied, "")
    secret = [m for m in out if attachment(m, "private-blue.yaml") is not None]
    assert len(secret) == 1 and to_of(secret[0]) == ADDRESSES["blue"]
    assert attachment(secret[0], "private-blue.yaml") == private.read_bytes()  # blue's view, as kept
    for msg in out:
        if msg is not secret[0]:
            assert attachment(msg, "private-blue.yaml") is None and look.salt not in str(msg)


def test_a_mailed_reveal_must_be_signed_with_the_key_of_its_player(tmp_path: Path) -> None:
    """P8 + P4: red registered a key at 'pbem new', blue with the mailed commitment; each
    nonce reveal must then be signed with that key, or it is refused and nothing changes."""
    games, inbox, outbox = committed(tmp_path, blue_registers=True)
    game = load_log(games)
    assert set(game.commits) == {"red", "blue"}
    assert game.keys["blue"] == (tmp_path / "blue.key.pub").read_text().strip()
    ok("keygen", "--out", tmp_path / "mallory.key")
    for player, address in ADDRESSES.items():
        refused(games, inbox, outbox, eml(address, reveal(games, player)), address,
                f"{player}'s moves must be signed", Exit.SIGNATURE)
        text = signed(reveal(games, player), tmp_path / "mallory.key", tmp_path)
        refused(games, inbox, outbox, eml(address, text), address,
                f"does not verify with the key registered for {player}", Exit.SIGNATURE)
    assert not load_log(games).nonces
    for player, address in ADDRESSES.items():
        deliver(inbox, eml(address, signed(reveal(games, player), tmp_path / f"{player}.key", tmp_path)))
    out = ok("mail", "--inbox", inbox, "--outbox", outbox, "--games", games, "--from", HOST)
    assert out.count("applied: game g") == 2, out
    assert load_log(games).started


def test_a_mailed_commitment_signed_by_another_key_than_it_registers_is_refused(tmp_path: Path) -> None:
    """P8: a commitment that registers a key proves it holds that key by signing with it."""
    games, inbox = setup_game(tmp_path)
    outbox = tmp_path / "outbox"
    ok("mail", "--inbox", inbox, "--outbox", outbox, "--games", games, "--from", HOST)  # the invitations
    mailbox.Maildir(str(outbox)).clear()
    ok("keygen", "--out", tmp_path / "mallory.key")
    blue_pub = (tmp_path / "blue.key.pub").read_text().strip()
    mallory_pub = (tmp_path / "mallory.key.pub").read_text().strip()
    text = signed({**commit(games, "blue"), "key": mallory_pub}, tmp_path / "mallory.key", tmp_path)
    forged = text.replace(mallory_pub, blue_pub)  # claims blue's key, signed by mallory's
    refused(games, inbox, outbox, eml("blue@example.net", forged), "blue@example.net",
            "does not verify with the key this commitment registers", Exit.SIGNATURE)
    assert not load_log(games).commits


# --- a host that one hostile message cannot stop, and that never loses a reply ---

def test_one_run_over_hostile_mail_quarantines_each_and_applies_every_valid_move(tmp_path: Path) -> None:
    games, inbox = setup_game(tmp_path, key_for_red=False)
    outbox = tmp_path / "outbox"
    hostile = hostile_messages()
    valid = [eml("red@example.org", commit(games, "red")), eml("blue@example.net", commit(games, "blue"))]
    order = [*hostile[:13], ("valid red", valid[0]), *hostile[13:], ("valid blue", valid[1])]
    for _name, data in order:
        deliver(inbox, data)
    result = run("mail", "--inbox", inbox, "--outbox", outbox, "--games", games, "--from", HOST)
    assert result.exit_code == Exit.FORMAT, result.output  # something was quarantined
    assert result.output.count("applied: game g") == 2, result.output
    assert result.output.count("quarantined: ") == len(hostile), result.output
    assert "internal error" not in result.output
    assert set(load_log(games).commits) == {"red", "blue"}
    assert not list((inbox / "new").iterdir())
    assert len(list((inbox / ".Quarantine" / "cur").iterdir())) == len(hostile)
    assert len((inbox / ".Quarantine" / "pbem-quarantine.log").read_text().splitlines()) == len(hostile)
    got = replies(outbox)
    assert got and {to_of(m) for m in got} <= set(ADDRESSES.values())
    for msg in got:
        assert parseaddr(str(msg["From"]))[1] == HOST
        assert msg["Bcc"] is None and msg["Cc"] is None
        assert "\n" not in str(msg["Subject"]) and "\r" not in str(msg["Subject"])
        assert str(tmp_path) not in msg.as_string()
    notices = [m for m in got if "kept by the host" in str(m["Subject"])]
    assert notices and {to_of(m) for m in notices} == {"red@example.org"}
    for notice in notices:
        assert "nothing was changed" in notice.get_content() or "not applied" in notice.get_content()


def test_the_bomb_is_refused_fast_and_small(tmp_path: Path) -> None:
    import time
    import tracemalloc

    from pbem.mail.host import MailHost

    games, inbox = setup_game(tmp_path, key_for_red=False)
    for name, data in hostile_messages():
        if "bomb" not in name:
            continue
        deliver(inbox, data)
    host = MailHost(games, lambda _m: None, HOST)
    tracemalloc.start()
    started = time.perf_counter()
    host.run(inbox)
    elapsed = time.perf_counter() - started
    _now, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert [p.result.split(":")[0] for p in host.done] == ["quarantined"] * 4
    assert elapsed < 1.0 * 4 and peak < 64 * 1024 * 1024, (elapsed, peak)


def test_the_injected_subject_never_reaches_a_header_and_the_run_goes_on(tmp_path: Path) -> None:
    games, inbox = setup_game(tmp_path, key_for_red=False)
    outbox = tmp_path / "outbox"
    deliver(inbox, raw_mail(b"red@example.org", dump_yaml(commit(games, "red")).encode(), INJECTED_SUBJECT))
    deliver(inbox, eml("blue@example.net", commit(games, "blue")))
    result = run("mail", "--inbox", inbox, "--outbox", outbox, "--games", games, "--from", HOST)
    assert result.exit_code == Exit.FORMAT and "applied: game g" in result.output
    assert set(load_log(games).commits) == {"blue"}  # red's message was kept, not applied
    for msg in replies(outbox):
        assert "victim" not in str(msg) or "Bcc" not in msg
        assert all("\n" not in str(v) for _k, v in msg.items())
    # the next run is not stopped by it: it is out of new/
    deliver(inbox, eml("red@example.org", commit(games, "red")))
    assert "applied: game g" in ok("mail", "--inbox", inbox, "--outbox", outbox, "--games", games, "--from", HOST)


def test_from_is_always_the_configured_address(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PBEM_FROM", raising=False)
    games, inbox = setup_game(tmp_path, key_for_red=False)
    outbox = tmp_path / "outbox"
    spoof = b'"Totally the host" <spoofed@attacker.test>'
    for player in ("red", "blue"):
        text = dump_yaml(commit(games, player)).encode()
        deliver(inbox, raw_mail(ADDRESSES[player].encode(), text, extra=b"Reply-To: " + spoof + b"\nSender: "
                                + spoof + b"\n").replace(b"To: " + HOST.encode(), b"To: " + spoof, 1))
    no_from = run("mail", "--inbox", inbox, "--outbox", outbox, "--games", games)
    assert no_from.exit_code == Exit.FORMAT and "needs the host's own From address" in no_from.output
    assert len(list((inbox / "new").iterdir())) == 2  # nothing was taken
    out = ok("mail", "--inbox", inbox, "--outbox", outbox, "--games", games, "--from", HOST)
    assert out.count("applied: game g") == 2
    got = replies(outbox)
    assert len(got) >= 4
    for msg in got:
        assert str(msg["From"]) == HOST and msg["Sender"] is None and msg["Reply-To"] is None
        assert "spoofed" not in msg.as_string() and "attacker" not in msg.as_string()
    # or stored in host.yaml
    from pbem.host.settings import load_settings, save_settings

    settings = load_settings(games / "g")
    settings.mail_from = "stored@host.example"
    save_settings(games / "g", settings)
    mailbox.Maildir(str(outbox)).clear()
    deliver(inbox, eml("red@example.org", "Hello\n"))
    ok("mail", "--inbox", inbox, "--outbox", outbox, "--games", games)
    assert [str(m["From"]) for m in replies(outbox)] == ["stored@host.example"]


class Flaky(Collect):
    """Answers 451 to the DATA of the messages whose number is in ``fail``, then recovers."""

    def __init__(self, fail: set[int]) -> None:
        super().__init__()
        self.fail, self.seen = fail, 0

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        self.seen += 1
        if self.seen in self.fail:
            return "451 4.3.0 try again later"
        return await super().handle_DATA(server, session, envelope)


def test_replies_survive_a_451_and_each_is_delivered_once(tmp_path: Path) -> None:
    controller_mod = pytest.importorskip("aiosmtpd.controller")
    handler = Flaky({2, 3})
    port = free_port()
    controller = controller_mod.Controller(handler, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        server = f"127.0.0.1:{port}"
        games, inbox = setup_game(tmp_path, key_for_red=False)
        deliver(inbox, eml("red@example.org", commit(games, "red")))
        deliver(inbox, eml("blue@example.net", commit(games, "blue")))
        first = run("mail", "--inbox", inbox, "--smtp", server, "--games", games, "--from", HOST)
        assert first.exit_code == Exit.DEFERRED and "2 kept for the next run" in first.output, first.output
        assert set(load_log(games).commits) == {"red", "blue"}  # both applied, once
        assert not list((inbox / "new").iterdir())
        # a run before the next try is due (5 minutes on) skips them; one after delivers
        # what was kept; one more has nothing left
        early = run("mail", "--inbox", inbox, "--smtp", server, "--games", games, "--from", HOST,
                    "--now", "2026-11-30T09:04:59Z")
        assert early.exit_code == Exit.DEFERRED and "0 repl(ies) delivered, 2 kept" in early.output, early.output
        assert "2 repl(ies) delivered, 0 kept" in ok("mail", "--inbox", inbox, "--smtp", server, "--games", games,
                                                     "--from", HOST, "--now", "2026-11-30T09:05:00Z")
        assert "0 repl(ies) delivered, 0 kept" in ok("mail", "--inbox", inbox, "--smtp", server, "--games",
                                                     games, "--from", HOST, "--flush")
    finally:
        controller.stop()
    ids = [str(m["Message-ID"]) for _r, m in handler.messages]
    assert len(ids) == len(set(ids)) == 4  # one mail per player per applied move, each exactly once
    assert sorted(to_of(m) for _r, m in handler.messages if "entry 2" in str(m["Subject"])) == sorted(
        ADDRESSES.values())  # the other player got the report


def test_a_run_stopped_after_queueing_neither_applies_twice_nor_loses_replies(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import pbem.mail.host
    import pbem.mail.run

    games, inbox = setup_game(tmp_path, key_for_red=False)
    outbox = tmp_path / "outbox"
    deliver(inbox, eml("red@example.org", commit(games, "red")))

    def killed(*_a: Any, **_k: Any) -> None:
        raise SystemExit(137)

    monkeypatch.setattr(pbem.mail.host, "file_as_seen", killed)
    with pytest.raises(SystemExit):
        pbem.mail.run.process(inbox, games, outbox, None, HOST)
    monkeypatch.undo()
    assert len(list((inbox / "new").iterdir())) == 1 and set(load_log(games).commits) == {"red"}
    out = ok("mail", "--inbox", inbox, "--outbox", outbox, "--games", games, "--from", HOST)
    assert "already handled" in out and "refused" not in out
    got = replies(outbox)
    ids = [str(m["Message-ID"]) for m in got]
    results = [to_of(m) for m in got if "Your move was accepted." in plain(m)]
    assert len(ids) == len(set(ids)) == 2 and results == ["red@example.org"]
    assert len(load_log(games).entries) == 2


def test_a_run_killed_between_the_log_write_and_its_replies_reports_the_move_next_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A reply is never lost: the host dies after the log took the move and before
    any reply was spooled.  The next run tells the mover the move was accepted (not "already
    applied") and sends every player the report, once; the same message resent later is the
    duplicate it is, and nobody gets the report twice."""
    import pbem.mail.run
    from pbem.mail.outbox import Queue

    games, inbox = setup_game(tmp_path, key_for_red=False)
    outbox = tmp_path / "outbox"
    message = eml("red@example.org", commit(games, "red"))
    deliver(inbox, message)

    def killed(*_a: Any, **_k: Any) -> None:
        raise SystemExit(137)

    monkeypatch.setattr(Queue, "put", killed)
    with pytest.raises(SystemExit):
        pbem.mail.run.process(inbox, games, outbox, None, HOST)
    monkeypatch.undo()
    assert set(load_log(games).commits) == {"red"} and len(list((inbox / "new").iterdir())) == 1
    assert not (games / "+mail-queue").exists() or not any(  # no batch (the run's lock file aside)
        p.is_dir() for p in (games / "+mail-queue").iterdir())

    out = ok("mail", "--inbox", inbox, "--outbox", outbox, "--games", games, "--from", HOST)
    assert "applied: game g, entry 1" in out and "refused" not in out, out
    got = replies(outbox)
    assert sorted(to_of(m) for m in got if "entry 1: red" in str(m["Subject"])) == sorted(ADDRESSES.values())
    accepted = [to_of(m) for m in got if "Your move was accepted." in plain(m)]
    assert accepted == ["red@example.org"] and len(load_log(games).entries) == 2

    deliver(inbox, message)  # the very same message again: a duplicate, refused, no second report
    out = ok("mail", "--inbox", inbox, "--outbox", outbox, "--games", games, "--from", HOST)
    assert "refused" in out and "already applied" in out, out
    sent = {str(m["Message-ID"]) for m in got}
    again = [m for m in replies(outbox) if str(m["Message-ID"]) not in sent]  # (Maildir keys do not sort by time)
    assert [to_of(m) for m in again] == ["red@example.org"] and len(load_log(games).entries) == 2


def test_a_move_quarantined_after_applying_is_reported_when_the_host_puts_it_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The quarantine keeps a message whose replies could not be written, though its move was
    applied; once the host has fixed the fault and moved it back to new/, the players get the
    report they were owed (and the move is not applied twice)."""

    games, inbox = setup_game(tmp_path, key_for_red=False)
    outbox = tmp_path / "outbox"
    deliver(inbox, eml("red@example.org", commit(games, "red")))

    def broken(self: Answers, mail: Any, applied: Any, batch: str = "", threads: Any = None) -> Any:
        raise ValueError("a fault while writing the replies")

    monkeypatch.setattr(Answers, "applied", broken)
    result = run("mail", "--inbox", inbox, "--outbox", outbox, "--games", games, "--from", HOST)
    assert "quarantined: ValueError" in result.output
    monkeypatch.undo()
    kept = list((inbox / ".Quarantine" / "cur").iterdir())
    assert len(kept) == 1
    kept[0].rename(inbox / "new" / kept[0].name.split(":")[0])
    assert not [m for m in replies(outbox) if "entry 1: red" in str(m["Subject"])]  # none went out yet
    out = ok("mail", "--inbox", inbox, "--outbox", outbox, "--games", games, "--from", HOST)
    assert "applied: game g, entry 1" in out, out
    reports = [to_of(m) for m in replies(outbox) if "entry 1: red" in str(m["Subject"])]
    assert sorted(reports) == sorted(ADDRESSES.values()) and len(load_log(games).entries) == 2


def test_an_internal_error_after_applying_says_so_and_quarantines(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:

    games, inbox = setup_game(tmp_path, key_for_red=False)
    outbox = tmp_path / "outbox"
    deliver(inbox, eml("red@example.org", commit(games, "red")))
    deliver(inbox, eml("blue@example.net", commit(games, "blue")))
    original = Answers.applied

    def broken(self: Answers, mail: Any, applied: Any, batch: str = "", threads: Any = None) -> Any:
        if mail.sender == "red@example.org":
            raise ValueError("Header values may not contain linefeed or carriage return characters")
        return original(self, mail, applied, batch, threads)

    monkeypatch.setattr(Answers, "applied", broken)
    result = run("mail", "--inbox", inbox, "--outbox", outbox, "--games", games, "--from", HOST)
    assert result.exit_code == Exit.FORMAT
    assert "quarantined: ValueError" in result.output and "applied: game g" in result.output
    notice = [m for m in replies(outbox) if to_of(m) == "red@example.org" and "kept" in str(m["Subject"])]
    assert len(notice) == 1
    text = notice[0].get_content()
    assert "Your move was applied (game g, entry 1)" in text and "nothing was changed" not in text
    assert set(load_log(games).commits) == {"red", "blue"}
    # kept, never applied twice
    assert len(list((inbox / ".Quarantine" / "cur").iterdir())) == 1


def test_files_are_the_hosts_alone_whatever_the_umask(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import os
    import stat

    from pbem.errors import TamperError
    from pbem.log.logfile import locked

    old = os.umask(0)
    try:
        games, inbox = setup_game(tmp_path)
        outbox = tmp_path / "outbox"
        deliver(inbox, eml("blue@example.net", commit(games, "blue")))
        deliver(inbox, eml("blue@example.net", raw_mail(b"x", subject=INJECTED_SUBJECT).decode()))
        deliver(inbox, raw_mail(b"red@example.org", subject=INJECTED_SUBJECT))
        run("mail", "--inbox", inbox, "--outbox", outbox, "--games", games, "--from", HOST)
    finally:
        os.umask(old)
    game = games / "g"
    assert stat.S_IMODE(game.stat().st_mode) == 0o700
    for name in ("secret.yaml", "host.yaml", ".lock", "mail-seen.txt", "log.yaml"):
        assert stat.S_IMODE((game / name).stat().st_mode) == 0o600, name
    queue = games / "+mail-queue"
    assert stat.S_IMODE(queue.stat().st_mode) == 0o700
    for path in queue.rglob("*"):
        assert stat.S_IMODE(path.stat().st_mode) == (0o700 if path.is_dir() else 0o600), path
    assert stat.S_IMODE((inbox / ".Quarantine" / "pbem-quarantine.log").stat().st_mode) == 0o600
    # a lock left world-writable is taken back to 0600; another user's or a symlink is refused
    os.chmod(game / ".lock", 0o666)
    with locked(game):
        pass
    assert stat.S_IMODE((game / ".lock").stat().st_mode) == 0o600
    real_uid = os.geteuid()
    monkeypatch.setattr(os, "geteuid", lambda: real_uid + 1)
    with pytest.raises(TamperError, match="belongs to another user"), locked(game):
        pass
    monkeypatch.undo()
    (game / ".lock").unlink()
    (game / ".lock").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(TamperError), locked(game):
        pass


def test_no_host_path_in_a_mailed_text(started: tuple[Path, Path, Path]) -> None:
    games, inbox, outbox = started
    move = {**red_move(games), "game": "nosuch"}
    deliver(inbox, eml("red@example.org", move))
    out = ok("mail", "--inbox", inbox, "--outbox", outbox, "--games", games, "--from", HOST)
    assert "no game 'nosuch'" in out
    (reply,) = replies(outbox)
    text = reply.get_content()
    assert "no game 'nosuch' in '<path>'" in text and str(games) not in reply.as_string()


def quoted_reply(games: Path, client: str, tmp_path: Path, moves: int = 1) -> bytes:
    """Red's move edited (and signed) inside the host's template mail, quoted as ``client`` quotes."""
    move = signed(red_move(games), tmp_path / "red.key", tmp_path)
    intro = ["It is your move. Fill in the attached move file (or the copy below), sign it", "",
             *([*move.splitlines(), ""] * moves)]
    if client == "thunderbird":
        body = "\n".join(["Here you go.", "", "On 30/11/2026 01:00, rattus@host.example wrote:",
                          *(f"> {ln}" if ln else ">" for ln in intro), "", "-- ", "Red"])
    elif client == "gmail":
        body = "\n".join(["My move is below.", "", "On Mon, Nov 30, 2026 at 1:00 AM Rattus host <",
                          "rattus@host.example> wrote:", "", *(f"> {ln}" if ln else ">" for ln in intro)])
        body = body.replace("<\nrattus", "<rattus")  # Gmail's long attribution line, folded by the client
    else:  # outlook: top-posted, the original below a header block, no '>' at all
        body = "\n".join(["Move below.", "", "________________________________",
                          "From: Rattus host <rattus@host.example>", "Sent: Monday, November 30, 2026 1:00 AM",
                          "To: red@example.org", "Subject: [pbem g] your move, red", "", *intro])
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = "red@example.org", HOST, "Re: [pbem g] your move, red"
    msg["Message-ID"] = make_msgid(domain="example.org")
    msg.set_content(body)
    return bytes(msg)


@pytest.mark.parametrize("client", ["thunderbird", "gmail", "outlook"])
def test_a_move_edited_inside_a_quoted_reply_is_accepted(
    started: tuple[Path, Path, Path], client: str, tmp_path: Path
) -> None:
    games, inbox, outbox = started
    deliver(inbox, quoted_reply(games, client, tmp_path))
    out = ok("mail", "--inbox", inbox, "--outbox", outbox, "--games", games, "--from", HOST)
    assert "applied: game g" in out, out


def test_a_quoted_reply_with_two_moves_is_refused_with_how_to_send(
    started: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    games, inbox, outbox = started
    refused(games, inbox, outbox, quoted_reply(games, "thunderbird", tmp_path, moves=2), "red@example.org",
            "the quoted reply holds more than one move", Exit.FORMAT)


def test_invitations_for_each_opening_round_and_the_first_move(tmp_path: Path) -> None:
    """The commitment template when the game is created, the reveal
    template when every commitment is in, the first move's template at the start; each
    once, and with the per-move mail when a move opens the round (one mail a player)."""
    games, inbox = setup_game(tmp_path, key_for_red=False)
    outbox = tmp_path / "outbox"
    mail = ("mail", "--inbox", inbox, "--outbox", outbox, "--games", games, "--from", HOST)
    ok(*mail)
    got = replies(outbox)
    assert sorted(to_of(m) for m in got) == sorted(ADDRESSES.values())
    for msg in got:
        player = next(p for p, a in ADDRESSES.items() if a == to_of(msg))
        assert "round 1 of 2" in str(msg["Subject"])
        data = attachment(msg, f"g-commit-{player}.txt")
        assert data is not None and f"game g {player}\n" in data.decode() and "# commit <" in data.decode()
    mailbox.Maildir(str(outbox)).clear()
    ok(*mail)
    assert replies(outbox) == []  # each round once
    deliver(inbox, eml(ADDRESSES["red"], commit(games, "red")))
    deliver(inbox, eml(ADDRESSES["blue"], commit(games, "blue")))
    ok(*mail)
    got = replies(outbox)
    assert len(got) == 4  # two moves, one mail a player each
    reveal_round = [m for m in got if "round 2 of 2" in str(m["Subject"])]
    assert sorted(to_of(m) for m in reveal_round) == sorted(ADDRESSES.values())
    for msg in reveal_round:
        player = next(p for p, a in ADDRESSES.items() if a == to_of(msg))
        data = attachment(msg, f"g-reveal-{player}.txt")
        assert data is not None and f"game g {player}\n" in data.decode() and "# nonce <" in data.decode()
    mailbox.Maildir(str(outbox)).clear()
    deliver(inbox, eml(ADDRESSES["red"], reveal(games, "red")))
    deliver(inbox, eml(ADDRESSES["blue"], reveal(games, "blue")))
    ok(*mail)
    got = replies(outbox)
    assert len(got) == 4 and load_log(games).started
    first = [m for m in got if "your move (" in str(m["Subject"])]
    assert len(first) == 1 and to_of(first[0]) == ADDRESSES["red"]
    data = attachment(first[0], "-red.txt")
    assert data is not None and "game g red\n" in data.decode() and "# place REGION 2 (R2.5)" in data.decode()
    mailbox.Maildir(str(outbox)).clear()
    ok(*mail)
    assert replies(outbox) == []


def test_one_admission_path_gives_pbem_apply_and_pbem_mail_the_same_verdict(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`pbem apply MSG.eml` and `pbem mail` are two transports of one admission path
    (pbem.mail.admission.Admission.admit): the same message gets the same verdict by either.
    A move from the wrong seat's address is refused by both (P8 notes: the game lists
    addresses); the right one is applied once, its replies queued for `pbem mail` to deliver;
    the same message again is refused by both (P7), whichever transport brought it first."""
    from pbem.mail.admission import Admission
    from pbem.mail.host import MailHost

    verdicts: list[tuple[str, str]] = []
    real = Admission.admit

    def spy(self: Admission, *args: Any, **kwargs: Any) -> Any:
        admitted = real(self, *args, **kwargs)
        verdicts.append(("mail" if isinstance(self, MailHost) else "apply", admitted.verdict.result))
        return admitted

    monkeypatch.setattr(Admission, "admit", spy)
    games, inbox = setup_game(tmp_path, key_for_red=False)
    outbox = tmp_path / "outbox"
    mail_run = ("mail", "--inbox", inbox, "--outbox", outbox, "--games", games, "--from", HOST)
    message = tmp_path / "move.eml"

    message.write_bytes(eml("blue@example.net", commit(games, "red"), msgid="<wrong@example.net>"))
    assert run("apply", message, "--games", games, "--from", HOST).exit_code == Exit.SIGNATURE
    deliver(inbox, message.read_bytes())
    assert "refused" in ok(*mail_run)
    assert [t for t, _r in verdicts] == ["apply", "mail"] and verdicts[0][1] == verdicts[1][1]
    assert "is red's" in verdicts[0][1] and not load_log(games).commits

    verdicts.clear()
    message.write_bytes(eml("red@example.org", commit(games, "red"), msgid="<right@example.org>"))
    assert "red's nonce commitment recorded" in ok("apply", message, "--games", games, "--from", HOST)
    queued = sorted((games / "+mail-queue").rglob("*.eml"))
    assert len(queued) >= 2  # the report to red and blue, queued as pbem mail queues it
    assert run("apply", message, "--games", games, "--from", HOST).exit_code == Exit.STALE
    deliver(inbox, message.read_bytes())
    assert "already applied" in ok(*mail_run)
    assert [t for t, _r in verdicts] == ["apply", "apply", "mail"]
    assert verdicts[0][1] == "applied: game g, entry 1"
    assert verdicts[1][1] == verdicts[2][1] and "already applied, as entry 1" in verdicts[1][1]
    assert set(load_log(games).commits) == {"red"} and len(load_log(games).entries) == 2
    delivered = replies(outbox)  # the apply's replies went out with pbem mail's run
    reports = [to_of(m) for m in delivered if "entry 1: red" in str(m["Subject"])]
    assert sorted(reports) == sorted(ADDRESSES.values())


def test_a_game_without_addresses_checks_no_sender_whichever_the_transport(tmp_path: Path) -> None:
    """The one sender rule's other half: a game that lists no addresses binds no seat to an
    address, so `pbem apply MSG.eml` (and the admission path under `pbem mail`) judge its
    moves on their own; no reply can be queued for a game nobody is mailed for."""
    from pbem.mail.admission import Admission, Inbound

    games = tmp_path / "games"
    ok("new", "g", "--players", "red,blue", "--games", games)
    data = eml("someone@example.com", commit(games, "red"))
    verdict = Admission(games, HOST).admit(Inbound(data, "one")).verdict
    assert isinstance(verdict, Recorded) and verdict.result == "applied: game g, entry 1"
    assert not [p for p in (games / "+mail-queue").rglob("*.eml")]  # nobody to tell
    again = Admission(games, HOST).admit(Inbound(data, "two")).verdict
    assert isinstance(again, Refused) and "already applied" in again.result


def test_each_verdict_is_its_own_type_carrying_exactly_its_payload(tmp_path: Path) -> None:
    """What became of a message is one of a closed set of result types: a recorded move carries
    its entries, a refusal its error and the address it is answered at, an automatic message
    nothing (never answered); no verdict carries another's payload, none is told by its line."""
    from pbem.mail.admission import Admission, Inbound
    from pbem.mail.verdict import Ignored

    games = tmp_path / "games"
    ok("new", "g", "--players", "red,blue", "--games", games)
    data = eml("Someone@Example.com", commit(games, "red"))
    admission = Admission(games, HOST)
    match admission.admit(Inbound(data, "one")).verdict:
        case Recorded(applied=applied):
            assert [e.seq for e in applied.entries] == [1]
        case other:
            raise AssertionError(f"not recorded: {other}")
    again = admission.admit(Inbound(data, "two")).verdict
    assert isinstance(again, Refused) and again.refusal.rule == "P7"
    assert again.to == "someone@example.com" and not again.lobby and again.seat is None
    assert not hasattr(again, "applied") and not hasattr(again, "answer") and not hasattr(again, "held")
    admitted = admission.admit(Inbound(eml("mailer-daemon@example.com", "a bounce"), "three"))
    assert isinstance(admitted.verdict, Ignored) and admitted.verdict._fields == ("result",)
