"""Shared helpers for tests that drive the `pbem` command line."""

from __future__ import annotations

import hashlib
from pathlib import Path

from click.testing import CliRunner, Result

from pbem.cli import main


def snapshot(root: Path) -> dict[str, str]:
    """Every file under ``root`` (hidden ones too) -> the SHA-256 of its bytes."""
    return {
        p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def cli(*args: str | Path, input: str | None = None) -> Result:
    """Run `pbem ARGS` (``input``: its standard input); a bug's exception propagates, and no
    output shows a traceback."""
    result = CliRunner().invoke(main, [str(a) for a in args], input=input, catch_exceptions=False)
    assert "Traceback" not in result.output + result.stderr
    return result


def ok(*args: str | Path, input: str | None = None) -> str:
    result = cli(*args, input=input)
    assert result.exit_code == 0, result.output + result.stderr
    return result.output
