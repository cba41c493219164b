"""An open game by mail, end to end: strangers join, talk and watch, and the game is played out.

Four strangers join game ``og`` (``pbem new --open 4``) by mail, each confirming the code
mailed to their own address; a fifth mail, with a forged From, gets its forger nothing.
The opening (P4) begins by itself once every seat is filled.  The players send press to
all and to one seat; an observer (``watch og``) reads the public reports and press to all
in a daily summary, and never a template, a Witch's look or press to a seat: its mails
are the same in two worlds that differ only in the faces still hidden (P10), as
tests/test_p10_oracle.py does for refusals.  In the middle of the game green takes a 3-day
absence (R8.5): its turn waits past the plain deadline with no timeout, the log verifies, and a
timeout forged at the plain deadline is refused.  The game then plays to its end; the site shows
it, and its standings do not count it (its secret was supplied: a test game, P7).
"""

from __future__ import annotations

import re
import shutil
from email import message_from_bytes
from email.message import EmailMessage
from email.utils import parseaddr
from pathlib import Path
from typing import Any

import pytest
from clitools import ok
from lobbytools import Host, confirmed, letter, text_of, to_of
from mailgame import Table
from tampering import rechain, refused_at, write

from pbem.fair import protocol
from pbem.host.games import load_game
from pbem.host.press import read_press
from pbem.host.settings import load_settings
from pbem.host.site import build_site, standings_of
from pbem.log.clock import at_of, seconds
from pbem.log.logfile import LOG_NAME, read_docs
from pbem.record import Record
from pbem.referee.audit import host_faces
from pbem.views.timeline import game_at, read_checked

STRANGERS = ("ann@one.example", "bo@two.example", "cy@three.example", "di@four.example")
WATCHER = "eve@watch.example"
VICTIM, FORGER = "vic@victim.example", "mallory@evil.example"
PUBLIC, PRIVATE, ANSWER = "Good luck all, and mind the rats.", "Blue: leave Gallia to me.", "Deal, red."


@pytest.fixture(autouse=True)
def no_picture(monkeypatch: pytest.MonkeyPatch) -> None:
    """The board's PNG and the composer page cost time; tests/test_pictures.py checks they are sent."""
    monkeypatch.setattr("pbem.mail.replies.board_picture", lambda game, lang="en": None)
    monkeypatch.setattr("pbem.mail.replies.composer_page", lambda view, to, lang="en": (None, "not in this test"))


class World(Record):
    """What one run of the story left: the host, every mail by address, the rounds played, and a
    copy of the games folder taken while green was away, past its turn's plain deadline."""

    host: Host
    got: dict[str, list[EmailMessage]]
    rounds: int
    during_absence: Path | None


ABSENT, AWAY_FROM, DEADLINE_H = "green", 6, 72
"""Green goes away for 3 days at its first turn from round 6 on; every turn has 72 hours (R8.1)."""


def story(tmp: Path, rounds: int | None = None) -> World:
    """The whole story in ``tmp`` (the game played out, or ``rounds`` rounds of play)."""
    tmp.mkdir()
    (tmp / "secret").write_text("ab" * 32)  # the same secret in every world: the same public draws
    host = Host(tmp)
    ok("new", "og", "--open", "4", "--mail", "every", "--deadline", f"{DEADLINE_H}h", "--absence", "5",
       "--secret-file", tmp / "secret", "--games", host.games)
    got: dict[str, list[EmailMessage]] = {}

    def keep(mails: list[EmailMessage]) -> list[EmailMessage]:
        for msg in mails:
            got.setdefault(to_of(msg), []).append(msg)
        return mails

    host.send(letter(VICTIM, "join og"))  # forged: the forger writes as vic, whose mailbox it cannot read
    keep(host.run()[1])
    host.send(letter(FORGER, "Re: [rattus og] confirm join", "confirm ABCDEFGHIJKLMNOP\n"))  # a guessed code
    keep(host.run()[1])
    host.hours += 1
    for address in (WATCHER, *STRANGERS):
        out, mails = confirmed(host, address, "watch" if address == WATCHER else "join")
        assert "answered: confirm for" in out, out
        keep(mails)
    seats = load_settings(host.games / "og").emails
    table = Table({seat: seats[seat] for seat in load_game(host.games / "og").players})
    played, away, during = 0, None, None
    held: list[bytes] = []
    mails = [m for address in seats.values() for m in got.get(address, [])]  # the opening's first mails
    while rounds is None or played < rounds:
        table.receive([m for m in mails if to_of(m) in seats.values()])
        answers = table.answers() + _press(host, seats, got)
        if away is None and played >= AWAY_FROM and any(_from(a) == seats[ABSENT] for a in answers):
            # green's turn: green mails 'away 3' instead of its move (R8.5), and is silent while away
            answers = [a for a in answers if _from(a) != seats[ABSENT]] + [letter(seats[ABSENT], "[rattus og] away 3")]
            away = played
        elif away is not None and played - away in (1, 2):  # 24 h and 48 h later: green, away, keeps its move
            assert all(_from(a) == seats[ABSENT] for a in answers)
            held, answers = answers or held, []
        elif away is not None and played - away == 3:  # 72 h later green is back and sends it
            answers, held = answers + held, []
        if not answers and not (away is not None and played - away in (1, 2)):
            break
        if answers:
            host.send(*answers)
        played += 1
        mails = keep(host.run(hours=24)[1])
        if away is not None and played - away == 3:  # green's turn began 72 h ago, green away since 48 h
            during = tmp / "during-absence"
            shutil.copytree(host.games, during)
    return World(host, got, played, during)


