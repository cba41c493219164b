"""No one steers the deal (PROTOCOL P4, P7, P9).

Each test is one attack of a host (or a player in league with it) that could
steer the deal or a player's clock, and what pbem now says to it: a waiver of
a committed seat is refused by the host and by every reader; a game whose seed
took no player's nonce is never FAIR; a nonce is revealed only when the
opening allows it; a player can check that the start used their own nonce; a
host clock ahead of the reader's is named; history and list carry the notices.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from clitools import cli, ok, snapshot

from pbem.errors import Exit
from pbem.fair.protocol import entry_hash
from pbem.host.games import load_game
from pbem.log.logfile import link, read_docs
from pbem.log.yamlio import dump_entry, dump_yaml
from pbem.player.nonces import commit_move, reveal_move

GAME = "st"
SECRET = "5e" * 32
NONCE = {"red": bytes([1]) * 16, "green": bytes([2]) * 32, "blue": bytes([3]) * 64}
PLAYERS = ("red", "green", "blue")


@pytest.fixture
def games(tmp_path: Path) -> Path:
    folder = tmp_path / "games"
    secret = tmp_path / "secret.hex"
    secret.write_text(SECRET)
    ok("new", GAME, "--players", ",".join(PLAYERS), "--secret-file", secret, "--games", folder)
    return folder


def send(games: Path, data: dict[str, object], name: str = "move.yaml") -> Path:
    path = games.parent / name
    path.write_text(dump_yaml(data), encoding="utf-8")
    return path


def commit(games: Path, player: str) -> None:
    ok("apply", send(games, commit_move(load_game(games / GAME), player, NONCE[player])), "--games", games)


def reveal(games: Path, player: str) -> None:
    ok("apply", send(games, reveal_move(load_game(games / GAME), player, NONCE[player])), "--games", games)


def with_entry(games: Path, tmp_path: Path, extra: dict[str, object], name: str) -> Path:
    """The game's log with one more entry, chained and stamped as the host would (no signature)."""
    entries, hashes = read_docs(games / GAME / "log.yaml")
    forged = link(extra, len(entries), hashes[-1], entries[-1]["at"])
    log = tmp_path / name
    log.write_text("".join(dump_entry(e) for e in [*entries, forged]), encoding="utf-8")
    return log


# --- 1. the held-reveal waiver ------------------------------------------------------------

def test_the_host_cannot_waive_a_committed_seat(games: Path) -> None:
    """The attack: hold the mailed reveals, compute the deal for each subset of seats, waive
    the committed seats of one's choice, then record the other reveals."""
    for player in PLAYERS:
        commit(games, player)
    before = snapshot(games)
    result = cli("waive", GAME, "--player", "blue", "--games", games)
    assert result.exit_code == Exit.STATE, result.output + result.stderr
    assert "blue has committed to a nonce" in result.stderr and "(P4)" in result.stderr
    assert snapshot(games) == before, "a refused waiver changed a file"


def test_a_log_waiving_a_committed_seat_is_refused_by_every_reader(games: Path, tmp_path: Path) -> None:
    for player in PLAYERS:
        commit(games, player)
    log = with_entry(games, tmp_path, {"kind": "waive", "player": "blue"}, "waived.yaml")
    seq = len(read_docs(log)[0]) - 1
    for command in ("verify", "audit"):
        result = cli(command, log)
        assert result.exit_code == Exit.TAMPERED, (command, result.output + result.stderr)
        assert f"entry {seq}" in result.stderr and "blue has committed" in result.stderr
    assert f"REFUSED. The log does not verify at entry {seq} (P4" in cli("audit", log).output


# --- 2. whose entropy made the seed -------------------------------------------------------

