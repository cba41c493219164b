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
from pbem.moves import SCHEMA_NAMES, schema, validate
from pbem.protocol import entry_hash
from pbem.yamlio import dump_entry, load_stream

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
