"""Every refusal pbem raises is a sentence each language can say.

A refusal is a :class:`pbem.errors.PbemError` raised with its words; read by :func:`ast`, every
``raise SomeError(words, ...)`` in pbem/ must give its words as a ``Msg`` (or ``Msg.plural``),
or pass on words already made (a name, a caught refusal's words): never an English literal,
an f-string or a concatenation, which no catalog could translate.  An :class:`InternalError`
is a bug in pbem, not a refusal, and is said as it is; a ``HostileMail`` (pbem/mail/headers.py)
is a message quarantined unanswered, whose reason only the host reads, in English.  Each ``Msg`` is then in every catalog
(tests/test_i18n.py), so a refusal's text exists in Hungarian, Greek and Ukrainian.
"""

from __future__ import annotations

import ast
from pathlib import Path

PBEM = Path(__file__).resolve().parent.parent / "pbem"
NOT_REFUSALS = {"InternalError", "Exit"}


def refusal_classes() -> set[str]:
    tree = ast.parse((PBEM / "errors.py").read_text(encoding="utf-8"))
    return {n.name for n in tree.body if isinstance(n, ast.ClassDef)} - NOT_REFUSALS


def english_refusals(paths: list[Path] | None = None) -> list[str]:
    """``file:line: text`` of each refusal raised with words no catalog can translate."""
    classes = refusal_classes()
    found = []
    for path in paths or sorted(PBEM.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call) and node.exc.args):
                continue
            func = node.exc.func
            name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
            words = node.exc.args[0]
            if name in classes and isinstance(words, ast.JoinedStr | ast.Constant | ast.BinOp):
                where = path.relative_to(PBEM.parent) if path.is_relative_to(PBEM.parent) else path
                found.append(f"{where}:{node.lineno}: {ast.unparse(words)[:90]}")
    return found


def test_every_refusal_is_a_sentence_the_catalogs_translate() -> None:
    found = english_refusals()
    assert found == [], f"{len(found)} refusals in English only:\n" + "\n".join(found)


def test_the_check_finds_an_english_refusal(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text('def f(x):\n    raise FormatError(f"no {x}", "P1")\n'
                   'def g():\n    raise FormatError(Msg("no {x}", x=1), "P1")\n'
                   'def h(err):\n    raise InternalError("a bug")\n', encoding="utf-8")
    found = [line.split(": ", 1)[1] for line in english_refusals([bad])]
    assert found == ["f'no {x}'"]
