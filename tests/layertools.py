"""The package's modules as the layer test reads them."""

from __future__ import annotations

from pathlib import Path

PBEM = Path(__file__).resolve().parent.parent / "pbem"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PBEM.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {module_name(p): p for p in sorted(PBEM.rglob("*.py"))}
