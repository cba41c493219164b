"""The house in layers (ARCHITECTURE.md): imports only run downward, and no module hides a circle.

Each subpackage of ``pbem`` is a layer; a module may import its own layer and
the layers below it, never one above, and the imports inside one layer form
no circle.  Checked from the modules' own source with :mod:`ast` (every
import, at module level or inside a function), so nothing has to be imported
to be checked.
"""

from __future__ import annotations

import ast
import subprocess
import sys

import pytest
from layertools import MODULES, PBEM

LAYERS: list[tuple[str, ...]] = [
    ("pbem", "pbem.errors", "pbem.record", "pbem.files", "pbem.i18n"),  # the bottom: standard library only
    ("pbem.rules",),  # the pure rules
    ("pbem.fair",),  # protocol, deal, keys
    ("pbem.log", "pbem.data"),  # the log's formats and files; the shipped data
    ("pbem.referee",),  # admission, replay, signatures, audit, history
    ("pbem.views",),  # what people read
    ("pbem.player",),  # a player's own tools
    ("pbem.bots",),  # bots that play a seat from its view only
    ("pbem.host",),  # the only writer of a game's files, and its step (start, stand-ins, bot seats)
    ("pbem.mail",),  # the mail host
    ("pbem.sim",),  # bots and simulations
    ("pbem.cli", "pbem.__main__"),  # the shell
]


def layer_of(module: str) -> int:
    best, found = -1, -1
    for index, prefixes in enumerate(LAYERS):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > best:
                best, found = len(prefix), index
    assert found >= 0, f"{module} is in no layer: add it to LAYERS and ARCHITECTURE.md"
    return found


def imports_of(module: str) -> list[tuple[str, int, bool]]:
    """(imported pbem module, line, inside a function?) for every import in ``module``."""
    path = MODULES[module]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: list[tuple[str, int, bool]] = []

    def visit(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            inner = in_function or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef)
            if isinstance(child, ast.Import):
                found.extend((a.name, child.lineno, in_function) for a in child.names if a.name.startswith("pbem"))
            elif isinstance(child, ast.ImportFrom):
                base = child.module or ""
                if child.level:
                    parent = package.split(".")[: len(package.split(".")) - child.level + 1]
                    base = ".".join([*parent, base]).strip(".")
                if base.startswith("pbem"):
                    for alias in child.names:  # `from pbem.x import y` may name a submodule y
                        sub = f"{base}.{alias.name}"
                        found.append((sub if sub in MODULES else base, child.lineno, in_function))
            visit(child, inner)

    visit(tree, False)
    return found


def test_every_module_is_in_a_layer() -> None:
    for module in MODULES:
        layer_of(module)


def test_imports_only_run_downward() -> None:
    upward = [
        f"{module} (layer {layer_of(module)}) imports {target} (layer {layer_of(target)}), line {line}"
        for module in MODULES
        for target, line, _ in imports_of(module)
        if layer_of(target) > layer_of(module)
    ]
    assert not upward, "upward imports:\n" + "\n".join(upward)


def test_no_import_circles() -> None:
    graph = {m: {t for t, _l, _f in imports_of(m) if t in MODULES and t != m} for m in MODULES}
    # a package's __init__ that imports its own submodules is the package's face, not a circle
    for module in MODULES:
        if MODULES[module].name == "__init__.py":
            graph[module] = {t for t in graph[module] if not t.startswith(module + ".")}
    seen: dict[str, int] = {}
    stack: list[str] = []

    def dfs(node: str) -> None:
        seen[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            if seen.get(nxt) == 1:
                cycle = [*stack[stack.index(nxt) :], nxt]
                raise AssertionError("import circle: " + " -> ".join(cycle))
            if nxt not in seen:
                dfs(nxt)
        stack.pop()
        seen[node] = 2

    for module in sorted(graph):
        if module not in seen:
            dfs(module)


def test_an_import_inside_a_function_says_why() -> None:
    """Only for start-up speed, and the module says so (no import hides a circle)."""
    unexplained = []
    for module, path in MODULES.items():
        text = path.read_text(encoding="utf-8")
        lines = text.splitlines()
        doc = ast.get_docstring(ast.parse(text)) or ""
        for _target, line, in_function in imports_of(module):
            if in_function and "start-up" not in doc and "start-up" not in lines[line - 1]:
                unexplained.append(f"{module}:{line}: {lines[line - 1].strip()}")
    assert not unexplained, "imports inside functions without a reason:\n" + "\n".join(unexplained)


def test_import_pbem_rules_loads_no_yaml_schema_cli_or_crypto() -> None:
    code = (
        "import sys, pbem.rules; "
        "print(','.join(m for m in ('yaml', 'jsonschema', 'click', 'cryptography') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=PBEM.parent)
    assert out.stdout.strip() == ""


@pytest.mark.parametrize("module", sorted(MODULES))
def test_no_module_over_400_lines(module: str) -> None:
    assert len(MODULES[module].read_text(encoding="utf-8").splitlines()) <= 400


def test_no_function_over_60_lines_without_a_reason() -> None:
    long = []
    for module, path in MODULES.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                length = (node.end_lineno or node.lineno) - node.lineno + 1
                if length > 60 and "Long because" not in (ast.get_docstring(node) or ""):
                    long.append(f"{module}.{node.name}: {length} lines")
    assert not long, "functions over 60 lines with no 'Long because' in their docstring:\n" + "\n".join(long)
