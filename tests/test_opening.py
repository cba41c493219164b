"""PROTOCOL P4: the opening, commit then reveal, so that nobody can try nonces.

Round 1: every seat commits to ``H(tag || nonce)`` (or the host waives it,
only before the first reveal).  Round 2: every committed nonce is revealed and
must match; the entry recording the last reveal is followed at once by the
start.  Each refusal exits with its code, names P4 and changes no file.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from clitools import cli, ok, snapshot

from pbem.errors import Exit
from pbem.fair.protocol import ZERO_HASH, entry_hash, nonce_commitment
from pbem.host.games import load_game
from pbem.log.game import Opening
from pbem.log.logfile import link, read_docs
from pbem.log.yamlio import dump_entry, dump_yaml
from pbem.player.nonces import commit_move, reveal_move
from pbem.referee.audit import start_entry

GAME = "op"
SECRET = "5e" * 32
NONCE = {"red": bytes([1]) * 16, "green": bytes([2]) * 32, "blue": bytes([3]) * 64}


@pytest.fixture
def games(tmp_path: Path) -> Path:
    folder = tmp_path / "games"
    secret = tmp_path / "secret.hex"
    secret.write_text(SECRET)
    ok("new", GAME, "--players", "red,green,blue", "--secret-file", secret, "--games", folder)
    return folder


def send(games: Path, data: dict[str, object], name: str = "move.yaml") -> Path:
    path = games.parent / name
    path.write_text(dump_yaml(data), encoding="utf-8")
    return path


def commit(games: Path, player: str) -> str:
    game = load_game(games / GAME)
    return ok("apply", send(games, commit_move(game, player, NONCE[player])), "--games", games)


def reveal(games: Path, player: str, nonce: bytes | None = None) -> Path:
    game = load_game(games / GAME)
    return send(games, reveal_move(game, player, NONCE[player] if nonce is None else nonce))


def refused(games: Path, code: Exit, *args: str | Path, says: tuple[str, ...]) -> str:
    before = snapshot(games)
    result = cli(*args)
    assert result.exit_code == code, result.output + result.stderr
    for words in says:
        assert words in result.stderr, result.stderr
    assert snapshot(games) == before, "a refused input changed a file"
    return result.stderr


def test_p4_commit_then_reveal_starts_the_game_with_the_last_reveal(games: Path) -> None:
    for player in ("red", "green", "blue"):
        assert load_game(games / GAME).opening is Opening.COMMIT
        assert f"{player}'s nonce commitment recorded (P4)" in commit(games, player)
    assert load_game(games / GAME).opening is Opening.REVEAL
    ok("apply", reveal(games, "blue"), "--games", games)
    ok("apply", reveal(games, "red"), "--games", games)
    out = ok("apply", reveal(games, "green"), "--games", games)
    assert "green's nonce revealed" in out and "the game starts" in out
    entries, _ = read_docs(games / GAME / "log.yaml")
    assert [e["kind"] for e in entries] == ["create"] + ["commit"] * 3 + ["nonce"] * 3 + ["start"]
    assert entries[-1]["nonces"] == {p: NONCE[p].hex() for p in ("red", "green", "blue")}
    assert "verdict" not in ok("verify", games / GAME / "log.yaml")


def test_p4_a_reveal_that_does_not_match_its_commitment_is_refused(games: Path) -> None:
    for player in ("red", "green", "blue"):
        commit(games, player)
    other = reveal(games, "red", bytes([9]) * 16)
    refused(games, Exit.RULES, "apply", other, "--games", games,
            says=("does not match red's commitment", "(P4)"))
    refused(games, Exit.RULES, "check", other, "--log", games / GAME / "log.yaml",
            says=("does not match red's commitment", "(P4)"))


def test_p4_a_changed_commitment_is_refused(games: Path) -> None:
    """The colluding last player's move: commit, see others, try to commit again."""
    commit(games, "red")
    game = load_game(games / GAME)
    again = send(games, commit_move(game, "red", bytes([7]) * 16))
    refused(games, Exit.RULES, "apply", again, "--games", games,
            says=("already committed", "cannot be changed", "(P4)"))


