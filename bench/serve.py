"""`pbem serve`'s throughput: messages a second through the whole path, on one core.

    python bench/serve.py [--games 50] [--moves 4] [--core 0]

The games and the players' mails are bench/mail.py's (each game's opening done, every seat's
address in host.yaml, the next moves mailed by the players in turn, the host's clock pinned so
the entries come out the same).  A local SMTP server (aiosmtpd, on 127.0.0.1, in this process)
takes the replies.  `pbem serve --inbox --smtp` is started on one core (``taskset``-like
affinity), its inbox empty; once it is up, every message is put into the inbox's ``new/`` at
once, and the clock runs until every message has left ``new/`` (admitted, logged, its replies
spooled) and the SMTP server has taken every reply (delivered).  Printed: messages and replies
a second of the wall clock, and a second of the server process's own CPU time (its capacity on
a core of its own, whatever else the machine runs meanwhile).
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import mail  # bench/mail.py: its games and messages

HERE = Path(__file__).resolve().parent.parent


class Counting:
    """An SMTP handler that counts what it is given (aiosmtpd's ``handle_DATA``)."""

    def __init__(self) -> None:
        self.count, self.last, self.bytes = 0, 0.0, 0
        self.lock = threading.Lock()

    async def handle_DATA(self, _server: Any, _session: Any, envelope: Any) -> str:
        with self.lock:
            self.count += len(envelope.rcpt_tos)
            self.bytes += len(envelope.content)
            self.last = time.perf_counter()
        return "250 OK"


def settle(handler: Counting, quiet: float) -> None:
    """Wait until the SMTP server has been given nothing for ``quiet`` seconds."""
    while True:
        seen = handler.count
        time.sleep(quiet)
        if handler.count == seen:
            return


def pending(queue: Path) -> bool:
    """Does the outbox still hold a reply not handed over (``NN.eml``, not ``.sent``)?"""
    return queue.is_dir() and any(p.name.endswith(".eml") for p in queue.glob("*/*.eml"))


def cpu_seconds(pid: int) -> float:
    """The CPU time (user and system) process ``pid`` and its waited-for children have used so
    far (Linux: /proc/PID/stat)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return sum(int(f) for f in fields[11:15]) / os.sysconf("SC_CLK_TCK")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def run(root: Path, core: int) -> None:
    from aiosmtpd.controller import Controller

    games, staged = mail.build(root / "pristine")
    messages = sorted((staged / "new").iterdir())
    inbox = root / "inbox"
    for sub in ("new", "cur", "tmp"):
        (inbox / sub).mkdir(parents=True)
    handler = Counting()
    port = free_port()
    smtp = Controller(handler, hostname="127.0.0.1", port=port)
    smtp.start()
    cmd = [sys.executable, "-c", mail.RUN, str(HERE), "serve", "--inbox", str(inbox), "--smtp", f"127.0.0.1:{port}",
           "--games", str(games), "--from", mail.HOST, "--interval", "0.05"]
    server = subprocess.Popen(cmd, env=mail.ENV, cwd="/", stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                              preexec_fn=lambda: os.sched_setaffinity(0, {core}))
    try:
        settle(handler, 2.0)  # up, its first rounds done and the games' invitations delivered
        before, start, cpu = handler.count, time.perf_counter(), cpu_seconds(server.pid)
        for message in messages:  # into new/ at once, as a mail system delivers them
            os.replace(message, inbox / "new" / message.name)
        while any((inbox / "new").iterdir()):
            time.sleep(0.01)
        admitted = time.perf_counter()
        while pending(games / "+mail-queue"):  # every reply spooled is handed to the SMTP server
            time.sleep(0.01)
        settle(handler, 1.0)
        delivered, cpu = handler.last, cpu_seconds(server.pid) - cpu
    finally:
        server.send_signal(signal.SIGTERM)
        _out, err = server.communicate(timeout=60)
        smtp.stop()
    if server.returncode != 0:
        raise SystemExit(f"pbem serve failed: {err.decode()[-2000:]}")
    n = len(messages)
    whole = delivered - start
    replies = handler.count - before
    print(f"pbem serve on one core (cpu {core}), {n} messages ({mail.MOVES} moves a game across {mail.GAMES} games, "
          f"4 seats each), replies by SMTP to 127.0.0.1: all admitted and logged in {admitted - start:.2f} s, "
          f"every reply delivered in {whole:.2f} s: {n / whole:.1f} messages a second; the server's own CPU time "
          f"{cpu:.1f} s: {n / cpu:.1f} messages, {replies / cpu:.1f} replies a CPU second; "
          f"{replies / whole:.1f} replies a second ({replies} replies, {handler.bytes / handler.count / 1024:.0f} KiB "
          f"each on average; load average {os.getloadavg()[0]:.1f})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=50)
    parser.add_argument("--moves", type=int, default=4)
    parser.add_argument("--core", type=int, default=0)
    args = parser.parse_args()
    mail.GAMES, mail.MOVES = args.games, args.moves
    with tempfile.TemporaryDirectory() as tmp:
        run(Path(tmp), args.core)
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
