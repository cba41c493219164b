"""Which host mail a reply answers: a plain Reply is a move.

Every mail the host sends with a seat's template (the "your move" mail, an opening
round's invitation, a refusal with the current template, a mail sent again after a lost
one) is noted here by its Message-ID, with the game, the seat and the entry the template
was written after (``GAMES/+mail-queue/threads.txt``, one ``<id> GAME SEAT SEQ HASH`` a
line, the host's own, mode 0600).  A reply whose In-Reply-To or References names one of
them is read against that game, seat and entry, with or without the quoted template
(:func:`pbem.mail.message.mail_move`): its lines need no header (a template of the opening
answers entry 0, P4; any other the game's last entry).  A reply to an older
mail is a move after an older entry, and the log refuses it as stale (P7), as ever.  The
note is only the header a player could have written; the sender rule (P8 notes) and the
referee judge the move as any other.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from pbem.files import read_limited
from pbem.i18n import Msg
from pbem.log.game import Game
from pbem.mail.headers import MSGID_RE, Mail
from pbem.mail.outbox import QUEUE_NAME

THREADS_NAME = "threads.txt"
THREADS_LIMIT = 64 * 1024 * 1024
_LINE = re.compile(r"^(<[!-;=?-~]{1,250}>) ([a-z0-9][a-z0-9_-]{0,63}) (\S{1,64}) (\d{1,9}) ([0-9a-f]{64})$")

Thread = dict[str, object]  # a text move's header fields: game, player, after {seq, hash}


def note_threads(queue: Path, notes: list[tuple[str, Game, str]]) -> None:
    """Note (Message-ID, game, seat) for mails about to be spooled, each after the game's
    latest entry: one append, synced before the mails are spooled (a reply to a mail never
    sent finds a note and is judged as any other)."""
    lines = "".join(f"{mid} {game.game_id} {seat} {answered(game)}\n"
                    for mid, game, seat in notes if MSGID_RE.match(mid) and " " not in seat)
    if not lines:
        return
    queue.mkdir(mode=0o700, parents=True, exist_ok=True)
    fd = os.open(queue / THREADS_NAME, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW, 0o600)
    try:
        os.write(fd, lines.encode("utf-8"))
        os.fsync(fd)
    finally:
        os.close(fd)


def answered(game: Game) -> str:
    """``SEQ HASH`` of the entry a template of ``game`` answers: entry 0 in the opening (P4), else the last."""
    return f"0 {game.hashes[0]}" if game.state is None else f"{game.last_seq} {game.last_hash}"


def threads(queue: Path) -> dict[str, tuple[str, str, int, str]]:
    """Message-ID -> (game, seat, entry, its hash), as noted (a line cut short is skipped)."""
    path = queue / THREADS_NAME
    if not path.is_file():
        return {}
    text = read_limited(path, THREADS_LIMIT, Msg("the host's mail threads")).decode("utf-8", "replace")
    out: dict[str, tuple[str, str, int, str]] = {}
    for line in text.split("\n")[:-1]:
        found = _LINE.match(line)
        if found is not None:
            out[found.group(1)] = (found.group(2), found.group(3), int(found.group(4)), found.group(5))
    return out


def thread_of(games: Path, mail: Mail) -> Thread | None:
    """The header a reply to one of the host's template mails stands for: the game, seat and
    entry of the newest such mail it names; None when it names none."""
    if not mail.answers:
        return None
    noted = threads(games / QUEUE_NAME)
    for mid in mail.answers:
        if mid in noted:
            game, seat, seq, digest = noted[mid]
            return {"game": game, "player": seat, "after": {"seq": seq, "hash": digest}}
    return None
