"""R8.5 Absence: an allowance of whole days in entry 0, an absence declared by a move, the
deadlines of the turns it overlaps moved by the overlap, no reminder or timeout while away,
the seat's next turn move ending it early, and every reader recomputing it from the log.

Every time comes from a test clock (``pbem.log.clock.pinned``, ``pbem tick --now``): no test sleeps.
Four seats, red first; a deadline of 72 h and a reminder 24 h before it (tests/deadlinetools.py).
"""

from __future__ import annotations

import copy
import random
from pathlib import Path

import pytest
from audittools import minimal
from clitools import cli, ok, snapshot
from deadlinetools import HOUR, T0, at, away, move, moved_past_absences, new_game
from tampering import rechain, refused_at, write

import pbem.host.create
from pbem.bots.randombot import bot_actions
from pbem.errors import Exit
from pbem.host.games import load_game
from pbem.log.clock import at_of, pinned, seconds
from pbem.log.logfile import LOG_NAME, read_docs, read_log
from pbem.log.moves import after_of
from pbem.log.records import Timeout
from pbem.log.yamlio import dump_yaml
from pbem.referee.absence import absences, days_left
from pbem.referee.clocks import early_timeouts
from pbem.referee.deadlines import due, remind_at

# --- entry 0 --------------------------------------------------------------------------------------


def test_the_allowance_is_fixed_in_entry_0_and_none_if_unset(tmp_path: Path) -> None:
    ok("new", "g", "--players", "red,green", "--deadline", "3d", "--absence", "7", "--games", tmp_path / "a")
    entries, _ = read_docs(tmp_path / "a" / "g" / LOG_NAME)
    assert entries[0]["options"] == {"first": None, "deadline": 3 * 86400, "absence": 7}
    ok("new", "g", "--players", "red,green", "--deadline", "3d", "--games", tmp_path / "b")
    entries, _ = read_docs(tmp_path / "b" / "g" / LOG_NAME)
    assert entries[0]["options"] == {"first": None, "deadline": 3 * 86400}  # unset: entry 0 as it always was


def test_an_allowance_without_a_deadline_or_of_no_days_is_refused_and_nothing_is_made(tmp_path: Path) -> None:
    for args in (["--absence", "3"], ["--deadline", "3d", "--absence", "0"], ["--deadline", "3d", "--absence", "400"]):
        result = cli("new", "g", "--players", "red,green", "--games", tmp_path, *args)
        assert result.exit_code == Exit.FORMAT and "R8.5" in result.stderr, result.stderr
        assert list(tmp_path.iterdir()) == []


# --- the deadline moves by the overlap -----------------------------------------------------------

def test_a_three_day_absence_overlapping_a_turn_moves_its_deadline_by_the_overlap(tmp_path: Path) -> None:
    game = new_game(tmp_path, absence=7)
    game = away(tmp_path, game, "green", at(10), 3)  # away from hour 10 to hour 82
    assert due(game) == ("red", at(72))  # other seats play on: red's turn is not green's
    game = move(tmp_path, game, at(20))  # green's turn begins at hour 20, inside the absence
    # 72 h of turn, and the 62 h of it that green is away: due at hour 20 + 72 + 62
    assert due(game) == ("green", at(154))
    assert remind_at(game) == at(130)
    assert "0 timeout(s)" in ok("tick", "--now", at(153), "--games", tmp_path)
    assert "1 timeout(s)" in ok("tick", "--now", at(154), "--games", tmp_path)
    timeout = load_game(tmp_path / "g").entries[-1]
    assert timeout.raw["kind"] == "timeout" and timeout.raw["player"] == "green" and timeout.raw["due"] == at(154)
    ok("verify", tmp_path / "g" / LOG_NAME)


def test_an_absence_declared_in_the_seats_own_turn_stops_its_clock_while_it_lasts(tmp_path: Path) -> None:
    game = new_game(tmp_path, absence=7)
    game = away(tmp_path, game, "red", at(1), 2)  # 1 h of red's turn ran; 48 h away; 71 h are left after
    assert due(game) == ("red", at(1 + 48 + 71))


