"""R8: deadlines, `pbem tick`, timeouts played by the stand-in, resignations and new players.

Every time comes from a test clock (``pbem.log.clock.pinned``, ``pbem tick --now``): no test sleeps.
"""

from __future__ import annotations

import copy
import random
from pathlib import Path
from typing import Any

import pytest
from clitools import cli, ok, snapshot
from deadlinetools import HOUR, PLAYERS, T0, at, move, new_game, timed_out_log
from tampering import rechain, refused_at, write

from pbem.bots.randombot import bot_actions
from pbem.errors import Exit, FormatError
from pbem.host.create import NewGame, create
from pbem.host.games import game_dir, load_game
from pbem.log.clock import at_of, pinned, seconds
from pbem.log.game import Game
from pbem.log.logfile import LOG_NAME, read_docs
from pbem.log.moves import after_of
from pbem.log.yamlio import dump_yaml
from pbem.referee.deadlines import due, parse_duration, phrase
from pbem.rules import Place, TakeCard, WitchLook
from pbem.sim.demo import open_game

# --- entry 0, show, template ------------------------------------------------------------------

def test_new_records_the_deadline_in_entry_0_and_every_view_says_when_it_is_due(tmp_path: Path) -> None:
    games = tmp_path / "games"
    out = ok("new", "g", "--players", "red,green", "--first", "red", "--deadline", "3d", "--reminder", "1d12h",
             "--games", games)
    assert "no deadline runs during the opening (P4)" in out
    entries, _ = read_docs(games / "g" / LOG_NAME)
    assert entries[0]["options"] == {"first": "red", "deadline": 3 * 86400, "reminder": 36 * HOUR}
    game = new_game(tmp_path / "four")
    assert game.turn_since == game.last_seq  # R8.1: the start entry made it red's turn
    assert due(game) == ("red", at(72))
    assert phrase(game, at(58)) == "red to move, due Fri 4 Dec 09:00 UTC, in 14 hours"
    show = ok("show", "g", "--games", tmp_path / "four")
    assert "deadline: 3d a turn" in show and "due: red to move, due Fri 4 Dec 09:00 UTC" in show
    template = ok("template", "g", "--games", tmp_path / "four")
    assert "# Deadline (R8.1): due Fri 4 Dec 09:00" in template


@pytest.mark.parametrize("args", [["--deadline", "soon"], ["--deadline", "10s"], ["--reminder", "1h"],
                                  ["--deadline", "2h", "--reminder", "3h"]])
def test_a_bad_deadline_is_refused_and_nothing_is_made(tmp_path: Path, args: list[str]) -> None:
    result = cli("new", "g", "--players", "red,green", "--games", tmp_path, *args)
    assert result.exit_code == Exit.FORMAT and "R8.1" in result.stderr, result.stderr
    assert list(tmp_path.iterdir()) == []


def test_no_deadline_runs_in_the_opening(tmp_path: Path) -> None:
    with pinned(T0):
        create(tmp_path, NewGame("g", PLAYERS, secret=bytes(32), deadline=HOUR))
    game = load_game(tmp_path / "g")
    assert due(game) is None and phrase(game) is None
    assert "0 timeout(s)" in ok("tick", "--now", at(1000), "--games", tmp_path)


def files(root: Path) -> dict[str, str]:
    """Every file's bytes, the host index's database aside: a derived cache (GAMES/+index) that
    SQLite may rewrite (a write-ahead log merged back) with the same rows; its marks are kept."""
    return {name: digest for name, digest in snapshot(root).items() if not name.startswith("+index/games.sqlite")}


# --- tick: timeouts ----------------------------------------------------------------------------

def test_tick_records_a_timeout_at_its_deadline_never_before(tmp_path: Path) -> None:
    game = new_game(tmp_path)
    ok("list", "--games", tmp_path)  # the rows the host noted as it wrote put in the index by a first reader
    before = files(tmp_path)
    assert "0 timeout(s)" in ok("tick", "--now", at(72 - 1 / 3600), "--games", tmp_path)
    assert files(tmp_path) == before
    out = ok("tick", "--now", at(72), "--games", tmp_path)
    assert "1 timeout(s)" in out
    game = load_game(tmp_path / "g")
    entry = game.entries[-1]
    assert entry.raw["kind"] == "timeout" and entry.raw["player"] == "red" and entry.raw["at"] == at(72) == entry.raw["due"]
    assert entry.raw["actions"] == [{"action": "place", "region": entry.raw["actions"][0]["region"], "count": 2}]
    # R8.1: the next turn's deadline runs from the timeout entry
    assert due(game) == ("green", at(144))
    verify = ok("verify", tmp_path / "g" / LOG_NAME)
    assert f"timeout: red's turn (due {at(72)}) played by the stand-in" in verify


