"""P9: one history. A player keeps the last log they received; `pbem verify NEW
--extends OLD` checks that OLD is a prefix of NEW, entry for entry.

Every attack here leaves a NEW log that passes a plain `pbem verify` on its own
(that is what makes it an attack): a truncation (a rollback), an edit re-hashed
from some entry on, a game re-created under the same id. Only the comparison with
the kept log catches it, naming the entry where the two part. When the host signed
both entries at that point, the two signed entries are printed: a proof that the
host kept two histories.
"""

from __future__ import annotations

import copy
import json
import random
import re
import shutil
from pathlib import Path
from typing import Any

from clitools import ok
from historytools import (
    GAME,
    extends,
    forked,  # noqa: F401 (fixtures)
    new_game,
    play,
    refused,
)
from tampering import EXAMPLE, rechain, write

from pbem.errors import Exit
from pbem.fair.keys import entry_message, verify
from pbem.log.logfile import read_docs
from pbem.referee.history import compare

Entries = list[dict[str, Any]]


# --- helpers ---------------------------------------------------------------------------


def hashes_of(log: Path) -> list[str]:
    return read_docs(log)[1]


# --- the attacks ---------------------------------------------------------------------

def test_a_truncated_log_verifies_alone_but_not_as_a_continuation(tmp_path: Path) -> None:
    """A rollback: the host sends a log cut before its last 3 entries (say, before a
    flip that went badly for a friend). Plain `pbem verify` passes; the kept log says
    history was cut and names both ends."""
    entries, _ = read_docs(EXAMPLE)
    last = len(entries) - 1
    cut = write(tmp_path / "cut.yaml", entries[:-3])
    assert f"last entry {last - 3} " in ok("verify", cut)  # the attack: alone, it passes
    _out, err = refused(cut, EXAMPLE)
    assert f"NEW ends at entry {last - 3}" in err
    assert f"already has entries up to {last}: history was cut" in err
    assert f"Entries {last - 2} to {last} of OLD are missing" in err


def test_an_edit_rehashed_from_entry_k_is_named(tmp_path: Path) -> None:
    """The stronger attacker of tests/test_tamper.py: change a move's free-text comment
    at entry k and re-chain everything after it (each later move's `after` too). The
    log replays and verifies; against the kept log they part at entry k."""
    entries, hashes = read_docs(EXAMPLE)
    es = copy.deepcopy(entries)
    k = next(i for i, e in enumerate(es) if e.get("kind") == "move" and i > 10)
    es[k]["move"] = {**es[k]["move"], "comment": "edited later"}
    edited = write(tmp_path / "edited.yaml", rechain(es))
    new_hashes = hashes_of(edited)
    assert new_hashes[:k] == hashes[:k] and new_hashes[k] != hashes[k]
    out, err = refused(edited, EXAMPLE)
    assert f"NEW and OLD part at entry {k}: entries 0 to {k - 1} are the same" in err
    assert f"NEW's entry {k} has hash {new_hashes[k][:16]}..., OLD's has {hashes[k][:16]}..." in err
    assert f"rewritten from entry {k} on" in err
    assert "PROOF" not in err and "proof" not in out  # nobody signed: no proof, the point only


def test_a_game_recreated_under_the_same_id_parts_at_entry_0(tmp_path: Path) -> None:
    """The host creates the game again (a new secret, so a new deal) under the same id
    and players, and sends that instead. Both logs verify; they part at entry 0."""
    first, second = tmp_path / "first", tmp_path / "second"
    old = new_game(first)
    new = new_game(second)
    play(first, 2, random.Random(1))
    play(second, 2, random.Random(1))
    old_entries, new_entries = read_docs(old)[0], read_docs(new)[0]
    assert old_entries[0]["game"] == new_entries[0]["game"] == GAME
    assert old_entries[0]["secret"] != new_entries[0]["secret"]
    _out, err = refused(new, old)
    assert "NEW and OLD part at entry 0:" in err
    assert f"a different game was created under the same id '{GAME}'" in err
    new_c = new_entries[0]["secret"]["commitment"][:16]
    old_c = old_entries[0]["secret"]["commitment"][:16]
    assert f"a different secret commitment: {new_c}... in NEW, {old_c}... in OLD" in err


# --- what must pass --------------------------------------------------------------------

