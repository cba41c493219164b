"""What the docstrings, comments and documents name exists: every dotted ``pbem.x.y``
reference resolves to a module or an attribute, and every path of the repository they
give (``pbem/mail/admission.py``, ``docs/protocol.md``) is a file.  A reference that names
nothing sends a reader looking for code that was renamed or never was."""

from __future__ import annotations

import importlib
import re
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOTTED = re.compile(r"(?<![\w./@-])pbem(?:\.[A-Za-z_]\w*)+")
"""``pbem.host.games.timeout``; not ``rattus@pbem.example`` nor a file name ``pbem.po``."""
PATH = re.compile(r"(?<![\w/.-])(?:pbem|tests|tools|bench|docs|schemas|examples)/[\w/.-]+\.(?:py|md|json|yaml)\b")
"""A repository path with an extension; ``rules.LANG.md`` style patterns are skipped below."""
PACKAGES = {p.stem for p in (ROOT / "pbem").iterdir() if p.suffix == ".py" or (p / "__init__.py").exists()}
"""The first name after ``pbem.``: a module or package of pbem (``pbem.po`` is a file)."""


def sources() -> list[Path]:
    code = [p for top in ("pbem", "tests", "tools", "bench") for p in sorted((ROOT / top).rglob("*.py"))
            if p != Path(__file__).resolve()]  # this file names stale references on purpose
    docs = [ROOT / "README.md", ROOT / "ARCHITECTURE.md", ROOT / "CHANGELOG.md", *sorted((ROOT / "docs").glob("*.md"))]
    return code + [p for p in docs if p.exists()]


def resolves(name: str) -> bool:
    """``pbem.a.b.c``: the longest importable module prefix, then attributes."""
    parts = name.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            found: object = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        break
    else:  # pragma: no cover - `pbem` itself always imports
        return False
    for attr in parts[cut:]:
        if not hasattr(found, attr):
            return False
        found = getattr(found, attr)
    return isinstance(found, ModuleType) or found is not None


def references(pattern: re.Pattern[str]) -> list[tuple[str, str]]:
    """(where, what) for every match of ``pattern`` in pbem's sources and documents."""
    found = []
    for path in sources():
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for match in pattern.finditer(line):
                found.append((f"{path.relative_to(ROOT)}:{number}", match.group(0)))
    return found


def test_every_dotted_reference_names_a_module_or_an_attribute() -> None:
    refs = [(where, name) for where, name in references(DOTTED) if name.split(".")[1] in PACKAGES]
    assert len(refs) > 100  # the scan finds the references (it would pass vacuously otherwise)
    stale = [f"{where}: {name}" for where, name in refs if not resolves(name)]
    assert not stale, "references that name nothing:\n" + "\n".join(stale)


def test_every_repository_path_named_is_a_file() -> None:
    refs = [(where, name) for where, name in references(PATH) if not re.search(r"[A-Z]{3,}", name)]
    assert len(refs) > 50
    missing = [f"{where}: {name}" for where, name in refs if not (ROOT / name).exists()]
    assert not missing, "paths that name no file:\n" + "\n".join(missing)


@pytest.mark.parametrize("name, ok", [
    ("pbem.host.games.timeout", True), ("pbem.referee.signatures.require_valid", True), ("pbem.rules", True),
    ("pbem.host.timeout", False), ("pbem.fair.keys.require_valid", False), ("pbem.sim.bot", False),
])
def test_the_resolver_tells_a_stale_reference(name: str, ok: bool) -> None:
    assert resolves(name) is ok


def test_no_test_module_imports_another() -> None:
    """Shared helpers live in helper modules (tests/mailtools.py, tests/tampering.py, ...), so a
    test module is imported once, under one name, by pytest; mypy checks tests/ as it is."""
    import ast

    found = []
    for path in sorted((ROOT / "tests").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = ([node.module or ""] if isinstance(node, ast.ImportFrom)
                     else [a.name for a in node.names] if isinstance(node, ast.Import) else [])
            found += [f"{path.name}: {name}" for name in names if name.startswith(("test_", "tests."))]
    assert not found, "\n".join(found)
