"""The README's main job (`pbem demo`) and `pbem simulate`, as a user runs them."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from pbem.cli import main
from pbem.log.logfile import read_docs


@pytest.mark.parametrize("players", [2, 3, 4])
def test_demo_plays_reveals_and_audits_a_whole_game(tmp_path: Path, players: int) -> None:
    result = CliRunner().invoke(
        main, ["demo", "--player-count", str(players), "--games", str(tmp_path), "--seed", "5", "--quiet"]
    )
    assert result.exit_code == 0, result.output
    assert re.search(r"^winner: (red|green|blue|yellow)$", result.output, re.M)
    (game,) = [p for p in tmp_path.iterdir() if p.is_dir() and not p.name.startswith("+")]  # not the host index
    log = game / "log.yaml"
    moves = sorted((game / "moves").iterdir())
    assert moves, "every bot move is kept as the file that was applied"
    kinds = [e["kind"] for e in read_docs(log)[0]]
    # P4: the opening is played through the real apply path: commitments, then nonces
    assert kinds[: 2 * players + 2] == ["create", *["commit"] * players, *["nonce"] * players, "start"]
    assert kinds[-1] == "reveal" and set(kinds[2 * players + 2 : -1]) == {"move"}
    assert sum(p.name.endswith(("-commit.yaml", "-nonce.yaml")) for p in moves) == 2 * players
    for command in ("verify", "audit"):
        checked = CliRunner().invoke(main, [command, str(log)])
        assert checked.exit_code == 0, checked.output
    assert "verdict: FAIR" in checked.output


def test_readme_main_command_runs_as_a_process(tmp_path: Path) -> None:
    """`python3 -m pbem demo`, the README's first command after the install."""
    done = subprocess.run(
        [sys.executable, "-m", "pbem", "demo", "--quiet"],
        cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "audit: the secret matches its commitment (P3)" in done.stdout
    assert (tmp_path / "demo-games").is_dir()


def test_simulate_prints_the_statistics_a_designer_asks_for() -> None:
    result = CliRunner().invoke(main, ["simulate", "--count", "20", "--player-count", "3", "--seed", "1"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0] == "games played: 20 (3 players)"
    assert lines[1].startswith("games per second: ")
    assert re.match(r"average game length: \d+\.\d turns$", lines[2])
    shares = [float(x) for x in re.findall(r"seat \d: ([\d.]+)%", lines[3])]
    assert len(shares) == 3 and abs(sum(shares) - 100) < 0.5
    assert lines[4].startswith("average surviving cubes per player: ")


def test_simulate_is_reproducible_from_its_seed() -> None:
    def run() -> list[str]:
        out = CliRunner().invoke(main, ["simulate", "--count", "5", "--player-count", "4", "--seed", "9"]).output
        return [line for line in out.splitlines() if not line.startswith("games per second")]

    assert run() == run()
