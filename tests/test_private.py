"""R5.6, P6: a Witch's look is private to its player, and only looks that happened count."""

from __future__ import annotations

from pathlib import Path

from clitools import ok

from pbem.host.create import NewGame, create
from pbem.host.private import PRIVATE_DIR, read_private
from pbem.log.yamlio import dump_yaml
from pbem.sim.demo import open_game


def reveal_doc(seq: int, token: str) -> str:
    return "---\n" + dump_yaml({"seq": seq, "token": token, "token_id": "S01", "salt": "00" * 16,
                                "position": int(token[1:]), "commitment": "ab" * 32})


def test_r5_6_a_look_left_by_a_killed_apply_is_not_shown(tmp_path: Path) -> None:
    """The private file is written before the log; a kill in between leaves a look
    for an entry that never happened. It is ignored, not shown as knowledge."""
    path = create(tmp_path, NewGame("g", ("red", "blue"), secret=bytes(32)))
    game = open_game(tmp_path, "g")  # P4: two commitments, two reveals, the start
    assert game.started and game.last_seq == 5
    folder = path / PRIVATE_DIR
    folder.mkdir()
    (folder / "red.yaml").write_text(reveal_doc(5, "t03") + reveal_doc(6, "t05"))
    assert [d["token"] for d in read_private(path, "red", up_to=5)] == ["t03"]
    shown = ok("show", "g", "--games", tmp_path, "--as", "red")
    assert "rat t03 = S01 (threshold 2: peasant;" in shown and "t05" not in shown.split("private to red:")[1]
