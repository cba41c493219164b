"""tools/audit_min.py refuses what `pbem verify` refuses on encodings (P2),
and agrees with `pbem audit` (FAIR or not) on every tampered log and on fresh games,
waived seats included.

Each encoding case is an edit of the raw text of a good log: a host signature with spare
base64 bits, NaN/Infinity, an integer beyond 2^53, a boolean where an integer must be,
deep nesting.  Both readers must refuse it, with a message and no traceback."""

from __future__ import annotations

import base64
import copy
import json
import random
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from audittools import EXAMPLE as TAMPER_EXAMPLE
from audittools import EXAMPLES, TOOL, TOOL_MODULE, VERDICT, pbem, tampered
from clitools import cli
from tampering import write

from pbem.bots.randombot import bot_actions
from pbem.fair.keys import keygen
from pbem.host.create import NewGame, create
from pbem.host.games import apply_move, load_game, reveal, waive
from pbem.log.logfile import read_docs
from pbem.log.moves import after_of, parse_move
from pbem.log.yamlio import dump_yaml
from pbem.player.nonces import commit_move, reveal_move
from pbem.sim.demo import open_game

EXAMPLE = EXAMPLES[0]


def both_refuse(log: Path, code: int = 7) -> list[str]:
    """pbem verify and the minimal verifier refuse ``log``, each with a message; pbem audit too."""
    result = cli("verify", log)  # (cli asserts that no output shows a traceback)
    assert result.exit_code == code, (result.exit_code, result.stderr)
    assert cli("audit", log).exit_code == code
    mine, lines = TOOL_MODULE.audit(str(log))
    assert mine == code and lines[-1].startswith("verdict: REFUSED."), lines
    done = subprocess.run([sys.executable, str(TOOL), str(log)], capture_output=True, text=True, timeout=60,
                          check=False)
    assert done.returncode == code and "Traceback" not in done.stderr and done.stderr == "", done.stderr
    return list(lines)


def edited_text(tmp_path: Path, edit: Callable[[str], str]) -> Path:
    text = EXAMPLE.read_text(encoding="utf-8")
    changed = edit(text)
    assert changed != text
    log = tmp_path / "log.yaml"
    log.write_text(changed, encoding="utf-8")
    return log


@pytest.mark.parametrize("value", ["NaN", "Infinity", "-Infinity", "1.5", "1e3", "1" + "0" * 400,
                                   str(2**53 + 1), "-" + str(2**53 + 1)])
def test_a_number_json_or_p2_does_not_admit_is_refused(value: str, tmp_path: Path) -> None:
    log = edited_text(tmp_path, lambda t: t.replace('"seq": 3,', f'"seq": {value},', 1))
    lines = both_refuse(log)
    assert "P2" in lines[-1] or "P7" in lines[-1]


def test_an_integer_beyond_2_53_anywhere_is_refused(tmp_path: Path) -> None:
    """Not only where an integer is checked: the minimal verifier refuses 10^400 on reading."""
    text = EXAMPLE.read_text(encoding="utf-8").replace('"seq": 4,', '"seq": 4, "big": ' + "1" + "0" * 400 + ",", 1)
    log = tmp_path / "log.yaml"
    log.write_text(text)
    lines = both_refuse(log)
    assert "beyond 2^53" in lines[0], lines


@pytest.mark.parametrize(("field", "value"), [("seq", "true"), ("after", "false")])
def test_a_boolean_is_not_an_integer(field: str, value: str, tmp_path: Path) -> None:
    """`seq: true` equals 1 in Python; P2: a boolean is not an integer."""
    entries, _ = read_docs(EXAMPLE)
    at = 1  # entry 1: its seq is 1, and its move (a commitment) answers entry 0 (seq 0)
    es = copy.deepcopy(entries)
    if field == "seq":
        es[at]["seq"] = True
    else:
        es[at]["move"]["after"]["seq"] = False
    for k in range(at + 1, len(es)):  # re-chained: only the boolean can be objected to
        es[k]["prev"] = TOOL_MODULE.entry_hash(es[k - 1])
    text = "".join("---\n" + json.dumps(e) + "\n" for e in es)
    log = tmp_path / "log.yaml"
    log.write_text(text)
    lines = both_refuse(log)
    assert f"at entry {at} (P7" in lines[-1], lines


@pytest.mark.parametrize("depth", [40, 100_000])
def test_deep_nesting_is_refused_with_a_message(depth: int, tmp_path: Path) -> None:
    log = edited_text(tmp_path, lambda t: t.replace('"seq": 4,', '"seq": 4, "deep": ' + "[" * depth + "]" * depth
                                                    + ",", 1))
    lines = both_refuse(log)
    assert "RecursionError" not in "".join(lines) and ("deep" in lines[0]), lines


