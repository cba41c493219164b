#!/usr/bin/env python3
"""Write the protocol test vectors, docs/protocol-vectors.yaml (docs/protocol.md, "Test vectors").

    python tools/make_vectors.py            # rewrite the file
    python tools/make_vectors.py --check    # exit 1 if the file is not what this script makes

Every value is computed with pbem's own code from public inputs, so the file is the
same byte for byte on every run: the deal cases (P3-P6), nonce commitments (P4), the
canonical JSON and hash of the first entries of examples/rattus-2p/log.yaml (P2, P7),
and Ed25519 signatures (P8) by keys derived from public strings.  tests/test_vectors_repo.py
recomputes every value and compares.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pbem.fair.tokens import token_commit, token_salt
from pbem.data import default_board, default_catalogue  # noqa: E402
from pbem.fair import protocol  # noqa: E402
from pbem.log.logfile import read_docs  # noqa: E402

OUT = ROOT / "docs" / "protocol-vectors.yaml"
SMALL_LOG = ROOT / "examples" / "rattus-2p" / "log.yaml"
SMALL_LOG_ENTRIES = 8  # create, 2 commits, 2 nonces, start, 2 moves

CASES: list[dict[str, Any]] = [
    {"name": "two-players-named-first", "secret": bytes(range(32)).hex(), "game_id": "vec-2p",
     "players": ["red", "blue"], "nonces": ["", ""], "first_named": "blue"},
    {"name": "three-players-with-nonces", "secret": "ff" * 32, "game_id": "vec-3p",
     "players": ["red", "green", "blue"], "nonces": ["aa", "", "0102030405"], "first_named": None},
    {"name": "four-players", "secret": "0123456789abcdef" * 4, "game_id": "vec-4p",
     "players": ["red", "green", "blue", "yellow"], "nonces": ["", "", "", ""], "first_named": None},
]
NONCES = ["000102030405060708090a0b0c0d0e0f", "ffeeddccbbaa99887766554433221100" * 2,
          "00" * 64]
HOST_KEY_SEED = "pbem-rattus vectors: host key, public on purpose"
PLAYER_KEY_SEED = "pbem-rattus vectors: player key of red, public on purpose"


def key_seed(text: str) -> bytes:
    """An Ed25519 private key (32 bytes) from a public string: SHA-256 of its UTF-8."""
    return hashlib.sha256(text.encode()).digest()


def deal_case(case: dict[str, Any]) -> dict[str, Any]:
    secret = bytes.fromhex(case["secret"])
    nonces = [bytes.fromhex(n) for n in case["nonces"]]
    seed = protocol.derive_seed(secret, case["game_id"], nonces)
    rng = protocol.Drbg(seed)
    dealt = protocol.deal(seed, case["players"], case["first_named"], default_board(), default_catalogue())
    salts = [token_salt(seed, i) for i in range(1, protocol.N_TOKENS + 1)]
    return {
        "name": case["name"],
        "input": {k: case[k] for k in ("secret", "game_id", "players", "nonces", "first_named")},
        "secret_commitment": protocol.secret_commitment(secret),
        "seed": seed.hex(),
        "first_stream_words": [rng.word() for _ in range(5)],
        "first_player": dealt.first_player,
        "board": {region: {"name": name, "token": dealt.id_of(name)} for region, name in dealt.board},
        "supply": [dealt.id_of(n) for n in dealt.supply],
        "removed": [dealt.id_of(n) for n in dealt.removed],
        "plague_start": dealt.plague_start,
        "tokens": [
            {"name": protocol.Deal.name(i), "token": tid, "salt": salts[i - 1].hex(),
             "commit": token_commit(i, salts[i - 1], tid)}
            for i, tid in enumerate(dealt.token_ids, start=1)
        ],
    }


def signatures(entries: list[dict[str, Any]]) -> dict[str, Any]:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from pbem.fair.keys import entry_message, move_message, public_text, sign

    host = Ed25519PrivateKey.from_private_bytes(key_seed(HOST_KEY_SEED))
    player = Ed25519PrivateKey.from_private_bytes(key_seed(PLAYER_KEY_SEED))
    moves = [e for e in entries if isinstance(e.get("move"), dict) and e["player"] == "red"]
    return {
        "host": {
            "private_key": key_seed(HOST_KEY_SEED).hex(), "from": f"SHA-256 of {HOST_KEY_SEED!r}",
            "public_key": public_text(host),
            "entries": [{"seq": e["seq"], "message": entry_message(e).decode("ascii"),
                         "signature": sign(host, entry_message(e))} for e in entries],
        },
        "player": {
            "private_key": key_seed(PLAYER_KEY_SEED).hex(), "from": f"SHA-256 of {PLAYER_KEY_SEED!r}",
            "public_key": public_text(player),
            "moves": [{"seq": e["seq"], "message": move_message(e["move"]).decode("utf-8"),
                       "signature": sign(player, move_message(e["move"]))} for e in moves],
        },
    }


def vectors() -> dict[str, Any]:
    entries, hashes = read_docs(SMALL_LOG)
    entries, hashes = entries[:SMALL_LOG_ENTRIES], hashes[:SMALL_LOG_ENTRIES]
    return {
        "about": "Test vectors of docs/protocol.md (pbem-rattus/v2), written by tools/make_vectors.py "
                 "with pbem's code; the deal cases use pbem/data/map.yaml and tokens.yaml. Positions run "
                 "1..49: board tokens in map order, then the supply in draw order, then removed tokens.",
        "cases": [deal_case(c) for c in CASES],
        "nonce_commitments": [{"nonce": n, "commitment": protocol.nonce_commitment(bytes.fromhex(n))}
                              for n in NONCES],
        "log": {
            "source": f"the first {SMALL_LOG_ENTRIES} entries of examples/rattus-2p/log.yaml",
            "entries": [{"seq": e["seq"], "kind": e["kind"],
                         "canonical_json": protocol.canonical_json(
                             {k: v for k, v in e.items() if k != "signature"}).decode("utf-8"),
                         "hash": h} for e, h in zip(entries, hashes, strict=True)],
        },
        "signatures": signatures(entries),
    }


def render() -> bytes:
    """One JSON value a line where it helps diffs; JSON is YAML, so the file reads as both."""
    data = vectors()
    text = json.dumps(data, indent=1, ensure_ascii=False, sort_keys=False) + "\n"
    return ("# Generated by tools/make_vectors.py: do not edit (python tools/make_vectors.py --check)\n"
            + text).encode("utf-8")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the file is out of date")
    args = parser.parse_args(argv)
    wanted = render()
    if args.check:
        if not OUT.exists() or OUT.read_bytes() != wanted:
            print(f"{OUT.relative_to(ROOT)} is out of date: run python tools/make_vectors.py", file=sys.stderr)
            return 1
        print(f"{OUT.relative_to(ROOT)} is up to date")
        return 0
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_bytes(wanted)
    print(f"wrote {OUT.relative_to(ROOT)} ({len(wanted)} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
