"""The board picture drawn once per entry: every mail of an entry reuses it.

Drawing the board's PNG is most of what a mailed move costs the host (for the report
mails and each ``board`` command).  The picture of the game as of
its last entry is kept beside the log in ``board.cache``, under the entry's hash (the hash
of the whole public log up to it, P7), sealed by the host (:mod:`pbem.host.caches`: a
picture from other code, another key or another entry is drawn again).  Only the latest
entry's picture is kept, one per language (the labels are in the reader's
language): English in ``board.cache``, Hungarian in ``board.hu.cache``, and so on, each keyed
by the entry's hash and its language.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from pbem.host.caches import read_sealed, write_sealed
from pbem.i18n import LANGS
from pbem.log.game import Game

PICTURE_NAME = "board.cache"
PICTURE_LIMIT = 4 << 20


def picture_name(lang: str = "en") -> str:
    """The cache of the pictures in ``lang`` (:data:`PICTURE_NAME` for English)."""
    return PICTURE_NAME if lang == "en" else f"board.{lang}.cache"


def picture_key(game: Game, lang: str = "en") -> bytes:
    """What a kept picture must start with: the entry's hash and, but for English, the language."""
    return game.last_hash.encode() + (b"" if lang == "en" else b" " + lang.encode("ascii")) + b"\n"


def board_picture_of(game: Game, folder: Path, draw: Callable[[Game], bytes | None],
                     lang: str = "en") -> bytes | None:
    """The board as a PNG as of ``game``'s last entry, its labels in ``lang``: kept, or drawn by
    ``draw`` (which draws it in ``lang``: the caller binds it) and kept."""
    if lang not in LANGS:
        raise ValueError(f"no such language {lang!r}")
    key, name = picture_key(game, lang), picture_name(lang)
    kept = read_sealed(folder, name, PICTURE_LIMIT)
    if kept is not None and kept.startswith(key):
        return kept[len(key):]
    picture = draw(game)
    if picture is not None:
        write_sealed(folder, name, key + picture)
    return picture
