"""The host's index of its games (pbem/host/index.py): `pbem list` and `pbem tick` read its rows,
never the truth.  A host killed between a log's append and its row's update loses nothing and
doubles nothing; an index that is missing, damaged or stale is made again from the logs; and
`pbem list --check` compares it with every log."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from clitools import ok
from deadlinetools import PLAYERS, T0, at, new_game

from pbem.host import index, marks
from pbem.log.clock import pinned
from pbem.log.game import Game
from pbem.log.logfile import LOG_NAME, read_docs
from pbem.log.moves import after_of
from pbem.log.yamlio import dump_yaml
from pbem.views.timeline import list_lines

# A pbem killed (SIGKILL, as by the OOM killer or a power cut) after the log is written and
# before the host's index is told: the process dies in the host's own index update.
KILLED_AFTER_APPEND = (
    "import os, signal, sys; sys.path.insert(0, sys.argv.pop(1)); import pbem.host.games as games; "
    "games.settled = lambda *a, **k: os.kill(os.getpid(), signal.SIGKILL); "
    "from pbem.cli import main; main(sys.argv[1:])"
)


def killed(*args: str | Path) -> subprocess.CompletedProcess[str]:
    here = Path(__file__).resolve().parent.parent
    done = subprocess.run([sys.executable, "-c", KILLED_AFTER_APPEND, str(here), *map(str, args)],
                          capture_output=True, text=True, check=False)
    assert done.returncode == -9, done.stderr  # killed where the test meant, not before
    return done


def queued(games: Path) -> list[Path]:
    """The mails `pbem tick` queued for delivery."""
    queue = games / "+mail-queue"
    return sorted(queue.rglob("*.eml")) if queue.is_dir() else []


def from_logs(games: Path) -> list[str]:
    """`pbem list`'s lines read from every log, with no index at all."""
    return list_lines(games)


def move_file(tmp_path: Path, game: Game) -> Path:
    assert game.state is not None
    from random import Random

    from pbem.bots.randombot import bot_actions

    data = {"game": game.game_id, "player": game.to_move, "kind": "move", "after": after_of(game),
            "actions": [a.to_dict() for a in bot_actions(game.state, Random(1))]}
    path = tmp_path / "move.yaml"
    path.write_text(dump_yaml(data))
    return path


def test_p7_a_host_killed_between_the_log_and_its_index_loses_no_move(tmp_path: Path) -> None:
    games = tmp_path / "games"
    game = new_game(games)
    before = len(read_docs(games / "g" / LOG_NAME)[0])
    killed("apply", move_file(tmp_path, game), "--games", games)
    assert len(read_docs(games / "g" / LOG_NAME)[0]) == before + 1  # the move is in the log...
    assert (games / marks.INDEX_DIR / marks.DIRTY / "g").exists()  # ...and the game still marked dirty
    index.stats.clear()
    assert ok("list", "--games", games).splitlines()[:1] == from_logs(games)  # the next reader reads it again
    assert index.stats["made"] == 1
    assert not (games / marks.INDEX_DIR / marks.DIRTY / "g").exists()
    index.stats.clear()
    ok("list", "--games", games)
    assert index.stats["made"] == 0  # once: the mark is cleared
    assert ok("list", "--check", "--games", games).splitlines() == [
        "index checked against the logs: 1 game(s), 0 difference(s) mended"]


def test_r8_2_a_tick_killed_after_its_timeout_records_no_second_one_and_mails_once(tmp_path: Path) -> None:
    games = tmp_path / "games"
    new_game(games, emails=True)
    killed("tick", "--now", at(73), "--games", games)
    kinds = [d["kind"] for d in read_docs(games / "g" / LOG_NAME)[0]]
    assert kinds.count("timeout") == 1 and not queued(games)  # recorded; its notice not yet queued
    said = ok("tick", "--now", at(73), "--games", games)
    assert "0 timeout(s) recorded, 4 mail(s) queued" in said  # the notices, once
    assert "0 timeout(s) recorded, 0 mail(s) queued" in ok("tick", "--now", at(73), "--games", games)
    assert [d["kind"] for d in read_docs(games / "g" / LOG_NAME)[0]].count("timeout") == 1
    assert len(queued(games)) == 4
    assert ok("list", "--games", games).splitlines()[:1] == from_logs(games)


def test_r8_tick_looks_only_at_the_games_whose_time_has_come(tmp_path: Path) -> None:
    games = tmp_path / "games"
    new_game(games, emails=True)  # red's reminder at 48 h, deadline at 72 h
    with pinned(T0):
        for n in range(5):
            ok("new", f"idle{n}", "--players", ",".join(PLAYERS), "--games", games)
    index.stats.clear()
    assert "0 timeout(s) recorded, 0 mail(s) queued" in ok("tick", "--now", at(47), "--games", games)
    assert index.stats["made"] == 0
    assert "1 mail(s) queued" in ok("tick", "--now", at(49), "--games", games)  # the reminder
    assert index.stats["made"] == 1  # that game alone, its next look set to its deadline
    index.stats.clear()
    assert "0 mail(s) queued" in ok("tick", "--now", at(50), "--games", games)
    assert index.stats["made"] == 0


