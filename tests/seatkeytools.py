"""Shared helpers for the tests of keys registered by mail (P8): a mail forged in a seat's name."""

from __future__ import annotations

from pathlib import Path

from clitools import ok
from mailtools import commit, eml, setup_game, signed


def pub(path: Path) -> str:
    return path.with_name(path.name + ".pub").read_text().strip()


def forged_mail(tmp_path: Path) -> tuple[Path, Path]:
    """A game, and a mail 'from blue' whose commitment registers mallory's key for blue."""
    games, _inbox = setup_game(tmp_path)
    ok("keygen", "--out", tmp_path / "mallory.key")
    forged = signed({**commit(games, "blue"), "key": pub(tmp_path / "mallory.key")}, tmp_path / "mallory.key",
                    tmp_path)
    message = tmp_path / "forged.eml"
    message.write_bytes(eml("blue@example.net", forged))
    return games, message
