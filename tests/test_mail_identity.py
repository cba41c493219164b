"""The mail a game owes is keyed by the game's identity (its id and the hash of its first
entry, P7), not by its id alone: the reply queue (GAMES/+mail-queue) outlives a game's folder.

The attack (or the accident): the host deletes a game's folder and makes a new game under
the same id.  Before, the new game got no invitation, reminder, timeout notice or last mail,
silently, because batches named for the old game's id were already in the queue; and `pbem
tick` printed "reminder queued for red" while nothing was mailed."""

from __future__ import annotations

import mailbox
import shutil
from email.message import EmailMessage
from pathlib import Path

import pytest
from mailtools import replies

from pbem.host.create import NewGame, create
from pbem.host.games import apply_move, load_game
from pbem.host.settings import RevealWhen
from pbem.log.clock import at_of, pinned, seconds
from pbem.log.moves import after_of, parse_move
from pbem.log.yamlio import dump_yaml
from pbem.mail import deadlinemail
from pbem.mail.final import FINAL_NAME
from pbem.mail.outbox import QUEUE_NAME, Queue
from pbem.mail.run import process
from pbem.mail.tick import tick
from pbem.sim.demo import open_game

HOST = "rattus@host.example"
EMAILS = {"red": "red@example.org", "blue": "blue@example.net"}
HOUR = 3600


@pytest.fixture(autouse=True)
def no_picture(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("pbem.mail.replies.board_picture", lambda game, lang="en": None)


def taken(outbox: Path) -> list[EmailMessage]:
    found = replies(outbox)
    mailbox.Maildir(str(outbox)).clear()
    return found


def one_life(games: Path, inbox: Path, outbox: Path, t0: int) -> tuple[dict[str, list[str]], list[str]]:
    """Game g from its creation to its last mail: what each stage mailed (subjects), and what
    `pbem tick` said when the reminder was due."""
    said: dict[str, list[str]] = {}
    with pinned(at_of(t0)):
        create(games, NewGame("g", ("red", "blue"), first="red", emails=dict(EMAILS), deadline=24 * HOUR,
                              reminder=8 * HOUR, reveal=RevealWhen.AUTO))
        process(inbox, games, outbox, None, HOST)
        said["invited"] = [str(m["Subject"]) for m in taken(outbox)]
        open_game(games, "g")
        process(inbox, games, outbox, None, HOST)
        said["first move"] = [str(m["Subject"]) for m in taken(outbox)]
    with pinned(at_of(t0 + 17 * HOUR)):
        lines = tick(games, HOST).lines
        process(inbox, games, outbox, None, HOST)
        said["reminded"] = [str(m["Subject"]) for m in taken(outbox)]
    with pinned(at_of(t0 + 25 * HOUR)):
        process(inbox, games, outbox, None, HOST)
        said["timed out"] = [str(m["Subject"]) for m in taken(outbox)]
        for player in ("red", "blue"):  # both resign (R8.4): the stand-in plays the game to its end
            game = load_game(games / "g")
            apply_move(games, parse_move(dump_yaml({"game": "g", "player": player, "kind": "resign",
                                                    "after": after_of(game)}).encode()))
        assert load_game(games / "g").over
        process(inbox, games, outbox, None, HOST)
        said["ended"] = [str(m["Subject"]) for m in taken(outbox) if "the end:" in str(m["Subject"])]
    return said, lines


def test_a_game_made_again_under_an_old_id_gets_all_its_mail(tmp_path: Path) -> None:
    games, inbox, outbox = tmp_path / "games", tmp_path / "inbox", tmp_path / "outbox"
    mailbox.Maildir(str(inbox), create=True)
    t0 = seconds("2026-12-01T08:00:00Z")
    first, first_lines = one_life(games, inbox, outbox, t0)
    assert len(first["invited"]) == 2 and all("round 1 of 2" in s for s in first["invited"]), first
    assert [s for s in first["reminded"] if "reminder: your move, red" in s], first
    assert len([s for s in first["timed out"] if ": timeout, th" in s]) == 2, first  # a long subject is cut (...)
    assert len(first["ended"]) == 2, first
    assert any("reminder queued for red" in line for line in first_lines), first_lines
    shutil.rmtree(games / "g")  # the host deletes the game; the queue stays
    assert (games / QUEUE_NAME).is_dir()
    again, again_lines = one_life(games, inbox, outbox, t0 + 10 * 24 * HOUR)
    # the new game is mailed as the first was, stage by stage: nothing is taken for already sent
    assert {stage: len(subjects) for stage, subjects in again.items()} == \
        {stage: len(subjects) for stage, subjects in first.items()}, (first, again)
    assert [s for s in again["reminded"] if "reminder: your move, red" in s], again
    assert len(again["ended"]) == 2, again
    assert any("reminder queued for red" in line for line in again_lines), again_lines


def test_tick_says_queued_only_for_mail_it_queues(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The reminder's batch spooled already (a run stopped before noting it): tick says so,
    and counts no mail."""
    games = tmp_path / "games"
    t0 = seconds("2026-12-01T08:00:00Z")
    with pinned(at_of(t0)):
        create(games, NewGame("g", ("red", "blue"), first="red", emails=dict(EMAILS), deadline=24 * HOUR,
                              reminder=8 * HOUR))
        open_game(games, "g")

    def stopped(_path: Path, _item: str) -> None:
        raise KeyboardInterrupt  # the run stopped between spooling the reminder and noting it

    with pinned(at_of(t0 + 17 * HOUR)):
        with monkeypatch.context() as patch:
            patch.setattr(deadlinemail, "note", stopped)
            with pytest.raises(KeyboardInterrupt):
                tick(games, HOST)
        assert not (games / "g" / "mail-notices.txt").exists()
        again = tick(games, HOST)
    assert again.queued == 0 and not any("queued for" in line for line in again.lines), again.lines
    assert any("the reminder for red was queued before" in line for line in again.lines), again.lines


def test_a_game_announced_by_a_version_that_keyed_by_id_alone_is_not_announced_again(tmp_path: Path) -> None:
    """Upgrading: the last mail queued as ``final:GAME`` stands for that very game (its log,
    attached, names the game's first entry), and for no game made later under its id."""
    games, inbox, outbox = tmp_path / "games", tmp_path / "inbox", tmp_path / "outbox"
    mailbox.Maildir(str(inbox), create=True)
    t0 = seconds("2026-12-01T08:00:00Z")
    one_life(games, inbox, outbox, t0)
    queue = Queue(games / QUEUE_NAME)
    game = load_game(games / "g")
    (queue.path / queue.game_batch("final", game)).rename(queue.path / queue.batch_id("final:g"))
    (games / "g" / FINAL_NAME).unlink()  # as the older version left it
    with pinned(at_of(t0 + 30 * HOUR)):
        process(inbox, games, outbox, None, HOST)
    assert not [m for m in taken(outbox) if "the end:" in str(m["Subject"])]
    assert (games / "g" / FINAL_NAME).is_file()
    shutil.rmtree(games / "g")
    again, _lines = one_life(games, inbox, outbox, t0 + 10 * 24 * HOUR)
    assert len(again["ended"]) == 2, again