def signed_game(tmp_path: Path) -> Path:
    keygen(tmp_path / "host.key")
    create(tmp_path, NewGame("signed", ("red", "green"), host_key_file=tmp_path / "host.key"))
    open_game(tmp_path, "signed")
    return tmp_path / "signed" / "log.yaml"


def spare_bits(signature: str) -> str:
    """The same 64 bytes in another spelling: a spare bit of the last base64 digit set."""
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    last = alphabet.index(signature[85])
    other = signature[:85] + alphabet[last ^ 1] + "=="
    assert base64.b64decode(other) == base64.b64decode(signature) and other != signature
    return other


def test_a_host_signature_with_spare_bits_is_refused(tmp_path: Path) -> None:
    log = signed_game(tmp_path)
    good, _ = TOOL_MODULE.audit(str(log))
    assert good == 10  # not over yet: its signatures verify
    entries, _ = read_docs(log)
    entries[2]["signature"] = spare_bits(entries[2]["signature"])
    lines = both_refuse(write(tmp_path / "bad.yaml", entries), code=8)
    assert "at entry 2 (P8" in lines[-1], lines


# --- agreement: the same verdict (FAIR, or refused) as pbem audit ------------------------------

def same_verdict(log: Path) -> str:
    code, verdict, err = pbem("audit", log)
    mine, lines = TOOL_MODULE.audit(str(log))
    assert (code == 0) == (mine == 0), (log.name, code, verdict, err, lines)
    return str(lines[-1])


def test_agrees_on_every_tampered_log(tmp_path: Path) -> None:
    """Every tampered log of tests/test_audit_min.py (tests/test_tamper.py's edits, naive and
    re-chained, and the dropped, swapped and replaced entries): refused by both, but for the
    edits only the rules can see, which the minimal verifier says it does not replay ("blind":
    it prints FAIR and "not checked: the moves were not replayed under the rules")."""
    entries, _ = read_docs(TAMPER_EXAMPLE)
    refused = 0
    for name, make, sees in tampered():
        log = write(tmp_path / f"{name}.yaml", make(copy.deepcopy(entries)))
        code, _verdict, _err = pbem("audit", log)
        mine, lines = TOOL_MODULE.audit(str(log))
        assert code != 0, name
        if sees == "blind":
            assert mine == 0 and any("not replayed under the rules" in x for x in lines), name
        else:
            assert mine != 0 and lines[-1].startswith("verdict: REFUSED."), (name, lines)
            refused += 1
    assert refused == 25


def finished(games: Path, game_id: str, players: tuple[str, ...], waived: tuple[str, ...], seed: int) -> Path:
    """A fresh game played to its end by random bots, the ``waived`` seats waived before anyone
    committed (P4), its secret revealed."""
    rng = random.Random(seed)
    create(games, NewGame(game_id, players))
    for seat in waived:
        waive(games, game_id, seat)
    game = load_game(games / game_id)
    for make in (commit_move, reveal_move):
        for player in players:
            if player not in waived:
                apply_move(games, parse_move(dump_yaml(make(game, player, NONCE + player.encode())).encode()))
    game = load_game(games / game_id)
    while game.state is not None and game.state.to_move is not None:
        data = {"game": game_id, "player": game.state.to_move, "kind": "move", "after": after_of(game),
                "actions": [a.to_dict() for a in bot_actions(game.state, rng)]}
        game = apply_move(games, parse_move(dump_yaml(data).encode())).game
    reveal(games, game_id)
    return games / game_id / "log.yaml"


NONCE = bytes(range(16))
NAMES = ("red", "green", "blue", "yellow")


def fresh_logs(games: Path, n: int) -> list[Path]:
    """n fresh finished games of 2-4 players; every other one with one or two seats waived."""
    logs = []
    for i in range(n):
        players = NAMES[: 2 + i % 3]
        waived = players[-1 - (i % 4 == 3) :] if i % 2 else ()
        logs.append(finished(games, f"fresh-{i:03d}", players, waived, 3000 + i))
    return logs


def agree_on_fresh(tmp_path: Path, n: int) -> None:
    logs = fresh_logs(tmp_path, n)
    done = subprocess.run([sys.executable, str(TOOL), *map(str, logs)], capture_output=True, text=True,
                          timeout=600, check=False)
    theirs = VERDICT.findall(done.stdout)
    ours = [pbem("audit", log)[1] for log in logs]
    assert len(theirs) == len(ours) == len(logs) and theirs == ours, (theirs, ours)


def test_agrees_on_10_fresh_games(tmp_path: Path) -> None:
    agree_on_fresh(tmp_path, 10)


@pytest.mark.slow
def test_agrees_on_50_fresh_games(tmp_path: Path) -> None:
    agree_on_fresh(tmp_path, 50)
