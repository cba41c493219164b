"""The replayed game kept beside its log: the host replays only what is new.

``pbem apply`` is a fresh process for every mailed move, and replaying the whole log grew
with the game.  After every entry the host records, it keeps ``replay.cache``: the game
as the strict reader and the replay gave it for the log's first L bytes, with L, the
number of entries and a SHA-256 over those exact bytes, sealed by the host
(:mod:`pbem.host.caches`: an HMAC under the game's own key, bound to this pbem's code).

Reading a game (:func:`cached_game`) then takes, in this order and no other:

1. the log's bytes, read once (capped, as ever);
2. the cache, only if its seal holds (else it is ignored, whatever it holds);
3. only if the log's first L bytes hash to the cache's SHA-256 and the next bytes start
   a new document, the pickled game (unpickled only now: sealed by the host);
4. the entries after those L bytes, read, chained and replayed exactly as a whole read
   would read them (:func:`pbem.log.logfile.log_records`, :func:`pbem.referee.replay.apply_entry`).

Any mismatch, and any refusal in steps 2-4, means: read and replay the whole log from
scratch, as if there were no cache.  So a tampered log is refused with the very words it was
refused with before, and a cache can save time but never change a result.  The cache is
written only after an input was recorded (:func:`CachedGame.keep`), so a refused input
still changes no file; and only once :data:`REWRITE_AFTER` entries follow its prefix.
"""

from __future__ import annotations

import hashlib
import pickle
from collections import Counter
from pathlib import Path

from pbem.files import read_limited
from pbem.host.caches import read_sealed, write_sealed
from pbem.i18n import Msg
from pbem.log.game import Game
from pbem.log.logfile import LOG_NAME, log_records
from pbem.log.yamlio import LOG_LIMIT
from pbem.record import Record
from pbem.referee.replay import apply_entry, replay
from pbem.referee.signatures import log_has_signatures, require_valid

CACHE_NAME = "replay.cache"
CACHE_LIMIT = 8 * LOG_LIMIT  # the pickled game of the largest log pbem reads, with room

stats: Counter[str] = Counter()
"""What this process's reads did: ``hit``/``miss`` and ``replayed`` (entries replayed one
by one); tests read it to see the cache used, never a clock."""


REWRITE_AFTER = 16
"""The cache is written again once this many entries follow its prefix (a few entries more
to replay cost less than pickling and writing the whole game after every move)."""


class Base(Record):
    """A prefix of the log and its game, pickled: the cache's own, or the log as read pickled."""

    size: int  # the prefix's bytes
    count: int  # its entries
    pickled: bytes


class CachedGame:
    """A game read through the cache: the log's bytes as read, the game they give, and (when
    the host may record on it) a pickled game of a prefix of those bytes, which nothing changes."""

    __slots__ = ("base", "count", "data", "fork", "fresh", "game")

    def __init__(self, game: Game, data: bytes, base: Base | None, fresh: bool) -> None:
        self.game = game  # the caller's to change (the host's step advances it in place)
        self.data = data
        self.count = len(game.entries)  # the entries ``data`` holds
        self.base = base  # None: the caller records nothing
        self.fork = game.fork() if base is not None else None  # the game as read, whatever the caller does
        self.fresh = fresh  # the base is not in the cache file yet

    def keep(self, game_dir: Path) -> None:
        """After a recorded input: the base, for the next reader (never on a refusal)."""
        if self.fresh and self.base is not None:
            size = self.base.size
            write_sealed(game_dir, CACHE_NAME, _header(self.data[:size], self.base.count) + self.base.pickled)
            self.fresh = False


def cached_game(game_dir: Path, keep: bool = True) -> CachedGame:
    """The game of ``game_dir``'s log, as :func:`pbem.referee.replay.replay` gives it (see the
    module for the order of the checks); ``keep``: the host may record an input on it, so a
    pickled game of the log as read, or of the cache's prefix, is kept aside unchanged."""
    data = read_limited(game_dir / LOG_NAME, LOG_LIMIT, Msg("log"))
    found = _resumed(game_dir, data)
    base: Base | None = None
    if found is not None:
        stats["hit"] += 1
        game, base = found
        fresh = len(game.entries) - base.count >= REWRITE_AFTER
    else:
        stats["miss"] += 1
        entries, hashes = log_records(data)
        stats["replayed"] += len(entries)
        game, fresh = replay(entries, hashes), True
    if log_has_signatures(game.entries):  # P8; most games use no keys and skip the import
        require_valid(game.entries)  # a log whose signatures fail is tampered with
    if not keep:
        base = None
    elif fresh:
        base = Base(len(data), len(game.entries), pickle.dumps(game, pickle.HIGHEST_PROTOCOL))
    return CachedGame(game, data, base, fresh)


def _header(data: bytes, count: int) -> bytes:
    return f"{len(data)} {count} {hashlib.sha256(data).hexdigest()}\n".encode()


def _resumed(game_dir: Path, data: bytes) -> tuple[Game, Base] | None:
    """The cached game brought up to ``data``, and the cache's own base; None: of no use."""
    payload = read_sealed(game_dir, CACHE_NAME, CACHE_LIMIT)
    if payload is None:
        return None
    head, _, body = payload.partition(b"\n")
    try:
        size_text, count_text, digest = head.decode("ascii").split(" ")
        size, count = int(size_text), int(count_text)
    except ValueError:
        return None
    if not 0 < size <= len(data) or hashlib.sha256(data[:size]).hexdigest() != digest:
        return None
    tail = data[size:]
    if tail and not (data[size - 1:size] == b"\n" and tail.startswith((b"---\n", b"--- ", b"---\t", b"---\r"))):
        return None  # the bytes after the prefix must start a document, as the whole read splits them
    try:
        game = pickle.loads(body)  # sealed by this host with this code (pbem.host.caches)
    except Exception:  # a cache is never an error
        return None
    if type(game) is not Game or len(game.entries) != count:
        return None
    base = Base(size, count, body)
    if not tail:
        return game, base
    try:
        entries, hashes = log_records(tail, count, game.last_hash)
        for entry, entry_hash in zip(entries, hashes, strict=True):
            apply_entry(game, entry, entry_hash)
    except Exception:  # the whole read names the fault, as it did before the cache
        return None
    stats["replayed"] += len(entries)
    return game, base
