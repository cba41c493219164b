"""Answers per address, rate-limited: a forged From must not turn the host into an amplifier.

Anyone can send a message "from" a registered player's address.  Each such message that
changes nothing (a mail command such as ``log``, a refused move, a key's code mail, the
notice of a kept message) would make the host mail that player; thirty forged ``log``
requests made thirty mails of the whole log.  So each address gets at most
:data:`PER_HOUR` such answers in any hour (the host's clock); beyond it the message is
handled as ever (its verdict in the run's output and the host's log) and answered with
nothing.  The mails that follow a recorded entry (the reports, invitations, reminders and
the last mail) are not limited: each follows a change of the game.

Answers to addresses no game lists (a lobby's codes and refusals) have two more budgets: each
game's own, :data:`STRANGERS_PER_GAME` an hour (the lobby commands that name no game that
exists share one such budget), and the host's ceiling, :data:`STRANGERS_PER_HOUR` an hour
for all of them together, which protects the host's outgoing mail.  The per-game budget is
well below the ceiling, so a flood of forged ``join`` mails aimed at one game spends that
game's budget and leaves strangers to every other game answered (docs/hosting.md gives the
numbers' reasons).

The count is kept in the queue (``GAMES/+mail-queue/.rate/``, one file an address, named by
a hash of it: no address in a file name), under a lock, so every transport at once shares it.
"""

from __future__ import annotations

import fcntl
import hashlib
import logging
import os
from pathlib import Path

from pbem.host.settings import normal_address
from pbem.log.clock import now, seconds

PER_HOUR = 8  # answers a registered address may be sent in any hour
STRANGERS_PER_GAME = 10  # answers to addresses no game lists, about one game, in any hour
STRANGERS_PER_HOUR = 60  # answers to every address no game lists, together, in any hour
STRANGERS = "strangers"  # that shared count's file (not a hash: no address is named so)
WINDOW = 3600
RATE_DIR = ".rate"  # in the queue; a dot: never taken for a batch of replies
_log = logging.getLogger("pbem.mail.host")


def within(queue: Path, address: str, stranger: bool = False, game: str | None = None) -> bool:
    """Whether one more answer may go to ``address`` now; if so, it is counted.  An address no
    game lists (``stranger``: a lobby's code, its refusal) also counts against the budget of
    the ``game`` it is about (:data:`STRANGERS_PER_GAME`; None: the one budget of every lobby
    command that names no game) and :data:`STRANGERS_PER_HOUR`, shared by every such address:
    forged Froms by the hundred cannot turn the host into a mailer of codes to a hundred
    strangers, nor shut one game's lobby for all the others."""
    folder = queue / RATE_DIR
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    name = hashlib.sha256(normal_address(address).encode("utf-8", "surrogatepass")).hexdigest()[:24]
    if not _take(folder / name, PER_HOUR):
        _log.warning("no answer mailed to %s: %d answers in the last hour already", address, PER_HOUR)
        return False
    if not stranger:
        return True
    about = hashlib.sha256(f"game:{game or ''}".encode()).hexdigest()[:24]
    if not _take(folder / f"{STRANGERS}-{about}", STRANGERS_PER_GAME):
        _log.warning("no answer mailed to %s: %d answers to addresses no game lists about game %s in the last hour "
                     "already", address, STRANGERS_PER_GAME, game or "(none named)")
        return False
    if not _take(folder / STRANGERS, STRANGERS_PER_HOUR):
        _log.warning("no answer mailed to %s: %d answers to addresses no game lists in the last hour already",
                     address, STRANGERS_PER_HOUR)
        return False
    return True


def _take(path: Path, cap: int) -> bool:
    """One more moment in ``path``'s window, if fewer than ``cap`` are there (under its lock)."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        moment = seconds(now())
        text = os.pread(fd, 64 * 1024, 0).decode("ascii", "replace")
        recent = [int(x) for x in text.split() if x.isdigit() and 0 <= moment - int(x) < WINDOW]
        allowed = len(recent) < cap
        if allowed:
            recent.append(moment)
        os.ftruncate(fd, 0)
        os.pwrite(fd, "".join(f"{x}\n" for x in recent).encode("ascii"), 0)
    finally:
        os.close(fd)
    return allowed