def test_no_reminder_is_due_while_the_seat_is_away(tmp_path: Path) -> None:
    game = new_game(tmp_path, absence=7, emails=True)
    game = away(tmp_path, game, "red", at(60), 1)  # 12 h left when red goes: due at 84 + 12 = 96
    assert due(game) == ("red", at(96))
    assert remind_at(game) == at(84)  # 24 h before the deadline is hour 72, when red is away: once back
    out = ok("tick", "--now", at(83), "--from", "host@example.org", "--games", tmp_path)
    assert "reminder" not in out and "0 mail(s) queued" in out
    out = ok("tick", "--now", at(84), "--from", "host@example.org", "--games", tmp_path)
    assert "reminder queued for red" in out


def test_a_seat_past_its_deadline_can_no_longer_declare_an_absence_and_is_timed_out(tmp_path: Path) -> None:
    """The ruling on R8.5: an absence is declared ahead of time; 8 h overdue, red's 'away 2' is
    refused, changes no file, and the timeout (R8.2) comes as due."""
    new_game(tmp_path, absence=7)
    before = snapshot(tmp_path / "g")
    with pinned(at(80)):
        result = cli("apply", away_file(tmp_path, "red", 2), "--games", tmp_path)
    assert result.exit_code == Exit.RULES and "R8.5" in result.stderr and "was due at" in result.stderr, result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and snapshot(tmp_path / "g") == before
    assert "1 timeout(s)" in ok("tick", "--now", at(80), "--games", tmp_path)