def play_out(games: Path, game_id: str, seed: int = 7) -> Path:
    """Random bots play the started game to its end through the host's path; the host reveals."""
    import random

    from pbem.bots.randombot import bot_actions
    from pbem.host.games import apply_move
    from pbem.log.moves import read_move
    from pbem.sim.demo import write_move

    rng, n = random.Random(seed), 0
    game = load_game(games / game_id)
    moves = games.parent / f"moves-{game_id}"
    moves.mkdir()
    while game.state is not None and game.state.to_move is not None:
        n += 1
        target = write_move(game, game.state.to_move, bot_actions(game.state, rng), moves, n)
        game = apply_move(games, read_move(target)).game
    assert game.secret is not None  # P6: revealed by the host's step at the end (pbem new --reveal-secret auto)
    return games / game_id / "log.yaml"


def os_game(tmp_path: Path, game_id: str, players: str = "red,green,blue") -> Path:
    """A game whose entry 0 says ``made: os-csprng`` (the attack: a ground secret marked so)."""
    folder = tmp_path / "games"
    ok("new", game_id, "--players", players, "--games", folder)
    return folder


@pytest.fixture(scope="module")
def all_waived(tmp_path_factory: pytest.TempPathFactory) -> Path:
    games = os_game(tmp_path_factory.mktemp("waived"), "alone")
    for player in PLAYERS:
        ok("waive", "alone", "--player", player, "--games", games)
    return play_out(games, "alone")


def test_a_deal_no_player_seeded_is_never_fair_and_names_the_host(all_waived: Path) -> None:
    """The attack: grind a secret offline for a chosen deal, mark it as the OS's, waive every
    seat. The log verifies, but no verdict may call the deal FAIR."""
    out = ok("audit", all_waived)
    assert "verdict: FAIR" not in out
    assert "verdict: HOST'S DEAL. No player's nonce went into the seed, so the host alone could choose the deal" in out
    assert "seed (P4): the seed comes from the host's secret alone; waived (no nonce): red, green, blue" in out
    for command in ("verify", "show"):
        args = (all_waived,) if command == "verify" else ("alone", "--games", all_waived.parent.parent)
        text = ok(command, *args)
        assert "the host alone could choose the deal" in text, (command, text)


def test_audit_min_agrees_on_the_hosts_deal(all_waived: Path) -> None:
    from audittools import agree

    assert agree(all_waived).startswith("verdict: HOST'S DEAL.")


def test_the_html_page_does_not_call_the_hosts_deal_fair(all_waived: Path, tmp_path: Path) -> None:
    page = tmp_path / "page.html"
    ok("html", all_waived, "-o", page)
    text = page.read_text(encoding="utf-8")
    data = text.split('id="pbem-data">', 1)[1].split("</script>", 1)[0]  # the page's JSON (P6's verdict)
    verdict = json.loads(data)["verdict"]
    shown = re.sub(r"<script[^>]*>.*?</script>", "", text, flags=re.S)  # its words, not its code nor data
    assert verdict["fair"] is False and "verdict: FAIR" not in shown
    assert verdict["lines"][-1].startswith("verdict: HOST'S DEAL.")
    assert any("the seed comes from the host's secret alone" in line for line in verdict["lines"])


def test_every_verdict_names_the_nonces_that_made_the_seed(games: Path) -> None:
    commit(games, "red")
    commit(games, "green")
    ok("waive", GAME, "--player", "blue", "--games", games)
    reveal(games, "red")
    reveal(games, "green")
    line = "seed (P4): the seed comes from the host's secret and the nonces of red, green; waived (no nonce): blue"
    assert line in ok("verify", games / GAME / "log.yaml")
    assert line in ok("show", GAME, "--games", games)
    assert "HOST'S DEAL" not in ok("show", GAME, "--games", games)


# --- 3. no early reveal -----------------------------------------------------------------------

