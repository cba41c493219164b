"""R8 through the real mail path: a 4-player game on a test clock, moves mailed as messages
into a Maildir, `pbem mail` (which runs `pbem tick`) every 7 simulated hours, replies,
reminders and timeout notices delivered to a real SMTP server (aiosmtpd on 127.0.0.1).

Blue misses three deadlines; green resigns halfway (a signed resignation).  Nobody sleeps:
every `at` comes from ``pbem.log.clock.pinned``.
"""

from __future__ import annotations

import email
import email.policy
import mailbox
import random
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from clitools import ok
from mailtools import Collect, attachment, deliver, eml, plain, signed, smtp, to_of

from pbem.bots.randombot import bot_actions
from pbem.host.games import load_game
from pbem.log.clock import at_of, pinned, seconds
from pbem.log.logfile import LOG_NAME
from pbem.log.moves import after_of
from pbem.log.yamlio import dump_yaml
from pbem.player.nonces import commit_move, reveal_move

__all__ = ["smtp"]  # the fixture (tests/mailtools.py)

PLAYERS = ("red", "green", "blue", "yellow")
ADDRESSES = {p: f"{p}@example.org" for p in PLAYERS}
HOST = "rattus@host.example"
T0 = "2026-12-01T08:00:00Z"
STEP = 7 * 3600
DEADLINE, REMINDER = 24 * 3600, 8 * 3600


def start(tmp: Path, mode: str = "every") -> tuple[Path, Path]:
    games, inbox = tmp / "games", tmp / "inbox"
    (inbox / "new").mkdir(parents=True)
    (inbox / "cur").mkdir()
    (inbox / "tmp").mkdir()
    for name in ("host", "green"):
        ok("keygen", "--out", tmp / f"{name}.key")
    args: list[Any] = ["new", "g", "--players", ",".join(PLAYERS), "--first", "red", "--deadline", "24h",
                       "--mail", mode,
                       "--reminder", "8h", "--host-key", tmp / "host.key", "--seat-key", f"green={tmp / 'green.key.pub'}"]
    for player, address in ADDRESSES.items():
        args += ["--seat-email", f"{player}={address}"]
    with pinned(T0):
        ok(*args, "--games", games)
        # the opening (P4) by mail too: every commitment, then every nonce (green signs hers)
        for make in (commit_move, reveal_move):
            for i, player in enumerate(PLAYERS):
                data = make(load_game(games / "g"), player, bytes([i + 7]) * 16)
                text = signed(data, tmp / "green.key", tmp) if player == "green" else dump_yaml(data)
                deliver(inbox, eml(ADDRESSES[player], text))
            ok("mail", "--inbox", inbox, "--outbox", tmp / "opening-mail", "--games", games, "--from", HOST)
    assert load_game(games / "g").started
    return games, inbox


