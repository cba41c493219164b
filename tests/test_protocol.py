"""PROTOCOL.md P2-P7: the byte-exact primitives, checked against the shared test vectors."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from pbem.data import default_board, default_catalogue
from pbem.fair.protocol import (
    GAME_ID_RE,
    TAG,
    ZERO_HASH,
    Deal,
    Drbg,
    canonical_json,
    deal,
    derive_seed,
    entry_hash,
    secret_commitment,
    sha256_hex,
)
from pbem.fair.tokens import check_reveal, commitments, position_of, token_commit, token_salt

VECTORS_PATH = Path(__file__).parent / "data" / "protocol-vectors.yaml"


def _load_cases() -> list[dict[str, Any]]:
    with VECTORS_PATH.open(encoding="utf-8") as f:
        data = yaml.safe_load(f)
    cases: list[dict[str, Any]] = data["cases"]
    return cases


CASES = _load_cases()
CASE_IDS = [c["name"] for c in CASES]


def _seed_of(case: dict[str, Any]) -> bytes:
    inp = case["input"]
    nonces = [bytes.fromhex(n) for n in inp["nonces"]]
    return derive_seed(bytes.fromhex(inp["secret"]), inp["game_id"], nonces)


def _deal_of(case: dict[str, Any]) -> Deal:
    inp = case["input"]
    return deal(
        _seed_of(case), inp["players"], inp["first_named"], default_board(), default_catalogue()
    )


# --------------------------------------------------------------------- vectors


def test_vectors_cover_all_player_counts() -> None:
    assert sorted(len(c["input"]["players"]) for c in CASES) == [2, 3, 4]


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_p3_secret_commitment_vectors(case: dict[str, Any]) -> None:
    secret = bytes.fromhex(case["input"]["secret"])
    assert secret_commitment(secret) == case["secret_commitment"]


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_p4_seed_vectors(case: dict[str, Any]) -> None:
    assert _seed_of(case).hex() == case["seed"]


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_p5_first_stream_words_vectors(case: dict[str, Any]) -> None:
    rng = Drbg(bytes.fromhex(case["seed"]))
    assert [rng.word() for _ in range(5)] == case["first_stream_words"]


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_p5_deal_vectors(case: dict[str, Any]) -> None:
    d = _deal_of(case)
    assert d.first_player == case["first_player"]
    assert d.regions_in_use == default_board().regions_in_use(len(case["input"]["players"]))
    # board: region -> {name, token}, in map order
    assert [r for r, _ in d.board] == list(case["board"])
    assert {r: {"name": n, "token": d.id_of(n)} for r, n in d.board} == case["board"]
    assert [d.id_of(n) for n in d.supply] == case["supply"]
    assert [d.id_of(n) for n in d.removed] == case["removed"]
    assert d.plague_start == case["plague_start"]


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_p6_token_vectors(case: dict[str, Any]) -> None:
    seed = _seed_of(case)
    d = _deal_of(case)
    commits = commitments(seed, d)
    assert len(case["tokens"]) == 49 == len(d.token_ids) == len(commits)
    for i, tok in enumerate(case["tokens"], start=1):
        assert Deal.name(i) == tok["name"]
        assert position_of(tok["name"]) == i
        assert d.token_ids[i - 1] == tok["token"] == d.id_of(tok["name"])
        salt = token_salt(seed, i)
        assert salt.hex() == tok["salt"]
        assert token_commit(i, salt, tok["token"]) == tok["commit"] == commits[i - 1]
        assert check_reveal(tok["commit"], i, tok["salt"], tok["token"])


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_p6_positions_are_board_then_supply_then_removed(case: dict[str, Any]) -> None:
    d = _deal_of(case)
    names = [n for _, n in d.board] + list(d.supply) + list(d.removed)
    assert names == [Deal.name(i) for i in range(1, 50)]
    assert sorted(d.token_ids) == sorted(t.id for t in default_catalogue().tokens)


# --------------------------------------------------------------------- P2


def test_p2_canonical_json_sorts_keys_and_keeps_utf8() -> None:
    out = canonical_json({"b": [1, True, None], "a": "Ærø ✓", "c": {"z": 0, "y": -5}})
    assert out == '{"a":"Ærø ✓","b":[1,true,null],"c":{"y":-5,"z":0}}'.encode()


@pytest.mark.parametrize(
    "bad",
    [
        1.0,
        {"a": 0.5},
        [1, [2, float("nan")]],
        {1: "x"},
        {"a": {None: 1}},
        {"ä": 1},
        (1, 2),
        {"a": b"bytes"},
        {"a": {1, 2}},
        2**53 + 1,
        [-(2**53) - 1],
    ],
)
def test_p2_canonical_json_rejects_what_json_cannot_carry(bad: object) -> None:
    with pytest.raises(ValueError):
        canonical_json(bad)


def test_p2_canonical_json_integer_bounds_inclusive() -> None:
    assert canonical_json([2**53, -(2**53)]) == b"[9007199254740992,-9007199254740992]"


def test_p2_canonical_json_rejects_cycles() -> None:
    loop: list[object] = []
    loop.append(loop)
    with pytest.raises(ValueError):
        canonical_json(loop)


def test_p2_sha256_hex() -> None:
    assert sha256_hex(b"") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"


# --------------------------------------------------------------------- P4


@pytest.mark.parametrize(
    "game_id", ["", "A", "has space", "ümlaut", "x" * 65, "ok\n", "slash/no", "t:1"]
)
def test_p4_derive_seed_rejects_bad_game_ids(game_id: str) -> None:
    assert not GAME_ID_RE.match(game_id)
    with pytest.raises(ValueError):
        derive_seed(b"s" * 32, game_id, [b"", b""])


def test_p2_game_id_accepts_full_alphabet() -> None:
    for game_id in ["a", "0", "x" * 64, "vec-2p", "game_1-b_c", "2024-spring"]:
        assert GAME_ID_RE.match(game_id)
        derive_seed(b"s" * 32, game_id, [b""])


def test_p4_derive_seed_rejects_long_nonces() -> None:
    derive_seed(b"s" * 32, "g", [b"\x00" * 64, b""])
    with pytest.raises(ValueError):
        derive_seed(b"s" * 32, "g", [b"", b"\x00" * 65])


def test_p4_nonces_change_the_seed_and_absent_is_empty() -> None:
    secret = b"k" * 32
    base = derive_seed(secret, "g", [b"", b""])
    assert derive_seed(secret, "g", [b"\x01", b""]) != base
    assert derive_seed(secret, "g", [b"", b""]) == base
    # n is part of the message: three absent nonces differ from two
    assert derive_seed(secret, "g", [b"", b"", b""]) != base


# --------------------------------------------------------------------- P5


def test_p5_stream_blocks_are_hmac_of_block_counter() -> None:
    import hashlib
    import hmac

    seed = b"\x07" * 32
    rng = Drbg(seed)
    words = [rng.word() for _ in range(8)]
    stream = b"".join(
        hmac.new(seed, f"{TAG}/drbg".encode() + k.to_bytes(8, "big"), hashlib.sha256).digest()
        for k in range(2)
    )
    assert words == [int.from_bytes(stream[i : i + 8], "big") for i in range(0, 64, 8)]


def test_p5_below_one_is_zero_and_results_in_range() -> None:
    rng = Drbg(b"seed")
    assert all(rng.below(1) == 0 for _ in range(10))
    for n in (2, 3, 7, 12, 37, 2**63 + 1):
        assert all(0 <= rng.below(n) < n for _ in range(50))
    with pytest.raises(ValueError):
        rng.below(0)


class _ScriptedDrbg(Drbg):
    """A Drbg whose words are given, to exercise rejection sampling."""

    def __init__(self, words: list[int]) -> None:
        super().__init__(b"")
        self._words = list(words)

    def word(self) -> int:
        return self._words.pop(0)


def test_p5_below_rejects_words_at_or_above_limit() -> None:
    n = 3
    limit = 2**64 - (2**64 % n)
    rng = _ScriptedDrbg([2**64 - 1, limit, limit - 1])
    assert rng.below(n) == (limit - 1) % n
    assert rng._words == []
    # a power of two never rejects
    assert _ScriptedDrbg([2**64 - 1]).below(4) == 3


def test_p5_shuffle_of_one_or_zero_items_draws_nothing() -> None:
    rng = _ScriptedDrbg([])  # any draw would raise IndexError
    one = ["x"]
    rng.shuffle(one)
    assert one == ["x"]
    empty: list[str] = []
    rng.shuffle(empty)
    assert empty == []


def test_p5_shuffle_is_fisher_yates_from_the_top() -> None:
    # i = 2: j = below(3) -> word 0 -> 0 ; i = 1: j = below(2) -> word 1 -> 1
    rng = _ScriptedDrbg([0, 1])
    items = ["a", "b", "c"]
    rng.shuffle(items)
    assert items == ["c", "b", "a"]
    assert rng._words == []


def test_p5_deal_rejects_bad_player_counts() -> None:
    for players in (["a"], ["a", "b", "c", "d", "e"]):
        with pytest.raises(ValueError):
            deal(b"s", players, None, default_board(), default_catalogue())


def test_p5_named_first_player_draws_nothing_for_it() -> None:
    seed = b"\x42" * 32
    named = deal(seed, ["a", "b"], "b", default_board(), default_catalogue())
    assert named.first_player == "b"
    drawn = deal(seed, ["a", "b"], None, default_board(), default_catalogue())
    # the unnamed deal consumed one extra draw first, so the tokens differ
    assert drawn.token_ids != named.token_ids
    with pytest.raises(ValueError):
        deal(seed, ["a", "b"], "zed", default_board(), default_catalogue())


# --------------------------------------------------------------------- P6


def test_p6_position_of_parses_and_rejects() -> None:
    assert position_of("t01") == 1
    assert position_of("t07") == 7
    assert position_of("t49") == 49
    for bad in ("t00", "t50", "t7", "t007", "T07", "x07", "t07\n", "", "07"):
        with pytest.raises(ValueError):
            position_of(bad)


def test_p6_deal_name_formats_two_digits() -> None:
    assert Deal.name(7) == "t07"
    assert Deal.name(49) == "t49"
    with pytest.raises(ValueError):
        Deal.name(0)


def test_p6_check_reveal_rejects_wrong_salt_or_token() -> None:
    case = CASES[0]
    tok = case["tokens"][0]
    other = case["tokens"][1]
    assert check_reveal(tok["commit"], 1, tok["salt"], tok["token"])
    assert not check_reveal(tok["commit"], 1, other["salt"], tok["token"])
    assert not check_reveal(tok["commit"], 1, tok["salt"], other["token"])
    assert not check_reveal(tok["commit"], 2, tok["salt"], tok["token"])
    # malformed input opens nothing
    assert not check_reveal(tok["commit"], 1, tok["salt"][:-2], tok["token"])
    assert not check_reveal(tok["commit"], 1, "zz" * 16, tok["token"])
    assert not check_reveal(tok["commit"], 1, tok["salt"].upper(), tok["token"])
    assert not check_reveal(tok["commit"], 0, tok["salt"], tok["token"])
    assert not check_reveal(tok["commit"][:-1], 1, tok["salt"], tok["token"])


def test_p6_token_salt_and_commit_validate_inputs() -> None:
    with pytest.raises(ValueError):
        token_salt(b"s", 0)
    with pytest.raises(ValueError):
        token_salt(b"s", 50)
    with pytest.raises(ValueError):
        token_commit(1, b"\x00" * 15, "S01")


# --------------------------------------------------------------------- P7


def test_p7_entry_hash_ignores_signature_and_does_not_mutate() -> None:
    entry: dict[str, object] = {"seq": 0, "prev": ZERO_HASH, "kind": "create"}
    signed = dict(entry, signature="c2lnbmF0dXJl")
    assert entry_hash(signed) == entry_hash(entry)
    assert "signature" in signed
    assert entry_hash(entry) == sha256_hex(canonical_json(entry))
    assert entry_hash(dict(entry, seq=1)) != entry_hash(entry)


def test_p7_zero_hash() -> None:
    assert ZERO_HASH == "0" * 64