def test_an_index_gone_or_damaged_is_made_again_from_the_logs(tmp_path: Path) -> None:
    games = tmp_path / "games"
    new_game(games)
    want = from_logs(games)
    db = games / marks.INDEX_DIR / index.DB_NAME
    db.write_bytes(b"not a database at all" * 100)
    assert ok("list", "--check", "--games", games).splitlines() == [
        "the index could not be read (damaged); made again from the logs",
        "index checked against the logs: 1 game(s), 1 difference(s) mended"]
    assert ok("list", "--games", games).splitlines() == want
    db.unlink()
    assert ok("list", "--games", games).splitlines() == want
    shutil.rmtree(games / marks.INDEX_DIR)  # no index here at all: list reads the logs and makes none
    assert ok("list", "--games", games).splitlines() == want
    assert not (games / marks.INDEX_DIR).exists()


def test_list_check_mends_a_row_the_logs_disagree_with(tmp_path: Path) -> None:
    games = tmp_path / "games"
    new_game(games)
    ok("list", "--games", games)  # the rows in the database, the host's noted rows put in by this first reader
    db = games / marks.INDEX_DIR / index.DB_NAME
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE games SET line = 'g: over', sha256 = 'x' WHERE id = 'g'")
        conn.execute("INSERT INTO games SELECT 'ghost', size, mtime, sha256, line, status, waiting, since_at, "
                     "deadline, head, wake, open_free, emails, readers, settings, version FROM games WHERE id = 'g'")
    conn.close()
    assert ok("list", "--check", "--games", games).splitlines() == [
        "g: the index held an older state of its log; read again from the log",
        "ghost: in the index, but no such game in the folder; dropped",
        "index checked against the logs: 1 game(s), 2 difference(s) mended"]
    assert ok("list", "--games", games).splitlines() == from_logs(games)


def test_the_index_names_the_files_as_the_host_does() -> None:
    from pbem.host.settings import SETTINGS_NAME

    assert (marks.LOG_NAME, marks.SETTINGS_NAME) == (LOG_NAME, SETTINGS_NAME)


def test_a_game_folder_added_or_removed_by_hand_is_seen(tmp_path: Path) -> None:
    games = tmp_path / "games"
    new_game(games)
    shutil.copytree(games / "g", tmp_path / "spare")
    shutil.rmtree(games / "g")
    assert "no games in" in ok("list", "--games", games)
    shutil.copytree(tmp_path / "spare", games / "g")
    os.utime(games, ns=(1, 1))  # however the folder's clock reads: it changed, so it is looked at
    assert ok("list", "--games", games).splitlines() == from_logs(games)


def test_p4_a_mail_round_invites_from_the_games_that_changed_alone(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    from lobbytools import Host

    from pbem.mail import invite

    looked: list[str] = []
    real = invite._invite_game

    def counted(child: Path, *args: Any) -> None:
        looked.append(child.name)
        real(child, *args)

    monkeypatch.setattr(invite, "_invite_game", counted)
    host = Host(tmp_path)
    for n in range(4):
        ok("new", f"g{n}", "--players", "red,blue", "--seat-email", "red=ann@one.example", "--seat-email",
           "blue=bo@two.example", "--games", host.games)
    _out, got = host.run()
    assert sorted(looked) == ["g0", "g1", "g2", "g3"] and len(got) == 8  # each game's first invitations
    looked.clear()
    host.run()
    assert looked == []  # nothing changed: no game looked at
    ok("new", "g9", "--players", "red,blue", "--seat-email", "red=cy@three.example", "--games", host.games)
    host.run()
    assert looked == ["g9"]  # the new game alone


def test_a_game_changed_after_the_newest_row_was_removed_is_seen_by_the_next_mail_pass(tmp_path: Path) -> None:
    """A mail pass looks at the games whose index version passed the one it saw last: a row
    removed must not give its version back, or a game changed after it would be missed."""
    from pbem.host.gamesets import changes

    games = tmp_path / "games"
    for name in ("a", "b"):
        ok("new", name, "--players", "red,blue", "--games", games)
    seen = tmp_path / "seen"
    with changes(games, seen) as found:
        assert found is not None and sorted(f.name for f in found.folders) == ["a", "b"]
    shutil.rmtree(games / "b")  # the game with the newest version goes
    os.utime(games, ns=(1, 1))
    opened = index.open_index(games)
    assert opened is not None
    opened.sync()
    opened.settle(games / "a")  # then the other game changes
    opened.db.close()
    with changes(games, seen) as found:
        assert found is not None and [f.name for f in found.folders] == ["a"]