def test_p4_no_reveal_before_every_seat_committed(games: Path) -> None:
    commit(games, "red")
    refused(games, Exit.STATE, "apply", reveal(games, "red"), "--games", games,
            says=("every seat has committed or been waived", "green, blue", "(P4)"))


def test_p4_a_waiver_after_the_first_reveal_is_refused(games: Path) -> None:
    """The host's attack: see one nonce, then drop a seat to choose among seeds."""
    for player in ("red", "green", "blue"):
        commit(games, player)
    ok("apply", reveal(games, "red"), "--games", games)
    refused(games, Exit.STATE, "waive", GAME, "--player", "blue", "--games", games,
            says=("only before the first nonce is revealed", "(P4)"))


def test_p4_waivers_before_any_reveal_and_the_seed_takes_zero_bytes(games: Path) -> None:
    commit(games, "red")
    out = ok("waive", GAME, "--player", "green", "--games", games)
    assert "waived green's nonce" in out
    refused(games, Exit.STATE, "apply", send(games, commit_move(load_game(games / GAME), "green", NONCE["green"])),
            "--games", games, says=("green's seat was waived", "(P4)"))
    ok("waive", GAME, "--player", "blue", "--games", games)
    ok("apply", reveal(games, "red"), "--games", games)
    game = load_game(games / GAME)
    assert game.started and game.entries[-1].raw["nonces"] == {"red": NONCE["red"].hex(), "green": "", "blue": ""}
    ok("verify", games / GAME / "log.yaml")


def test_p4_every_seat_waived_starts_at_once(games: Path) -> None:
    for player in ("red", "green", "blue"):
        ok("waive", GAME, "--player", player, "--games", games)
    assert load_game(games / GAME).started


def test_p4_a_start_with_a_missing_reveal_is_impossible_and_caught(games: Path, tmp_path: Path) -> None:
    """No command starts a game early (pbem start is gone); a host who writes the start
    entry by hand after two of three reveals makes a log every reader refuses."""
    for player in ("red", "green", "blue"):
        commit(games, player)
    ok("apply", reveal(games, "red"), "--games", games)
    ok("apply", reveal(games, "green"), "--games", games)
    assert cli("start", GAME, "--games", games).exit_code == Exit.USAGE
    entries, hashes = read_docs(games / GAME / "log.yaml")
    dealt = start_entry(load_game(games / GAME), bytes.fromhex(SECRET))  # blue's nonce as empty
    forged = link(dealt.to_raw(), len(entries), hashes[-1], entries[-1]["at"])
    log = tmp_path / "forged.yaml"
    log.write_text("".join(dump_entry(e) for e in [*entries, forged]), encoding="utf-8")
    result = cli("verify", log)
    assert result.exit_code == Exit.TAMPERED
    assert f"entry {len(entries)}: a start before every nonce was revealed" in result.stderr
    assert "blue" in result.stderr


def test_p4_a_log_that_skips_the_start_after_the_last_reveal_is_refused(games: Path, tmp_path: Path) -> None:
    """The start follows the last reveal at once: nothing may come between."""
    for player in ("red", "green", "blue"):
        commit(games, player)
    for player in ("red", "green", "blue"):
        ok("apply", reveal(games, player), "--games", games)
    entries, _ = read_docs(games / GAME / "log.yaml")
    cut = entries[:-1] + [{**entries[-1], "kind": "abandon"}]
    for e in cut[-1:]:
        for key in ("nonces", "setup", "commitments"):
            e.pop(key)
    cut[-1]["prev"] = entry_hash(cut[-2])
    log = tmp_path / "skipped.yaml"
    log.write_text("".join(dump_entry(e) for e in cut), encoding="utf-8")
    result = cli("verify", log)
    assert result.exit_code == Exit.TAMPERED and "must start with this entry" in result.stderr


