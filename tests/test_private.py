"""R5.6, P6: a Witch's look is private to its player, and only looks that happened count."""

from __future__ import annotations

from pathlib import Path

from clitools import cli, ok, snapshot

from pbem.errors import Exit
from pbem.host.create import NewGame, create
from pbem.host.private import PRIVATE_DIR, read_private
from pbem.log.game import Game
from pbem.log.yamlio import dump_yaml
from pbem.referee.audit import host_faces
from pbem.rules.data import face_words
from pbem.sim.demo import open_game


def reveal_doc(game: Game, seq: int, token: str) -> str:
    """A true look at ``token`` (its face and salt from the test game's known secret, P6)."""
    faces = host_faces(game, bytes(32))
    return "---\n" + dump_yaml({"seq": seq, "token": token, "token_id": faces.face(token).id,
                                "salt": faces.salt(token)})


def test_r5_6_a_look_left_by_a_killed_apply_is_not_shown(tmp_path: Path) -> None:
    """The private file is written before the log; a kill in between leaves a look
    for an entry that never happened. It is ignored, not shown as knowledge."""
    path = create(tmp_path, NewGame("g", ("red", "blue"), secret=bytes(32)))
    game = open_game(tmp_path, "g")  # P4: two commitments, two reveals, the start
    assert game.started and game.last_seq == 5
    folder = path / PRIVATE_DIR
    folder.mkdir()
    (folder / "red.yaml").write_text(reveal_doc(game, 5, "t03") + reveal_doc(game, 6, "t05"))
    assert [d["token"] for d in read_private(path, "red", up_to=5)] == ["t03"]
    shown = ok("show", "g", "--games", tmp_path, "--as", "red")
    face = host_faces(game, bytes(32)).face("t03")
    assert f"rat t03 = {face.id} ({face_words(face)};" in shown and "t05" not in shown.split("private to red:")[1]


def test_r5_6_p6_a_changed_private_file_is_caught_not_believed(tmp_path: Path) -> None:
    """A look whose face was edited no longer opens its commitment (P6): the seat's view
    refuses it (a tamper error naming the file), and the files stay as they were."""
    path = create(tmp_path, NewGame("g", ("red", "blue"), secret=bytes(32)))
    game = open_game(tmp_path, "g")
    folder = path / PRIVATE_DIR
    folder.mkdir()
    true = host_faces(game, bytes(32)).face("t03").id
    other = next(t.id for t in game.catalogue.tokens if t.id != true)
    (folder / "red.yaml").write_text(reveal_doc(game, 5, "t03").replace(true, other))
    before = snapshot(tmp_path)
    result = cli("show", "g", "--games", tmp_path, "--as", "red")
    assert result.exit_code == Exit.TAMPERED and "red's private file" in result.stderr
    assert "(P6)" in result.stderr and snapshot(tmp_path) == before