def test_pbem_nonce_reveal_refuses_before_every_seat_committed(games: Path, tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """The attack: an honest player reveals early; a seat in league with the host then
    commits after seeing it, trying nonces until the deal suits it."""
    monkeypatch.chdir(tmp_path)
    first = tmp_path / "red-commit.yaml"
    ok("nonce", GAME, "--player", "red", "--out", first, "--games", games)
    ok("apply", first, "--games", games)
    out = tmp_path / "red-nonce.yaml"
    before = snapshot(tmp_path)
    result = cli("nonce", GAME, "--player", "red", "--reveal", "--out", out, "--games", games)
    assert result.exit_code == Exit.STATE, result.output + result.stderr
    assert "every seat has committed or been waived" in result.stderr and "green, blue" in result.stderr
    assert "(P4)" in result.stderr and result.stdout == ""
    assert snapshot(tmp_path) == before and not out.exists()
    result = cli("nonce", GAME, "--player", "red", "--reveal", "--games", games)  # to stdout: nothing either
    assert result.exit_code == Exit.STATE and result.stdout == ""
    ok("waive", GAME, "--player", "green", "--games", games)
    ok("waive", GAME, "--player", "blue", "--games", games)
    ok("nonce", GAME, "--player", "red", "--reveal", "--out", out, "--games", games)
    ok("apply", out, "--games", games)
    assert load_game(games / GAME).started


# --- 5. a player checks their own nonce -----------------------------------------------------

def test_verify_and_audit_with_the_kept_nonce_catch_the_hosts_own_nonce(games: Path, tmp_path: Path) -> None:
    """The attack: in an unsigned game the host records a commitment and a nonce of its own
    for red's seat; only the nonce red kept shows that red's entropy is not in the seed."""
    kept = tmp_path / "red-kept.yaml"
    ok("nonce", GAME, "--player", "red", "--keep", kept, "--out", tmp_path / "red-commit.yaml", "--games", games)
    ok("apply", send(games, commit_move(load_game(games / GAME), "red", bytes([9]) * 32)), "--games", games)
    for player in ("green", "blue"):
        commit(games, player)
    ok("apply", send(games, reveal_move(load_game(games / GAME), "red", bytes([9]) * 32)), "--games", games)
    for player in ("green", "blue"):
        reveal(games, player)
    log = games / GAME / "log.yaml"
    start = len(read_docs(log)[0]) - 1
    ok("verify", log)  # the log itself is consistent
    result = cli("verify", log, "--nonce", kept)
    assert result.exit_code == Exit.TAMPERED, result.output + result.stderr
    assert f"entry {start}: the start used the nonce 0909090909090909... for red" in result.stderr
    assert "not the nonce red kept in red-kept.yaml" in result.stderr and "(P4)" in result.stderr


def test_the_kept_nonce_that_the_start_used_is_confirmed(games: Path, tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    for player in PLAYERS:
        out = tmp_path / f"{player}-commit.yaml"
        ok("nonce", GAME, "--player", player, "--out", out, "--games", games)
        ok("apply", out, "--games", games)
    log = games / GAME / "log.yaml"
    before = ok("verify", log, "--nonce", tmp_path / f"nonce-{GAME}-red.yaml")  # before the start: the commitment
    assert f"ok: red's commitment (entry 1) is to exactly the nonce red kept in nonce-{GAME}-red.yaml (P4)" in before
    for player in PLAYERS:
        out = tmp_path / f"{player}-nonce.yaml"
        ok("nonce", GAME, "--player", player, "--reveal", "--out", out, "--games", games)
        ok("apply", out, "--games", games)
    said = ok("verify", log, "--nonce", tmp_path / f"nonce-{GAME}-green.yaml")
    assert f"ok: the start (entry 7) used exactly the nonce green kept in nonce-{GAME}-green.yaml (P4)" in said


def test_audit_with_a_kept_nonce_the_start_did_not_use_is_refused(all_waived: Path, tmp_path: Path) -> None:
    """A seat waived although its player kept a nonce: the audit with that file refuses."""
    entries, _ = read_docs(all_waived)
    kept = tmp_path / "red.yaml"
    kept.write_text(dump_yaml({"game": "alone", "player": "red", "entry0": entry_hash(entries[0]),
                               "nonce": "ab" * 32}), encoding="utf-8")
    result = cli("audit", all_waived, "--nonce", kept)
    assert result.exit_code == Exit.TAMPERED, result.output + result.stderr
    assert "the start used no nonce (the seat was waived) for red" in result.stderr
    assert "verdict: REFUSED" in result.stdout


# --- 8. history and list carry the notices --------------------------------------------------

def test_history_and_list_say_test_game_and_custom_game(tmp_path: Path) -> None:
    import shutil

    from editiontools import DATA

    data = tmp_path / "data"  # the standard map and a catalogue with one threshold changed
    data.mkdir()
    shutil.copy(DATA / "map.yaml", data / "map.yaml")
    (data / "tokens.yaml").write_text((DATA / "tokens.yaml").read_text().replace("threshold: 1", "threshold: 2", 1))
    folder = tmp_path / "games"
    secret = tmp_path / "secret.hex"
    secret.write_text(SECRET)
    ok("new", "tested", "--players", "red,green", "--secret-file", secret, "--games", folder)
    ok("new", "custom", "--players", "red,green", "--data", data, "--games", folder)
    listed = {line.split(":", 1)[0]: line for line in ok("list", "--games", folder).splitlines()}
    assert "[TEST GAME]" in listed["tested"] and "CUSTOM" not in listed["tested"]
    assert "[CUSTOM GAME]" in listed["custom"] and "TEST GAME" not in listed["custom"]
    assert ok("history", "tested", "--games", folder).startswith("TEST GAME: its secret was supplied")
    assert ok("history", "custom", "--games", folder).startswith("CUSTOM GAME: its map or rat tokens")


# --- 6. a clock ahead of the reader's -----------------------------------------------------

def deadline_game(tmp_path: Path) -> tuple[Path, Path]:
    """A started game with a 72 h deadline, created and opened at the suite's clock."""
    games = tmp_path / "games"
    secret = tmp_path / "secret.hex"
    secret.write_text(SECRET)
    ok("new", GAME, "--players", ",".join(PLAYERS), "--deadline", "72h", "--secret-file", secret, "--games", games)
    for player in PLAYERS:
        commit(games, player)
    for player in PLAYERS:
        reveal(games, player)
    return games, games / GAME / "log.yaml"


def test_a_host_clock_a_year_ahead_is_named_by_verify(tmp_path: Path) -> None:
    """The attack: 'pbem tick --now 2031-...' times red out at once. Not a refusal (a fast
    clock is not tampering), but a warning naming the entry."""
    games, log = deadline_game(tmp_path)
    ok("tick", "--now", "2027-11-30T09:00:00Z", "--games", games)
    seq = len(read_docs(log)[0]) - 1
    result = cli("verify", log)
    assert result.exit_code == 0, result.output + result.stderr
    assert f"warning (P7): entry {seq} is stamped 2027-11-30T09:00:00Z, later than your clock" in result.stderr
    assert "the host's clock runs ahead of yours" in result.stderr


def test_a_clock_a_little_fast_is_not_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _games, log = deadline_game(tmp_path)
    monkeypatch.setenv("PBEM_NOW", "2026-11-30T08:51:00Z")  # the reader's clock 9 minutes behind
    result = cli("verify", log)
    assert result.exit_code == 0 and "warning" not in result.stderr, result.stderr


def test_a_timeout_sooner_than_its_deadline_after_the_kept_log_is_named(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """The host stamps the timeout exactly at its deadline, but it reached the reader an
    hour after the reader's kept copy of the entry that began the turn: by the reader's own
    clock the deadline had not passed. --extends KEPT names it."""
    import os
    import shutil

    from pbem.log.clock import at_of, seconds

    games, log = deadline_game(tmp_path)
    kept = tmp_path / "kept.yaml"
    shutil.copy(log, kept)
    start_at = read_docs(log)[0][-1]["at"]
    due = at_of(seconds(start_at) + 72 * 3600)
    ok("tick", "--now", due, "--games", games)
    monkeypatch.setenv("PBEM_NOW", at_of(seconds(due) + 60))  # verified after the deadline: no 'ahead'
    os.utime(kept, (seconds(start_at), seconds(start_at)))
    got = seconds(start_at) + 3600
    os.utime(log, (got, got))
    result = cli("verify", log, "--extends", kept)
    assert result.exit_code == 0, result.output + result.stderr
    seq = len(read_docs(log)[0]) - 1
    assert f"warning (R8.2): entry {seq} times " in result.stderr
    assert "less than the deadline apart" in result.stderr and "warning (P7)" not in result.stderr
    os.utime(log, (seconds(due), seconds(due)))  # got when the deadline had passed: nothing to say
    assert "warning" not in cli("verify", log, "--extends", kept).stderr


def test_a_finished_game_whose_host_waived_a_committed_seat_is_refused_by_every_reader(tmp_path: Path) -> None:
    """The whole attack, as its log reads: blue committed, the host held blue's mailed reveal,
    waived blue for the deal it preferred and recorded the others. Old pbem called it FAIR
    (the seed honestly takes blue's nonce as empty); every reader now refuses the waiver."""
    from audittools import agree, minimal
    from tampering import rechain

    games = os_game(tmp_path, "held")
    for player in ("red", "green"):
        ok("apply", send(games, commit_move(load_game(games / "held"), player, NONCE[player]), f"{player}.yaml"),
           "--games", games)
    ok("waive", "held", "--player", "blue", "--games", games)
    for player in ("red", "green"):
        ok("apply", send(games, reveal_move(load_game(games / "held"), player, NONCE[player]), f"{player}-n.yaml"),
           "--games", games)
    log = play_out(games, "held")
    assert "verdict: FAIR." in ok("audit", log)  # honest: blue never committed
    assert agree(log).startswith("verdict: FAIR.")
    entries, _ = read_docs(log)
    waiver = next(i for i, e in enumerate(entries) if e["kind"] == "waive")
    blue = {"at": entries[waiver]["at"], "kind": "commit", "player": "blue",
            "move": commit_move(load_game(games / "held"), "blue", NONCE["blue"])}
    doctored = tmp_path / "held.yaml"
    doctored.write_text("".join(dump_entry(e) for e in rechain([*entries[:waiver], blue, *entries[waiver:]])),
                        encoding="utf-8")
    for command in ("verify", "audit"):
        result = cli(command, doctored)
        assert result.exit_code == Exit.TAMPERED, (command, result.output + result.stderr)
        assert f"entry {waiver + 1}: " in result.stderr and "blue has committed to a nonce" in result.stderr
    assert minimal(doctored) == (Exit.TAMPERED, f"verdict: REFUSED. The log does not verify at entry {waiver + 1} "
                                                "(P4; how to check: docs/protocol.md).")


@pytest.mark.parametrize(("players", "waived"), [("red,green", ("green",)), ("red,green,blue", ("red", "blue")),
                                                 ("red,green,blue,yellow", ("yellow",))])
def test_audit_min_and_pbem_audit_agree_on_games_with_waived_seats(tmp_path: Path, players: str,
                                                                   waived: tuple[str, ...]) -> None:
    games = os_game(tmp_path, "w", players)
    seats = players.split(",")
    nonces = {p: bytes([i + 1]) * 16 for i, p in enumerate(seats)}
    for player in waived:
        ok("waive", "w", "--player", player, "--games", games)
    for make in (commit_move, reveal_move):
        for player in (p for p in seats if p not in waived):
            ok("apply", send(games, make(load_game(games / "w"), player, nonces[player]), f"{player}.yaml"),
               "--games", games)
    from audittools import agree

    log = play_out(games, "w", seed=len(seats))
    assert agree(log).startswith("verdict: FAIR.")
    kept = ", ".join(p for p in seats if p not in waived)
    assert f"the nonces of {kept}; waived (no nonce): {', '.join(waived)}" in ok("audit", log)
