"""The board picture is drawn once per entry (pbem/mail/pictures.py): every mail of
an entry (the report mails, each `board` command) reuses it, and a kept picture is used only
for the very entry it was drawn for, sealed by the host."""

from __future__ import annotations

from pathlib import Path

from replaytools import _play

from pbem.host import caches
from pbem.host.games import apply_move, load_game
from pbem.log.game import Game
from pbem.log.moves import read_move
from pbem.mail.pictures import PICTURE_NAME, board_picture_of


class Painter:
    """A stand-in for the rasterizer that counts its drawings."""

    def __init__(self) -> None:
        self.drawn: list[int] = []

    def __call__(self, game: Game) -> bytes:
        self.drawn.append(game.last_seq)
        return b"\x89PNG board at entry %d" % game.last_seq


def test_every_mail_of_an_entry_reuses_its_one_drawing(tmp_path: Path) -> None:
    games = tmp_path / "games"
    games.mkdir()
    path, nxt = _play(games, 2)
    paint = Painter()
    game = load_game(path)
    first = [board_picture_of(load_game(path), path, paint) for _ in range(4)]
    assert first == [b"\x89PNG board at entry %d" % game.last_seq] * 4 and paint.drawn == [game.last_seq]
    later = apply_move(games, read_move(nxt)).game  # a new entry: a new picture
    assert board_picture_of(later, path, paint) == b"\x89PNG board at entry %d" % later.last_seq
    assert paint.drawn == [game.last_seq, later.last_seq]


def test_a_kept_picture_is_not_used_for_another_entry_or_unsealed(tmp_path: Path) -> None:
    games = tmp_path / "games"
    games.mkdir()
    path, _ = _play(games, 2)
    game = load_game(path)
    paint = Painter()
    # a picture sealed by the host, but for another entry's hash
    caches.write_sealed(path, PICTURE_NAME, b"f" * 64 + b"\nnot this board")
    assert board_picture_of(game, path, paint) == b"\x89PNG board at entry %d" % game.last_seq
    # the right entry's hash, but not sealed by the host (a hostile picture)
    (path / PICTURE_NAME).write_bytes(b"pbem-cache 1\n" + b"0" * 64 + b"\n" + game.last_hash.encode() + b"\nevil")
    assert board_picture_of(game, path, paint) == b"\x89PNG board at entry %d" % game.last_seq
    assert len(paint.drawn) == 2
