"""``python -m pbem.cli``: the same as the ``pbem`` command."""

from pbem.cli import run

run()
