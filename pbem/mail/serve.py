"""`pbem serve`: the mail host as one long-running command.

Each round is one ``pbem mail`` pass (:func:`pbem.mail.run.process`): fetch the messages
(a Maildir or an IMAP folder) and apply them through the one admission path, run the
deadlines (R8, what ``pbem tick`` does), announce the games that ended (P6), deliver the
queue; then sleep, and again.  Everything a pass writes is durable before the next step
(the log, the replies spooled before a message is filed, the delivery journal), so a
``kill -9`` at any moment loses nothing and doubles nothing: the next start goes on.

* SIGTERM (and SIGINT) stop it cleanly: the message being handled is finished, no other
  is started, the replies already spooled are delivered, and it exits 0.
* A mail server that is down (IMAP unreachable, SMTP refusing connections) is said once,
  retried with exponential backoff (``--interval`` doubled up to ``MAX_BACKOFF``), and
  its return is said once too.
"""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Callable
from pathlib import Path
from types import FrameType

from pbem.errors import BusyError
from pbem.mail.imap import ImapBox
from pbem.mail.run import Run, process

MAX_BACKOFF = 900.0  # seconds: the longest wait between two tries of a server that is down


class Server:
    """One ``pbem serve``: its sources, its state (down or up), and its stop flag."""

    def __init__(
        self, games: Path, inbox: Path | None, imap: ImapBox | None, outbox: Path | None, smtp: str | None,
        from_address: str | None, interval: float, say: Callable[[str], None],
    ) -> None:
        self.games, self.inbox, self.imap, self.outbox, self.smtp = games, inbox, imap, outbox, smtp
        self.from_address, self.interval, self.say = from_address, interval, say
        self.stop = threading.Event()
        self.down: str | None = None  # what is down, said once
        self.rounds = 0
        self.waits: list[float] = []  # each sleep between two rounds (the backoff, for the host and tests)
        self.after_round: Callable[[], None] | None = None  # after each pass that reached the servers (--site)
        self.open: list[str] = []  # the open games announced last (said again when they change)

    def handle_signals(self) -> None:
        def stop(signum: int, _frame: FrameType | None) -> None:
            self.stop.set()

        signal.signal(signal.SIGTERM, stop)
        signal.signal(signal.SIGINT, stop)

    def serve(self, rounds: int | None = None) -> None:
        """Round after round until stopped (or ``rounds`` more rounds, for tests)."""
        wait = self.waits[-1] if self.waits else self.interval
        done = 0
        while not self.stop.is_set() and (rounds is None or done < rounds):
            done += 1
            self.rounds += 1
            wait = self.interval if self.one_round() else min(max(wait, self.interval) * 2, MAX_BACKOFF)
            if self.stop.is_set():
                break
            self.waits.append(wait)
            self._sleep(wait)
        self.say("pbem serve: stopped; every message handled so far is applied and its replies spooled")

    def _sleep(self, seconds: float) -> None:
        """Sleep ``seconds``, or less once stopped: short sleeps that look at the flag (a
        signal handler sets it), not a timed ``Event.wait``, whose deadline the kernel keeps
        on its own clock (under a faked clock, e.g. CI's year-ahead run, it slept a year)."""
        until = time.monotonic() + seconds
        while not self.stop.is_set() and (left := until - time.monotonic()) > 0:
            time.sleep(min(left, 0.05))

    def one_round(self) -> bool:
        """One pass; False when a server is down (the next try then waits longer)."""
        try:
            run = process(self.inbox, self.games, self.outbox, self.smtp, self.from_address,
                          imap=self.imap, stopping=self.stop.is_set,
                          retry_now=self.down is not None)  # while down, serve's own backoff paces the tries
        except BusyError as err:  # IMAP down, or another run holding the queue too long
            self._is_down(f"{err.message}")
            return False
        for item in run.done:
            self.say(f"{item.key} from {item.sender or '?'}: {item.result}")
        if run.open != self.open:  # the open games announced, each time they change
            for line in run.open or ["no open game now"]:
                self.say(f"pbem serve: {line}")
            self.open = run.open
        if run.kept and not run.sent:
            self._is_down(f"the SMTP server took no reply ({run.kept} kept, retried with backoff)")
            return False
        self._is_up(run)
        if self.after_round is not None:
            self.after_round()
        return True

    def _is_down(self, what: str) -> None:
        if self.down is None:  # said once, however long it lasts
            self.say(f"pbem serve: the mail server is down: {what}; trying again with backoff "
                     f"(at most every {MAX_BACKOFF:.0f} s)")
        self.down = what

    def _is_up(self, run: Run) -> None:
        if self.down is not None:
            self.say("pbem serve: the mail server is back; going on")
        self.down = None
        if run.failed:
            self.say(f"pbem serve: {run.failed} repl(ies) refused for good (see GAMES/+mail-queue/failed/failed.log)")