def test_a_game_made_by_pbem_0_2_keeps_its_late_absences(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """R8.5's ruling holds for games from pbem 0.3 on: a 0.2 host recorded an absence declared
    after the deadline, and such a game still takes one and verifies, as it was played."""
    monkeypatch.setattr(pbem.host.create, "__version__", "0.2.0")
    new_game(tmp_path, absence=7)
    with pinned(at(80)):
        ok("apply", away_file(tmp_path, "red", 2), "--games", tmp_path)
    assert "game g:" in ok("verify", tmp_path / "g" / LOG_NAME)


def test_a_seat_declares_an_absence_up_to_the_last_second_of_its_turn(tmp_path: Path) -> None:
    game = new_game(tmp_path, absence=7)
    game = away(tmp_path, game, "red", at(71.99), 1)  # 36 s before the deadline: still ahead of time
    assert due(game) == ("red", at_of(seconds(at(72)) + 86400))


def test_another_seats_absence_leaves_the_movers_move_fresh(tmp_path: Path) -> None:
    """R8.5: green goes away during red's turn, then blue; the move red wrote before both (after
    the entry that began red's turn) is recorded, not refused as stale, and every reader agrees."""
    log = moved_past_absences(tmp_path)
    game = load_game(tmp_path / "g")
    assert [e.raw["kind"] for e in game.entries[-3:]] == ["away", "away", "move"] and game.entries[-1].player == "red"
    ok("verify", log)
    assert minimal(log)[0] == Exit.STATE  # tools/audit_min.py: P7 holds; the audit waits for the secret


def test_a_move_written_before_the_movers_own_absence_or_another_entry_is_still_stale(tmp_path: Path) -> None:
    game = new_game(tmp_path, absence=7)
    written = after_of(game)
    away(tmp_path, game, "red", at(1), 2)  # red's own absence: red writes the move after it
    assert game.state is not None
    data = {"game": "g", "player": "red", "kind": "move", "after": written,
            "actions": [a.to_dict() for a in bot_actions(game.state, random.Random(0))]}
    (tmp_path / "red.yaml").write_text(dump_yaml(data))
    with pinned(at(3)):
        result = cli("apply", tmp_path / "red.yaml", "--games", tmp_path)
    assert result.exit_code == Exit.STALE and "P7" in result.stderr


# --- the allowance --------------------------------------------------------------------------------

def away_file(tmp_path: Path, player: str, days: int) -> Path:
    game = load_game(tmp_path / "g")
    path = tmp_path / f"away-{player}-{days}.yaml"
    path.write_text(dump_yaml({"game": "g", "player": player, "kind": "away", "after": after_of(game),
                               "days": days}))
    return path


def test_an_absence_longer_than_what_is_left_of_the_allowance_is_refused_and_changes_no_file(tmp_path: Path) -> None:
    new_game(tmp_path, absence=5)
    path = away_file(tmp_path, "green", 6)
    before = snapshot(tmp_path / "g")
    with pinned(at(1)):
        result = cli("apply", path, "--games", tmp_path)
    assert result.exit_code == Exit.RULES and "R8.5" in result.stderr, result.stderr
    assert "5 days are left" in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert snapshot(tmp_path / "g") == before
    result = cli("away", "g", "6", "--player", "green", "--games", tmp_path)  # the player's own tool says so too
    assert result.exit_code == Exit.RULES and "R8.5" in result.stderr


def test_a_game_without_an_allowance_takes_no_absence(tmp_path: Path) -> None:
    new_game(tmp_path)
    before = snapshot(tmp_path / "g")
    with pinned(at(1)):
        result = cli("apply", away_file(tmp_path, "green", 1), "--games", tmp_path)
    assert result.exit_code == Exit.RULES and "no absence allowance" in result.stderr and "R8.5" in result.stderr
    assert snapshot(tmp_path / "g") == before


def test_a_seat_away_declares_no_second_absence_until_the_first_ends(tmp_path: Path) -> None:
    game = new_game(tmp_path, absence=7)
    away(tmp_path, game, "green", at(10), 2)
    with pinned(at(20)):
        result = cli("apply", away_file(tmp_path, "green", 1), "--games", tmp_path)
    assert result.exit_code == Exit.STALE and "away already" in result.stderr and "R8.5" in result.stderr
    game = away(tmp_path, load_game(tmp_path / "g"), "green", at(58), 1)  # the first ended at hour 58
    assert [a.days for a in absences(game)] == [2, 1] and days_left(game, "green") == 4


def test_the_seats_next_turn_move_ends_the_absence_early_and_the_unused_days_return(tmp_path: Path) -> None:
    game = new_game(tmp_path, absence=7)
    game = away(tmp_path, game, "green", at(10), 5)
    assert days_left(game, "green") == 2
    game = move(tmp_path, game, at(11))  # red's placement: green's turn
    game = move(tmp_path, game, at(35))  # green is back after 25 h: 2 days begun, 3 return
    assert at_of(absences(game)[0].end) == at(35) and days_left(game, "green") == 5
    assert due(game) == ("blue", at(35 + 72))
    game = away(tmp_path, game, "green", at(36), 5)  # the days returned can be taken again
    assert days_left(game, "green") == 0
    ok("verify", tmp_path / "g" / LOG_NAME)


# --- every reader recomputes the extended deadline ------------------------------------------------

def timed_out_after_absence(tmp_path: Path) -> list[dict[str, object]]:
    """Green away from hour 10 for 3 days; green's turn from hour 20, timed out at hour 154."""
    game = new_game(tmp_path / "games", absence=7)
    game = away(tmp_path / "games", game, "green", at(10), 3)
    move(tmp_path / "games", game, at(20))
    ok("tick", "--now", at(154), "--games", tmp_path / "games")
    entries, _ = read_docs(tmp_path / "games" / "g" / LOG_NAME)
    assert entries[-1]["kind"] == "timeout" and entries[-1]["due"] == at(154)
    return entries


def test_a_timeout_at_the_unextended_deadline_fails_verify(tmp_path: Path) -> None:
    es = copy.deepcopy(timed_out_after_absence(tmp_path))
    es[-1]["at"] = es[-1]["due"] = at(92)  # a host that ignores the absence: 72 h from hour 20
    where, err = refused_at("verify", write(tmp_path / "early.yaml", rechain(es)))
    assert where == len(es) - 1 and "R8.5" in err and "absence extends its deadline" in err, err


def test_a_timeout_while_the_seat_is_away_fails_verify(tmp_path: Path) -> None:
    es = copy.deepcopy(timed_out_after_absence(tmp_path))
    es[-1]["at"] = at(60)
    where, err = refused_at("verify", write(tmp_path / "away.yaml", rechain(es)))
    assert where == len(es) - 1 and "while green was away" in err and "R8.5" in err, err


def test_a_timeout_after_the_absence_but_before_the_extended_deadline_fails_verify(tmp_path: Path) -> None:
    es = copy.deepcopy(timed_out_after_absence(tmp_path))
    es[-1]["at"] = at(150)  # green back at hour 82; due at 154
    where, err = refused_at("verify", write(tmp_path / "before.yaml", rechain(es)))
    assert where == len(es) - 1 and "before green's deadline" in err and "R8.2" in err, err


def test_an_absence_beyond_the_allowance_fails_verify(tmp_path: Path) -> None:
    es = copy.deepcopy(timed_out_after_absence(tmp_path))
    away_entry = next(e for e in es if e["kind"] == "away")
    move = away_entry["move"]
    assert isinstance(move, dict)
    away_entry["move"] = {**move, "days": 8}  # a host that recorded more than the allowance
    where, err = refused_at("verify", write(tmp_path / "long.yaml", rechain(es)))
    assert where == es.index(away_entry) and "R8.5" in err, err


# --- what people read -------------------------------------------------------------------------------

def test_show_list_and_the_template_say_who_is_away_until_when(tmp_path: Path) -> None:
    game = new_game(tmp_path, absence=7)
    away(tmp_path, game, "red", at(10), 3)
    with pinned(at(11)):
        show = ok("show", "g", "--games", tmp_path)
        template = ok("template", "g", "--games", tmp_path)
        state = ok("show", "g", "--json", "--games", tmp_path)
    assert "absence allowance (R8.5): 7 days a seat; days left: red 4, green 7, blue 7, yellow 7" in show
    assert "red is away until Fri 4 Dec 19:00 UTC" in show
    assert "red declared an absence of 3 days (R8.5)" in show
    flat = " ".join(line.lstrip("#").strip() for line in template.splitlines())  # its comment lines, unwrapped
    assert "You are away until Fri 4 Dec 19:00 UTC (R8.5); your next turn move ends it." in flat
    assert '"away": {\n   "red": "2026-12-04T19:00:00Z"' in state.replace("    ", " ")
    assert "away (R8.5): red until Fri 4 Dec 19:00 UTC" in ok("list", "--games", tmp_path)


def test_pbem_away_writes_the_move_and_until_a_date_counts_whole_days(tmp_path: Path) -> None:
    new_game(tmp_path, absence=7)
    with pinned(T0):
        out = ok("away", "g", "until", "2026-12-04", "--player", "blue", "--games", tmp_path)
    assert out.splitlines()[-1] == "away 3" and "game g blue" in out
    (tmp_path / "away.txt").write_text(out)
    with pinned(at(1)):
        assert "blue is away for 3 days" in ok("apply", tmp_path / "away.txt", "--games", tmp_path)
        result = cli("away", "g", "until", "2026-11-30", "--player", "blue", "--games", tmp_path)
    assert result.exit_code == Exit.FORMAT and "R8.5" in result.stderr


def test_the_readers_clock_measures_a_timeout_against_the_deadline_its_absence_extended(tmp_path: Path) -> None:
    """P7 with R8.5: green's turn ran 72 h and the 62 h of it green was away.  A reader who had
    the turn's first entry and then, by the reader's own clock, the timeout 73 h later (after
    the plain deadline, before the extended one) is told the host's clock ran ahead; 135 h
    later, nothing is said."""
    es = timed_out_after_absence(tmp_path)
    log = write(tmp_path / "timed.yaml", es)
    entries = read_log(log)[0]
    timeout = entries[-1]
    assert isinstance(timeout, Timeout)
    kept_last, got = timeout.since, seconds(at(1000))
    early = early_timeouts(entries, kept_last, got, got + 73 * HOUR, 72 * HOUR)
    assert len(early) == 1 and early[0].startswith(f"warning (R8.2): entry {timeout.seq} times green out"), early
    assert early_timeouts(entries, kept_last, got, got + 135 * HOUR, 72 * HOUR) == []
    assert early_timeouts(entries, kept_last, got, got + 133 * HOUR, 72 * HOUR) != []  # 134 h less the allowance
