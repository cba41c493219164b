"""What `pbem tick` has queued for a game: ``mail-notices.txt`` (``remind SEQ`` for the turn
begun at entry SEQ, ``notice SEQ`` for the timeout or stand-in entry SEQ), written under the
game's lock; and what one run did."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from pbem.files import write_atomic

NOTICES_NAME = "mail-notices.txt"


@dataclass
class Tick:
    """What one run did, a line per thing done."""

    lines: list[str] = field(default_factory=list)
    timeouts: int = 0
    queued: int = 0


def notices_sent(path: Path) -> set[str]:
    target = path / NOTICES_NAME
    return set(target.read_text("utf-8").splitlines()) if target.is_file() else set()


def note(path: Path, item: str) -> None:
    done = notices_sent(path) | {item}
    write_atomic(path / NOTICES_NAME, "".join(f"{x}\n" for x in sorted(done)).encode(), 0o600)
