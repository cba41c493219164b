"""The public log on disk (PROTOCOL.md P1, P7): a YAML stream, one entry a document.

Reading checks the chain (``seq``, ``prev``) and returns each entry's hash.
Appending is serialized by an exclusive lock on the game's ``.lock`` file and
atomic (the new log is written whole to a temporary file, synced, then renamed
over the old one), so a crash or a second process never leaves a torn or
interleaved entry.
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from pbem.errors import BusyError, PbemError, TamperError
from pbem.fair.protocol import ZERO_HASH, canonical_json, checked_json, sha256_hex
from pbem.files import read_limited, stale_temps, write_atomic
from pbem.i18n import Msg
from pbem.log.characters import char_name
from pbem.log.records import Entry, parse_entry
from pbem.log.yamlio import LOG_LIMIT, decode, dump_entry, iter_documents, no_float, unique_keys

LOG_NAME = "log.yaml"
LOCK_NAME = ".lock"
LOCK_TIMEOUT = 30.0


def read_log(path: Path) -> tuple[list[Entry], list[str]]:
    """The one strict reader of a log, for every command: its records and their hashes.

    P2: each entry is a JSON document (the log is written as JSON and read as JSON: a
    YAML comment or any YAML-only syntax inside an entry is refused); P7: the chain;
    ``schemas/entry.json``: each entry's shape (:func:`pbem.log.records.parse_entry`).
    Any departure is a :class:`TamperError` naming the entry and the rule."""
    data = read_limited(path, LOG_LIMIT, Msg("log"))
    if path.name.endswith(".gz"):  # a report mail's copy
        data = gunzip_log(data, path)
    return log_records(data)


def log_records(data: bytes, first: int = 0, prev: str = ZERO_HASH) -> tuple[list[Entry], list[str]]:
    """:func:`read_log` of a log's bytes; with ``first``, of the bytes after a prefix of
    ``first`` entries whose last hash is ``prev`` (``pbem.host.replaycache``: a prefix it
    verified before, byte for byte; on any error there it reads the whole log again, so a
    refusal always names what the whole read names)."""
    try:
        text = decode(data, Msg("the log"))
    except PbemError as err:  # a broken log is a tampered log for every reader
        raise TamperError(Msg("the log cannot be read: {why}", why=err.words), "P7") from None
    docs: list[Any] = []
    plain: list[bool] = []
    long_numbers: list[str] = []

    def number(digits: str) -> int:
        if len(digits) > 15:  # perhaps beyond P2's +-2^53 (9007199254740992 has 16 digits)
            long_numbers.append(digits)
        return int(digits)

    # json.loads with these hooks would build a decoder for every entry; one does (start-up speed)
    decoder = json.JSONDecoder(parse_float=no_float, parse_constant=no_float, parse_int=number,
                               object_pairs_hook=unique_keys)
    for line, doc in iter_documents(text):
        try:
            if doc.startswith("\ufeff"):  # as json.loads refuses it
                raise json.JSONDecodeError("Unexpected UTF-8 BOM (decode using utf-8-sig)", doc, 0)
            docs.append(decoder.decode(doc))
        except (ValueError, RecursionError) as err:
            raise TamperError(
                Msg("entry {seq} (the document at line {line}) is not one JSON object: {why} "
                    "(the log is written as JSON and read as JSON, P2)",
                    seq=first + len(docs), line=line, why=str(err)), "P7",
            ) from None
        plain.append(first + len(docs) > 1 and doc.isascii() and "\\" not in doc and not long_numbers)
        long_numbers.clear()
    hashes = check_chain(docs, plain, first, prev)
    return [parse_entry(doc, first + seq) for seq, doc in enumerate(docs)], hashes


def gunzip_log(data: bytes, path: Path) -> bytes:
    """A gzip-compressed log's bytes, capped at :data:`LOG_LIMIT` as it is inflated (a small
    file that inflates without end is refused, not followed); a damaged stream is refused."""
    import zlib  # start-up: only a compressed copy needs it

    inflate = zlib.decompressobj(wbits=31)  # the gzip format only
    try:
        out = inflate.decompress(data, LOG_LIMIT + 1)
        complete = inflate.eof and not inflate.unused_data
    except zlib.error as err:
        raise TamperError(Msg("the log {path} is not a whole gzip file ({why}); "
                              "mail 'log' to the host for a fresh copy", path=repr(str(path)), why=str(err)),
                          "P7") from None
    if len(out) > LOG_LIMIT:
        raise TamperError(Msg("the log {path} inflates to more than the {kib} KiB a log may hold",
                              path=repr(str(path)), kib=LOG_LIMIT // 1024), "P2")
    if not complete:
        raise TamperError(Msg("the log {path} is not a whole gzip file (it is cut short, or "
                              "something follows it); mail 'log' to the host for a fresh copy",
                              path=repr(str(path))), "P7")
    return out


def gzip_log(data: bytes) -> bytes:
    """The log's bytes compressed for a mail, the same bytes every time (no name, no date)."""
    import gzip

    return gzip.compress(data, compresslevel=9, mtime=0)


