"""What a transport has handled, by its own key: nothing skipped silently.

A message is the same message by its key (:func:`pbem.mail.admission.message_key`: its
Message-ID, else a hash of its bytes), not by the folder it sits in.  A Maildir an IMAP
server also serves holds, in ``cur/``, messages another client has already seen; an
IMAP folder holds messages flagged ``\\Seen`` by another client.  So the transports read
every message of the folder, and a ledger in the queue (``GAMES/+mail-queue``) lists
the transport keys already handled (a Maildir file's key, an IMAP UID under its
UIDVALIDITY): a message not in it is handed to the one admission path, which applies
it once, whatever its flags, and answers a copy received before from its own records.
A key is added only once the message's verdict and replies are spooled: a run stopped
in between hands it over again, and the admission path files it without a second reply.
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path

_KEY_TIME = re.compile(r"^(\d+)\.(?:M(\d+))?")
LEDGER_LIMIT = 64 * 1024 * 1024


class Ledger:
    """A file of transport keys, one a line, only ever appended to (each line synced)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def keys(self) -> set[str]:
        if not self.path.is_file():
            return set()
        with self.path.open("rb") as handle:
            text = handle.read(LEDGER_LIMIT).decode("utf-8", "replace")
        return {line for line in text.splitlines() if line}

    def add(self, key: str, sync: bool = True) -> None:
        """One key more; ``sync=False`` leaves the line to :meth:`sync` (a run syncs once at
        its end): a line the disk lost only hands its message over again, which the admission
        path files without a second reply, as it does after a run stopped before the line."""
        self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW, 0o600)
        try:
            os.write(fd, key.replace("\n", " ").encode("utf-8", "replace") + b"\n")
            if sync:
                os.fsync(fd)
        finally:
            os.close(fd)

    def sync(self) -> None:
        """The lines added without a sync, on the disk."""
        try:
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_NOFOLLOW)
        except FileNotFoundError:
            return
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def ledger_for(queue: Path, where: str) -> Ledger:
    """The ledger of one mailbox (a Maildir's path, an IMAP server's folder) in the queue."""
    name = hashlib.sha256(where.encode("utf-8", "surrogatepass")).hexdigest()[:20]
    return Ledger(queue / ".handled" / f"{name}.keys")  # a dot: never taken for a batch of replies


def maildir_messages(inbox: Path, colon: str = ":") -> list[tuple[str, str, str]]:
    """(folder, key, file name) of every message in ``new/`` and ``cur/``, oldest delivery
    first: a message another client moved to ``cur/`` is a message like any other."""
    found: list[tuple[float, str, str, str]] = []
    for folder in ("new", "cur"):
        for entry in os.scandir(inbox / folder):
            if entry.name.startswith(".") or not entry.is_file():
                continue
            key = entry.name.split(colon)[0]
            match = _KEY_TIME.match(key)
            when = int(match.group(1)) + int(match.group(2) or 0) / 1e6 if match else entry.stat().st_mtime
            found.append((when, key, folder, entry.name))
    return [(folder, key, name) for _when, key, folder, name in sorted(found)]
