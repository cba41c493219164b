"""The replay cache (pbem/host/replaycache.py): the host replays only what is new,
and a cache never changes a result.

Whatever the cache file holds (nothing, garbage, another game's cache, a pickle that would
run code, a cache left over by other code), the move is judged on the log as a whole read
judges it; a log edited under a valid cache is refused with the words it was refused with
before; a refused move still changes no file.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import random
import shutil
from pathlib import Path
from typing import Any

import pytest
from clitools import snapshot
from replaytools import _play

from pbem.bots.randombot import bot_actions
from pbem.errors import PbemError, TamperError
from pbem.fair.protocol import ZERO_HASH, entry_hash
from pbem.host import caches, replaycache
from pbem.host.games import apply_move, load_game
from pbem.log.logfile import LOG_NAME, read_docs, read_log
from pbem.log.moves import read_move
from pbem.log.yamlio import dump_entry
from pbem.referee.replay import apply_entry, replay
from pbem.sim.demo import write_move


@pytest.fixture
def played(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path, Path]:
    """Six turns played; the cache written again after every input (else after 16 entries)."""
    monkeypatch.setattr(replaycache, "REWRITE_AFTER", 1)
    games = tmp_path / "games"
    games.mkdir()
    path, nxt = _play(games, 6)
    return games, path, nxt


def _whole(path: Path) -> Any:
    """What a reader without the cache makes of the log."""
    return replay(*read_log(path / LOG_NAME))


def _same_game(a: Any, b: Any) -> None:
    assert a.hashes == b.hashes
    assert a.entries == b.entries
    assert a.state == b.state
    assert (a.turn_since, a.sent, a.revealed, a.commitments) == (b.turn_since, b.sent, b.revealed, b.commitments)


def test_the_host_replays_only_the_entries_after_the_prefix_it_already_replayed(
    played: tuple[Path, Path, Path], tmp_path: Path,
) -> None:
    games, path, nxt = played
    first = apply_move(games, read_move(nxt))  # the cache now holds the log this apply read
    game = first.game
    assert game.state is not None and game.state.to_move is not None
    target = write_move(game, game.state.to_move, bot_actions(game.state, random.Random(5)), tmp_path, 99)
    replaycache.stats.clear()
    applied = apply_move(games, read_move(target))
    assert replaycache.stats["hit"] == 1 and replaycache.stats["miss"] == 0
    assert replaycache.stats["replayed"] == len(first.entries)  # the last input's entries, not the log
    _same_game(applied.game, _whole(path))


def test_the_cache_is_written_again_only_once_enough_entries_follow_its_prefix(tmp_path: Path) -> None:
    games = tmp_path / "games"
    games.mkdir()
    path, _ = _play(games, 6)
    cached = caches.read_sealed(path, replaycache.CACHE_NAME, replaycache.CACHE_LIMIT)
    assert cached is not None
    covered = int(cached.split(b" ")[1])
    assert 0 < len(read_log(path / LOG_NAME)[0]) - covered < replaycache.REWRITE_AFTER + 8
    replaycache.stats.clear()
    _same_game(load_game(path), _whole(path))
    assert replaycache.stats["hit"] == 1


def test_the_cached_game_is_the_game_a_whole_replay_gives(played: tuple[Path, Path, Path]) -> None:
    games, path, nxt = played
    apply_move(games, read_move(nxt))
    replaycache.stats.clear()
    _same_game(load_game(path), _whole(path))
    assert replaycache.stats["hit"] == 1


def _junk_caches(path: Path, other: Path) -> dict[str, bytes]:
    good = (path / replaycache.CACHE_NAME).read_bytes()
    flipped = bytearray(good)
    flipped[-10] ^= 1
    return {
        "empty": b"",
        "garbage": os.urandom(5000),
        "truncated": good[: len(good) // 2],
        "one bit changed": bytes(flipped),
        "another game's cache (another key)": (other / replaycache.CACHE_NAME).read_bytes(),
        "a header claiming the whole log": good.replace(good.split(b"\n")[2].split(b" ")[0], b"999999", 1),
    }


def test_a_garbage_or_foreign_cache_file_is_ignored_and_the_move_still_applies(tmp_path: Path) -> None:
    games, other = tmp_path / "games", tmp_path / "other"
    games.mkdir()
    other.mkdir()
    path, nxt = _play(games, 6)
    other_path, _ = _play(other, 6)
    pristine = tmp_path / "pristine"
    shutil.copytree(games, pristine)
    reference = apply_move(games, read_move(nxt)).game
    for name, junk in _junk_caches(pristine / path.name, other_path).items():
        shutil.rmtree(games)
        shutil.copytree(pristine, games)
        (path / replaycache.CACHE_NAME).write_bytes(junk)
        replaycache.stats.clear()
        applied = apply_move(games, read_move(nxt)).game
        assert replaycache.stats["hit"] == 0, name
        _same_game(applied, reference)
        _same_game(load_game(path), _whole(path))  # and the cache now kept is a good one again


class _Hostile:
    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[Any, ...]:
        return (Path.touch, (self.marker,))


@pytest.mark.parametrize("key_file", ["the host's key file", "the attacker's world-readable key file"])
def test_a_hostile_pickle_without_the_hosts_seal_is_never_unpickled(
    key_file: str, played: tuple[Path, Path, Path],
) -> None:
    games, path, nxt = played
    marker = path.parent / "pwned"
    log = (path / LOG_NAME).read_bytes()
    head = f"{len(log)} 3 {hashlib.sha256(log).hexdigest()}\n".encode()
    payload = head + pickle.dumps(_Hostile(marker))
    attacker = b"k" * 32  # the seal is the attacker's own, under a key the attacker knows
    if key_file != "the host's key file":
        (path / caches.KEY_NAME).unlink()
        (path / caches.KEY_NAME).write_bytes(attacker)
        os.chmod(path / caches.KEY_NAME, 0o644)
    sealed = caches._MAGIC + caches._mac(attacker, replaycache.CACHE_NAME, payload) + b"\n" + payload
    (path / replaycache.CACHE_NAME).write_bytes(sealed)
    applied = apply_move(games, read_move(nxt))
    assert not marker.exists()
    _same_game(applied.game, _whole(path))


def test_a_cache_key_that_is_a_symlink_is_not_the_hosts_key(played: tuple[Path, Path, Path]) -> None:
    _, path, _ = played
    key = path / caches.KEY_NAME
    elsewhere = path.parent / "key-elsewhere"
    elsewhere.write_bytes(key.read_bytes())
    os.chmod(elsewhere, 0o600)
    key.unlink()
    key.symlink_to(elsewhere)
    assert caches.cache_key(path) is None
    replaycache.stats.clear()
    _same_game(load_game(path), _whole(path))
    assert replaycache.stats["hit"] == 0


def test_a_cache_left_by_other_code_is_ignored(
    played: tuple[Path, Path, Path], monkeypatch: pytest.MonkeyPatch,
) -> None:
    games, path, nxt = played
    monkeypatch.setattr(caches, "_marks", [b"pbem of another day"])
    replaycache.stats.clear()
    applied = apply_move(games, read_move(nxt))
    assert replaycache.stats["hit"] == 0
    _same_game(applied.game, _whole(path))


def _rechained(entries: list[dict[str, Any]]) -> bytes:
    prev, out = ZERO_HASH, []
    for seq, entry in enumerate(entries):
        fixed = {"seq": seq, "prev": prev, **{k: v for k, v in entry.items() if k not in ("seq", "prev")}}
        prev = entry_hash(fixed)
        out.append(dump_entry(fixed))
    return "".join(out).encode()


def _placed(entries: list[dict[str, Any]], start: int) -> int:
    """The first move entry from ``start`` whose outcome places cubes; its count edited."""
    for k in range(start, len(entries)):
        for event in entries[k].get("outcome", []):
            if event.get("event") == "cubes_placed":
                event["count"] += 1
                return k
    raise AssertionError("no placement to edit")


@pytest.mark.parametrize("where", ["in the cached prefix", "after the cached prefix"])
def test_p7_a_log_edited_under_a_valid_cache_is_refused_exactly_as_without_it(
    where: str, played: tuple[Path, Path, Path], tmp_path: Path,
) -> None:
    games, path, nxt = played
    apply_move(games, read_move(nxt))  # the cache now holds all but the last move's entries
    cached = caches.read_sealed(path, replaycache.CACHE_NAME, replaycache.CACHE_LIMIT)
    assert cached is not None
    covered = int(cached.split(b" ")[1])
    docs, _ = read_docs(path / LOG_NAME)
    k = _placed(docs, 11 if where == "in the cached prefix" else covered)
    assert (k < covered) == (where == "in the cached prefix")
    (path / LOG_NAME).write_bytes(_rechained(docs))
    bare = tmp_path / "bare"
    shutil.copytree(path, bare)
    (bare / replaycache.CACHE_NAME).unlink()
    with pytest.raises(TamperError) as without_cache:
        load_game(bare)
    before = snapshot(path)
    with pytest.raises(TamperError) as with_cache:
        load_game(path)
    assert with_cache.value.message == without_cache.value.message
    assert f"entry {k}" in with_cache.value.message
    with pytest.raises(PbemError) as refused:  # the host reads the log before it judges any move
        apply_move(games, read_move(nxt))
    assert refused.value.message == with_cache.value.message
    assert snapshot(path) == before  # a refused move changes no file, the cache neither


def test_a_refused_move_leaves_the_cache_and_every_file_as_they_were(played: tuple[Path, Path, Path]) -> None:
    games, path, nxt = played
    apply_move(games, read_move(nxt))
    before = snapshot(path)
    with pytest.raises(PbemError):
        apply_move(games, read_move(nxt))  # the same move again: stale (P7)
    assert snapshot(path) == before


def test_a_fork_of_the_game_is_not_changed_by_replaying_more_into_the_game(played: tuple[Path, Path, Path]) -> None:
    """The head index steps a fork of the game as read (pbem.log.game.Game.fork) while the
    host's step advances the game itself: neither may see the other's entries."""
    _, path, _ = played
    entries, hashes = read_log(path / LOG_NAME)
    game = replay(entries[:-3], hashes[:-3])
    fork = game.fork()
    as_forked = pickle.dumps(fork)
    for entry, hashed in zip(entries[-3:], hashes[-3:], strict=True):
        apply_entry(game, entry, hashed)
    assert pickle.dumps(fork) == as_forked and len(game.entries) == len(fork.entries) + 3
    _same_game(game, _whole(path))


def test_a_cache_write_cut_short_by_a_kill_leaves_no_temp_file_behind(played: tuple[Path, Path, Path]) -> None:
    games, path, nxt = played
    left = path / f".{replaycache.CACHE_NAME}.99999.tmp"  # as a pbem killed inside write_atomic leaves it
    left.write_bytes(b"half a cache")
    apply_move(games, read_move(nxt))
    assert not left.exists()


def test_reading_a_cache_reserves_its_size_not_the_cap(played: tuple[Path, Path, Path]) -> None:
    """A cache is read at its size: asked for the cap (512 MiB), read() would reserve it all
    (the stress run's MIME bomb, quarantined with a Python peak of 8 MiB, met 512)."""
    import tracemalloc

    _, path, _ = played
    tracemalloc.start()
    try:
        assert caches.read_sealed(path, replaycache.CACHE_NAME, replaycache.CACHE_LIMIT) is not None
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 16 * 2**20