def read_docs(path: Path) -> tuple[list[dict[str, Any]], list[str]]:
    """:func:`read_log`'s entries as written (for tools that rewrite a log: tests, vectors)."""
    records, hashes = read_log(path)
    return [r.to_raw() for r in records], hashes


def parse_log(docs: list[Any]) -> tuple[list[Entry], list[str]]:
    """Decoded entries -> (records, hashes): the chain (P7), P2's values, each entry's shape."""
    hashes = check_chain(docs)
    return [parse_entry(doc, seq) for seq, doc in enumerate(docs)], hashes


def check_chain(
    entries: list[Any], plain: list[bool] | None = None, first: int = 0, prev: str = ZERO_HASH,
) -> list[str]:
    """P7: seq 0, 1, 2, ... and each ``prev`` the hash of the entry before.

    ``plain[i]`` (from :func:`read_log`) says entry ``i`` (not entry 0, whose data may
    hold anything) was decoded by ``json.loads``
    (no float, no NaN) from ASCII text with no escape and no number of 16 digits: it then
    holds only P2's values (ASCII keys, integers within +-2^53), so it is hashed without
    :func:`pbem.fair.protocol.canonical_json`'s walk of every value, for start-up speed
    (the same bytes; any other entry is walked, and a bad value named, as before)."""
    if not entries and not first:
        raise TamperError(Msg("the log is empty: it must start with the game's first entry"), "P3")
    hashes: list[str] = []
    for index, entry in enumerate(entries, first):
        if not isinstance(entry, dict):
            raise TamperError(Msg("entry {seq}: not a mapping", seq=index), "P7")
        if type(entry.get("seq")) is not int or entry["seq"] != index:
            raise TamperError(
                Msg("entry {seq}: its seq is {found}, expected {seq} "
                    "(an entry was dropped, inserted or moved)", seq=index, found=repr(entry.get("seq"))),
                "P7",
            )
        if entry.get("prev") != prev:
            raise TamperError(
                Msg("entry {seq}: its prev does not match the hash of entry {before} "
                    "(an earlier entry was changed, dropped or swapped)", seq=index, before=index - 1)
                if index
                else Msg("entry 0: prev must be 64 zeros"),
                "P7",
            )
        try:
            hashed = {k: v for k, v in entry.items() if k != "signature"}
            text = checked_json(hashed) if plain is not None and plain[index - first] else canonical_json(hashed)
        except UnicodeEncodeError as err:  # a lone surrogate, from a "\ud800" escape
            raise TamperError(_bad_text(index, err.object[err.start]), "P2") from None
        except ValueError as err:
            raise TamperError(Msg("entry {seq}: {why}", seq=index, why=str(err)), "P2") from None
        bad = None  # P2: one scan of the bytes hashed anyway; most entries are ASCII without escapes
        if not text.isascii() or b"\\" in text or b"\x7f" in text:
            bad = _BAD_ENTRY_TEXT.search(text)
        signature = entry.get("signature")
        if bad is None and isinstance(signature, str):  # not hashed, but text all the same
            bad = _BAD_ENTRY_TEXT.search(signature.encode("utf-8", "surrogatepass"))
        if bad is not None:
            raise TamperError(_bad_text(index, _matched_char(bad.group())), "P2")
        prev = sha256_hex(text)  # = entry_hash(entry) (P7)
        hashes.append(prev)
    return hashes