def _from(mail: bytes) -> str:
    return parseaddr(str(message_from_bytes(mail)["From"]))[1]


def _press(host: Host, seats: dict[str, str], got: dict[str, list[EmailMessage]]) -> list[bytes]:
    """Red's press to all and to blue once the game has started; blue answers red alone by a
    plain Reply to the press it got."""
    kept = read_press(host.games / "og")
    if load_game(host.games / "og").state is None or len(kept) > 2:
        return []
    if not kept:
        return [letter(seats["red"], "press all", PUBLIC), letter(seats["red"], "[rattus og] press blue", PRIVATE)]
    relayed = [m for m in got.get(seats["blue"], []) if PRIVATE in text_of(m)]
    if len(kept) == 2 and relayed:
        msg = relayed[0]
        return [letter(seats["blue"], "Re: " + str(msg["Subject"]), f"{ANSWER}\n\n> {PRIVATE}\n",
                       reply_to=str(msg["Message-ID"]))]
    return []


HASH = re.compile(r"\b[0-9a-f]{16,64}\b")


def observer_text(world: World) -> list[tuple[str, str]]:
    return [(str(m["Subject"]), text_of(m)) for m in world.got.get(WATCHER, [])]


def summaries(world: World) -> list[tuple[str, str]]:
    """The observer's summaries, each entry's hash left out: a hash covers the start entry's
    commitments, which hide the faces (P6) and so differ between the worlds, as they must."""
    return [(subject, HASH.sub("<hash>", text)) for subject, text in observer_text(world) if "summary" in subject]