def test_p4_abandon_before_the_start_ends_the_game_on_the_record(games: Path) -> None:
    commit(games, "red")
    assert "abandoned the game" in ok("abandon", GAME, "--games", games)
    assert "abandoned" in ok("show", GAME, "--games", games)
    refused(games, Exit.STATE, "apply", send(games, commit_move(load_game(games / GAME), "green", NONCE["green"])),
            "--games", games, says=("abandoned", "(P4)"))
    refused(games, Exit.STATE, "abandon", GAME, "--games", games, says=("abandon",))
    ok("verify", games / GAME / "log.yaml")


def test_p4_pbem_nonce_keeps_the_nonce_private_and_reveals_it_later(games: Path, tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    moves = {}
    for player in ("red", "green", "blue"):
        out = tmp_path / f"{player}-commit.yaml"
        ok("nonce", GAME, "--player", player, "--out", out, "--games", games)
        kept = tmp_path / f"nonce-{GAME}-{player}.yaml"
        assert kept.stat().st_mode & 0o777 == 0o600
        moves[player] = out
        assert "nonce:" not in out.read_text()  # only the commitment is mailed
        ok("apply", out, "--games", games)
    refused(games, Exit.STATE, "nonce", GAME, "--player", "red", "--games", games,
            says=("already holds a nonce", "(P4)"))
    for player in ("red", "green", "blue"):
        out = tmp_path / f"{player}-nonce.yaml"
        ok("nonce", GAME, "--player", player, "--reveal", "--out", out, "--games", games)
        ok("apply", out, "--games", games)
    assert load_game(games / GAME).started


def test_p4_templates_for_both_rounds(games: Path) -> None:
    first = ok("template", GAME, "--player", "red", "--games", games)
    assert "# commit <the fingerprint, 64 hex digits>" in first and "Round 1 of 2" in first and "pbem nonce" in first
    for player in ("red", "green", "blue"):
        commit(games, player)
    second = ok("template", GAME, "--player", "red", "--games", games)
    assert "# nonce <" in second and "Round 2 of 2" in second and "--reveal" in second


def test_p4_a_template_placeholder_is_never_accepted(games: Path) -> None:
    """A template sent unfilled is malformed input, not a commitment to nothing."""
    raw = ok("template", GAME, "--player", "red", "--games", games)
    path = games.parent / "unfilled.yaml"
    path.write_text(raw)
    refused(games, Exit.FORMAT, "apply", path, "--games", games, says=("holds no action, commitment", "(R7.3)"))


def test_p4_the_vectors_nonce_commitments() -> None:
    import yaml

    vectors = Path(__file__).parent / "data" / "protocol-vectors.yaml"
    cases = yaml.safe_load(vectors.read_text())["nonce_commitments"]
    assert len(cases) == 3
    for case in cases:
        assert nonce_commitment(bytes.fromhex(case["nonce"])) == case["commitment"]


def test_p7_every_entry_has_the_hosts_clock_never_going_back(
    games: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the game was created at the suite's pinned clock (tests/conftest.py), an hour before
    monkeypatch.setenv("PBEM_NOW", "2026-11-30T10:00:00Z")
    commit(games, "red")
    entries, _ = read_docs(games / GAME / "log.yaml")
    assert entries[-1]["at"] == "2026-11-30T10:00:00Z"
    back = [*entries[:-1], {**entries[-1], "at": "2020-01-01T00:00:00Z"}]
    back[-1]["prev"] = entry_hash(back[-2])
    log = tmp_path / "back.yaml"
    log.write_text("".join(dump_entry(e) for e in back), encoding="utf-8")
    result = cli("verify", log)
    assert result.exit_code == Exit.TAMPERED and "earlier than the entry before" in result.stderr
    assert json.loads(json.dumps(entries[0]["prev"])) == ZERO_HASH
