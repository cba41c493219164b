"""`python -m pbem` is the `pbem` command."""

from pbem.cli import run

run()
