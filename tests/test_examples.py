"""The recorded example games (examples/): they verify, audit, and hold what was sent."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from pbem.cli import main
from pbem.log.logfile import read_docs
from pbem.log.moves import read_move
from pbem.log.yamlio import dump_yaml

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
NAMES = ["rattus-2p", "rattus-3p", "rattus-4p"]


@pytest.mark.parametrize("name", NAMES)
def test_example_verifies_and_audits(name: str) -> None:
    log = EXAMPLES / name / "log.yaml"
    for command in ("verify", "audit"):
        result = CliRunner().invoke(main, [command, str(log)])
        assert result.exit_code == 0, result.output + result.stderr
    assert "verdict: FAIR" in result.output


@pytest.mark.parametrize("name", NAMES)
def test_example_holds_only_public_files(name: str) -> None:
    folder = EXAMPLES / name
    files = {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()}
    assert "log.yaml" in files
    assert all(f == "log.yaml" or (f.startswith("moves/") and f.endswith(".yaml")) for f in files), files
    entries, _ = read_docs(folder / "log.yaml")
    assert entries[-1]["kind"] == "reveal"  # the log alone audits
    assert entries[0]["players"] == ["red", "green", "blue", "yellow"][: int(name[-2])]


@pytest.mark.parametrize("name", NAMES)
def test_move_files_are_the_recorded_moves(name: str) -> None:
    folder = EXAMPLES / name
    entries, _ = read_docs(folder / "log.yaml")
    recorded = [e for e in entries if "move" in e]
    files = sorted((folder / "moves").iterdir())
    assert len(files) == len(recorded)
    for number, (path, entry) in enumerate(zip(files, recorded, strict=True), start=1):
        assert path.name.startswith(f"{number:04d}-")  # in the order the host applied them
        move = read_move(path)
        assert move.to_raw() == entry["move"], path.name
        assert move.player == entry["player"] and path.name.split("-")[1].removesuffix(".yaml") == entry["player"]
        assert path.read_bytes() == dump_yaml(entry["move"]).encode("utf-8"), path.name


@pytest.mark.parametrize("name", NAMES)
def test_log_is_plain_yaml(name: str) -> None:
    """P1: any standard YAML reader gets the same entries as pbem's own reader."""
    log = EXAMPLES / name / "log.yaml"
    entries, _ = read_docs(log)
    standard = list(yaml.safe_load_all(log.read_text(encoding="utf-8")))
    assert standard == entries
    assert all(isinstance(e, dict) for e in standard)


def test_examples_are_reproducible() -> None:
    """examples/make_examples.py makes exactly the files on disk (fixed seed, secret, nonces)."""
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / "make_examples.py"), "--check"],
        capture_output=True, text=True, timeout=120, check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize("name", NAMES)
def test_example_opens_with_commit_then_reveal(name: str) -> None:
    """P4: every seat commits, then every seat reveals; the last reveal starts the game; each
    opening move answers entry 0 (P7) and its file is kept beside the turns."""
    entries, hashes = read_docs(EXAMPLES / name / "log.yaml")
    players = entries[0]["players"]
    n = len(players)
    assert entries[0]["protocol"] == "pbem-rattus/v2" and entries[0]["edition"] == "standard"
    assert [e["kind"] for e in entries[: 2 * n + 2]] == ["create", *["commit"] * n, *["nonce"] * n, "start"]
    assert sorted(e["player"] for e in entries[1 : n + 1]) == sorted(players)
    assert sorted(e["player"] for e in entries[n + 1 : 2 * n + 1]) == sorted(players)
    for entry in entries[1 : 2 * n + 1]:
        assert entry["move"]["after"]["seq"] == 0 and hashes[0].startswith(entry["move"]["after"]["hash"])
    start = entries[2 * n + 1]
    assert start["nonces"] == {e["player"]: e["move"]["nonce"] for e in entries[n + 1 : 2 * n + 1]}
    kinds = sorted(p.name.removesuffix(".yaml").split("-", 2)[2] for p in (EXAMPLES / name / "moves").iterdir()
                   if p.name.count("-") == 2)
    assert kinds == ["commit"] * n + ["nonce"] * n


@pytest.mark.parametrize("name", NAMES)
def test_every_example_entry_has_its_time_in_order(name: str) -> None:
    """P7: every entry has ``at``, RFC 3339 UTC to the second, never earlier than the one before."""
    entries, _ = read_docs(EXAMPLES / name / "log.yaml")
    stamps = [e["at"] for e in entries]
    assert all(re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", at) for at in stamps)
    assert stamps == sorted(stamps)
