"""P7: any single change to a finished log is refused by `pbem verify`, naming the entry.

Two attackers.  The naive one edits entry k and leaves the chain alone: the
break shows at entry k+1, whose ``prev`` no longer matches (or at k itself
when seq numbers move).  The stronger one re-chains: after the edit every
later ``seq`` and ``prev`` is recomputed with :func:`pbem.fair.protocol.entry_hash`,
so the chain holds and the failure must come from the replay or the
commitments at entry k itself.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path

import pytest
from tampering import (
    EDITS,
    EXAMPLE,
    Entries,
    create_players,
    cubes_placed_count,
    first,
    flip_cube_count,
    flip_salt,
    flip_token_id,
    move_action,
    rechain,
    refused_at,
    run,
    start_commitment,
    write,
)

from pbem.errors import Exit
from pbem.log.logfile import read_docs


@pytest.fixture(scope="module")
def entries() -> Entries:
    loaded, _hashes = read_docs(EXAMPLE)
    return loaded


def test_p7_rechained_log_without_new_afters_fails_at_the_next_move(entries: Entries, tmp_path: Path) -> None:
    """Each recorded move names the entry it answered (P7): re-hashing the chain after
    an edit is not enough, the next move no longer answers the edited entry."""
    es = copy.deepcopy(entries)
    k = first(es, lambda e: e.get("kind") == "move" and e["seq"] > 10)
    es[k]["outcome"] = list(es[k]["outcome"])  # unchanged content, but re-chained below
    es[k]["move"] = {**es[k]["move"], "comment": "edited"}
    at, err = refused_at("verify", write(tmp_path / "log.yaml", rechain(es, fix_after=False)))
    assert at == k + 1 and "answer" in err


def test_untouched_log_verifies_and_rewrites_identically(entries: Entries, tmp_path: Path) -> None:
    log = write(tmp_path / "log.yaml", entries)
    assert log.read_bytes() == EXAMPLE.read_bytes()
    assert rechain(entries) == entries
    assert run("verify", log)[0] == Exit.OK
    assert run("audit", log)[0] == Exit.OK


@pytest.mark.parametrize("edit", EDITS, ids=lambda f: f.__name__)
def test_naive_edit_breaks_the_chain_at_the_next_entry(
    edit: Callable[[Entries], int], entries: Entries, tmp_path: Path
) -> None:
    es = copy.deepcopy(entries)
    k = edit(es)
    at, err = refused_at("verify", write(tmp_path / "log.yaml", es))
    assert at == k + 1
    assert f"the hash of entry {k} " in err and "(P7)" in err


def test_dropped_entry(entries: Entries, tmp_path: Path) -> None:
    k = 20
    es = copy.deepcopy(entries)
    del es[k]
    at, err = refused_at("verify", write(tmp_path / "log.yaml", es))
    assert at == k and f"its seq is {k + 1}, expected {k}" in err
    at, err = refused_at("verify", write(tmp_path / "log.yaml", rechain(es)))
    assert at == k, err


def test_swapped_entries(entries: Entries, tmp_path: Path) -> None:
    k = 20
    es = copy.deepcopy(entries)
    es[k], es[k + 1] = es[k + 1], es[k]
    at, err = refused_at("verify", write(tmp_path / "log.yaml", es))
    assert at == k and f"its seq is {k + 1}, expected {k}" in err
    at, err = refused_at("verify", write(tmp_path / "log.yaml", rechain(es)))
    assert at == k, err


@pytest.mark.parametrize(
    "edit", [cubes_placed_count, flip_cube_count, flip_token_id, flip_salt, move_action],
    ids=lambda f: f.__name__,
)
def test_rechained_edit_fails_at_that_entry(
    edit: Callable[[Entries], int], entries: Entries, tmp_path: Path
) -> None:
    es = copy.deepcopy(entries)
    k = edit(es)
    at, err = refused_at("verify", write(tmp_path / "log.yaml", rechain(es)))
    assert at == k, err


def test_rechained_reveal_change_names_the_commitment(entries: Entries, tmp_path: Path) -> None:
    es = copy.deepcopy(entries)
    flip_token_id(es)
    _at, err = refused_at("verify", write(tmp_path / "log.yaml", rechain(es)))
    assert "does not match its commitment in the start entry" in err and "(P6)" in err


def test_rechained_commitment_change(entries: Entries, tmp_path: Path) -> None:
    """Without the secret, a commitment is checked when its token is flipped: the
    first entry flipping t01 is named.  After the reveal, the audit names the start
    entry itself for any commitment, flipped or not."""
    es = copy.deepcopy(entries)
    k = start_commitment(es)  # t01's commitment
    flips_t01 = first(es, lambda e: any(
        ev["event"] == "token_flipped" and ev["token"] == "t01" for ev in e.get("outcome", [])))
    log = write(tmp_path / "log.yaml", rechain(es))
    at, err = refused_at("verify", log)
    assert at == flips_t01 and "t01" in err
    es = copy.deepcopy(entries)
    removed = es[k]["setup"]["removed"][-1]  # a token never on the board: never flipped
    position = int(removed[1:])
    c = es[k]["commitments"][position - 1]
    es[k]["commitments"][position - 1] = ("0" if c[0] != "0" else "1") + c[1:]
    log = write(tmp_path / "log.yaml", rechain(es))
    at, err = refused_at("audit", log)
    assert at == k and "commitments" in err and "(P5)" in err


def test_rechained_create_change(entries: Entries, tmp_path: Path) -> None:
    """Entry 0 holds nothing a reader can check on its own: a re-chained change of the
    seat order shows at the first entry that no longer replays."""
    es = copy.deepcopy(entries)
    create_players(es)
    at, err = refused_at("verify", write(tmp_path / "log.yaml", rechain(es)))
    assert at >= 1, err
    es = copy.deepcopy(entries)
    es[0]["secret"]["commitment"] = "ab" * 32
    at, err = refused_at("verify", write(tmp_path / "log.yaml", rechain(es)))
    assert at == len(es) - 1 and "commitment of entry 0" in err and "(P3)" in err


def test_replaced_secret(entries: Entries, tmp_path: Path) -> None:
    es = copy.deepcopy(entries)
    assert es[-1]["kind"] == "reveal"
    es[-1]["secret"] = "cd" * 32  # the last entry: no chain to break
    log = write(tmp_path / "log.yaml", es)
    for command in ("verify", "audit"):
        at, err = refused_at(command, log)
        assert at == len(es) - 1 and "(P3)" in err
    # The stronger attacker also swaps the commitment in entry 0 for the new secret's:
    # the chain and the reveal check hold, but the audit (which verify also runs once
    # the secret is out) recomputes the deal.
    from pbem.fair.protocol import secret_commitment

    es[0]["secret"]["commitment"] = secret_commitment(bytes.fromhex("cd" * 32))
    log = write(tmp_path / "log.yaml", rechain(es))
    start = first(es, lambda e: e["kind"] == "start")
    for command in ("verify", "audit"):
        at, err = refused_at(command, log)
        assert at == start and "revealed secret" in err
