"""The `pbem` command line: a thin shell over the host, the referee, the views and the bots.

Every refusal prints one paragraph to stderr and exits with the code of its
kind (:class:`pbem.errors.Exit`); nothing is written on a refusal.
May import: every layer of pbem (it is the top one).
"""

from __future__ import annotations

import gc

from pbem.cli.shell import main  # its commands' modules register them when a command is looked for

__all__ = ["main", "run"]


def run() -> None:
    """The `pbem` process (console script, `python -m pbem`).

    A pbem command is a short process: it loads its modules, builds many small
    objects (a log's entries, a replay) and exits.  Marking what is loaded as
    permanent and collecting young objects less often spares the collector
    from walking the same objects again and again (bench/bench.py times
    `pbem apply`).  Long commands (`pbem mail`) still collect.  Once the command
    is done, whatever it made is marked permanent too: the interpreter's last
    collection, as the process exits, then walks none of it (about 10 ms of a
    `pbem apply`, a fifth of its time beyond its imports' floor); the process's
    memory goes back to the system whole, and files are closed by their writers,
    never by a collection.
    """
    gc.freeze()
    gc.set_threshold(50_000, 20, 20)
    try:
        main()
    finally:
        gc.freeze()


