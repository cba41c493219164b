"""The head index (pbem/host/head.py): `pbem list` and `pbem tick` read each game's
head from ``head.cache`` while the log is the one it was made from, and from the log itself
otherwise.  What they print and do is the same either way."""

from __future__ import annotations

import shutil
from pathlib import Path

from clitools import ok, snapshot
from deadlinetools import PLAYERS, T0, at, move, new_game

from pbem.host import head, index, marks
from pbem.host.create import NewGame, create
from pbem.host.games import load_game
from pbem.log.clock import pinned
from pbem.log.logfile import LOG_NAME, read_docs
from pbem.log.yamlio import dump_entry
from pbem.views.timeline import list_lines


def _games(tmp_path: Path) -> Path:
    """Three games: one in play with a deadline and mail, one in the opening, one just made."""
    games = tmp_path / "games"
    game = new_game(games, emails=True)
    move(games, game, at(1))
    with pinned(T0):
        create(games, NewGame("opening", PLAYERS, secret=bytes(range(32))))
    return games


def _without_index(games: Path, tmp_path: Path) -> list[str]:
    bare = tmp_path / "bare"
    shutil.rmtree(bare, ignore_errors=True)
    shutil.copytree(games, bare)
    for cached in bare.glob(f"*/{head.HEAD_NAME}"):
        cached.unlink()
    return [line.replace("bare", "games") for line in list_lines(bare)]


def test_list_prints_from_the_index_what_it_prints_from_the_logs(tmp_path: Path) -> None:
    games = _games(tmp_path)
    head.stats.clear()
    index.stats.clear()
    listed = ok("list", "--games", games).splitlines()
    # the host's index of its games, kept by the host as it recorded: no log read, no row made again
    assert index.stats["listed"] == 2 and index.stats["made"] == 0 and head.stats["read"] == 0
    assert listed == _without_index(games, tmp_path)


def test_r8_a_tick_with_nothing_due_reads_no_log_and_changes_no_file(tmp_path: Path) -> None:
    games = _games(tmp_path)
    before = snapshot(games)
    head.stats.clear()
    index.stats.clear()
    assert "0 timeout(s) recorded, 0 mail(s) queued" in ok("tick", "--now", at(2), "--games", games)
    assert head.stats["indexed"] == head.stats["read"] == index.stats["made"] == 0  # nothing due: no log read
    assert snapshot(games) == before


def test_r8_the_index_does_not_hide_a_passed_deadline_or_a_reminder(tmp_path: Path) -> None:
    games = _games(tmp_path)
    assert "1 mail(s) queued" in ok("tick", "--now", at(49), "--games", games)  # green's reminder (24 h before)
    assert "1 timeout(s) recorded" in ok("tick", "--now", at(73), "--games", games)


def _drop_last(log: Path) -> None:
    """Out of band: the log without its last entry (still a good chain, an earlier position)."""
    docs, _ = read_docs(log)
    log.write_bytes("".join(dump_entry(d) for d in docs[:-1]).encode())


def test_an_index_made_stale_out_of_band_is_seen_and_the_host_rebuilds_it(tmp_path: Path) -> None:
    games = _games(tmp_path)
    log = games / "g" / LOG_NAME
    _drop_last(log)
    # the host's index of its games is looked at against every log by `list --check` (a stat of
    # every log on every `list` would be the cost the index saves), which reads the changed log whole
    head.stats.clear()
    assert ok("list", "--check", "--games", games).splitlines()[0] == (
        "g: the index held an older state of its log; read again from the log")
    assert head.stats["read"] == 1  # the log no longer matches its head cache: read whole
    listed = ok("list", "--games", games).splitlines()
    assert listed == _without_index(games, tmp_path)
    assert "entry 10" not in listed[0] and "last entry 9" in listed[0]
    game = head.head_of(games / "g")  # the host's next record rebuilds it:
    assert game.line == listed[0]
    move(games, load_game(games / "g"), at(2))
    head.stats.clear()
    assert ok("list", "--games", games).splitlines() == _without_index(games, tmp_path)
    assert head.stats["read"] == 0


def test_a_garbage_index_is_ignored(tmp_path: Path) -> None:
    games = _games(tmp_path)
    (games / "g" / head.HEAD_NAME).write_bytes(b"pbem-cache 1\n" + b"0" * 64 + b"\n{}")
    shutil.rmtree(games / marks.INDEX_DIR)  # the host's index of its games gone too: each game is read
    head.stats.clear()
    assert ok("list", "--games", games).splitlines() == _without_index(games, tmp_path)
    assert head.stats["read"] == 1