def test_identical_logs_and_a_genuine_continuation_pass(tmp_path: Path) -> None:
    code, out, err = extends(EXAMPLE, EXAMPLE)
    assert code == Exit.OK, err
    assert "ok: NEW and OLD are the same history" in out and "(P9)" in out
    games = tmp_path / "games"
    log = new_game(games)
    rng = random.Random(7)
    play(games, 2, rng)
    kept = tmp_path / "kept.yaml"
    shutil.copyfile(log, kept)
    n = len(hashes_of(kept))
    play(games, 3, rng)
    code, out, err = extends(log, kept)
    assert code == Exit.OK, err
    assert f"ok: NEW extends OLD by 3 entries: entries 0 to {n - 1} are the same" in out
    # the other way round is a rollback
    code, _out, err = extends(kept, log)
    assert code == Exit.TAMPERED and "history was cut" in err


def test_the_log_kept_must_itself_hold_together(tmp_path: Path) -> None:
    entries, _ = read_docs(EXAMPLE)
    es = copy.deepcopy(entries)
    es[3]["seq"] = 4  # a broken chain
    broken = write(tmp_path / "old.yaml", es)
    code, _out, err = extends(EXAMPLE, broken)
    assert code == Exit.TAMPERED and "OLD (" in err and "entry 3" in err


def test_new_failing_on_its_own_wins(tmp_path: Path) -> None:
    entries, _ = read_docs(EXAMPLE)
    es = copy.deepcopy(entries)
    es[5]["seq"] = 6
    bad = write(tmp_path / "bad.yaml", es)
    code, _out, err = extends(bad, EXAMPLE)
    assert code == Exit.TAMPERED and "(P7): entry 5" in err and "P9" not in err


# --- two histories, both signed: a proof -------------------------------------------------


def test_two_signed_entries_for_one_position_prove_two_histories(forked: tuple[Path, Path, str]) -> None:
    new, old, host = forked
    for log in (new, old):
        assert "carry the host's signature (P8)" in ok("verify", log)  # each holds together
    new_entries, new_hashes = read_docs(new)
    old_entries, old_hashes = read_docs(old)
    k = len(new_entries) - 1
    assert len(old_entries) == k + 1 and new_hashes[:k] == old_hashes[:k]
    out, err = refused(new, old)
    assert f"NEW and OLD part at entry {k}" in err
    assert "PROOF OF TWO HISTORIES" in err
    assert "signed two different entries for the same position" in err
    proof_line = next(line for line in out.splitlines() if line.startswith("proof (P9): "))
    for hashes, entries in ((new_hashes, new_entries), (old_hashes, old_entries)):
        assert hashes[k] in proof_line and entries[k]["signature"] in proof_line
    # the two entries in full, one JSON line each, each checkable with the host key alone
    shown = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    assert [s["log"] for s in shown] == ["NEW", "OLD"]
    assert [s["path"] for s in shown] == [str(new), str(old)]
    for s, entries, hashes in zip(shown, (new_entries, old_entries), (new_hashes, old_hashes), strict=True):
        assert s["seq"] == k and s["hash"] == hashes[k] and s["entry"] == entries[k]
        assert s["signature"] == entries[k]["signature"]
        assert verify(host, s["signature"], entry_message(s["entry"]))
    assert shown[0]["hash"] != shown[1]["hash"]


def test_no_proof_when_only_one_side_is_signed(forked: tuple[Path, Path, str]) -> None:
    """The proof needs both signatures; without one, only the point where they part."""
    new, old, _host = forked
    new_entries, new_hashes = read_docs(new)
    old_entries, old_hashes = read_docs(old)
    k = len(new_entries) - 1
    assert compare(new_entries, new_hashes, old_entries, old_hashes).proof is not None
    unsigned = copy.deepcopy(old_entries)
    del unsigned[k]["signature"]  # the hash leaves the signature out: the chain still holds
    result = compare(new_entries, new_hashes, unsigned, old_hashes)
    assert not result.ok and result.parted_at == k and result.proof is None
    assert re.search(rf"part at entry {k}\b", result.message) and "PROOF" not in result.message
    forged = copy.deepcopy(old_entries)
    forged[k]["signature"] = new_entries[k]["signature"]  # a signature of the other entry
    assert compare(new_entries, new_hashes, forged, old_hashes).proof is None
