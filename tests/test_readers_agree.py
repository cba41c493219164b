"""The readers of a log agree, and every flip is counted.

1. P7: a log that `pbem verify` refuses is refused by every reader of a log -- `audit`,
   `html`, `history` -- each with one paragraph on stderr, no traceback, and no file
   changed; `list` still lists the other games and marks that one "does not verify",
   naming it.  The tampered logs are the example games (``examples/*/log.yaml``) edited
   the ways the tamper tests edit them (tests/test_tamper.py, tests/hardening.py's
   ``mutate_log``, tests/test_strict_encodings.py's forbidden characters), plus edits of
   one field of one entry with the chain recomputed, so only the entry's shape is wrong.
   Conversely, whenever jsonschema (``schemas/entry.json``, which verify also runs)
   refuses an entry, the strict reader (``read_log``) refuses the log too, so `audit` can
   never say FAIR on a log that verify refuses; entry by entry, the two refuse exactly
   the same one-field edits.
2. P6, R8.2-R8.4: in a game whose flips come from timeouts and from a resigned seat's
   stand-in turns as well as from moves, `pbem verify`, `pbem audit` and
   ``tools/audit_min.py`` count the same flips: every ``token_flipped`` of the log.
"""

from __future__ import annotations

import copy
import json
import random
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from clitools import cli, ok, snapshot
from encodingtools import FORBIDDEN
from hardening import mutate_log
from tampering import EDITS

from pbem.bots.randombot import bot_actions
from pbem.errors import PbemError
from pbem.fair.protocol import ZERO_HASH, entry_hash, secret_commitment
from pbem.host.create import NewGame, create
from pbem.host.games import apply_move, load_game, timeout
from pbem.log.clock import at_of, pinned, seconds
from pbem.log.logfile import LOG_NAME, read_docs, read_log
from pbem.log.moves import after_of, parse_move, validate
from pbem.log.records import parse_entry
from pbem.log.yamlio import dump_yaml
from pbem.sim.demo import open_game

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted((ROOT / "examples").glob("*/log.yaml"))
TOOL = ROOT / "tools" / "audit_min.py"

Entries = list[dict[str, Any]]
Case = tuple[str, bytes]


# --- writing a log the way an attacker would ------------------------------------------------------

def rechain(entries: Entries) -> Entries:
    """The stronger attacker of tests/test_tamper.py: every seq, prev and recorded move's
    ``after`` recomputed, so the chain (P7) holds and only the edit itself is wrong.
    Robust to an entry whose kind or move the edit has broken."""
    prev, out = ZERO_HASH, []  # type: ignore[var-annotated]
    for seq, entry in enumerate(entries):
        fixed = {"seq": seq, "prev": prev, **{k: v for k, v in entry.items() if k not in ("seq", "prev")}}
        move = fixed.get("move")
        if isinstance(move, dict) and isinstance(move.get("after"), dict):
            target = 0 if fixed.get("kind") in ("commit", "nonce") else seq - 1
            fixed["move"] = {**move, "after": {"seq": target, "hash": _hash(out[target])[:16]}}
        prev = _hash(fixed)
        out.append(fixed)
    return out


def _hash(entry: dict[str, Any]) -> str:
    try:
        return entry_hash(entry)
    except ValueError:  # a value P2 cannot hash (an integer past 2^53): the chain breaks there
        return "ee" * 32


def as_bytes(entries: Entries) -> bytes:
    """Each entry one JSON document, as the log is read (P2); any value json can write."""
    return "".join("---\n" + json.dumps(e, ensure_ascii=False) + "\n" for e in entries).encode(
        "utf-8", "surrogatepass")


# --- the corpus --------------------------------------------------------------------------------

ODD_VALUES: list[Any] = [None, True, False, 0, -1, 2**53, 2**70, "", "x", "ab" * 32, "\u2028", [], {},
                         [1], {"a": 1}, "S02", "red"]


