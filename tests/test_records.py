"""The log's entries are records read once, by one strict reader (P2, P7).

Outside the records modules no module of pbem asks an entry for its ``kind`` string; every
reader asks the record (its class, what it reveals).  The reader is exactly as strict as
``schemas/entry.json``: a boolean ``seq``, an extra field or a YAML comment inside an entry
is refused by every command that reads a log, as ``pbem verify`` refuses it.
"""

from __future__ import annotations

import ast
import copy
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from tampering import rechain

from pbem.cli import main
from pbem.log.logfile import read_docs
from pbem.log.yamlio import dump_entry

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "rattus-3p" / "log.yaml"
RECORDS = {"pbem/log/records.py", "pbem/log/shape.py"}
ENTRY_KINDS = {"create", "commit", "nonce", "waive", "abandon", "start", "move", "timeout", "standin",
               "resign", "replace", "reveal"}


def kind_questions(source: str) -> list[int]:
    """Lines that read an entry's kind: ``x["kind"]``, ``x.get("kind")``, or a comparison with
    an entry kind's name (a mailed move's ``move.kind`` is a move file's, not an entry's)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if (isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load) \
                and isinstance(node.slice, ast.Constant) and node.slice.value == "kind") or (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get" \
                and node.args and isinstance(node.args[0], ast.Constant) and node.args[0].value == "kind"):
            found.append(node.lineno)
        elif isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            named = any(isinstance(s, ast.Constant) and s.value in ENTRY_KINDS for s in sides) or any(
                isinstance(s, ast.Tuple) and any(isinstance(e, ast.Constant) and e.value in ENTRY_KINDS
                                                 for e in s.elts) for s in sides)
            a_move = any(isinstance(s, ast.Attribute) and s.attr == "kind" for s in sides)
            if named and not a_move:
                found.append(node.lineno)
    return found


NOT_ENTRY_KINDS = {  # a move file's kind (schemas/move.json), not an entry's: (module, the line's text)
    ("pbem/log/moves.py", 'return Move(doc["game"], doc["player"], doc["kind"], doc)'),
    ("pbem/log/moves.py", 'return TextMove(doc["game"], doc["player"], doc["kind"], doc, text, what, context)'),
    ("pbem/referee/replay.py", 'return Move(move["game"], str(entry.player), move["kind"], move)'),
    ("pbem/log/notation.py", 'kind = str(data.get("kind"))'),  # a move file's, written as text
}


def test_no_module_outside_the_records_asks_an_entry_for_its_kind() -> None:
    offenders = []
    for path in sorted((ROOT / "pbem").rglob("*.py")):
        name = str(path.relative_to(ROOT))
        if name in RECORDS:
            continue
        source = path.read_text(encoding="utf-8")
        lines = source.splitlines()
        offenders += [f"{name}:{line}" for line in kind_questions(source)
                      if (name, lines[line - 1].strip()) not in NOT_ENTRY_KINDS]
    assert offenders == []


@pytest.mark.parametrize("planted", [
    'if entry["kind"] == "move":\n    pass\n',
    'if entry.get("kind") != "timeout":\n    pass\n',
    'ok = kind in ("timeout", "standin")\n',
])
def test_the_structural_check_is_not_vacuous(planted: str) -> None:
    assert kind_questions(planted)


def _tampered(tmp_path: Path) -> dict[str, Path]:
    entries, _ = read_docs(EXAMPLE)
    text = "".join(dump_entry(e) for e in entries)
    cases: dict[str, list[dict[str, Any]] | str] = {}
    es = copy.deepcopy(entries)
    es[3]["seq"] = True if es[3]["seq"] == 1 else es[3]["seq"]
    es[1]["seq"] = True  # True == 1 in Python: the old chain check let it pass
    cases["seq true"] = es
    es = copy.deepcopy(entries)
    es[5]["extra"] = 1
    cases["extra field"] = rechain(es)
    lines = text.split("\n")
    starts = [i for i, line in enumerate(lines) if line.startswith("---")]
    lines.insert(starts[3] + 2, "  # a comment inside the entry")
    cases["comment inside"] = "\n".join(lines)
    out = {}
    for name, case in cases.items():
        folder = tmp_path / name.replace(" ", "-")
        folder.mkdir()
        log = folder / "log.yaml"
        log.write_text(case if isinstance(case, str) else "".join(dump_entry(e) for e in case), encoding="utf-8")
        out[name] = log
    return out


def test_every_reader_refuses_what_verify_refuses(tmp_path: Path) -> None:
    """P7: verify, audit, html, history and list read a log alike (one strict reader)."""
    for name, log in _tampered(tmp_path).items():
        before = log.read_bytes()
        runs = {
            "verify": ["verify", str(log)], "audit": ["audit", str(log)],
            "html": ["html", str(log), "-o", str(tmp_path / "page.html")],
            "history": ["history", log.parent.name, "--games", str(log.parent.parent)],
        }
        for command, args in runs.items():
            result = CliRunner().invoke(main, args)
            assert result.exit_code != 0, (name, command, result.output)
            assert "Traceback" not in result.output + result.stderr
            assert len(result.stderr.strip().splitlines()) == 1, (name, command, result.stderr)
        listed = CliRunner().invoke(main, ["list", "--games", str(log.parent.parent)])
        assert f"{log.parent.name}: does not verify" in listed.output, (name, listed.output)
        assert log.read_bytes() == before
        assert not (tmp_path / "page.html").exists()
