"""One name, one thing: a reader importing a type from pbem never has to ask which one it is.

Every class pbem defines, and every module-level type alias (``X: TypeAlias = A | B``), has a
name no other class or alias in the package has; no module imports a pbem class under another
name (an alias makes two names for one thing).
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

PBEM = Path(__file__).resolve().parent.parent / "pbem"
_GENERIC = ("Literal", "Union", "Optional", "Callable", "Annotated")


def _is_alias(node: ast.stmt) -> str | None:
    """The name a module-level statement defines as a type alias, if it does."""
    if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) \
            and ast.unparse(node.annotation).split(".")[-1] == "TypeAlias":
        return node.target.id
    if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
        value = node.value
        if isinstance(value, ast.BinOp) and isinstance(value.op, ast.BitOr):
            return node.targets[0].id  # an implicit alias: ``X = A | B``
        if isinstance(value, ast.Subscript) and ast.unparse(value.value).split(".")[-1] in _GENERIC:
            return node.targets[0].id  # ``X = Literal["a", "b"]``, ``X = Callable[[str], str]``
    return None


def type_names(root: Path) -> dict[str, list[str]]:
    """Each class or type-alias name defined under ``root``, with where it is defined."""
    found: dict[str, list[str]] = defaultdict(list)
    for path in sorted(root.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        where = path.relative_to(root.parent).as_posix()
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                found[node.name].append(f"{where}:{node.lineno}")
        for node in tree.body:
            name = _is_alias(node)
            if name is not None:
                found[name].append(f"{where}:{node.lineno}")
    return found


def renamed_imports(root: Path, classes: set[str]) -> list[str]:
    """Imports from pbem that give a pbem class another name."""
    renamed = []
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("pbem"):
                renamed += [f"{path.relative_to(root.parent)}:{node.lineno}: {a.name} as {a.asname}"
                            for a in node.names if a.asname not in (None, a.name) and a.name in classes]
    return renamed


def test_no_two_classes_or_type_aliases_in_pbem_share_a_name() -> None:
    shared = {name: places for name, places in type_names(PBEM).items() if len(places) > 1}
    assert shared == {}


def test_no_module_imports_a_pbem_class_under_another_name() -> None:
    assert renamed_imports(PBEM, set(type_names(PBEM))) == []


def test_the_scan_sees_a_second_class_and_a_second_alias_of_one_name(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "a.py").write_text("class Verdict:\n    pass\n\nMove: TypeAlias = int | str\n")
    (package / "b.py").write_text("from enum import StrEnum\n\nclass Verdict(StrEnum):\n    X = 'x'\n\n"
                                  "Move = bytes | None\nOutcome = Literal['a']\n")
    (package / "d.py").write_text("Outcome: TypeAlias = Literal['b']\n")
    (package / "c.py").write_text("from other.a import Verdict as Judged\n")
    names = type_names(package)
    assert names["Verdict"] == ["pkg/a.py:1", "pkg/b.py:3"]
    assert names["Move"] == ["pkg/a.py:4", "pkg/b.py:6"]
    assert names["Outcome"] == ["pkg/b.py:7", "pkg/d.py:1"]
    assert renamed_imports(package, {"Verdict"}) == []  # not an import from pbem
    (package / "c.py").write_text("from pbem.mail import Verdict as Judged\n")
    assert renamed_imports(package, {"Verdict"}) == ["pkg/c.py:1: Verdict as Judged"]
