"""Shared helpers for the tests of tools/audit_min.py, the minimal verifier: the tool loaded as a
module, the examples, the tampered logs, and its verdict beside pbem's."""

from __future__ import annotations

import importlib.util
import re
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

from click.testing import CliRunner
from tampering import (
    EDITS,
    Entries,
    create_players,
    cubes_placed_count,
    first,
    flip_cube_count,
    move_action,
    rechain,
    start_commitment,
)

from pbem.cli import main
from pbem.fair.protocol import secret_commitment

ROOT = Path(__file__).resolve().parent.parent


TOOL = ROOT / "tools" / "audit_min.py"


EXAMPLES = sorted((ROOT / "examples").glob("*/log.yaml"))


VERDICT = re.compile(r"^verdict: .*$", re.M)


def load_tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location("audit_min", TOOL)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


TOOL_MODULE = load_tool()


def minimal(log: Path) -> tuple[int, str]:
    """The minimal verifier, in-process: its exit code and verdict line."""
    code, lines = TOOL_MODULE.audit(str(log))
    assert lines[-1].startswith("verdict: ")
    return code, lines[-1]


def pbem(command: str, log: Path) -> tuple[int, str, str]:
    """`pbem COMMAND LOG`: exit code, its verdict line (audit) and its stderr."""
    result = CliRunner().invoke(main, [command, str(log)])
    verdicts = VERDICT.findall(result.stdout)
    return result.exit_code, (verdicts[-1] if verdicts else ""), result.stderr


def agree(log: Path) -> str:
    """pbem audit and the minimal verifier give the same exit code and verdict line."""
    code, verdict, err = pbem("audit", log)
    assert (code, verdict) == minimal(log), err
    return verdict


EXAMPLE = ROOT / "examples" / "rattus-3p" / "log.yaml"


RULES_ONLY = {cubes_placed_count, flip_cube_count, move_action}
"""Edits of what only the rules compute (a cube count, an action): no hash, commitment or
secret changes with them, so a re-chained log passes every protocol check; only a replay
under the rules (pbem verify, pbem audit) sees them, and the minimal verifier says it does
not replay.  Dropping or swapping two moves and re-chaining is the same kind of edit."""


Case = tuple[str, Callable[[Entries], Entries], str]


def tampered() -> list[Case]:
    """(name, make the tampered log, what the minimal verifier sees): "same" entry as pbem
    verify; "next" entry (a rules-only edit, seen at the next move's `after`); "start" (the
    seat order changed: the deal differs at the start entry, before pbem's replay meets the
    first move it no longer fits); "blind" (a rules-only edit, re-chained)."""
    cases: list[Case] = []

    def edited(edit: Callable[[Entries], int], chain: bool, fix_after: bool = True) -> Callable[[Entries], Entries]:
        def make(es: Entries) -> Entries:
            edit(es)
            return rechain(es, fix_after) if chain else es
        return make

    for edit in EDITS:
        rules = edit in RULES_ONLY
        cases.append((f"naive-{edit.__name__}", edited(edit, False), "same"))
        if edit is not start_commitment:
            sees = "blind" if rules else "start" if edit is create_players else "same"
            cases.append((f"rechained-{edit.__name__}", edited(edit, True), sees))
        cases.append((f"rechained-no-after-{edit.__name__}", edited(edit, True, False), "next" if rules else "same"))

    def drop(es: Entries) -> Entries:
        del es[20]
        return es

    def swap(es: Entries) -> Entries:
        es[20], es[21] = es[21], es[20]
        return es

    def comment(es: Entries) -> Entries:
        k = first(es, lambda e: e.get("kind") == "move" and e["seq"] > 10)
        es[k]["move"] = {**es[k]["move"], "comment": "edited"}
        return rechain(es, fix_after=False)

    def commitment_of_t01(es: Entries) -> Entries:
        start_commitment(es)
        return rechain(es)

    def removed_commitment(es: Entries) -> Entries:
        k = first(es, lambda e: e["kind"] == "start")
        position = int(es[k]["setup"]["removed"][-1][1:])
        c = es[k]["commitments"][position - 1]
        es[k]["commitments"][position - 1] = ("0" if c[0] != "0" else "1") + c[1:]
        return rechain(es)

    def secret(es: Entries) -> Entries:
        es[-1]["secret"] = "cd" * 32
        return es

    def secret_and_commitment(es: Entries) -> Entries:
        es[-1]["secret"] = "cd" * 32
        es[0]["secret"]["commitment"] = secret_commitment(bytes.fromhex("cd" * 32))
        return rechain(es)

    def entry0_commitment(es: Entries) -> Entries:
        es[0]["secret"]["commitment"] = "ab" * 32
        return rechain(es)

    cases += [
        ("dropped", drop, "same"), ("rechained-dropped", lambda es: rechain(drop(es)), "blind"),
        ("swapped", swap, "same"), ("rechained-swapped", lambda es: rechain(swap(es)), "blind"),
        ("rechained-comment", comment, "same"),
        ("rechained-start-commitment", commitment_of_t01, "same"),
        ("rechained-removed-commitment", removed_commitment, "same"),
        ("replaced-secret", secret, "same"), ("replaced-secret-and-commitment", secret_and_commitment, "same"),
        ("rechained-entry0-commitment", entry0_commitment, "same"),
    ]
    return cases
