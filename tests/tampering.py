"""Shared helpers for the tests that tamper with a log: the example log, writing and
re-chaining edited entries (the stronger attacker), the edits, and a command's refusal."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from pbem.cli import main
from pbem.errors import Exit
from pbem.fair.protocol import ZERO_HASH, entry_hash
from pbem.log.yamlio import dump_entry

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "rattus-3p" / "log.yaml"

Entries = list[dict[str, Any]]


def write(path: Path, entries: Entries) -> Path:
    path.write_text("".join(dump_entry(e) for e in entries), encoding="utf-8")
    return path


def rechain(entries: Entries, fix_after: bool = True) -> Entries:
    """The stronger attacker: renumber and re-hash the whole chain after an edit, and
    (``fix_after``) rewrite every recorded move's ``after`` to the new hashes."""
    prev = ZERO_HASH
    out: Entries = []
    for seq, entry in enumerate(entries):
        fixed = {"seq": seq, "prev": prev, **{k: v for k, v in entry.items() if k not in ("seq", "prev")}}
        move = fixed.get("move")
        if fix_after and isinstance(move, dict):
            target = 0 if fixed["kind"] in ("commit", "nonce") else seq - 1
            fixed["move"] = {**move, "after": {"seq": target, "hash": entry_hash(out[target])[:16]}}
        prev = entry_hash(fixed)
        out.append(fixed)
    return out


def run(command: str, log: Path) -> tuple[int, str]:
    result = CliRunner().invoke(main, [command, str(log)])
    assert "Traceback" not in result.output + result.stderr
    return result.exit_code, result.stderr


def refused_at(command: str, log: Path) -> tuple[int, str]:
    """Run ``command``; it must refuse the log (exit 7): the entry it names, and the message."""
    code, err = run(command, log)
    assert code == Exit.TAMPERED, err
    assert err.startswith("pbem: log does not verify (")
    assert len(err.strip().splitlines()) == 1, err
    found = re.search(r"\): entry (\d+):", err)
    assert found, err
    return int(found.group(1)), err


def first(entries: Entries, test: Callable[[dict[str, Any]], bool]) -> int:
    return next(i for i, e in enumerate(entries) if test(e))


def first_event(entries: Entries, event: str, after: int = 0) -> tuple[int, int]:
    """(entry, index in its outcome) of the first ``event`` after entry ``after``."""
    for seq, entry in enumerate(entries):
        if seq <= after:
            continue
        for i, item in enumerate(entry.get("outcome", [])):
            if item["event"] == event:
                return seq, i
    raise AssertionError(f"no {event} in the example")


# Each edit changes entry k in place and returns k.
def cubes_placed_count(es: Entries) -> int:
    k, i = first_event(es, "cubes_placed")
    es[k]["outcome"][i]["count"] += 1
    return k


def flip_cube_count(es: Entries) -> int:
    k, i = first_event(es, "token_flipped")
    es[k]["outcome"][i]["cubes"] += 1
    return k


def flip_token_id(es: Entries) -> int:
    k, i = first_event(es, "token_flipped")
    item = es[k]["outcome"][i]
    item["token_id"] = "S02" if item["token_id"] != "S02" else "S03"
    return k


def flip_salt(es: Entries) -> int:
    k, i = first_event(es, "token_flipped")
    salt = es[k]["outcome"][i]["salt"]
    es[k]["outcome"][i]["salt"] = ("0" if salt[0] != "0" else "1") + salt[1:]
    return k


def move_action(es: Entries) -> int:
    k = first(es, lambda e: e["kind"] == "move" and e["move"]["actions"][0]["action"] == "place"
              and "turn" in [ev.get("phase") for ev in e["outcome"]])
    action = es[k]["move"]["actions"][0]
    region = action["region"]
    action["region"] = next(r for r in es[first(es, lambda e: e["kind"] == "start")]["setup"]["board"] if r != region)
    return k


def start_commitment(es: Entries) -> int:
    k = first(es, lambda e: e["kind"] == "start")
    c = es[k]["commitments"][0]
    es[k]["commitments"][0] = ("0" if c[0] != "0" else "1") + c[1:]
    return k


def create_players(es: Entries) -> int:
    es[0]["players"] = list(reversed(es[0]["players"]))
    return 0


EDITS = [cubes_placed_count, flip_cube_count, flip_token_id, flip_salt, move_action,
         start_commitment, create_players]
