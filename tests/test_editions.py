"""PROTOCOL P3: a game's data, its hash and its edition; and every log reads the same to any reader.

Entry 0 records the game's own map and catalogue, ``data_hash`` over them and
``edition``: ``standard`` only when the data are pbem's.  A log that claims
``standard`` with other data fails every reader; a ``custom`` game says so in
every public output.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml
from clitools import cli, ok
from editiontools import DATA, ROOT, rechain

from pbem.data import STANDARD_DATA_HASHES, default_board, default_catalogue
from pbem.errors import Exit
from pbem.fair.protocol import data_hash
from pbem.log.logfile import read_docs
from pbem.log.yamlio import dump_entry, iter_documents

EXAMPLES = sorted((ROOT / "examples").glob("rattus-*p/log.yaml"))


def test_p3_the_shipped_data_hash_is_the_standard_one() -> None:
    assert data_hash(default_board().to_data(), default_catalogue().to_data()) in STANDARD_DATA_HASHES


def test_p3_a_doctored_catalogue_claiming_standard_fails_verify_and_audit(tmp_path: Path) -> None:
    """Every starting rat's threshold set to 9, data_hash recomputed, still 'standard'."""
    entries, _ = read_docs(ROOT / "examples" / "rattus-3p" / "log.yaml")
    first = entries[0]
    data = first["data"]
    for token in data["tokens"]["tokens"]:
        if token["start"]:
            token["threshold"] = 9
    first["data_hash"] = data_hash(data["map"], data["tokens"])
    log = tmp_path / "doctored.yaml"
    log.write_text("".join(dump_entry(e) for e in rechain(entries)), encoding="utf-8")
    for command in ("verify", "audit"):
        result = cli(command, log)
        assert result.exit_code == Exit.TAMPERED, result.output
        assert "claims the standard edition" in result.stderr and "(P3)" in result.stderr


def test_p3_a_data_hash_that_does_not_match_the_data_fails(tmp_path: Path) -> None:
    entries, _ = read_docs(ROOT / "examples" / "rattus-2p" / "log.yaml")
    entries[0]["data"]["map"]["regions"][0]["name"] = "Albion"
    log = tmp_path / "renamed.yaml"
    log.write_text("".join(dump_entry(e) for e in rechain(entries)), encoding="utf-8")
    result = cli("verify", log)
    assert result.exit_code == Exit.TAMPERED and "data_hash is not the hash" in result.stderr


@pytest.fixture
def custom(tmp_path: Path) -> tuple[Path, Path]:
    """A custom game: the standard map and a catalogue with one threshold changed."""
    folder = tmp_path / "data"
    folder.mkdir()
    shutil.copy(DATA / "map.yaml", folder / "map.yaml")
    text = (DATA / "tokens.yaml").read_text()
    (folder / "tokens.yaml").write_text(text.replace("threshold: 1", "threshold: 2", 1))
    games = tmp_path / "games"
    secret = tmp_path / "s.hex"
    secret.write_text("77" * 32)
    out = ok("new", "c1", "--players", "red,green", "--data", folder, "--secret-file", secret, "--games", games)
    assert "CUSTOM GAME" in out and "TEST GAME" in out
    return games, folder


def test_p3_a_custom_game_says_so_in_show_template_report_verify_and_audit(custom: tuple[Path, Path]) -> None:
    games, _folder = custom
    assert json.loads(read_docs(games / "c1" / "log.yaml")[0][0]["edition"].join('""')) == "custom"
    assert "CUSTOM GAME" in ok("show", "c1", "--games", games)
    assert "CUSTOM GAME" in ok("template", "c1", "--player", "red", "--games", games)
    for player in ("red", "green"):
        report = ok("waive", "c1", "--player", player, "--games", games)
    assert "CUSTOM GAME" in report
    assert "CUSTOM GAME" in ok("template", "c1", "--games", games)
    verified = ok("verify", games / "c1" / "log.yaml")
    assert "CUSTOM GAME" in verified and "TEST GAME" in verified and "trust (P1)" in verified


def test_p3_standard_data_given_with_data_is_still_standard(tmp_path: Path) -> None:
    folder = tmp_path / "data"
    shutil.copytree(DATA, folder)
    ok("new", "s1", "--players", "red,green", "--data", folder, "--games", tmp_path / "g")
    assert read_docs(tmp_path / "g" / "s1" / "log.yaml")[0][0]["edition"] == "standard"
    assert "CUSTOM" not in ok("show", "s1", "--games", tmp_path / "g")


def test_p3_bad_data_is_refused_with_the_reason(tmp_path: Path) -> None:
    folder = tmp_path / "data"
    folder.mkdir()
    shutil.copy(DATA / "map.yaml", folder / "map.yaml")
    (folder / "tokens.yaml").write_text("tokens: []\n")
    result = cli("new", "b1", "--players", "red,green", "--data", folder, "--games", tmp_path / "g")
    assert result.exit_code == Exit.FORMAT and "R1.4 needs 49 tokens" in result.stderr
    assert not (tmp_path / "g" / "b1").exists()


@pytest.mark.parametrize("log", EXAMPLES, ids=lambda p: p.parent.name)
def test_p2_every_log_reads_the_same_to_a_yaml_reader_and_a_json_reader(log: Path) -> None:
    """The log is JSON inside YAML documents (P2): PyYAML and json agree on every entry."""
    text = log.read_text(encoding="utf-8")
    as_yaml = list(yaml.safe_load_all(text))
    as_json = [json.loads(doc) for _line, doc in iter_documents(text)]
    assert as_yaml == as_json and len(as_json) > 10


def test_p2_a_fresh_demo_log_reads_the_same_to_both_readers(tmp_path: Path) -> None:
    ok("demo", "--games", tmp_path, "--seed", "5", "--player-count", "4", "--quiet")
    (log,) = tmp_path.glob("*/log.yaml")
    text = log.read_text(encoding="utf-8")
    assert list(yaml.safe_load_all(text)) == [json.loads(d) for _l, d in iter_documents(text)]


def test_p3_a_custom_game_played_to_the_end_audits_as_custom(custom: tuple[Path, Path]) -> None:
    """The audit of a finished custom game is FAIR for its own data, and says CUSTOM GAME."""
    import random

    from pbem.bots.randombot import bot_actions
    from pbem.host.games import apply_move, load_game
    from pbem.log.moves import read_move
    from pbem.sim.demo import open_game, write_move

    games, _folder = custom
    game = open_game(games, "c1", {"red": b"\x01" * 16, "green": b"\x02" * 16})
    rng = random.Random(3)
    n = 0
    while game.state is not None and game.state.to_move is not None:
        n += 1
        move = write_move(game, game.state.to_move, bot_actions(game.state, rng), games.parent, n)
        game = apply_move(games, read_move(move)).game
    assert game.secret is not None  # P6: revealed by the host's step at the end (pbem new --reveal-secret auto)
    assert load_game(games / "c1").catalogue != default_catalogue()
    out = ok("audit", games / "c1" / "log.yaml")
    assert "verdict: FAIR" in out and "CUSTOM GAME" in out and "TEST GAME" in out
