"""Suite-wide fixtures.

The host's clock (PROTOCOL P7, ``pbem/log/clock.py``) is pinned for every test, so no
outcome depends on the day the suite runs: a test that needs another moment sets
``PBEM_NOW`` itself (``monkeypatch.setenv``) or passes ``--now``. ``.ci/run`` runs the
fast suite a second time under ``faketime`` a year ahead to keep it that way.

The tests' folders (``tmp_path``) are made in memory, on ``/dev/shm``, where the machine has
one.  pbem syncs every file it writes to the disk (``pbem/files.py``: nothing is ever lost),
and this machine's disk waits made the tests that write most two to three times slower:
tests/test_readers_agree.py, test_hoststep.py and test_fuzz.py in one process took 48 and 84 s
of wall clock in two runs on the disk and 28 s in memory, for about the same CPU time.  The
whole suite on 2 cores, whose other worker computes meanwhile, went from 130 s to 121 s.  The
code and its syncs are the same either way.  ``PBEM_TESTS_ON_DISK=1`` or ``--basetemp`` keeps
the folders where pytest puts them, and a /dev/shm with less than 256 MiB free is not used.
A run that was killed leaves its folder behind; the next run removes it (``_sweep``).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

MEMORY = Path("/dev/shm")
PREFIX = "pbem-pytest-"
OWNER = "owner.pid"  # the process id of the run that made the folder (:func:`_sweep`)
_MADE: list[str] = []  # the in-memory base folder this process made (removed at the end)


def pytest_configure(config: pytest.Config) -> None:
    """The run's base folder in memory (the module's note); xdist's workers get theirs below it
    from the controller, and a worker never makes one of its own."""
    if config.option.basetemp or os.environ.get("PBEM_TESTS_ON_DISK") or hasattr(config, "workerinput"):
        return
    if MEMORY.is_dir() and os.access(MEMORY, os.W_OK | os.X_OK):
        _sweep(MEMORY)
        if _free(MEMORY) >= 256 << 20:
            base = tempfile.mkdtemp(prefix=PREFIX, dir=MEMORY)  # one per run: runs side by side
            Path(base, OWNER).write_text(f"{os.getpid()}\n", encoding="ascii")
            _MADE.append(base)
            config.option.basetemp = str(Path(base) / "t")


def _sweep(folder: Path) -> None:
    """Remove the in-memory folders of earlier runs that were killed before their end (the
    run that made one writes its process id in it; a folder whose process is gone is left
    over).  A folder without that file, or whose process still runs, is left alone."""
    for old in folder.glob(PREFIX + "*"):
        try:
            pid = int((old / OWNER).read_text(encoding="ascii"))
            os.kill(pid, 0)
        except ProcessLookupError:
            shutil.rmtree(old, ignore_errors=True)
        except (OSError, ValueError):  # no such file, not ours to signal, or not a number
            continue


def _free(folder: Path) -> int:
    """Bytes free in ``folder`` (a container's /dev/shm may be 64 MiB; a run writes about 7 MiB)."""
    stat = os.statvfs(folder)
    return stat.f_bavail * stat.f_frsize


def pytest_unconfigure(config: pytest.Config) -> None:
    while _MADE:
        shutil.rmtree(_MADE.pop(), ignore_errors=True)


SUITE_NOW = "2026-11-30T09:00:00Z"
"""The host's clock for every test that does not set its own (P7)."""


@pytest.fixture(autouse=True)
def pinned_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PBEM_NOW", SUITE_NOW)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """A phone-sized (390 x 844) headless Chromium driven by Playwright (tests/cdp.py),
    one per test module; the test skips, saying why, where Debian's chromium is missing."""
    from cdp import Browser, browser_path

    browser_path()
    chrome = Browser(390, 844)
    yield chrome
    chrome.close()
