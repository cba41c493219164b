"""The host's sealed caches: files beside a game's log that save work, never trusted.

A cache is only ever a shortcut to what reading the log gives: every cache file carries
an HMAC-SHA256 under the game's cache key (``.cache-key``: 32 random bytes, mode 0600,
the host's own, never through a symlink, never in the log or any mail), over the
cache's name, pbem's version and code (:func:`code_mark`) and its payload.  A file that
is missing, short, too large, unreadable, from another pbem or another key, or altered
by one byte reads as no cache at all: the caller then reads the log from scratch.  So a
hostile cache file can cost time, never give a wrong answer, and nothing in it is
unpickled (:mod:`pbem.host.replaycache`) unless the host itself wrote it.

Each cache also names the exact bytes it was built from (a SHA-256 over the log, or
over the prefix it covers); the reader checks those bytes before it uses anything.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import os
import secrets
from pathlib import Path

import pbem
from pbem.files import stale_temps, write_atomic

KEY_NAME = ".cache-key"
_MAGIC = b"pbem-cache 1\n"
_MAC_LEN = 64  # hex digits of an HMAC-SHA256
_marks: list[bytes] = []  # this process's code mark, computed once


def code_mark() -> bytes:
    """pbem's version and the size and mtime of every module of the package: a cache written
    by other code (an upgrade, an edit of an editable install) never matches."""
    if not _marks:
        parts = [pbem.__version__]
        stack = [os.path.dirname(pbem.__file__)]  # paths as strings: a Path for each of 170 files costs start-up
        while stack:
            with os.scandir(stack.pop()) as found:
                for item in sorted(found, key=lambda e: e.name):
                    if item.is_dir(follow_symlinks=False) and item.name != "__pycache__":
                        stack.append(item.path)
                    elif item.name.endswith((".py", ".yaml", ".json")):
                        st = item.stat()
                        parts.append(f"{item.path}:{st.st_size}:{st.st_mtime_ns}")
        _marks.append(hashlib.sha256("\n".join(parts).encode()).digest())
    return _marks[0]


def _own_secret_file(fd: int, size: int) -> bool:
    st = os.fstat(fd)
    return st.st_uid == os.geteuid() and st.st_mode & 0o077 == 0 and st.st_size == size


def cache_key(game_dir: Path, create: bool = False) -> bytes | None:
    """The game's cache key; with ``create``, made if missing (the host, about to write a
    cache).  None when there is none, or the file is not the host's own 0600 file of 32 bytes."""
    path = game_dir / KEY_NAME
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except FileNotFoundError:
        if not create:
            return None
        return _new_key(path)
    except OSError:
        return None
    try:
        if not _own_secret_file(fd, 32):
            return None
        key = os.read(fd, 33)
    except OSError:
        return None
    finally:
        os.close(fd)
    return key if len(key) == 32 else None


def _new_key(path: Path) -> bytes | None:
    key = secrets.token_bytes(32)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    except FileExistsError:  # another host process made it first: use that one
        return cache_key(path.parent)
    except OSError:
        return None
    try:
        os.write(fd, key)
        os.fsync(fd)
    finally:
        os.close(fd)
    return key


def _mac(key: bytes, name: str, payload: bytes) -> bytes:
    signed = hmac.new(key, name.encode() + b"\0" + code_mark() + b"\0", hashlib.sha256)
    signed.update(payload)
    return signed.hexdigest().encode()


def read_sealed(game_dir: Path, name: str, limit: int) -> bytes | None:
    """The payload of the cache ``name`` if the host wrote it with this code; None otherwise."""
    key = cache_key(game_dir)
    if key is None:
        return None
    try:
        fd = os.open(game_dir / name, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if st.st_uid != os.geteuid() or st.st_size > limit:
            return None
        with os.fdopen(os.dup(fd), "rb") as handle:  # its size, not the limit: read() reserves what it is asked
            data = handle.read(st.st_size + 1)
    except OSError:
        return None
    finally:
        os.close(fd)
    head = len(_MAGIC) + _MAC_LEN + 1
    if len(data) > limit or len(data) < head or not data.startswith(_MAGIC) or data[head - 1:head] != b"\n":
        return None
    payload = data[head:]
    if not hmac.compare_digest(data[len(_MAGIC):head - 1], _mac(key, name, payload)):
        return None
    return payload


def write_sealed(game_dir: Path, name: str, payload: bytes) -> None:
    """Write the cache ``name`` (atomically, 0600); a cache that cannot be written is no error."""
    key = cache_key(game_dir, create=True)
    if key is None:
        return
    with contextlib.suppress(OSError):
        write_atomic(game_dir / name, _MAGIC + _mac(key, name, payload) + b"\n" + payload, sync=False)
    for stale in stale_temps(game_dir / name):  # left by a pbem killed while writing it
        with contextlib.suppress(OSError):
            stale.unlink()
