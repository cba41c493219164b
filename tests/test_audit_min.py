"""tools/audit_min.py, the minimal independent verifier (docs/protocol.md), against pbem itself.

It must agree with `pbem audit` (exit code and verdict line, word for word) on every
recorded example and on fresh demo games, refuse every tampered log of
tests/test_tamper.py at the same first entry as `pbem verify` (except the edits that
only the rules can see, which it says it does not replay), and import nothing but the
standard library and `cryptography`.
"""

from __future__ import annotations

import ast
import copy
import importlib.util
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest
from click.testing import CliRunner
from test_tamper import (
    EDITS,
    Entries,
    create_players,
    cubes_placed_count,
    first,
    flip_cube_count,
    move_action,
    rechain,
    start_commitment,
    write,
)

from pbem.cli import main
from pbem.fair.protocol import secret_commitment
from pbem.log.logfile import read_docs
from pbem.sim.demo import play_demo

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


def failing_entry(stderr: str) -> int | None:
    found = re.search(r"\): entry (\d+):", stderr)
    return int(found.group(1)) if found else None


def agree(log: Path) -> str:
    """pbem audit and the minimal verifier give the same exit code and verdict line."""
    code, verdict, err = pbem("audit", log)
    assert (code, verdict) == minimal(log), err
    return verdict


# --- agreement on good logs ----------------------------------------------------------------

@pytest.mark.parametrize("log", EXAMPLES, ids=lambda p: p.parent.name)
def test_agrees_with_pbem_audit_on_every_example(log: Path) -> None:
    assert agree(log).startswith("verdict: FAIR.")
    assert "docs/protocol.md" in agree(log)


def demo_logs(tmp_path: Path, n: int) -> list[Path]:
    logs = []
    for i in range(n):
        game = play_demo(tmp_path, 2 + i % 3, seed=1000 + i, echo=None, summary=lambda _line: None,
                         game_id=f"agree-{i:03d}")
        logs.append(tmp_path / game.game_id / "log.yaml")
    return logs


@pytest.mark.slow
def test_agrees_with_pbem_audit_on_5_demo_games(tmp_path: Path) -> None:
    for log in demo_logs(tmp_path, 5):
        assert agree(log).startswith("verdict: FAIR.")


