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
import re
import subprocess
import sys
from pathlib import Path

import pytest
from audittools import EXAMPLE, EXAMPLES, ROOT, TOOL, TOOL_MODULE, VERDICT, agree, minimal, pbem, tampered
from tampering import (
    Entries,
    cubes_placed_count,
    first,
    rechain,
    write,
)

from pbem.log.logfile import read_docs
from pbem.sim.demo import play_demo


def failing_entry(stderr: str) -> int | None:
    found = re.search(r"\): entry (\d+):", stderr)
    return int(found.group(1)) if found else None


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


@pytest.fixture(scope="module")
def entries() -> Entries:
    return read_docs(EXAMPLE)[0]


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

