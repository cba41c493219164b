"""`pbem apply` runs once for every mailed move, a fresh process whose start-up is most of its
cost (docs/benchmarks.md: at most 1.3 times the import floor): it records the move, and its
row of the host's index reaches `pbem list` and `pbem tick`, without loading what it does not
need (SQLite: the row is noted beside the index, and put in by the next reader)."""

from __future__ import annotations

import calendar
import random
import subprocess
import sys
import time
from pathlib import Path

import pytest
from clitools import ok
from deadlinetools import at, new_game

from pbem.bots.randombot import bot_actions
from pbem.host import index, marks
from pbem.host.games import load_game
from pbem.log.clock import seconds
from pbem.log.game import Game
from pbem.log.logfile import LOG_NAME, read_docs
from pbem.log.moves import after_of
from pbem.log.yamlio import dump_yaml
from pbem.views.timeline import list_lines

ROOT = Path(__file__).resolve().parent.parent


def move_file(tmp_path: Path, game: Game) -> Path:
    """The next move of ``game`` (its player to move, legal actions), as a move file."""
    assert game.state is not None
    data = {"game": game.game_id, "player": game.to_move, "kind": "move", "after": after_of(game),
            "actions": [a.to_dict() for a in bot_actions(game.state, random.Random(1))]}
    path = tmp_path / "move.yaml"
    path.write_text(dump_yaml(data))
    return path


def from_logs(games: Path) -> list[str]:
    """`pbem list`'s lines read from every log, with no index at all."""
    return list_lines(games)

# `pbem apply` as a process, then the modules it loaded beyond what it needed before it began
APPLY_THEN_MODULES = (
    "import sys; sys.path.insert(0, sys.argv.pop(1)); from pbem.cli import main\n"
    "try:\n    main(sys.argv[1:])\nexcept SystemExit as done:\n    assert not done.code, done.code\n"
    "print(','.join(sorted(m for m in NOT_NEEDED if m in sys.modules)))"
)

NOT_NEEDED = (
    "sqlite3", "_sqlite3",  # the row is noted beside the index
    "_strptime",  # an 'at' is read by hand
    "pbem.host.sealer",  # a game without a host key
    "pbem.i18n.names", "pbem.data", "pbem.rules.standin",  # a move in YAML, a replay from its cache, no stand-in
)


def test_p7_apply_records_the_move_without_loading_what_it_does_not_need(tmp_path: Path) -> None:
    games = tmp_path / "games"
    game = new_game(games)
    ok("list", "--games", games)  # the index as a reader leaves it
    db = games / marks.INDEX_DIR / index.DB_NAME
    before, entries = db.read_bytes(), len(read_docs(games / "g" / LOG_NAME)[0])
    done = subprocess.run([sys.executable, "-c", f"NOT_NEEDED = {NOT_NEEDED!r}\n{APPLY_THEN_MODULES}", str(ROOT),
                           "apply", str(move_file(tmp_path, game)), "--games", str(games)],
                          capture_output=True, text=True, check=True)
    assert done.stdout.splitlines()[-1] == "", done.stdout  # none of them loaded
    assert len(read_docs(games / "g" / LOG_NAME)[0]) == entries + 1  # the move is in the log
    assert db.read_bytes() == before  # no SQLite write: the row is noted in the game's mark...
    assert (games / marks.INDEX_DIR / marks.DIRTY / "g").stat().st_size > 0
    index.stats.clear()
    assert ok("list", "--games", games).splitlines() == from_logs(games)  # ...and the next reader puts it in
    assert index.stats["noted"] == 1 and index.stats["made"] == 0  # as noted: the log not read again
    assert not (games / marks.INDEX_DIR / marks.DIRTY / "g").exists()
    assert ok("list", "--check", "--games", games).splitlines() == [
        "index checked against the logs: 1 game(s), 0 difference(s) mended"]


# `pbem apply` as the console script runs it, then what the interpreter's last collection would walk
APPLY_THEN_TRACKED = (
    "import atexit, gc, sys; sys.path.insert(0, sys.argv.pop(1)); from pbem.cli import run\n"
    "atexit.register(lambda: print('tracked', len(gc.get_objects())))\n"
    "sys.argv[0] = 'pbem'\nrun()"
)


def test_apply_leaves_what_it_made_to_the_process_end(tmp_path: Path) -> None:
    """The objects a command made (the game, its replay, the modules' own) are not walked once
    more by the interpreter's last collection as the process exits: about 10 ms of every
    `pbem apply` (docs/benchmarks.md)."""
    games = tmp_path / "games"
    game = new_game(games)
    done = subprocess.run([sys.executable, "-c", APPLY_THEN_TRACKED, str(ROOT), "apply", str(move_file(tmp_path, game)),
                           "--games", str(games)], capture_output=True, text=True, check=True)
    assert "accepted" in done.stdout
    tracked = int(done.stdout.splitlines()[-1].removeprefix("tracked "))
    assert tracked < 1000, tracked  # tens of thousands when left to the collector


def test_r8_a_noted_row_that_no_longer_matches_the_log_is_made_again_from_it(tmp_path: Path) -> None:
    games = tmp_path / "games"
    game = new_game(games, emails=True)
    noted = games / marks.INDEX_DIR / marks.DIRTY / "g"
    ok("apply", move_file(tmp_path, game), "--games", games)
    stale = noted.read_bytes()
    ok("list", "--games", games)
    game = load_game(games / "g")
    ok("apply", move_file(tmp_path, game), "--games", games)
    noted.write_bytes(stale)  # as if the host had died after the log's write, before noting its row
    index.stats.clear()
    assert ok("list", "--games", games).splitlines() == from_logs(games)
    assert index.stats["made"] == 1 and index.stats["noted"] == 0  # read again from the log
    assert "0 timeout(s) recorded" in ok("tick", "--now", at(1), "--games", games)


@pytest.mark.parametrize("at", ["2026-12-01T09:00:00Z", "2024-02-29T23:59:59Z", "1970-01-01T00:00:00Z",
                                "2099-12-31T12:30:05Z"])
def test_p7_an_at_is_read_as_strptime_reads_it(at: str) -> None:
    assert seconds(at) == calendar.timegm(time.strptime(at, "%Y-%m-%dT%H:%M:%SZ"))


@pytest.mark.parametrize("text", ["2026-1-05T09:15:00Z", "2026-12-31T23:59:60Z"])
def test_p7_a_time_not_in_the_at_form_is_read_by_strptime_still(text: str) -> None:
    assert seconds(text) == calendar.timegm(time.strptime(text, "%Y-%m-%dT%H:%M:%SZ"))


@pytest.mark.parametrize("text", ["2026-02-30T09:00:00Z", "soon", "2026-12-01 09:00:00"])
def test_p7_a_time_that_is_no_time_is_refused_as_before(text: str) -> None:
    with pytest.raises(ValueError):
        seconds(text)