_BAD_ENTRY_TEXT = re.compile(
    rb"\x7f|\xc2[\x80-\x9f]|\xe2\x80[\xa8\xa9]"  # DEL, C1 controls, U+2028/U+2029
    rb"|\xed[\xa0-\xbf]"  # surrogates (in a signature read with surrogatepass)
    rb"|\xef\xb7[\x90-\xaf]|\xef\xbf[\xbe\xbf]|[\xf0-\xf4][\x8f\x9f\xaf\xbf]\xbf[\xbe\xbf]"  # nonchars
    rb"|(?<!\\)(?:\\\\)*\\(?:u00[01][0-9a-f]|[bfr])"  # an escaped control but \t and \n
)
"""P2 on canonical JSON (UTF-8, controls escaped as ``\\uXXXX``, ``\\b``, ``\\f``, ``\\r``):
what no text of a log entry may hold.  Every alternative starts on a UTF-8 lead
byte or ASCII, so a match never starts inside a character; an escape counts only
after an even run of backslashes (``\\\\u0001`` is the text ``\\u0001``, not U+0001)."""


def _matched_char(found: bytes) -> str:
    escape = found.lstrip(b"\\")
    if found[:1] != b"\\":
        return found.decode("utf-8", "surrogatepass")
    return {b"b": "\b", b"f": "\f", b"r": "\r"}.get(escape) or chr(int(escape[1:], 16))


def _bad_text(index: int, char: str) -> Msg:
    return Msg("entry {seq} holds the character {char}, which no text in a log may "
               "hold (only printable Unicode, with tab and newline in comments)",
               seq=index, char=char_name(char))


def link(entry: dict[str, Any], seq: int, prev: str, at: str) -> dict[str, Any]:
    """The entry with its chain fields and the host's clock first, as it will be written (P7)."""
    rest = {k: v for k, v in entry.items() if k not in ("seq", "prev", "at")}
    return {"seq": seq, "prev": prev, "at": at, **rest}


def append(path: Path, new_entries: list[dict[str, Any]]) -> None:
    """Append chained entries atomically; the caller holds the lock and chained them."""
    old = path.read_bytes() if path.exists() else b""
    if old and not old.endswith(b"\n"):
        old += b"\n"
    addition = "".join(dump_entry(e) for e in new_entries).encode("utf-8")
    write_atomic(path, old + addition)
    for stale in stale_temps(path):  # left by a killed pbem; we hold the lock
        stale.unlink(missing_ok=True)


@contextmanager
def locked(game_dir: Path, timeout: float = LOCK_TIMEOUT) -> Iterator[None]:
    """Hold the game's exclusive lock (P7: appends are serialized)."""
    lock_path = game_dir / LOCK_NAME
    try:  # 0600 whatever the umask, never through a symlink, and only the host's own
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
    except OSError as err:
        raise TamperError(Msg("the lock of game {game} cannot be opened ({why})",
                                 game=repr(game_dir.name), why=err.strerror), "P7") from None
    try:
        st = os.fstat(fd)
        if st.st_uid != os.geteuid():
            raise TamperError(
                Msg("the lock of game {game} belongs to another user; the host will not share it",
                    game=repr(game_dir.name)), "P7",
            )
        if st.st_mode & 0o777 != 0o600:
            os.fchmod(fd, 0o600)
        wait_for_lock(fd, timeout, Msg("another pbem process has held game {game} for over {secs} s; try again",
                                       game=repr(game_dir.name), secs=f"{timeout:.0f}"))
        yield
    finally:
        os.close(fd)


def wait_for_lock(fd: int, timeout: float, busy: str) -> None:
    """Take the exclusive ``flock`` of ``fd``, waiting up to ``timeout`` seconds; then
    :class:`BusyError` with the sentence ``busy`` (P7; the mail host's one run at a time)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            if time.monotonic() > deadline:
                raise BusyError(busy, "P7") from None
            time.sleep(0.02)
