"""Every input a host takes from outside, fuzzed: move files, public logs, secret files.

What must hold for any input at all: ``pbem`` either accepts it or refuses it
with one ``pbem: ...`` paragraph and the exit code of its kind (never 1,
"internal error", never a traceback), and a refusal changes no file in the
games folder (every file hashed, with its mode, before and after).  Memory
stays bounded because every input is size-capped before it is parsed (the
100 MB move file).  ``bench/stress.py`` runs the same attacks much longer.
"""

from __future__ import annotations

import random
import string
from collections.abc import Iterator
from typing import Any

import pytest
import yaml
from hardening import (
    ACTIONS_ONLY,
    FuzzHost,
    billion_laughs,
    changed,
    hostile_emls,
    hostile_moves,
    invoke,
    mutate_bytes,
    mutate_log,
    restore,
    run_cli,
    snapshot,
    valid_eml,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pbem.errors import Exit
from pbem.host.secret import SECRET_NAME

FUZZ = settings(
    max_examples=100, deadline=None, database=None, derandomize=False,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
GAME = FuzzHost.GAME


@pytest.fixture(scope="module")
def host(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FuzzHost]:
    h = FuzzHost(tmp_path_factory.mktemp("fuzz"))
    yield h
    restore(h.pristine, h.games)


def test_the_valid_move_is_accepted(host: FuzzHost) -> None:
    assert host.apply(host.valid, "valid move") == 0
    assert host.check(host.valid, "valid move") == 0


# --- move files ---------------------------------------------------------------------------

MAY_PASS = {"crlf", "bom"}  # still the same valid move
EXPECTED = {"player unknown": Exit.UNKNOWN, "billion laughs": Exit.FORMAT, "one alias": Exit.FORMAT,
            "python tag": Exit.FORMAT, "deep flow nesting": Exit.FORMAT, "just over the cap": Exit.FORMAT,
            "latin-1": Exit.FORMAT, "utf-16": Exit.FORMAT, "huge int": Exit.FORMAT, "float seq": Exit.FORMAT}


@pytest.mark.parametrize("name", sorted(hostile_moves(b"game: g\nplayer: p\nkind: move\nafter: {seq: 1}\n")))
def test_hostile_move_file_is_refused_cleanly(host: FuzzHost, name: str) -> None:
    data = hostile_moves(host.valid)[name]
    code = host.apply(data, name, must_refuse=name not in MAY_PASS)
    if name in EXPECTED:
        assert code == EXPECTED[name], name
    host.check(data, name)


def test_billion_laughs_is_refused_at_the_first_anchor(host: FuzzHost) -> None:
    move = host.inbox / "laughs.yaml"
    move.write_bytes(billion_laughs())
    result = invoke(["apply", str(move), "--games", str(host.games)])
    assert result.exit_code == Exit.FORMAT
    assert "line 1: YAML anchors (&name) are not allowed" in result.stderr


def test_a_100_mb_move_file_is_refused_unread(host: FuzzHost) -> None:
    big = host.inbox / "big.yaml"
    with big.open("wb") as f:  # sparse: 100 MB long, no disk used
        f.write(host.valid)
        f.truncate(100 * 1024 * 1024)
    try:
        before = snapshot(host.games)
        for args in (["apply", str(big), "--games", str(host.games)], ["check", str(big), "--log", str(host.log)]):
            result = invoke(args)
            assert result.exit_code == Exit.FORMAT, result.stderr
            assert "larger than the 256 KiB allowed" in result.stderr
        assert not changed(before, snapshot(host.games))
    finally:
        big.unlink()


def test_a_move_file_that_is_not_a_file(host: FuzzHost) -> None:
    for target, code in ((host.inbox, Exit.UNKNOWN), (host.inbox / "missing.yaml", Exit.UNKNOWN)):
        result = invoke(["apply", str(target), "--games", str(host.games)])
        assert result.exit_code == code, result.stderr
        assert result.stderr.startswith("pbem: not found")


@FUZZ
@given(st.binary(max_size=3000))
def test_random_bytes_as_a_move_file(host: FuzzHost, data: bytes) -> None:
    assert host.apply(data, "random bytes", must_refuse=True) != 0


@FUZZ
@given(st.text(alphabet=string.printable, max_size=500))
def test_random_text_as_a_move_file(host: FuzzHost, text: str) -> None:
    host.apply(text.encode(), "random text", must_refuse=True)


JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers() | st.integers(min_value=2**53 - 2, max_value=2**70)
    | st.floats() | st.text(max_size=20),
    lambda children: st.lists(children, max_size=4)
    | st.dictionaries(st.text(max_size=8) | st.integers() | st.booleans(), children, max_size=4),
    max_leaves=30,
)


@FUZZ
@given(JSONISH)
def test_random_yaml_documents_as_a_move_file(host: FuzzHost, doc: Any) -> None:
    host.apply(yaml.safe_dump(doc).encode(), "random YAML", must_refuse=True)


FIELDS = ["game", "player", "kind", "after", "actions", "nonce", "nonce_commitment", "key", "comment", "signature",
          "extra"]


@FUZZ
@given(st.lists(st.tuples(st.sampled_from(FIELDS), JSONISH), min_size=1, max_size=3), st.booleans())
def test_a_valid_move_with_fields_replaced(host: FuzzHost, edits: list[tuple[str, Any]], deep: bool) -> None:
    move = yaml.safe_load(host.valid)
    for key, value in edits:
        if deep and key == "after" and isinstance(move["after"], dict):
            move["after"]["seq" if isinstance(value, int) else "hash"] = value
        elif deep and key == "actions" and isinstance(move["actions"], list) and move["actions"] \
                and isinstance(move["actions"][0], dict):
            move["actions"][0] = {**move["actions"][0], "count": value}
        else:
            move[key] = value
    host.apply(yaml.safe_dump(move).encode(), f"edited move {edits!r}")


@FUZZ
@given(st.randoms(use_true_random=False), st.integers(1, 4))
def test_a_valid_move_with_random_byte_edits(host: FuzzHost, rng: random.Random, n: int) -> None:
    data = host.valid
    for _ in range(n):
        data = mutate_bytes(data, rng)
    host.apply(data, "byte-edited move")


# --- the opening (P4): commitments and reveals ------------------------------------------------


def test_the_valid_opening_moves_are_accepted(host: FuzzHost) -> None:
    assert host.apply(host.valid_commit, "valid commit") == 0
    assert host.apply(host.valid_nonce, "valid nonce") == 0


def opening_move(host: FuzzHost, which: str) -> bytes:
    return host.valid_commit if which == "commit" else host.valid_nonce


@pytest.mark.parametrize("which", ["commit", "nonce"])
@pytest.mark.parametrize(
    "name", sorted(set(hostile_moves(b"game: g\nplayer: p\nkind: move\nafter: {seq: 1}\n")) - ACTIONS_ONLY)
)
def test_hostile_opening_move_is_refused_cleanly(host: FuzzHost, name: str, which: str) -> None:
    data = hostile_moves(opening_move(host, which))[name]
    assert data != opening_move(host, which), f"{name} did not change the {which}"
    code = host.apply(data, f"{which}: {name}", must_refuse=name not in MAY_PASS)
    if name in EXPECTED:
        assert code == EXPECTED[name], name


@pytest.mark.parametrize("which", ["commit", "nonce"])
@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        (lambda m: m.update(player="red"), None),  # red committed (and revealed) already
        (lambda m: m.update(after={"seq": 0, "hash": "0" * 16}), Exit.STALE),  # another entry 0
        (lambda m: m.update(after={**m["after"], "seq": 1}), Exit.STALE),  # opening moves answer entry 0
        (lambda m: m.update(after={**m["after"], "hash": m["after"]["hash"][:8]}), Exit.FORMAT),  # v1 prefix
        (lambda m: m.update(kind="move", actions=[{"action": "end"}]), Exit.FORMAT),
        (lambda m: m.update(kind="nonce" if m["kind"] == "commit" else "commit"), Exit.FORMAT),
        (lambda m: m.update(game=FuzzHost.GAME), None),  # the started game: too late
    ],
    ids=["other player", "wrong entry 0", "seq 1", "8-digit hash", "kind move", "kind swapped", "started game"],
)
def test_a_wrong_opening_move_is_refused_with_nothing_changed(
    host: FuzzHost, which: str, edit: Any, expected: Exit | None
) -> None:
    move = yaml.safe_load(opening_move(host, which))
    edit(move)
    code = host.apply(yaml.safe_dump(move).encode(), f"{which}: edited", must_refuse=True)
    if expected is not None:
        assert code == expected


