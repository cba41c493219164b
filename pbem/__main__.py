"""`python -m pbem` is the `pbem` command."""

from pbem.cli import run

if __name__ == "__main__":  # not when a tournament's worker process imports it (spawn)
    run()
