"""A report mail carries the log compressed (GAME-SEQ-log.yaml.gz), and
every reader takes that copy as it is; a damaged or hostile copy is refused in one
paragraph naming the rule, and nothing is written (P2, P7, P9)."""

from __future__ import annotations

import gzip
import zlib
from pathlib import Path

import pytest
from clitools import cli, ok, snapshot

import pbem.log.logfile
from pbem.errors import TamperError
from pbem.host.create import NewGame, create
from pbem.log.logfile import LOG_NAME, gzip_log, read_log
from pbem.sim.demo import open_game

PLAYERS = ("red", "green", "blue")


@pytest.fixture()
def copies(tmp_path: Path) -> tuple[Path, Path, Path]:
    """A started game's folder, and two mailed copies of its log: after entry 0 and now."""
    games = tmp_path / "games"
    create(games, NewGame("g", PLAYERS, secret=bytes(32), first="red"))
    folder = games / "g"
    old = tmp_path / "g-0-log.yaml.gz"
    old.write_bytes(gzip_log((folder / LOG_NAME).read_bytes()))
    open_game(games, "g", nonces={p: bytes([i]) * 16 for i, p in enumerate(PLAYERS)})
    new = tmp_path / "g-7-log.yaml.gz"
    new.write_bytes(gzip_log((folder / LOG_NAME).read_bytes()))
    return folder, old, new


def test_p9_a_mailed_compressed_log_verifies_extends_and_reads_like_the_log(copies: tuple[Path, Path, Path]) -> None:
    folder, old, new = copies
    assert read_log(new) == read_log(folder / LOG_NAME)
    ok("verify", new, "--extends", old)
    for command in ("show", "history"):
        assert cli(command, new).output == cli(command, folder / LOG_NAME).output, command
    assert gzip_log(b"same") == gzip_log(b"same")  # no name, no date: the same bytes every time


@pytest.mark.parametrize("damage", ["cut short", "bytes after the stream", "not gzip at all", "flipped bits"])
def test_p7_a_damaged_compressed_copy_is_refused_whole_and_nothing_written(
        copies: tuple[Path, Path, Path], damage: str) -> None:
    _folder, _old, new = copies
    data = new.read_bytes()
    new.write_bytes({"cut short": data[:-20], "bytes after the stream": data + b"PK\x03\x04 more",
                     "not gzip at all": b"---\n{\"seq\": 0}\n", "flipped bits": data[:30] + bytes(
                         b ^ 0xFF for b in data[30:60]) + data[60:]}[damage])
    before = snapshot(new.parent)
    result = cli("verify", new)
    said = result.output + result.stderr
    assert result.exit_code != 0 and "(P7)" in said and "gzip" in said and "Traceback" not in said, said
    assert len([line for line in said.splitlines() if line.strip()]) <= 3, said  # one paragraph
    assert snapshot(new.parent) == before


def test_p2_a_small_copy_that_inflates_without_end_is_refused_not_followed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A zip bomb: 10 KB that would inflate past the cap a log may hold is stopped at the cap."""
    monkeypatch.setattr(pbem.log.logfile, "LOG_LIMIT", 1 << 20)
    bomb = tmp_path / "bomb-log.yaml.gz"
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)
    bomb.write_bytes(packer.compress(b"\n" * (8 << 20)) + packer.flush())
    assert bomb.stat().st_size < 20_000
    with pytest.raises(TamperError, match=r"inflates to more than the 1024 KiB"):
        read_log(bomb)
    assert gzip.decompress(bomb.read_bytes())  # (a real gzip file: only its size is refused)

