"""schemas/: the move file and log entry formats, as JSON Schema (P7)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from click.testing import CliRunner

from pbem.cli import main
from pbem.errors import Exit, FormatError
from pbem.fair.protocol import entry_hash
from pbem.log.moves import SCHEMA_NAMES, schema, validate
from pbem.log.yamlio import dump_entry, load_stream

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
LOGS = sorted(EXAMPLES.glob("*/log.yaml"))


def entries_of(log: Path) -> list[dict[str, Any]]:
    return load_stream(log.read_text(encoding="utf-8"), "log")


@pytest.mark.parametrize("name", SCHEMA_NAMES)
def test_p7_every_schema_is_a_valid_draft_2020_12_schema(name: str) -> None:
    jsonschema.Draft202012Validator.check_schema(schema(name))


def test_p7_the_repository_schemas_folder_is_the_package_copy() -> None:
    root = Path(__file__).resolve().parent.parent / "schemas"
    for name in SCHEMA_NAMES:
        assert json.loads((root / name).read_text()) == schema(name)


@pytest.mark.parametrize("log", LOGS, ids=[p.parent.name for p in LOGS])
def test_p7_every_entry_of_every_example_fits_the_entry_schema(log: Path) -> None:
    for entry in entries_of(log):
        validate(entry, "entry.json", f"entry {entry['seq']}")


@pytest.mark.parametrize(
    "edit",
    [
        lambda e: e["outcome"].append({"event": "cube_teleported", "player": "red"}),
        lambda e: e["outcome"].append({"event": "rat_drawn", "token": "t99x", "region": "gallia"}),
        lambda e: e.update(note="an extra field"),
        lambda e: e["move"].pop("after"),
    ],
    ids=["unknown event", "bad token name", "extra field", "move without after"],
)
def test_p7_verify_names_an_entry_that_breaks_the_schema(tmp_path: Path, edit: Any) -> None:
    entries = entries_of(LOGS[0])
    k = next(i for i, e in enumerate(entries) if e["kind"] == "move" and i > 10)
    bad = copy.deepcopy(entries)
    edit(bad[k])
    prev = entry_hash(bad[k - 1])
    for seq in range(k, len(bad)):  # the stronger attacker re-chains, so only the schema can tell
        bad[seq]["prev"] = prev
        prev = entry_hash(bad[seq])
    log = tmp_path / "log.yaml"
    log.write_text("".join(dump_entry(e) for e in bad), encoding="utf-8")
    result = CliRunner().invoke(main, ["verify", str(log)])
    assert result.exit_code == Exit.TAMPERED
    assert f"entry {k}" in result.stderr and "entry.json" in result.stderr


def test_p7_a_flip_without_its_salt_is_not_a_valid_entry() -> None:
    entries = entries_of(LOGS[0])
    entry = next(e for e in entries if any(ev["event"] == "token_flipped" for ev in e.get("outcome", [])))
    bad = copy.deepcopy(entry)
    next(ev for ev in bad["outcome"] if ev["event"] == "token_flipped").pop("salt")
    with pytest.raises(FormatError, match="salt"):
        validate(bad, "entry.json", "entry")


# --- v2: the opening's move kinds (P4) and the entry a move answers (P7) ----------------------

COMMITMENT = "ab" * 32
KEY = "ed25519:" + "A" * 43 + "="


def move_of(kind: str, **fields: Any) -> dict[str, Any]:
    """A move file of ``kind`` that answers entry 0 with a 16-digit hash prefix."""
    return {"game": "g1", "player": "red", "kind": kind, "after": {"seq": 0, "hash": "0123456789abcdef"},
            **fields}


ACCEPTED_MOVES = {
    "commit": move_of("commit", nonce_commitment=COMMITMENT),
    "commit with a key": move_of("commit", nonce_commitment=COMMITMENT, key=KEY),
    "nonce of 16 bytes": move_of("nonce", nonce="00" * 16),
    "nonce of 64 bytes": move_of("nonce", nonce="ff" * 64),
    "turn": move_of("move", actions=[{"action": "end"}]),
    "full hash": {**move_of("move", actions=[{"action": "end"}]), "after": {"seq": 3, "hash": "a" * 64}},
}

REFUSED_MOVES = {
    "commit without its commitment": (move_of("commit"), "nonce_commitment"),
    "commit with a nonce too": (move_of("commit", nonce_commitment=COMMITMENT, nonce="00" * 16), None),
    "commit with actions": (move_of("commit", nonce_commitment=COMMITMENT, actions=[{"action": "end"}]), None),
    "short commitment": (move_of("commit", nonce_commitment="ab" * 31), "nonce_commitment"),
    "upper-case commitment": (move_of("commit", nonce_commitment="AB" * 32), "nonce_commitment"),
    "nonce without the nonce": (move_of("nonce"), "nonce"),
    "nonce of 15 bytes": (move_of("nonce", nonce="00" * 15), "nonce"),
    "nonce of 65 bytes": (move_of("nonce", nonce="00" * 65), "nonce"),
    "nonce of odd length": (move_of("nonce", nonce="0" * 33), "nonce"),
    "nonce with a commitment": (move_of("nonce", nonce="00" * 16, nonce_commitment=COMMITMENT), None),
    "nonce with a key": (move_of("nonce", nonce="00" * 16, key=KEY), None),
    "nonce with actions": (move_of("nonce", nonce="00" * 16, actions=[{"action": "end"}]), None),
    "turn with a nonce": (move_of("move", actions=[{"action": "end"}], nonce="00" * 16), None),
    "turn with a key": (move_of("move", actions=[{"action": "end"}], key=KEY), None),
    "turn without actions": (move_of("move"), "actions"),
    "kind start": (move_of("start"), "kind"),
    "8-digit hash (v1)": ({**move_of("commit", nonce_commitment=COMMITMENT), "after": {"seq": 0, "hash": "01234567"}},
                          "hash"),
    "15-digit hash": ({**move_of("commit", nonce_commitment=COMMITMENT), "after": {"seq": 0, "hash": "0" * 15}},
                      "hash"),
    "65-digit hash": ({**move_of("commit", nonce_commitment=COMMITMENT), "after": {"seq": 0, "hash": "0" * 65}},
                      "hash"),
    "upper-case hash": ({**move_of("commit", nonce_commitment=COMMITMENT),
                         "after": {"seq": 0, "hash": "0123456789ABCDEF"}}, "hash"),
}


@pytest.mark.parametrize("name", sorted(ACCEPTED_MOVES))
def test_p4_p7_the_move_schema_takes_every_v2_move_kind(name: str) -> None:
    validate(ACCEPTED_MOVES[name], "move.json", name)


@pytest.mark.parametrize("name", sorted(REFUSED_MOVES))
def test_p4_p7_the_move_schema_refuses_a_malformed_v2_move(name: str) -> None:
    move, field = REFUSED_MOVES[name]
    with pytest.raises(FormatError, match=r"move\.json") as caught:
        validate(move, "move.json", name)
    if field is not None:
        assert field in str(caught.value)


def test_p4_p7_every_recorded_opening_move_answers_entry_0_with_16_digits_or_more() -> None:
    for log in LOGS:
        entries = entries_of(log)
        opening = [e for e in entries if e["kind"] in ("commit", "nonce")]
        assert {e["kind"] for e in opening} == {"commit", "nonce"}, log
        for entry in opening:
            after = entry["move"]["after"]
            assert after["seq"] == 0 and len(after["hash"]) >= 16
            assert entry_hash(entries[0]).startswith(after["hash"])
        for entry in (e for e in entries if e["kind"] == "move"):
            after = entry["move"]["after"]
            assert after["seq"] == entry["seq"] - 1 and len(after["hash"]) >= 16


@pytest.mark.parametrize(
    "edit",
    [
        lambda e: e.pop("at"),
        lambda e: e.update(at="2026-11-30 09:15:00"),
        lambda e: e.update(at="2026-11-30T09:15:00+01:00"),
        lambda e: e.update(kind="start"),
    ],
    ids=["no at", "at without T", "at not UTC", "commit called start"],
)
def test_p7_an_opening_entry_without_a_proper_at_or_kind_breaks_the_schema(edit: Any) -> None:
    entries = entries_of(LOGS[0])
    commit = copy.deepcopy(next(e for e in entries if e["kind"] == "commit"))
    validate(commit, "entry.json", "commit entry")
    edit(commit)
    with pytest.raises(FormatError, match=r"entry\.json"):
        validate(commit, "entry.json", "commit entry")


def test_p3_entry_0_names_protocol_v2_and_its_edition() -> None:
    for log in LOGS:
        first = entries_of(log)[0]
        assert first["protocol"] == "pbem-rattus/v2" and first["edition"] == "standard"
        bad = copy.deepcopy(first)
        bad["protocol"] = "pbem-rattus/v1"
        with pytest.raises(FormatError, match=r"entry\.json"):
            validate(bad, "entry.json", "entry 0")


# --- pbem's validator is jsonschema's, less the branches it would find vacuous ----------------

def _plain(name: str) -> jsonschema.protocols.Validator:
    """jsonschema's own validator of ``schemas/NAME``, with nothing of pbem's but the ``$ref``s."""
    from pbem.log.moves import registry

    return jsonschema.validators.validator_for(schema(name))(schema(name), registry=registry(name))


def _errors(validator: jsonschema.protocols.Validator, doc: Any) -> list[tuple[Any, ...]]:
    return sorted((list(e.absolute_path), list(e.absolute_schema_path), e.message, e.validator)
                  for e in validator.iter_errors(doc))


def _mutants(doc: Any, rng: Any) -> Any:
    """Every dict in ``doc`` in turn, with one value replaced: another kind, action or event
    name (the discriminators), a wrong type, a missing key, or an extra one."""
    names = ["move", "commit", "nonce", "waive", "start", "reveal", "resign", "timeout", "standin",
             "replace", "create", "abandon", "place", "king", "flip", "spread", "take_card", "monk",
             "token_flipped", "cubes_removed", "rat_drawn", "nonsense", ""]
    todo: list[Any] = [doc]
    while todo:
        node = todo.pop()
        children = node.values() if isinstance(node, dict) else node if isinstance(node, list) else []
        todo.extend(c for c in children if isinstance(c, dict | list))
        if not isinstance(node, dict) or not node:
            continue
        key = rng.choice(sorted(node))
        saved = node[key]
        for value in [rng.choice(names), rng.choice(names), 7, None, [], {"x": 1}]:
            node[key] = value
            yield doc
        node[key] = saved
        del node[key]
        yield doc
        node[key] = saved
        node["unexpected"] = 1
        yield doc
        del node["unexpected"]


@pytest.mark.parametrize("name", SCHEMA_NAMES)
def test_p7_pbems_schema_check_gives_exactly_jsonschemas_errors(name: str) -> None:
    """P7: ``validate`` skips an ``allOf`` branch ``{if: {properties: {F: {const: C}}}, then}``
    when the object's F is another string (that ``if`` fails, the branch asks nothing); over the
    examples' entries and moves and hundreds of mutants of them (kinds, actions and events
    renamed, values of the wrong type, keys missing or extra), its errors are jsonschema's own,
    path for path and message for message."""
    import random

    from pbem.log.moves import _validator

    ours, theirs = _validator(name), _plain(name)
    docs: list[Any] = []
    for log in LOGS:
        for entry in entries_of(log):
            docs.append(entry if name == "entry.json" else entry.get("move"))
    docs = [d for d in docs if d is not None]
    assert len(docs) > 100
    rng = random.Random(7)
    checked = refused = 0
    for doc in rng.sample(docs, 12 if name == "move.json" else 4):
        doc = copy.deepcopy(doc)
        assert not _errors(theirs, doc)
        for mutant in _mutants(doc, rng):  # one at a time: each is the same dict, edited in place
            expected = _errors(theirs, mutant)
            assert _errors(ours, mutant) == expected, json.dumps(mutant)[:400]
            checked += 1
            refused += bool(expected)
    assert checked > 300 and refused > checked // 2