@pytest.mark.slow
def test_agrees_with_pbem_audit_on_50_demo_games_as_one_process(tmp_path: Path) -> None:
    """The 50 games, the verifier run as a separate program over all of them at once."""
    logs = demo_logs(tmp_path, 50)
    done = subprocess.run([sys.executable, str(TOOL), *map(str, logs)],
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    theirs = VERDICT.findall(done.stdout)
    ours = [pbem("audit", log)[1] for log in logs]
    assert len(theirs) == len(ours) == 50 and theirs == ours


def test_not_revealed_yet_agrees(tmp_path: Path) -> None:
    log = ROOT / "examples" / "rattus-2p" / "log.yaml"
    entries, _ = read_docs(log)
    cut = write(tmp_path / "log.yaml", entries[:-1])
    code, verdict = minimal(cut)
    assert (code, verdict) == pbem("audit", cut)[:2] and verdict.startswith("verdict: NOT YET.")


# --- tampered logs: the same first failing entry as pbem verify ----------------------------

EXAMPLE = ROOT / "examples" / "rattus-3p" / "log.yaml"
RULES_ONLY = {cubes_placed_count, flip_cube_count, move_action}
"""Edits of what only the rules compute (a cube count, an action): no hash, commitment or
secret changes with them, so a re-chained log passes every protocol check; only a replay
under the rules (pbem verify, pbem audit) sees them, and the minimal verifier says it does
not replay.  Dropping or swapping two moves and re-chaining is the same kind of edit."""


@pytest.fixture(scope="module")
def entries() -> Entries:
    return read_docs(EXAMPLE)[0]


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


@pytest.mark.slow
def test_tampered_logs_fail_at_the_entry_pbem_verify_names(entries: Entries, tmp_path: Path) -> None:
    tally: dict[str, list[str]] = {"same": [], "next": [], "start": [], "blind": []}
    for name, make, sees in tampered():
        log = write(tmp_path / f"{name}.yaml", make(copy.deepcopy(entries)))
        code, _verdict, err_verify = pbem("verify", log)
        assert code == 7, (name, err_verify)
        at_verify = failing_entry(err_verify)
        mine_code, mine = minimal(log)
        tally[sees].append(name)
        if sees == "blind":
            assert mine_code == 0 and mine.startswith("verdict: FAIR."), name  # it says: rules not replayed
            continue
        assert mine_code == 7, (name, mine)
        at = re.search(r"at entry (\d+)", mine)
        assert at is not None and at_verify is not None, (name, mine, err_verify)
        mine_at = int(at.group(1))
        if sees == "same":
            assert mine_at == at_verify, (name, mine, err_verify)
            assert pbem("audit", log)[:2] == (mine_code, mine), name  # the verdict line, word for word
        elif sees == "next":
            assert mine_at == at_verify + 1, (name, mine, err_verify)
        else:
            assert mine_at == first(entries, lambda e: e["kind"] == "start") < at_verify, (name, mine)
    assert {k: len(v) for k, v in tally.items()} == {"same": 21, "next": 3, "start": 1, "blind": 5}


def test_rules_only_edits_are_the_rules_replays_job(entries: Entries, tmp_path: Path) -> None:
    """What the minimal verifier cannot see, it says: its output names the unreplayed rules."""
    es = copy.deepcopy(entries)
    cubes_placed_count(es)
    _code, lines = TOOL_MODULE.audit(str(write(tmp_path / "log.yaml", rechain(es))))
    assert any("not replayed under the rules" in line for line in lines)


def test_signed_log_a_bad_host_signature_is_named_as_pbem_verify_names_it(tmp_path: Path) -> None:
    from pbem.fair.keys import keygen
    from pbem.host.create import NewGame, create
    from pbem.sim.demo import open_game

    keygen(tmp_path / "host.key")
    create(tmp_path, NewGame("signed", ("red", "green"), host_key_file=tmp_path / "host.key"))
    open_game(tmp_path, "signed")
    es = read_docs(tmp_path / "signed" / "log.yaml")[0]
    assert TOOL_MODULE.check_signatures(es).startswith("every signature verifies (host key")
    es[3]["signature"] = es[2]["signature"]
    bad = TOOL_MODULE.Refused
    with pytest.raises(bad) as refused:
        TOOL_MODULE.check_signatures(es)
    code, _verdict, err = pbem("verify", write(tmp_path / "bad.yaml", es))
    found = (refused.value.code, refused.value.entry, refused.value.rule)
    assert found == (code, failing_entry(err), "P8") == (8, 3, "P8")


# --- what it is made of ------------------------------------------------------------------

def test_imports_only_the_standard_library_and_cryptography() -> None:
    tree = ast.parse(TOOL.read_text(encoding="utf-8"))
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0
            imported.add((node.module or "").split(".")[0])
    assert "pbem" not in imported
    assert imported - {"cryptography"} <= set(sys.stdlib_module_names), imported
    assert len(TOOL.read_text(encoding="utf-8").splitlines()) < 300


def test_runs_without_pbem_installed(tmp_path: Path) -> None:
    """Run with only the standard library and cryptography on the path: pbem cannot be imported."""
    code = (
        "import sys, builtins\n"
        "real = builtins.__import__\n"
        "def guard(name, *a, **k):\n"
        "    if name.split('.')[0] in ('pbem', 'yaml', 'click', 'jsonschema'): raise ImportError(name)\n"
        "    return real(name, *a, **k)\n"
        "builtins.__import__ = guard\n"
        f"sys.argv = ['audit_min', {str(EXAMPLES[0])!r}]\n"
        f"exec(compile(open({str(TOOL)!r}).read(), 'audit_min.py', 'exec'), {{'__name__': '__main__'}})\n"
    )
    done = subprocess.run([sys.executable, "-I", "-c", code], capture_output=True, text=True,
                          timeout=60, check=False, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "verdict: FAIR." in done.stdout

