"""Shared helpers for the end of a game by mail: a game to finish, the last mail's parts, and its
audit with no other file."""

from __future__ import annotations

import mailbox
import subprocess
import sys
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser
from pathlib import Path

from clitools import ok
from mailgame import THREE

ROOT = Path(__file__).resolve().parent.parent


def new_game(games: Path, *extra: str) -> None:
    args = ["new", "g", "--players", ",".join(THREE), "--games", str(games), "--mail", "every", *extra]
    for player, address in THREE.items():
        args += ["--seat-email", f"{player}={address}"]
    ok(*args)


def take(outbox: Path) -> list[EmailMessage]:
    """The replies delivered to the outbox Maildir since the last call (then emptied)."""
    box = mailbox.Maildir(str(outbox), create=True)
    out = []
    for key in sorted(box.keys()):
        msg = BytesParser(policy=policy.default).parsebytes(box.get_bytes(key))
        assert isinstance(msg, EmailMessage)
        out.append(msg)
    box.clear()
    return out


def audits_alone(log: bytes, where: Path) -> None:
    """The mailed log (gzipped as the end mail attaches it, or not), alone in a folder of its own,
    audits FAIR by both auditors as it is (P6)."""
    where.mkdir()
    name = "log.yaml.gz" if log[:2] == b"\x1f\x8b" else "log.yaml"
    (where / name).write_bytes(log)
    assert "verdict: FAIR." in ok("audit", where / name)
    assert "every move replays under the rules" in ok("verify", where / name)
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "audit_min.py"), name],
                          cwd=where, capture_output=True, text=True, check=False)
    assert done.returncode == 0 and done.stdout.splitlines()[-1].startswith("verdict: FAIR."), done.stdout