def test_tick_twice_at_the_same_moment_changes_nothing(tmp_path: Path) -> None:
    new_game(tmp_path, emails=True)
    ok("tick", "--now", at(50), "--games", tmp_path)  # the reminder (due at 72 h, reminder 24 h before)
    first = files(tmp_path)
    assert any(p.startswith("+mail-queue/") for p in first)
    assert "0 timeout(s) recorded, 0 mail(s) queued" in ok("tick", "--now", at(50), "--games", tmp_path)
    assert files(tmp_path) == first
    ok("tick", "--now", at(80), "--games", tmp_path)  # the timeout and its notices
    second = files(tmp_path)
    assert "0 timeout(s) recorded, 0 mail(s) queued" in ok("tick", "--now", at(80), "--games", tmp_path)
    assert files(tmp_path) == second


def test_a_witch_look_does_not_restart_the_deadline(tmp_path: Path) -> None:
    game = new_game(tmp_path, reminder=None)
    while game.state is not None and game.state.phase.value == "setup":
        game = move(tmp_path, game, at(1))
    since = game.turn_since
    token = next(t for r in game.state.regions for t in game.state.rats[r])  # type: ignore[union-attr]
    game = move(tmp_path, game, at(30), [TakeCard("witch"), WitchLook(token)])
    assert game.entries[-1].raw["kind"] == "move" and game.turn_since == since  # R8.1
    assert due(game) == ("red", at_of(seconds(game.at_of(since)) + 72 * HOUR))


# --- every reader checks a timeout --------------------------------------------------------------


def test_a_timeout_recorded_before_its_deadline_fails_verify_at_that_entry(tmp_path: Path) -> None:
    es = copy.deepcopy(timed_out_log(tmp_path))
    es[-1]["at"] = at(71)
    es[-1]["due"] = at(71)  # a host that also lies about the due time: the log gives 72 h
    where, err = refused_at("verify", write(tmp_path / "early.yaml", rechain(es)))
    assert where == len(es) - 1 and "R8.1" in err
    es[-1]["due"] = at(72)
    where, err = refused_at("verify", write(tmp_path / "early2.yaml", rechain(es)))
    assert where == len(es) - 1 and "before red's deadline" in err and "R8.2" in err


def test_stand_in_actions_other_than_r8_3s_fail_verify_at_that_entry(tmp_path: Path) -> None:
    es = copy.deepcopy(timed_out_log(tmp_path))
    chosen = es[-1]["actions"][0]["region"]
    other = next(r for r in es[0]["data"]["map"]["regions"] if r["id"] != chosen)["id"]
    es[-1]["actions"] = [{"action": "place", "region": other, "count": 2}]
    es[-1]["outcome"] = [{**e, "region": other} if e["event"] == "cubes_placed" else e for e in es[-1]["outcome"]]
    where, err = refused_at("verify", write(tmp_path / "bad.yaml", rechain(es)))
    assert where == len(es) - 1 and "R8.3" in err


def test_a_timeout_in_a_game_without_a_deadline_fails_verify(tmp_path: Path) -> None:
    es = copy.deepcopy(timed_out_log(tmp_path))
    es[0]["options"] = {"first": "red"}
    where, err = refused_at("verify", write(tmp_path / "nodeadline.yaml", rechain(es)))
    assert where == len(es) - 1 and "without a deadline" in err


# --- resign and replace (R8.4) -------------------------------------------------------------------

def resign_data(game: Game, player: str) -> dict[str, Any]:
    return {"game": game.game_id, "player": player, "kind": "resign", "after": after_of(game)}


def test_after_a_resignation_the_stand_in_plays_the_seat_at_once(tmp_path: Path) -> None:
    game = new_game(tmp_path)
    game = move(tmp_path, game, at(1), [Place(game.state.regions[0], 2)])  # type: ignore[union-attr]
    assert game.to_move == "green"
    (tmp_path / "resign.yaml").write_text(dump_yaml(resign_data(game, "green")))
    with pinned(at(2)):
        out = ok("apply", tmp_path / "resign.yaml", "--games", tmp_path)
    assert "green resigns" in out and "the stand-in rule (R8.3) played the turn" in out
    game = load_game(tmp_path / "g")
    assert [e.raw["kind"] for e in game.entries[-2:]] == ["resign", "standin"]
    assert game.to_move == "blue" and due(game) == ("blue", at(74))
    # the snake (R2.5: red green blue yellow yellow blue green) comes back to green: at once
    for hour in (3, 4, 5, 6):
        game = move(tmp_path, game, at(hour))
    assert game.entries[-1].raw["kind"] == "standin" and game.entries[-1].raw["player"] == "green"
    # a resigned player's move is refused (R8.4); a second resignation is stale
    (tmp_path / "again.yaml").write_text(dump_yaml(resign_data(game, "green")))
    result = cli("apply", tmp_path / "again.yaml", "--games", tmp_path)
    assert result.exit_code == Exit.STALE and "R8.4" in result.stderr
    ok("verify", tmp_path / "g" / LOG_NAME)


