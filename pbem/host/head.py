"""A small index of each game's head: what `pbem list` and `pbem tick` need to
know of a game, without replaying its log while the log has not changed.

``head.cache`` beside the log holds the game's `pbem list` line and its deadlines (who is
to move and when their deadline passes, when the reminder is due, the turn's first entry,
the timeout entries), with the size and the SHA-256 of the exact log bytes it was made
from, sealed by the host (:mod:`pbem.host.caches`).  It is used only when the log read
now has that size and that hash; anything else (a move recorded since, a log changed out
of band, a damaged or foreign index) means: read the log whole, as if there were no index, and
write the index again.  A log that does not verify gets no index (it is read, and
refused, every time).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from collections import Counter
from pathlib import Path
from typing import Any

from pbem.errors import PbemError
from pbem.files import read_limited
from pbem.host.caches import read_sealed, write_sealed
from pbem.host.replaycache import CachedGame
from pbem.i18n import Msg
from pbem.log.game import Game
from pbem.log.logfile import LOG_NAME, log_records
from pbem.log.records import Reveal, Timeout
from pbem.log.yamlio import LOG_LIMIT
from pbem.record import Record
from pbem.referee.deadlines import due, remind_at
from pbem.referee.replay import apply_entry
from pbem.referee.signatures import log_has_signatures
from pbem.views.timeline import Summary, checked, status, summarize, waiting_for

HEAD_NAME = "head.cache"
HEAD_LIMIT = 64 * 1024

stats: Counter[str] = Counter()
"""``indexed`` (a head from the index) and ``read`` (from the log, replayed): for tests, never a clock."""


class Head(Record):
    """One game's head, as of the log bytes it was made from."""

    line: str  # its line in `pbem list`
    deadline: bool  # R8.1: entry 0 sets a deadline
    due: tuple[str, str] | None  # R8.1: (player to move, when their deadline passes)
    remind: str | None  # when the reminder of the current turn is due
    turn_since: int  # the entry that made it the player to move's turn (reminders are per turn)
    timeouts: tuple[int, ...]  # R8.2: the timeout entries (each owes its notice)
    status: str  # a GameStatus (`pbem list`'s words)
    waiting: tuple[str, ...]  # the seats the game waits for
    since_at: str  # since when it waits as it waits now
    size: int  # the log's bytes it was made from, and their SHA-256
    sha256: str


def head_of(folder: Path, write: bool = False) -> Head:
    """The head of the game in ``folder``: from its index if that was made from exactly the
    log's bytes now, else read from the log (and, by the host only: ``write``, indexed again;
    a reader changes no file); a PbemError when the log does not verify."""
    data = read_limited(folder / LOG_NAME, LOG_LIMIT, Msg("log"))
    found = _indexed(folder, data)
    if found is not None:
        stats["indexed"] += 1
        return found[0]
    stats["read"] += 1
    summary = summarize(*checked(*log_records(data)))
    return _head(folder, data, summary.game, _key(summary.game), summary.since_seq, summary.since_at, write)


def refresh(folder: Path, read: CachedGame) -> None:
    """After the host recorded entries on the game ``read``: the index of the log as it now is,
    from the index of the log as read and the new entries alone (read back from the file, and
    replayed on a fork of the game as read); when that index is missing or stale, from the whole log.
    Never an error: a reader that finds no good index reads the log."""
    try:
        data = read_limited(folder / LOG_NAME, LOG_LIMIT, Msg("log"))
        found = _indexed(folder, read.data)
        game = read.fork  # the game as the host read it, before it recorded anything
        if found is None or game is None or not data.startswith(read.data):
            raise LookupError
        got = found[1]
        entries, hashes = log_records(data[len(read.data):], read.count, game.last_hash)
        if log_has_signatures(entries) or any(isinstance(e, Reveal) for e in entries):
            raise LookupError  # P8 and the audit (P6): checked as every reader checks them
        key, since, since_at = tuple(got["key"]), int(got["since"]), str(got["since_at"])
        for entry, entry_hash in zip(entries, hashes, strict=True):
            apply_entry(game, entry, entry_hash)
            if _key(game) != key:  # as summarize steps: the entry from which it waits as it waits now
                key, since, since_at = _key(game), entry.seq, entry.at
        _head(folder, data, game, key, since, since_at, True)
    except LookupError:
        with contextlib.suppress(PbemError):
            head_of(folder, write=True)
    except PbemError:
        pass


def _key(game: Game) -> tuple[Any, ...]:
    return (status(game), game.opening.value, game.to_move)


def _head(
    folder: Path, data: bytes, game: Game, key: tuple[Any, ...], since: int, since_at: str, write: bool,
) -> Head:
    digest = hashlib.sha256(data).hexdigest()
    head = Head(Summary(game, since, since_at).line(), game.deadline is not None, due(game), remind_at(game),
                game.turn_since, tuple(e.seq for e in game.entries if isinstance(e, Timeout)),
                status(game).value, waiting_for(game), since_at, len(data), digest)
    fields: dict[str, Any] = {
        "size": len(data), "sha256": digest, "line": head.line,
        "deadline": head.deadline, "due": head.due, "remind": head.remind, "turn_since": head.turn_since,
        "timeouts": list(head.timeouts), "waiting": list(head.waiting), "key": list(key), "since": since,
        "since_at": since_at,
    }
    if write:
        write_sealed(folder, HEAD_NAME, json.dumps(fields).encode())
    return head


def _indexed(folder: Path, data: bytes) -> tuple[Head, dict[str, Any]] | None:
    payload = read_sealed(folder, HEAD_NAME, HEAD_LIMIT)
    if payload is None:
        return None
    try:
        got = json.loads(payload)
        if got["size"] != len(data) or got["sha256"] != hashlib.sha256(data).hexdigest():
            return None
        found = got["due"]
        key = got["key"]
        head = Head(str(got["line"]), bool(got["deadline"]),
                    None if found is None else (str(found[0]), str(found[1])),
                    None if got["remind"] is None else str(got["remind"]), int(got["turn_since"]),
                    tuple(int(seq) for seq in got["timeouts"]), str(key[0]), tuple(str(s) for s in got["waiting"]),
                    str(got["since_at"]), len(data), str(got["sha256"]))
    except (ValueError, TypeError, KeyError, IndexError):  # sealed by this host, so never; but never an error
        return None
    return head, got


def list_line(folder: Path) -> str:
    """`pbem list`'s line for the game in ``folder`` (see :func:`head_of`)."""
    return head_of(folder).line
