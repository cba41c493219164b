"""The log's entries and the moves are records, both ways (P2, P7).

Outside the records package no module of pbem asks an entry or a move for its ``kind``
string or writes one as a mapping; every reader asks the record (its class, what it
reveals) and every writer goes through its kind's writer.  The reader is exactly as strict as
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
RECORDS = ("pbem/log/records/", "pbem/log/shape.py")  # the records, and the strict reader's shape check
ENTRY_KINDS = {"create", "commit", "nonce", "waive", "abandon", "start", "move", "timeout", "standin",
               "resign", "replace", "reveal", "away"}
MOVE_KINDS = {"commit", "nonce", "move", "resign", "away"}
KIND_NAMES = ENTRY_KINDS | MOVE_KINDS


def _names_a_kind(node: ast.AST) -> bool:
    """A string constant that is an entry's or a move's kind, alone or in a tuple, list or set."""
    if isinstance(node, ast.Constant):
        return node.value in KIND_NAMES
    return isinstance(node, ast.Tuple | ast.List | ast.Set) and any(_names_a_kind(e) for e in node.elts)


def kind_questions(source: str) -> list[int]:
    """Lines that read a move's or an entry's kind as a string, or write one as a mapping:
    ``x["kind"]``, ``x.get("kind")``, a comparison or a ``case`` with a kind's name, a
    comparison of a ``KIND``, a mapping written with a ``"kind"`` key, or a record's ``.raw``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and node.slice.value == "kind":
            found.append(node.lineno)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get" \
                and node.args and isinstance(node.args[0], ast.Constant) and node.args[0].value == "kind":
            found.append(node.lineno)
        elif isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            if any(_names_a_kind(side) for side in sides) or any(
                    isinstance(side, ast.Attribute) and side.attr == "KIND" for side in sides):
                found.append(node.lineno)
        elif isinstance(node, ast.MatchValue) and _names_a_kind(node.value):
            found.append(node.lineno)
        elif isinstance(node, ast.Dict) and any(isinstance(k, ast.Constant) and k.value == "kind" for k in node.keys):
            found.append(node.lineno)
        elif isinstance(node, ast.Call) and any(k.arg == "kind" for k in node.keywords) \
                and isinstance(node.func, ast.Name) and node.func.id == "dict":
            found.append(node.lineno)
        elif isinstance(node, ast.Attribute) and node.attr == "raw":
            found.append(node.lineno)
    return found


def test_no_module_outside_the_records_reads_a_kind_or_writes_an_entry_as_a_mapping() -> None:
    """Only pbem.log.records (and the shape check of its reader) reads a move's or an entry's
    ``kind`` as a string, writes an entry or a move as a mapping, or reads a record's ``raw``;
    every other module asks the record's class (a closed ``match``) and writes through its
    kind's writer."""
    offenders = []
    for path in sorted((ROOT / "pbem").rglob("*.py")):
        name = str(path.relative_to(ROOT))
        if name.startswith(RECORDS):
            continue
        offenders += [f"{name}:{line}" for line in kind_questions(path.read_text(encoding="utf-8"))]
    assert offenders == []


@pytest.mark.parametrize("planted", [
    'if entry["kind"] == "move":\n    pass\n',
    'if entry.get("kind") != "timeout":\n    pass\n',
    'ok = kind in ("timeout", "standin")\n',
    'ok = move.kind == "commit"\n',
    'ok = type(entry).KIND == wanted\n',
    'match move.kind:\n    case "resign":\n        pass\n',
    'entries = [{"kind": "waive", "player": player}]\n',
    'entry = dict(kind="abandon")\n',
    'setup = entry.raw["setup"]\n',
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


# --- records are parsed once; actions and wishes are typed --------------------------------------

ACTION_SWITCHERS = ("pbem/views/", "pbem/log/notation.py")  # the modules that write actions out


def action_questions(source: str) -> list[int]:
    """Lines that read an action's kind from its mapping: ``a["action"]`` or ``a.get("action")``
    (an action is asked its class, :mod:`pbem.rules.actions`)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        read = isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load) \
            and isinstance(node.slice, ast.Constant) and node.slice.value == "action"
        got = isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get" \
            and bool(node.args) and isinstance(node.args[0], ast.Constant) and node.args[0].value == "action"
        if read or got:
            found.append(getattr(node, "lineno", 0))
    return found


def test_no_view_and_not_the_notation_switch_on_an_actions_kind_string() -> None:
    """The views and the notation write an action from its typed class (a flip is a ``Flip``),
    never by reading ``"action"`` out of its mapping."""
    offenders = []
    for path in sorted((ROOT / "pbem").rglob("*.py")):
        name = str(path.relative_to(ROOT))
        if name.startswith(ACTION_SWITCHERS):
            offenders += [f"{name}:{line}" for line in action_questions(path.read_text(encoding="utf-8"))]
    assert offenders == []


def test_the_action_check_is_not_vacuous() -> None:
    assert sorted(action_questions('if a["action"] == "flip":\n    pass\nk = a.get("action")\n')) == [1, 3]
    assert action_questions('a = {"action": "flip"}\n') == []  # writing one is the notation's reader's job


def test_a_turns_outcome_and_a_stand_ins_actions_are_read_once_and_typed(tmp_path: Path) -> None:
    """R8.3, P7: the stand-in's turn is its typed actions and its typed outcome, the same objects
    on every question (read from the entry once, not again on each access)."""
    from pbem.log.logfile import read_log
    from pbem.log.records import Create, Played, Standin
    from pbem.rules.actions import Action

    entries, _hashes = read_log(ROOT / "examples" / "playthrough-seats" / "log.yaml")
    standin = next(e for e in entries if isinstance(e, Standin))
    played = next(e for e in entries if isinstance(e, Played))
    assert standin.actions and all(isinstance(a, Action) for a in standin.actions)
    assert standin.actions is standin.actions
    assert played.outcome and played.outcome is played.outcome
    assert played.reveals is played.reveals and played.move is played.move
    create = entries[0]
    assert isinstance(create, Create) and create.options is create.options and create.players is create.players


def test_a_record_is_asked_its_fields_never_indexed_as_a_mapping() -> None:
    """An entry is its typed fields; its mapping as written is ``raw``, for the records package
    (and for tools and tests that read the written entry)."""
    from pbem.log.records import Entry

    assert not hasattr(Entry, "__getitem__") and not hasattr(Entry, "get")


def test_a_lobby_wish_is_one_of_its_kinds_not_a_string() -> None:
    """A mailed ``join``, ``leave``, ``watch`` or ``unwatch`` is read as its :class:`WishKind`."""
    from email.message import EmailMessage

    from pbem.host.lobby import WishKind
    from pbem.mail.headers import parse_mail
    from pbem.mail.lobby import Asking, lobby_of

    def asked(subject: str) -> object:
        message = EmailMessage()
        message["From"], message["To"], message["Subject"] = "a@example.org", "host@example.org", subject
        message.set_content("\n")
        found = lobby_of(parse_mail(message.as_bytes()))
        assert found is not None
        return found.word

    assert [asked(f"{w} g") for w in ("join", "leave", "watch", "unwatch")] == list(WishKind)
    assert all(type(asked(f"{w} g")) is WishKind for w in ("join", "Leave"))
    assert asked("games") is Asking.GAMES and asked("press all") is Asking.PRESS
