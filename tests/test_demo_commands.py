"""The newcomer's path: what `pbem demo` tells you to run next runs, pasted as printed,
and `pbem show` with an unknown game says where it looked and what it saw."""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

PBEM = [sys.executable, "-m", "pbem"]


def run(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=120, check=False)


def test_every_command_the_demo_prints_at_its_end_runs_from_where_it_ran(tmp_path: Path) -> None:
    done = run([*PBEM, "demo", "--quiet", "--player-count", "2", "--seed", "3"], tmp_path)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    start = lines.index("try it yourself, from this folder:")
    commands = [line.strip() for line in lines[start + 1 :]]
    assert [c.split()[1] for c in commands] == ["show", "history", "verify", "audit", "html"]
    for command in commands:
        words = shlex.split(command)
        assert words[0] == "pbem"
        result = run([*PBEM, *words[1:]], tmp_path)  # as pasted into a shell in that folder
        assert result.returncode == 0, (command, result.stderr)
        if words[1] == "audit":
            assert "verdict: FAIR." in result.stdout and "docs/protocol.md" in result.stdout
    assert list(tmp_path.glob("demo-games/*.html")), "pbem html wrote its page"


def test_show_of_an_unknown_game_lists_what_it_sees_and_where_it_looked(tmp_path: Path) -> None:
    assert run([*PBEM, "demo", "--quiet", "--player-count", "2", "--seed", "4"], tmp_path).returncode == 0
    (game,) = [p.name for p in (tmp_path / "demo-games").iterdir() if not p.name.startswith("+")]
    here = run([*PBEM, "show", game], tmp_path)  # the newcomer's mistake: no --games
    assert here.returncode == 6
    assert str(tmp_path) in here.stderr and "--games demo-games" in here.stderr
    there = run([*PBEM, "show", "nosuch", "--games", "demo-games"], tmp_path)
    assert there.returncode == 6
    assert str(tmp_path / "demo-games") in there.stderr and f"the games there: {game}" in there.stderr
