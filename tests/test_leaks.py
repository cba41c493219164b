"""P6: nothing public ever shows a face-down token's face or salt.

At the moment of each output, for every token not flipped (face down on the
board, in the supply, or removed from the game): its salt's hex appears
nowhere, and a catalogue id appears only in the flip description of a flipped
token whose face it is.  Checked on every ``apply`` report, every refusal of
a (mostly illegal) move naming real tokens, ``show``, ``show --json``,
``template`` and the public log, at every turn of whole bot games.  The
secret file and the private reveals are mode 0600.  bench/stress.py plays
thousands of games."""

from __future__ import annotations

from pathlib import Path

import pytest
from hardening import SECRET, LeakCheck, leak_game, leak_game_memory, make_game

from pbem.host.games import load_game


def test_no_leak_in_10_games(tmp_path: Path) -> None:
    leak = LeakCheck(tmp_path)
    for k in range(10):
        leak_game_memory(tmp_path, f"leak-{k}", 2 + k % 3, seed=k, leak=leak)
    assert leak.leaks == []
    assert leak.checked > 1500


@pytest.mark.parametrize("lang", ["hu", "el", "uk"])
def test_no_leak_in_a_players_language(tmp_path: Path, lang: str) -> None:
    """The refusals and the board said in Hungarian, Greek or Ukrainian give no face away."""
    leak = LeakCheck(tmp_path)
    for k in range(2):
        leak_game_memory(tmp_path, f"leak-{lang}-{k}", 3 + k, seed=10 + k, leak=leak, langs=(lang,))
    assert leak.leaks == []
    assert leak.checked > 250


def test_no_leak_through_the_command_line(tmp_path: Path) -> None:
    leak = leak_game(tmp_path, "leak-cli", 4, seed=1, bad_per_turn=1, secret=SECRET)
    assert leak.leaks == []
    assert (tmp_path / "leak-cli" / "private").exists()  # a Witch looked: its file was checked too


@pytest.fixture()
def check(tmp_path: Path) -> tuple[LeakCheck, Path]:
    path = make_game(tmp_path, "probe", 3, seed=1, moves=4)
    return LeakCheck(path), path


def test_the_leak_check_sees_a_salt(check: tuple[LeakCheck, Path]) -> None:
    leak, path = check
    game = load_game(path)
    known = leak.faces(game)
    assert known is not None
    hidden = next(t for t in known[1] if t not in game.state.flipped)  # type: ignore[union-attr]
    leak.check(f"debug: {known[1][hidden].upper()}", game, "probe")
    assert leak.leaks and "salt" in leak.leaks[0]


def test_the_leak_check_sees_a_face(check: tuple[LeakCheck, Path]) -> None:
    leak, path = check
    game = load_game(path)
    known = leak.faces(game)
    assert known is not None and game.state is not None
    hidden = next(t for t in known[1] if t not in game.state.flipped)
    face = known[0].look(hidden)
    leak.check(f"rat {hidden} in Gallia is {face} (threshold 2, 1 cube): no outbreak", game, "flip")
    leak.check(f"token {hidden} is {face}", game, "error")
    leak.check(f"you named {face}", game, "echo", user_input=f"token: {face}")
    assert len(leak.leaks) == 2, leak.leaks


def test_secret_and_private_files_are_0600(check: tuple[LeakCheck, Path]) -> None:
    leak, path = check
    leak.check_modes(path)
    assert leak.leaks == []
    (path / "secret.yaml").chmod(0o640)
    leak.check_modes(path)
    assert leak.leaks