def test_strangers_join_talk_watch_and_play_to_the_end(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    one = story(tmp_path / "one")
    path = one.host.games / "og"
    game = load_game(path)
    assert game.over and game.secret is not None  # played out; revealed by the host's step (P6)
    settings = load_settings(path)
    assert sorted(settings.emails.values()) == sorted(STRANGERS) and not settings.waiting()
    # the forged From got its forger nothing: the code went to vic alone, who never answered
    assert FORGER not in settings.emails.values() and VICTIM not in settings.emails.values()
    assert [str(m["Subject"]) for m in one.got[VICTIM]] == ["[rattus og] confirm join"]
    assert all("confirm " not in text_of(m).split("pbem:")[0] for m in one.got.get(FORGER, []))
    # press: kept in order with its seat and time; to all for everyone, to blue for blue alone
    kept = read_press(path)
    assert [(p.n, p.sender, p.to, p.text) for p in kept] == [
        (1, "red", ("all",), PUBLIC), (2, "red", ("blue",), PRIVATE), (3, "blue", ("red",), ANSWER)]
    assert kept[0].at <= kept[1].at < kept[2].at
    for seat, address in settings.emails.items():
        copies = [text_of(m) for m in one.got[address] if text_of(m).startswith("Your press")]
        texts = "\n".join(text_of(m) for m in one.got[address] if not text_of(m).startswith("Your press"))
        assert (PUBLIC in texts) == (seat != "red")
        assert (PRIVATE in texts) == (seat == "blue")
        assert (ANSWER in texts) == (seat == "red")
        # the sender alone gets its own press back, at its own address (a From forged as it shows)
        assert [press.text for press in kept if press.sender == seat] == [
            text for text in (PUBLIC, PRIVATE, ANSWER) if any(text in copy for copy in copies)]
    # the observer: the public reports and press to all, in summaries; nothing private (P10)
    seen = observer_text(one)
    assert len(seen) > 5 and any(PUBLIC in text for _s, text in seen)
    template = re.compile(r"^game og (red|green|blue|yellow)$", re.MULTILINE)  # a template's first line
    leaks = [(secret, text) for _s, text in seen for secret in (PRIVATE, ANSWER, "Witch saw rat", "For your eyes only")
             if secret in text or template.search(text)]
    assert not leaks, leaks
    page = tmp_path / "page.html"
    ok("html", path / "log.yaml", "--out", page)
    assert PUBLIC in page.read_text() and PRIVATE not in page.read_text()
    absence_held_the_deadline(one, tmp_path)
    # the site: the finished game and its audit; a test game is no game between people: not rated
    site = tmp_path / "site"
    build_site(one.host.games, site)
    assert standings_of(one.host.games) == []  # tests/test_standings_people.py: open games that count
    table = (site / "standings.html").read_text(encoding="utf-8")
    assert "Over 0 games that count." in table and "og" in (site / "index.html").read_text()
    assert not any(address in table for address in settings.emails.values())
    # the same observer mails in a world whose hidden faces differ
    assert two_worlds(one, tmp_path, monkeypatch) > 10


def absence_held_the_deadline(world: World, tmp: Path) -> None:
    """R8.5: green's 3-day absence is in the log, green was never timed out, the log verifies;
    in the copy taken while green was away, 72 h into its turn, a tick at the plain deadline
    times nobody out, and a timeout forged at the plain deadline fails verify."""
    log = world.host.games / "og" / LOG_NAME
    entries, _ = read_docs(log)
    assert [(e["player"], e["move"]["days"]) for e in entries if e["kind"] == "away"] == [(ABSENT, 3)]
    assert not any(e["kind"] == "timeout" for e in entries)
    ok("verify", log)
    assert world.during_absence is not None
    held, _ = read_docs(world.during_absence / "og" / LOG_NAME)
    began = next(e for e in reversed(held) if e["kind"] not in ("away",))  # the entry that began green's turn
    plain_due = at_of(seconds(began["at"]) + DEADLINE_H * 3600)
    assert "0 timeout(s)" in ok("tick", "--now", plain_due, "--games", world.during_absence)
    ok("tick", "--now", at_of(seconds(began["at"]) + (DEADLINE_H + 72) * 3600), "--games", world.during_absence)
    timed, _ = read_docs(world.during_absence / "og" / LOG_NAME)
    assert timed[-1]["kind"] == "timeout" and timed[-1]["player"] == ABSENT  # at the extended deadline: due
    timed[-1]["at"] = timed[-1]["due"] = plain_due  # a host that ignores the absence
    where, err = refused_at("verify", write(tmp / "forged-timeout.yaml", rechain(timed)))
    assert where == len(timed) - 1 and "R8.5" in err, err


def two_worlds(one: World, tmp: Path, monkeypatch: pytest.MonkeyPatch, rounds: int = 12) -> int:
    """The story again, for ``rounds`` rounds of play, with the faces of every token still face
    down when world one's summary of those rounds was written moved one place along (the same
    public draws, other hidden faces, a Witch's looks among them); the observer's summaries must
    be the very same.  Returns how many hidden faces differ."""
    told = summaries(one)[:rounds]
    last = int(re.findall(r"entries \d+ to (\d+)", told[-1][0])[0])
    game = game_at(*read_checked(one.host.games / "og" / "log.yaml"), last)
    hidden = [i for i, name in enumerate(protocol.PUBLIC_NAMES) if name not in game.revealed]
    real = protocol.deal

    def other_faces(*args: Any) -> protocol.Deal:
        dealt = real(*args)
        ids = list(dealt.token_ids)
        for k, i in enumerate(hidden):
            ids[i] = dealt.token_ids[hidden[(k + 1) % len(hidden)]]
        return protocol.Deal(dealt.first_player, dealt.regions_in_use, dealt.board, dealt.supply, dealt.removed,
                             dealt.plague_start, tuple(ids))

    secret = bytes.fromhex("ab" * 32)
    faces = host_faces(game, secret)
    monkeypatch.setattr(protocol, "deal", other_faces)
    # no summary for the opening's first round (its commitments are no day's news) nor for green's
    # two silent days while away
    two = story(tmp / "two", rounds + 3)
    assert two.rounds == rounds + 3 and summaries(two)[:rounds] == told
    other = host_faces(load_game(two.host.games / "og"), secret)
    return sum(faces.look(protocol.PUBLIC_NAMES[i]) != other.look(protocol.PUBLIC_NAMES[i]) for i in hidden)