def _paths(value: Any, here: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """Every path to a value inside one entry (keys and list indexes)."""
    yield here
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _paths(v, (*here, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _paths(v, (*here, i))


def _field_edit(entry: dict[str, Any], rng: random.Random) -> None:
    """One field of one entry changed, dropped, or one field added (its shape, schemas/entry.json)."""
    path = rng.choice([p for p in _paths(entry) if p and p[0] not in ("seq", "prev")])
    parent: Any = entry
    for step in path[:-1]:
        parent = parent[step]
    last = path[-1]
    op = rng.randrange(4)
    if op == 0 and isinstance(parent, dict):
        del parent[last]
    elif op == 1 and isinstance(parent, dict):
        parent["extra_field"] = rng.choice(ODD_VALUES)
    else:
        parent[last] = copy.deepcopy(rng.choice(ODD_VALUES))


def _structured(name: str, entries: Entries) -> Iterator[Case]:
    """The named tampers of tests/test_tamper.py and tests/test_strict_encodings.py."""
    for edit in EDITS:
        es = copy.deepcopy(entries)
        try:
            edit(es)
        except (AssertionError, StopIteration):  # that example has no such entry
            continue
        yield f"{name}: {edit.__name__} (naive)", as_bytes(es)
        yield f"{name}: {edit.__name__} (rechained)", as_bytes(rechain(es))
    yield f"{name}: dropped entry", as_bytes(entries[:3] + entries[4:])
    yield f"{name}: swapped entries", as_bytes(rechain([*entries[:5], entries[6], entries[5], *entries[7:]]))
    yield f"{name}: seq true", as_bytes([{**entries[0], "seq": True}, *entries[1:]])
    if entries[-1]["kind"] == "reveal":
        es = copy.deepcopy(entries)
        es[-1]["secret"] = "cd" * 32
        yield f"{name}: replaced secret", as_bytes(es)
        es[0]["secret"]["commitment"] = secret_commitment(bytes.fromhex("cd" * 32))
        yield f"{name}: replaced secret and its commitment (rechained)", as_bytes(rechain(es))
    at = next(i for i, e in enumerate(entries) if e["kind"] == "move" and i > 5)
    for char_name, char in list(FORBIDDEN.items())[::6]:
        es = copy.deepcopy(entries)
        es[at]["move"]["comment"] = f"hi {char} there"
        yield f"{name}: {char_name} in a comment", as_bytes(rechain(es))
    text = as_bytes(entries).decode()
    yield f"{name}: a YAML comment inside an entry", text.replace('"kind": "start"', '"kind": "start" # hi', 1).encode()


def corpus(log: Path, seed: int, random_cases: int, field_cases: int) -> Iterator[Case]:
    """Seeded, deterministic: the named tampers, random byte/document edits (mutate_log) and
    random one-field edits (rechained) of one example game's log."""
    rng = random.Random(seed)
    name, data = log.parent.name, log.read_bytes()
    entries, _ = read_docs(log)
    yield from _structured(name, entries)
    for i in range(random_cases):
        yield f"{name}: mutate_log #{i}", mutate_log(data, rng)
    for i in range(field_cases):
        es = copy.deepcopy(entries)
        k = rng.randrange(len(es))
        _field_edit(es[k], rng)
        yield f"{name}: field edit #{i} of entry {k}", as_bytes(rechain(es))


# --- the readers -------------------------------------------------------------------------------

GAME = "tampered"


def refused_cleanly(result: Any, what: str) -> None:
    assert result.exit_code != 0, f"{what}: exit 0 on a log verify refuses\n{result.output}"
    err = result.stderr.strip()
    assert err.startswith("pbem: "), f"{what}: {err!r}"
    assert "\n\n" not in err and "internal error" not in err, f"{what}: {err!r}"


def every_reader_refuses(games: Path, out: Path, what: str) -> None:
    """P7: audit, html and history refuse (non-zero, one paragraph, no file changed); list
    marks the game, by its folder, and still lists the good one (the 2-player example)."""
    log = games / GAME / LOG_NAME
    before = snapshot(games)
    for command, args in {
        "audit": ("audit", log), "html": ("html", log, "-o", out), "history": ("history", GAME, "--games", games),
    }.items():
        refused_cleanly(cli(*args), f"{what}: {command}")
        assert snapshot(games) == before, f"{what}: {command} changed a file"
        assert not out.exists(), f"{what}: {command} wrote {out}"
    listed = cli("list", "--games", games)
    assert listed.exit_code == 0, f"{what}: list\n{listed.stderr}"
    lines = listed.output.splitlines()
    assert any(line.startswith(f"{GAME}: does not verify: ") for line in lines), f"{what}: list\n{listed.output}"
    assert any(line.startswith("rattus-2p: over since ") for line in lines), f"{what}: list\n{listed.output}"
    assert snapshot(games) == before, f"{what}: list changed a file"


_SCHEMA_SAYS: dict[str, bool] = {}
"""jsonschema's verdict on one document, by its text with the chain's hashes blanked: a
re-chained entry differs from the example's only there, and a 64- or 16-digit hash fits
the schema wherever it is (jsonschema is slow; the corpus repeats most entries)."""
_HASH = re.compile(r'"(?:[0-9a-f]{64}|[0-9a-f]{16})"')


def schema_refuses_an_entry(data: bytes) -> bool:
    """Does jsonschema (schemas/entry.json, as verify runs it) refuse one of the log's
    documents that decodes as JSON?  (Documents that are not JSON are the reader's alone.)"""
    try:
        docs = [json.loads(d) for d in data.decode("utf-8").split("---\n") if d.strip()]
    except ValueError:
        return False
    for seq, doc in enumerate(docs):
        key = _HASH.sub('"#"', json.dumps(doc, sort_keys=True))
        if key not in _SCHEMA_SAYS:
            try:
                validate(doc, "entry.json", f"entry {seq}")
                _SCHEMA_SAYS[key] = False
            except PbemError:
                _SCHEMA_SAYS[key] = True
        if _SCHEMA_SAYS[key]:
            return True
    return False


def check_corpus(cases: Iterator[Case], tmp_path: Path) -> tuple[int, int]:
    games = tmp_path / "games"
    (games / GAME).mkdir(parents=True)
    (games / "good").mkdir()
    good, _ = read_docs(ROOT / "examples" / "rattus-2p" / LOG_NAME)
    (games / "good" / LOG_NAME).write_bytes(as_bytes(good[:-1]))  # over; its secret not yet out
    log, out = games / GAME / LOG_NAME, tmp_path / "page.html"
    refused = schema_refused = 0
    for what, data in cases:
        log.write_bytes(data)
        if schema_refuses_an_entry(data):  # jsonschema refuses: so does the one strict reader
            schema_refused += 1
            with pytest.raises(PbemError):
                read_log(log)
        verdict = cli("verify", log)
        if verdict.exit_code == 0:
            continue
        refused += 1
        refused_cleanly(verdict, f"{what}: verify")
        every_reader_refuses(games, out, what)
    return refused, schema_refused


FAST_EXAMPLES = ("rattus-3p", "playthrough-seats")
"""The examples whose fixed corpus the fast suite runs (every kind of entry between them: moves,
waivers, resignations, replacements); the others' in the slow suite, beside the randomized run."""


@pytest.mark.parametrize("log", [pytest.param(log, marks=() if log.parent.name in FAST_EXAMPLES else pytest.mark.slow)
                                 for log in EXAMPLES], ids=lambda p: p.parent.name)
def test_p7_every_reader_refuses_what_verify_refuses_over_the_tamper_corpus(log: Path, tmp_path: Path) -> None:
    cases = list(corpus(log, seed=17, random_cases=15, field_cases=15))
    refused, schema_refused = check_corpus(iter(cases), tmp_path)
    # not vacuous: most of the corpus is refused, and many of them by the entry schema
    assert refused >= len(cases) * 3 // 4, (refused, len(cases))
    assert schema_refused >= 8, schema_refused


def entry_verdicts(seed: int, per_log: int) -> Iterator[tuple[str, bool, bool]]:
    """(what, jsonschema refuses, the records' reader refuses) for one-field edits of the
    example games' entries, each entry on its own (no chain to break first)."""
    rng = random.Random(seed)
    for log in EXAMPLES:
        entries, _ = read_docs(log)
        for i in range(per_log):
            k = rng.randrange(len(entries))
            entry = copy.deepcopy(entries[k])
            _field_edit(entry, rng)
            try:
                validate(entry, "entry.json", f"entry {k}")
                schema = False
            except PbemError:
                schema = True
            try:
                parse_entry(entry, k)
                reader = False
            except PbemError:
                reader = True
            yield f"{log.parent.name} edit #{i} of entry {k}: {json.dumps(entry)[:300]}", schema, reader


def test_p7_the_strict_reader_refuses_exactly_the_entries_jsonschema_refuses() -> None:
    """schemas/entry.json, as verify runs it by jsonschema, and the records' shape check
    that every reader runs are one rule: an entry one refuses, the other refuses."""
    verdicts = list(entry_verdicts(seed=17, per_log=150))
    for what, schema, reader in verdicts:
        assert schema == reader, f"{what}: jsonschema {'refuses' if schema else 'accepts'}, the reader does not"
    assert sum(schema for _, schema, _ in verdicts) >= len(verdicts) // 3  # not vacuous


@pytest.mark.slow
def test_p7_the_strict_reader_refuses_exactly_the_entries_jsonschema_refuses_randomized() -> None:
    seed = random.randrange(2**32)
    print(f"seed {seed}")
    for what, schema, reader in entry_verdicts(seed, per_log=3000):
        assert schema == reader, f"seed {seed}: {what}: jsonschema {'refuses' if schema else 'accepts'}"


def _audit_only_tampers() -> Iterator[Case]:
    """Logs whose chain, shapes and replay all hold, refused only by P6's audit once the
    secret is out: html, history and list accepted these before they audited too."""
    two, _ = read_docs(ROOT / "examples" / "rattus-2p" / LOG_NAME)
    es = copy.deepcopy(two)
    es[0]["players"] = list(reversed(es[0]["players"]))  # the seed's input (P4), so the deal (P5)
    yield "players reversed (rechained)", as_bytes(rechain(es))
    entries, _ = read_docs(ROOT / "examples" / "rattus-3p" / LOG_NAME)
    es = copy.deepcopy(entries)
    es[-1]["secret"] = "cd" * 32
    es[0]["secret"]["commitment"] = secret_commitment(bytes.fromhex("cd" * 32))
    yield "secret and its commitment replaced (rechained)", as_bytes(rechain(es))


@pytest.mark.parametrize(("what", "data"), list(_audit_only_tampers()), ids=lambda v: v if isinstance(v, str) else "")
def test_p6_a_revealed_log_whose_secret_does_not_give_its_deal_is_refused_by_every_reader(
    what: str, data: bytes, tmp_path: Path
) -> None:
    games = tmp_path / "games"
    (games / GAME).mkdir(parents=True)
    (games / "good").mkdir()
    good, _ = read_docs(ROOT / "examples" / "rattus-2p" / LOG_NAME)
    (games / "good" / LOG_NAME).write_bytes(as_bytes(good[:-1]))
    (games / GAME / LOG_NAME).write_bytes(data)
    verdict = cli("verify", games / GAME / LOG_NAME)
    assert verdict.exit_code != 0 and "revealed secret gives" in verdict.stderr, verdict.stderr
    every_reader_refuses(games, tmp_path / "page.html", what)


@pytest.mark.slow
@pytest.mark.parametrize("log", EXAMPLES, ids=lambda p: p.parent.name)
def test_p7_every_reader_refuses_what_verify_refuses_randomized(log: Path, tmp_path: Path) -> None:
    seed = random.randrange(2**32)
    print(f"seed {seed}")  # shown on a failure: rerun the corpus with it
    check_corpus(corpus(log, seed, random_cases=300, field_cases=300), tmp_path)


# --- 2: flips from timeouts and a stand-in, counted by every reader -------------------------------

T0 = "2026-12-01T09:00:00Z"
PLAYERS = ("red", "green", "blue")


def _flips(entry: dict[str, Any]) -> int:
    return sum(1 for e in entry.get("outcome", []) if e.get("event") == "token_flipped")


def standin_game(games: Path) -> Path:
    """Three players, a 1-minute deadline (R8.2): red plays random moves; blue never moves,
    so each blue turn is a timeout the stand-in plays (R8.2-R8.3); green resigns after its
    first turn, so each green turn is a stand-in entry (R8.4).  Played to the end, then the
    secret revealed (P6)."""
    with pinned(T0):
        create(games, NewGame("g", PLAYERS, first="red", secret=bytes(range(32)), deadline=60))
        open_game(games, "g", {p: bytes([i + 1]) * 16 for i, p in enumerate(PLAYERS)})
    clock, rng = seconds(T0), random.Random(17)
    while True:
        game = load_game(games / "g")
        assert game.state is not None
        if game.over:
            break
        clock += 120
        player = game.to_move
        with pinned(at_of(clock)):
            if player == "blue":
                assert timeout(games, "g") is not None
                continue
            data: dict[str, Any] = {"game": "g", "player": player, "kind": "move", "after": after_of(game)}
            if player == "green":
                data["kind"] = "resign"
            else:
                data["actions"] = [a.to_dict() for a in bot_actions(game.state, rng)]
            apply_move(games, parse_move(dump_yaml(data).encode()))
    with pinned(at_of(clock + 60)):
        ok("reveal", "g", "--games", games)
    return games / "g" / LOG_NAME


def counted(pattern: str, text: str) -> int:
    found = re.search(pattern, text)
    assert found, f"no {pattern!r} in\n{text}"
    return int(found.group(1))


def test_p6_r8_every_reader_counts_the_flips_of_timeouts_and_stand_ins(tmp_path: Path) -> None:
    log = standin_game(tmp_path / "games")
    entries, _ = read_docs(log)
    kinds = [e["kind"] for e in entries]
    assert "resign" in kinds and kinds[-1] == "reveal"
    flips = sum(_flips(e) for e in entries)
    by_kind = {kind: sum(_flips(e) for e in entries if e["kind"] == kind) for kind in ("timeout", "standin")}
    # the point of the test: a reader that counted the flips of `move` entries only is wrong
    assert by_kind["timeout"] > 0 and by_kind["standin"] > 0, by_kind
    assert flips > sum(_flips(e) for e in entries if e["kind"] == "move")

    verified = ok("verify", log)
    assert counted(r"ok: (\d+) reveals match their commitments \(P6\)", verified) == flips
    assert counted(r"ok: all (\d+) flipped tokens are the dealt tokens", verified) == flips
    audited = ok("audit", log)
    assert counted(r"ok: all (\d+) flipped tokens are the dealt tokens", audited) == flips
    assert "verdict: FAIR." in audited
    minimal = subprocess.run([sys.executable, str(TOOL), str(log)], capture_output=True, text=True, check=False)
    assert minimal.returncode == 0, minimal.stdout + minimal.stderr
    assert counted(r"ok: all (\d+) flipped tokens are the dealt tokens", minimal.stdout) == flips
    assert minimal.stdout.strip().splitlines()[-1].startswith("verdict: FAIR.")