def test_a_new_player_takes_a_resigned_seat_with_a_new_key(tmp_path: Path) -> None:
    games = tmp_path / "games"
    for name in ("host", "green", "newgreen"):
        ok("keygen", "--out", tmp_path / f"{name}.key")
    with pinned(T0):
        ok("new", "g", "--players", ",".join(PLAYERS), "--first", "green", "--deadline", "72h",
           "--host-key", tmp_path / "host.key",
           "--secret-file", _secret(tmp_path), "--games", games)
        game = open_game(games, "g", {p: bytes([i + 1]) * 16 for i, p in enumerate(PLAYERS)})

    def signed_file(data: dict[str, Any], key: str, name: str) -> Path:
        path = tmp_path / name
        path.write_text(dump_yaml(data))
        ok("sign", path, "--key", tmp_path / key)
        return path

    (tmp_path / "r.yaml").write_text(dump_yaml(resign_data(game, "green")))  # green has no key: unsigned
    with pinned(at(1)):
        ok("apply", tmp_path / "r.yaml", "--games", games)
    game = load_game(games / "g")
    assert game.resigned == {"green"} and game.to_move == "blue"
    with pinned(at(2)):
        out = ok("replace", "g", "--seat", "green", "--email", "new@example.org",
                 "--key", tmp_path / "newgreen.key.pub", "--games", games)
    assert "hands green's seat to a new player with a new key" in out
    game = load_game(games / "g")
    assert game.resigned == set()
    while game.to_move != "green":
        game = move(games, game, at(3))
    data = {"game": "g", "player": "green", "kind": "move", "after": after_of(game),
            "actions": [a.to_dict() for a in bot_actions(game.state, random.Random(1))]}  # type: ignore[arg-type]
    (tmp_path / "unsigned.yaml").write_text(dump_yaml(data))
    for path in (tmp_path / "unsigned.yaml", signed_file(data, "green.key", "other.yaml")):
        refused = cli("apply", path, "--games", games)  # P8: only the new player's key counts now
        assert refused.exit_code == Exit.SIGNATURE, refused.stderr
    with pinned(at(4)):
        ok("apply", signed_file(data, "newgreen.key", "new.yaml"), "--games", games)
    verify = ok("verify", games / "g" / LOG_NAME)
    assert "seat green handed to a new player" in verify and "green resigned" in verify
    assert "seat green handed" in ok("show", "g", "--games", games)


def _secret(tmp_path: Path) -> Path:
    path = tmp_path / "secret.hex"
    path.write_text(bytes(range(32)).hex())
    return path


def test_replace_and_resign_are_refused_before_the_start(tmp_path: Path) -> None:
    with pinned(T0):
        create(tmp_path, NewGame("g", PLAYERS, secret=bytes(32), deadline=HOUR))
    before = snapshot(tmp_path)
    result = cli("replace", "g", "--seat", "red", "--games", tmp_path)
    assert result.exit_code == Exit.STATE and "R8.4" in result.stderr
    result = cli("replace", "g", "--seat", "nobody", "--games", tmp_path)
    assert result.exit_code == Exit.UNKNOWN
    assert snapshot(tmp_path) == before


def test_durations() -> None:
    assert parse_duration("72h", "--deadline") == 72 * HOUR
    assert parse_duration("1d12h30m", "--deadline") == 36 * HOUR + 1800
    with pytest.raises(FormatError):
        parse_duration("", "--deadline")


def test_the_template_after_a_timeout_says_what_the_stand_in_did(tmp_path: Path) -> None:
    new_game(tmp_path)
    ok("tick", "--now", at(72), "--games", tmp_path)
    game = load_game(game_dir(tmp_path, "g"))
    text = ok("template", "g", "--games", tmp_path)
    assert f"# entry {game.last_seq} (" in text and "red's deadline passed" in text
    assert "# the stand-in places 2 cubes" in text


def test_check_gives_the_hosts_verdict_on_a_resignation(tmp_path: Path) -> None:
    game = new_game(tmp_path)
    (tmp_path / "resign.yaml").write_text(dump_yaml(resign_data(game, "yellow")))  # not on turn: allowed
    assert "yellow's resignation would be recorded" in ok("check", tmp_path / "resign.yaml",
                                                          "--log", tmp_path / "g" / LOG_NAME)
    state = ok("show", "g", "--json", "--games", tmp_path)
    assert '"due": {\n   "player": "red",\n   "at": "2026-12-04T09:00:00Z"' in state


def test_tick_without_a_from_address_queues_nothing_and_says_why(tmp_path: Path) -> None:
    new_game(tmp_path, emails=True)
    (tmp_path / "g" / "host.yaml").write_text("emails: {red: red@example.org}\n")  # no mail_from
    out = ok("tick", "--now", at(80), "--games", tmp_path)
    assert "1 timeout(s) recorded, 0 mail(s) queued" in out and "--from" in out
    assert not (tmp_path / "+mail-queue").exists()
    out = ok("tick", "--now", at(80), "--from", "host@example.org", "--games", tmp_path)
    assert "0 timeout(s) recorded, 1 mail(s) queued" in out  # the notice owed, queued now, once