def test_a_changed_nonce_or_a_second_commitment_is_refused(host: FuzzHost) -> None:
    move = yaml.safe_load(host.valid_nonce)
    move["nonce"] = "ee" * 16  # not what green committed to
    assert host.apply(yaml.safe_dump(move).encode(), "changed nonce", must_refuse=True) == Exit.RULES
    move = yaml.safe_load(host.valid_commit)
    move["player"] = "red"  # red committed already: a commitment cannot be changed
    assert host.apply(yaml.safe_dump(move).encode(), "second commitment", must_refuse=True) == Exit.RULES


@FUZZ
@given(st.sampled_from(["commit", "nonce"]), st.lists(st.tuples(st.sampled_from(FIELDS), JSONISH), min_size=1,
                                                      max_size=3))
def test_a_valid_opening_move_with_fields_replaced(host: FuzzHost, which: str, edits: list[tuple[str, Any]]) -> None:
    move = yaml.safe_load(opening_move(host, which))
    for key, value in edits:
        move[key] = value
    host.apply(yaml.safe_dump(move).encode(), f"edited {which} {edits!r}")


@FUZZ
@given(st.sampled_from(["commit", "nonce"]), st.randoms(use_true_random=False), st.integers(1, 4))
def test_a_valid_opening_move_with_random_byte_edits(host: FuzzHost, which: str, rng: random.Random, n: int) -> None:
    data = opening_move(host, which)
    for _ in range(n):
        data = mutate_bytes(data, rng)
    host.apply(data, f"byte-edited {which}")


