"""docs/protocol-vectors.yaml: every value recomputed with pbem's code, and the file is what
tools/make_vectors.py makes, byte for byte (docs/protocol.md, "Test vectors")."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import yaml

from pbem.data import default_board, default_catalogue
from pbem.fair import keys as signing
from pbem.fair import protocol
from pbem.fair.tokens import check_reveal, commitments, token_salt
from pbem.log.logfile import read_docs

ROOT = Path(__file__).resolve().parent.parent
VECTORS = ROOT / "docs" / "protocol-vectors.yaml"
DATA: dict[str, Any] = yaml.safe_load(VECTORS.read_text(encoding="utf-8"))
CASES: list[dict[str, Any]] = DATA["cases"]


def make_vectors() -> ModuleType:
    spec = importlib.util.spec_from_file_location("make_vectors", ROOT / "tools" / "make_vectors.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_file_is_up_to_date_and_check_says_so() -> None:
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "make_vectors.py"), "--check"],
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr


def test_check_exits_1_when_the_file_is_out_of_date(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    tool = make_vectors()
    stale = tmp_path / "protocol-vectors.yaml"
    stale.write_bytes(VECTORS.read_bytes().replace(b'"seed": "0d', b'"seed": "1d', 1))
    monkeypatch.setattr(tool, "OUT", stale)
    monkeypatch.setattr(tool, "ROOT", tmp_path)
    assert tool.main(["--check"]) == 1
    assert tool.main([]) == 0 and tool.main(["--check"]) == 0
    assert stale.read_bytes() == VECTORS.read_bytes()


def test_the_deal_cases_are_the_shared_vectors() -> None:
    shared = yaml.safe_load((ROOT / "tests" / "data" / "protocol-vectors.yaml").read_text(encoding="utf-8"))
    assert shared["cases"] == CASES
    assert DATA["nonce_commitments"] == shared["nonce_commitments"]
    assert len(CASES) == 3 and {len(c["input"]["players"]) for c in CASES} == {2, 3, 4}


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_seed_stream_deal_salts_and_commitments(case: dict[str, Any]) -> None:
    inp = case["input"]
    secret = bytes.fromhex(inp["secret"])
    seed = protocol.derive_seed(secret, inp["game_id"], [bytes.fromhex(n) for n in inp["nonces"]])
    assert protocol.secret_commitment(secret) == case["secret_commitment"]
    assert seed.hex() == case["seed"]
    rng = protocol.Drbg(seed)
    assert [rng.word() for _ in case["first_stream_words"]] == case["first_stream_words"]
    dealt = protocol.deal(seed, inp["players"], inp["first_named"], default_board(), default_catalogue())
    assert dealt.first_player == case["first_player"]
    assert {r: {"name": n, "token": dealt.id_of(n)} for r, n in dealt.board} == case["board"]
    assert list(case["board"]) == list(dealt.regions_in_use)  # map order
    assert [dealt.id_of(n) for n in dealt.supply] == case["supply"]
    assert [dealt.id_of(n) for n in dealt.removed] == case["removed"]
    assert dealt.plague_start == case["plague_start"]
    commits = commitments(seed, dealt)
    for i, token in enumerate(case["tokens"], start=1):
        salt = token_salt(seed, i)
        assert token == {"name": protocol.Deal.name(i), "token": dealt.token_ids[i - 1],
                         "salt": salt.hex(), "commit": commits[i - 1]}
        assert check_reveal(token["commit"], i, token["salt"], token["token"])


def test_nonce_commitments() -> None:
    for item in DATA["nonce_commitments"]:
        assert protocol.nonce_commitment(bytes.fromhex(item["nonce"])) == item["commitment"]


def test_canonical_json_and_entry_hashes_of_the_small_log() -> None:
    log = DATA["log"]["entries"]
    entries, hashes = read_docs(ROOT / "examples" / "rattus-2p" / "log.yaml")
    prev = protocol.ZERO_HASH
    for item, entry, hash_ in zip(log, entries, hashes, strict=False):
        parsed = json.loads(item["canonical_json"])
        assert parsed == entry and parsed["seq"] == item["seq"] and parsed["prev"] == prev
        assert protocol.canonical_json(parsed).decode("utf-8") == item["canonical_json"]
        assert protocol.entry_hash(parsed) == protocol.sha256_hex(item["canonical_json"].encode()) == item["hash"]
        assert item["hash"] == hash_
        prev = item["hash"]
    assert [i["kind"] for i in log] == ["create", "commit", "commit", "nonce", "nonce", "start", "move", "move"]


def test_host_and_player_signatures() -> None:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    entries = {json.loads(i["canonical_json"])["seq"]: json.loads(i["canonical_json"]) for i in DATA["log"]["entries"]}
    host, player = DATA["signatures"]["host"], DATA["signatures"]["player"]
    sides: list[tuple[dict[str, Any], list[dict[str, Any]], Callable[[int], bytes]]] = [
        (host, host["entries"], lambda seq: signing.entry_message(entries[seq])),
        (player, player["moves"], lambda seq: signing.move_message(entries[seq]["move"])),
    ]
    for side, items, message_of in sides:
        key = Ed25519PrivateKey.from_private_bytes(bytes.fromhex(side["private_key"]))
        assert signing.public_text(key) == side["public_key"]
        assert items
        for item in items:
            message = message_of(item["seq"])
            assert message.decode("utf-8") == item["message"]
            assert signing.sign(key, message) == item["signature"]  # Ed25519 is deterministic
            assert signing.verify(side["public_key"], item["signature"], message)
    assert all(i["message"] == DATA["log"]["entries"][i["seq"]]["hash"] for i in host["entries"])
