"""README.md's walk-through, typed as a newcomer types it: every line of its "A game in a
few lines" block, in order, in an empty folder, each one a shell line that must succeed.

A comment in the block is only a comment: what a line says happens must be done by the
lines themselves (every seat's opening shown, the template filled), or this test stops at
the first line that fails, and says which.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from pbem.host.games import load_game

ROOT = Path(__file__).resolve().parent.parent


def walk_through() -> list[str]:
    """The shell lines of the README's first ``sh`` block after "A game in a few lines"."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text[text.index("## A game in a few lines"):]
    block = re.search(r"```sh\n(.*?)```", section, re.S)
    assert block is not None, "README.md's walk-through has no sh block"
    return [line for line in block.group(1).splitlines() if line.strip() and not line.lstrip().startswith("#")]


def test_the_readme_walk_through_runs_line_by_line_in_an_empty_folder(tmp_path: Path) -> None:
    """Each line exits 0 in the order written; at the end the game has started (P4: every
    seat committed and revealed), red's go is recorded (R2.5) and the log verifies."""
    lines = walk_through()
    assert len(lines) >= 10, lines
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    env.pop("PBEM_GAMES", None)
    prelude = f'pbem() {{ "{sys.executable}" -m pbem "$@"; }}\nset -o pipefail\n'
    for number, line in enumerate(lines, 1):
        done = subprocess.run(["bash", "-c", prelude + line], cwd=tmp_path, env=env, capture_output=True,
                              text=True, timeout=120, check=False)
        assert done.returncode == 0, f"README walk-through line {number} failed ({done.returncode}): {line}\n" \
                                     f"{done.stdout}{done.stderr}"
    game = load_game(tmp_path / "spring-1347")
    assert game.state is not None, "the opening did not start the game (P4)"
    assert game.state.cubes.get("gallia") == {"red": 2}, "red's go was not recorded (R2.5)"
    assert game.to_move == "green"
    assert (tmp_path / "board.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