# --- public logs ---------------------------------------------------------------------------

@FUZZ
@given(st.randoms(use_true_random=False), st.integers(1, 3))
def test_a_tampered_log_is_refused_by_every_command(host: FuzzHost, rng: random.Random, n: int) -> None:
    data = host.log_bytes
    for _ in range(n):
        data = mutate_log(data, rng)
    host.try_log(data)


def test_a_log_over_the_cap_is_refused_unread(host: FuzzHost) -> None:
    with host.log.open("r+b") as f:
        f.truncate(65 * 1024 * 1024)  # sparse: the real log, then zeros
    try:
        before = snapshot(host.games)
        result = invoke(["show", GAME, "--games", str(host.games)])
        assert result.exit_code == Exit.FORMAT and "larger than" in result.stderr, result.stderr
        assert not changed(before, snapshot(host.games))
    finally:
        restore(host.pristine, host.games)


# --- secret files ----------------------------------------------------------------------------

@FUZZ
@given(st.randoms(use_true_random=False), st.integers(1, 3), st.booleans())
def test_a_damaged_secret_file_is_refused(host: FuzzHost, rng: random.Random, n: int, whole: bool) -> None:
    data = host.secret_bytes
    if whole:
        data = bytes(rng.randrange(256) for _ in range(rng.randrange(200)))
    for _ in range(n):
        data = mutate_bytes(data, rng)
    host.try_secret(data)


def test_a_wrong_secret_is_refused_as_tampering(host: FuzzHost) -> None:
    (host.path / SECRET_NAME).write_text(f'secret: "{"ab" * 32}"\nmade: os-csprng\n')
    try:
        assert host.apply(host.valid, "wrong secret", must_refuse=True) == Exit.TAMPERED
    finally:
        restore(host.pristine, host.games)


# --- names on the command line ---------------------------------------------------------------

@pytest.mark.parametrize("game_id", ["../fuzz-1", "/etc", "FUZZ-1", "a" * 65, "", "x\n", "nope"])
def test_hostile_game_ids(host: FuzzHost, game_id: str) -> None:
    keep = host.inbox / "kept-nonce.yaml"
    before = snapshot(host.games)
    for args in (["show", game_id], ["template", game_id], ["reveal", game_id],
                 ["waive", game_id, "--player", "red"], ["abandon", game_id],
                 ["nonce", game_id, "--player", "red", "--keep", str(keep)],
                 ["nonce", game_id, "--player", "red", "--keep", str(keep), "--reveal"]):
        code, _out, err = run_cli([*args, "--games", str(host.games)], " ".join(args))
        assert code == Exit.UNKNOWN, err
        assert not keep.exists(), f"{args}: kept a nonce for a game that does not exist"
    assert not changed(before, snapshot(host.games))