@pytest.mark.parametrize(
    ("misses", "resign_turn", "steps"),
    [({1}, 0, 10), pytest.param({2, 4, 6}, 12, None, marks=pytest.mark.slow, id="two-weeks")],
    ids=str,
)
def test_deadlines_reminders_timeouts_and_a_resignation_by_mail(
    tmp_path: Path, smtp: tuple[str, Collect], misses: set[int], resign_turn: int, steps: int | None
) -> None:
    server, collected = smtp
    games, inbox = start(tmp_path)
    rng = random.Random(12)
    t = seconds(T0)
    blue_turns, blue_since, resigned, step = 0, -1, False, 0
    missed_at: list[int] = []  # the turn_since of each turn blue let pass
    while steps is None or step < steps:
        game = load_game(games / "g")
        if game.over:
            break
        step += 1
        t += STEP
        player = game.to_move
        assert player is not None and game.state is not None
        assert player != "green" or not resigned
        if player == "blue" and game.turn_since != blue_since:
            blue_turns, blue_since = blue_turns + 1, game.turn_since
            if blue_turns in misses:
                missed_at.append(game.turn_since)
        if player == "blue" and blue_turns in misses:
            pass  # blue is away: nothing arrives; the clock runs on
        elif player == "green" and game.state.turn_number >= resign_turn:
            data: dict[str, Any] = {"game": "g", "player": "green", "kind": "resign", "after": after_of(game)}
            deliver(inbox, eml(ADDRESSES["green"], signed(data, tmp_path / "green.key", tmp_path)))
            resigned = True
        else:
            data = {"game": "g", "player": player, "kind": "move", "after": after_of(game),
                    "actions": [a.to_dict() for a in bot_actions(game.state, rng)]}
            text = signed(data, tmp_path / "green.key", tmp_path) if player == "green" else dump_yaml(data)
            deliver(inbox, eml(ADDRESSES[player], text))
        with pinned(at_of(t)):
            ok("mail", "--inbox", inbox, "--smtp", server, "--games", games, "--from", HOST)
    game = load_game(games / "g")
    entries = game.entries
    timeouts = [e for e in entries if e.raw["kind"] == "timeout"]
    mails = [m for _rcpt, m in collected.messages]

    # each timeout after (never before) its deadline, at the first run after it
    assert [e.raw["since"] for e in timeouts] == missed_at and len(timeouts) == len(misses)
    for e in timeouts:
        assert e.raw["player"] == "blue"
        assert e.raw["due"] == at_of(seconds(entries[e.raw["since"]].raw["at"]) + DEADLINE)
        assert e.raw["due"] <= e.raw["at"] < at_of(seconds(e.raw["due"]) + STEP)
    # each reminder once: one per missed turn (the others move well within 16 hours), to blue only
    reminders = [m for m in mails if "reminder: your move" in str(m["Subject"])]
    assert len(reminders) == len(misses) and {to_of(m) for m in reminders} == {ADDRESSES["blue"]}
    assert len({str(m["Message-ID"]) for m in reminders}) == len(reminders)
    assert all("R8.3" in plain(m) for m in reminders)
    # the notice of a timeout reaches every player; the next player's says what the stand-in did
    for e in timeouts:
        notices = [m for m in mails if f"entry {e.raw['seq']}: timeout" in str(m["Subject"])]
        assert Counter(to_of(m) for m in notices) == Counter(ADDRESSES.values())
        for notice in notices:  # P1: the trust statement as its one-line mark (in full: invitation, end, show)
            part = notice.get_body(("plain",))
            assert part is not None
            said = part.get_content()
            assert "trust (P1): nobody, the host included" in said and "the host sees every face" not in said
        nxt = [m for m in notices if "your move" in str(m["Subject"])]
        if nxt:
            body = plain(nxt[0])
            assert re.search(r"the stand-in (places|moves|puts|does nothing)", body) and "blue's deadline passed" in body
            player = next(p for p, a in ADDRESSES.items() if a == to_of(nxt[0]))
            assert str(nxt[0]["Subject"]).startswith("[rattus g] your move")  # what to do, first
            template_file = next(p for p in nxt[0].iter_attachments() if str(p.get_filename()).endswith(".txt"))
            assert template_file.get_content_type() == "application/octet-stream"  # no client quotes it again
            assert attachment(nxt[0], f"-{player}.txt") is not None  # the template, and the page
            assert b"<!DOCTYPE html>" in (attachment(nxt[0], f"-{player}.html") or b"")
            assert attachment(nxt[0], "log.yaml") is not None  # the log, compressed
    # green resigned (signed), and from then on every green turn is a stand-in entry, at once
    assert resigned and game.resigned == {"green"}
    kinds = [(e.raw["kind"], e.raw.get("player")) for e in entries]
    first = kinds.index(("resign", "green"))
    assert kinds[first + 1] == ("standin", "green")
    assert ("move", "green") not in kinds[first:]
    assert all(entries[i].raw["at"] == entries[i - 1].raw["at"] for i, k in enumerate(kinds) if k[0] == "standin")
    if steps is None:
        assert game.over and game.secret is not None  # P6: revealed by the host's step (--reveal-secret auto)
        log = games / "g" / LOG_NAME
        verified = ok("verify", log)
        audited = ok("audit", log)
        assert "verdict: FAIR" in audited
        for text in (verified, audited):
            assert text.count("timeout: blue's turn") == 3
            assert "green resigned; the stand-in plays the seat (R8.4)" in text
            assert "stand-in turn for green" in text
        assert seconds(entries[-1].raw["at"]) - seconds(T0) >= 10 * 86400  # well over a week of play
        tool = Path(__file__).parent.parent / "tools" / "audit_min.py"  # the auditor without pbem reads R8 too
        done = subprocess.run([sys.executable, str(tool), str(log)], capture_output=True, text=True, check=False)
        assert done.returncode == 0 and "verdict: FAIR" in done.stdout, done.stdout + done.stderr
    else:
        ok("verify", games / "g" / LOG_NAME)


def test_a_timeout_tells_the_next_seat_its_move_first_and_short(tmp_path: Path) -> None:
    """R8.2 by mail, seats mailed by the default mode ('turn'): red lets its deadline pass; the
    notice to the seat now to move leads its subject with its move, carries the page and the
    template as files no mail client shows inline or quotes, and no log (one 'log' mail away)."""
    games, inbox = start(tmp_path, mode="turn")
    game = load_game(games / "g")
    assert game.to_move == "red"
    with pinned(at_of(seconds(T0) + DEADLINE + 3600)):
        ok("mail", "--inbox", inbox, "--outbox", tmp_path / "out", "--games", games, "--from", HOST)
    game = load_game(games / "g")
    assert [(e.raw["kind"], e.raw["player"]) for e in game.entries if e.raw["kind"] == "timeout"] == [("timeout", "red")]
    box = mailbox.Maildir(str(tmp_path / "out"))
    mails = [email.message_from_bytes(box.get_bytes(k), policy=email.policy.default) for k in box.iterkeys()]
    notices = [m for m in mails if ": timeout, th" in str(m["Subject"])]  # a long subject is cut (...)
    assert Counter(to_of(m) for m in notices) == Counter(ADDRESSES.values())
    nxt = next(m for m in notices if to_of(m) == ADDRESSES[str(game.to_move)])
    assert str(nxt["Subject"]).startswith("[rattus g] your move (setup: place your cubes); entry ")
    types = {str(p.get_filename()): p.get_content_type() for p in nxt.iter_attachments()}
    assert types and set(types.values()) == {"application/octet-stream"}, types  # the page and the template
    assert not [m for m in notices if attachment(m, "log.yaml") is not None]  # no log in a 'turn' mail
