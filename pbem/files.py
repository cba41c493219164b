"""Files pbem reads and writes: capped reads, atomic writes (the bottom layer: standard library only)."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import TYPE_CHECKING

from pbem.errors import FormatError, UnknownError
from pbem.i18n import Msg

if TYPE_CHECKING:
    from concurrent.futures import ThreadPoolExecutor


def read_limited(path: Path, limit: int, what: str) -> bytes:
    """The file's bytes, refusing (before reading it all) anything over ``limit``."""
    try:
        with path.open("rb") as handle:
            if os.fstat(handle.fileno()).st_size > limit:  # refuse before reading anything
                raise FormatError(
                    Msg("{what} {path} is larger than the {kib} KiB allowed", what=what, path=repr(str(path)),
                        kib=limit // 1024), "P2"
                )
            chunks: list[bytes] = []  # a pipe or a growing file: still capped; read in
            total = 0  # chunks, so that a small file never reserves the whole limit
            while total <= limit:
                chunk = handle.read(min(1 << 20, limit + 1 - total))
                if not chunk:
                    break
                chunks.append(chunk)
                total += len(chunk)
            data = b"".join(chunks)
    except FileNotFoundError:
        raise UnknownError(Msg("{what} {path} does not exist", what=what, path=repr(str(path))), "P1") from None
    except IsADirectoryError:
        raise UnknownError(Msg("{what} {path} is a directory, not a file", what=what, path=repr(str(path))),
                           "P1") from None
    except OSError as err:
        raise UnknownError(Msg("cannot read {what} {path}: {reason}", what=what, path=repr(str(path)),
                               reason=err.strerror), "P1") from None
    if len(data) > limit:
        raise FormatError(Msg("{what} {path} is larger than the {kib} KiB allowed", what=what, path=repr(str(path)),
                              kib=limit // 1024), "P2")
    return data


def write_atomic(path: Path, data: bytes, mode: int = 0o600, sync: bool = True) -> None:
    """Replace ``path`` with ``data`` whole or not at all (temp file, fsync, rename); the host's
    files are its own (mode 0600 unless told, whatever the umask).  ``sync=False``
    (a cache, checked whenever it is read) renames without waiting for the disk."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            if sync:
                os.fsync(handle.fileno())
        os.chmod(tmp, mode)
        if not sync:  # ext4 writes a file renamed over another at once (auto_da_alloc): a cache need not
            with contextlib.suppress(FileNotFoundError):  # be; one missing for this instant is drawn again
                os.unlink(path)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    if not sync:
        return
    dir_fd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)


def stale_temps(path: Path) -> list[Path]:
    """The temporary files :func:`write_atomic` left beside ``path`` when killed while writing it
    (``.NAME.*.tmp``; the caller holds what keeps any other writer of ``path`` away).  Read with
    :func:`os.scandir` for start-up speed: a glob compiles a pattern for every name."""
    prefix = f".{path.name}."
    with contextlib.suppress(OSError), os.scandir(path.parent) as found:
        return [Path(e.path) for e in found
                if e.name.startswith(prefix) and e.name.endswith(".tmp") and len(e.name) >= len(prefix) + 4]
    return []


def write_folder(folder: Path, files: dict[str, bytes], mode: int = 0o600) -> None:
    """Create each of ``files`` (name -> bytes; none may exist) in ``folder``, a new folder its
    caller renames whole once complete (the outbox's batches); when this returns, every file
    and the folder's entries are on the disk.  The files and the folder are synced together,
    one thread each, so that the file system commits them at once (ext4's journal: one commit
    for the batch, not one for each file and another for the folder)."""
    fds: list[int] = []
    try:
        for name, data in files.items():
            fd = os.open(folder / name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, mode)
            fds.append(fd)
            os.fchmod(fd, mode)  # whatever the umask
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
        fds.append(os.open(folder, os.O_RDONLY | os.O_DIRECTORY))
        sync_all(fds)
    finally:
        for fd in fds:
            os.close(fd)


def sync_all(fds: list[int]) -> None:
    """Each open file on the disk when this returns, synced together, one thread each: the file
    system commits them at once (ext4's journal: one commit, not one after the other)."""
    if len(fds) == 1:
        os.fsync(fds[0])
        return
    for done in [_syncer().submit(os.fsync, fd) for fd in fds]:
        done.result()  # every sync waited for; the first failure raised


_SYNCER: ThreadPoolExecutor | None = None


def _syncer() -> ThreadPoolExecutor:
    """The threads that sync a folder's files at once (made on first use: most commands write none)."""
    global _SYNCER
    if _SYNCER is None:
        from concurrent.futures import ThreadPoolExecutor  # start-up: only a command that writes a folder

        _SYNCER = ThreadPoolExecutor(max_workers=8, thread_name_prefix="pbem-sync")
    return _SYNCER


def sync_folder(path: Path) -> None:
    """The folder's entries (names made, renamed, removed) on the disk."""
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