@pytest.mark.parametrize("player", ["mallory", "RED", "../red", "", "red\n", "r" * 40])
def test_hostile_player_names_in_the_host_and_nonce_commands(host: FuzzHost, player: str) -> None:
    keep = host.inbox / "kept-nonce.yaml"
    before = snapshot(host.games)
    for args in (["waive", FuzzHost.COMMITTING, "--player", player],
                 ["nonce", FuzzHost.COMMITTING, "--player", player, "--keep", str(keep)],
                 ["nonce", FuzzHost.REVEALING, "--player", player, "--keep", str(keep), "--reveal"]):
        code, _out, err = run_cli([*args, "--games", str(host.games)], " ".join(args))
        assert code == Exit.UNKNOWN, err
        assert not keep.exists(), f"{args}: kept a nonce for a player who is not in the game"
    assert not changed(before, snapshot(host.games))


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["waive", FuzzHost.GAME, "--player", "red"], Exit.STATE),  # the game has started
        (["abandon", FuzzHost.GAME], Exit.STATE),
        (["waive", FuzzHost.REVEALING, "--player", "blue"], Exit.STATE),  # after the first reveal
    ],
    ids=["waive after the start", "abandon after the start", "waive after a reveal"],
)
def test_the_host_commands_refuse_too_late_with_nothing_changed(
    host: FuzzHost, args: list[str], expected: Exit
) -> None:
    before = snapshot(host.games)
    code, _out, err = run_cli([*args, "--games", str(host.games)], " ".join(args))
    assert code == expected and "(P4)" in err, err
    assert not changed(before, snapshot(host.games))


def test_the_host_commands_work_before_the_first_reveal(host: FuzzHost) -> None:
    try:
        for args in (["waive", FuzzHost.COMMITTING, "--player", "blue"], ["abandon", FuzzHost.REVEALING]):
            code, _out, err = run_cli([*args, "--games", str(host.games)], " ".join(args))
            assert code == 0, err
        # blue was the last seat to commit: waiving it opens the reveal round
        assert host.apply(host.valid_commit, "waived seat commits", must_refuse=True) == Exit.STATE
        assert host.apply(host.valid_nonce, "abandoned game", must_refuse=True) == Exit.STATE
    finally:
        restore(host.pristine, host.games)


# --- mail messages (pbem apply MESSAGE.eml) ---------------------------------------------------

# Harmless damage, or a sender problem that only "pbem mail" refuses (apply takes the host's word).
EML_MAY_PASS = {"crlf", "mbox separator", "bad base64", "format flowed junk", "many headers", "huge header",
                "nul bytes", "unknown charset", "bare cr", "bounce", "no From", "two From"}


def test_a_valid_mailed_move_is_accepted(host: FuzzHost) -> None:
    assert host.apply_eml(valid_eml(host.valid), "mailed move") == 0
    assert host.apply_eml(valid_eml(host.valid, attach=False), "move in the text") == 0


@pytest.mark.parametrize("name", sorted(hostile_emls(b"game: g\n")))
def test_hostile_mail_is_refused_cleanly(host: FuzzHost, name: str) -> None:
    host.apply_eml(hostile_emls(host.valid)[name], f"mail: {name}", must_refuse=name not in EML_MAY_PASS)


def test_a_100_mb_message_is_refused_unread(host: FuzzHost) -> None:
    big = host.inbox / "big.eml"
    with big.open("wb") as f:
        f.write(valid_eml(host.valid))
        f.truncate(100 * 1024 * 1024)
    try:
        before = snapshot(host.games)
        result = invoke(["apply", str(big), "--games", str(host.games)])
        assert result.exit_code == Exit.FORMAT and "larger than" in result.stderr, result.stderr
        assert not changed(before, snapshot(host.games))
    finally:
        big.unlink()


@FUZZ
@given(st.randoms(use_true_random=False), st.integers(1, 4), st.booleans())
def test_a_mailed_move_with_random_byte_edits(host: FuzzHost, rng: random.Random, n: int, attach: bool) -> None:
    data = valid_eml(host.valid, attach=attach)
    for _ in range(n):
        data = mutate_bytes(data, rng)
    host.apply_eml(data, "byte-edited mail")


@FUZZ
@given(st.binary(max_size=2000))
def test_random_bytes_as_a_message(host: FuzzHost, data: bytes) -> None:
    host.apply_eml(data, "random bytes as .eml", must_refuse=True)
