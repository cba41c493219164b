"""P2 Encodings: every input is read strictly, and anything else is refused.

- Hex fields are lowercase hex and nothing else: no trailing newline.
- Text fields admit printable Unicode only: no C0/C1 controls (tab and newline
  only inside a ``comment``), no DEL, no U+2028/U+2029, no surrogates, no
  noncharacters; a comment is at most 1,000 characters.
- YAML is read with the 1.2 core schema: only ``true``/``false``, ``null``/``~``
  and decimal integers are not strings; no anchors, aliases, merge keys, tags or
  duplicate keys.
- Game ids: ``^[a-z0-9][a-z0-9_-]{0,63}\\Z``.
- Signatures and public keys are canonical base64.
- The public log holds none of the refused characters either.

A refused move file exits 3 with one paragraph naming the problem and P2, no
internal error, and every file of the games folder byte-identical.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from clitools import cli, ok, snapshot
from encodingtools import FORBIDDEN

from pbem.errors import Exit
from pbem.fair.keys import verify
from pbem.fair.protocol import ZERO_HASH, entry_hash
from pbem.log.logfile import LOG_NAME, read_docs
from pbem.log.yamlio import dump_entry, dump_yaml
from pbem.sim.demo import play_demo

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "rattus-3p" / "log.yaml"
GAME = "strict-3p"
MARK = "MARK_FIELD_VALUE"

Entries = list[dict[str, Any]]


# --- a game in the middle, and a move that is valid there -------------------------------

@dataclass
class Position:
    games: Path
    log: Path
    move: dict[str, Any]  # valid against this log


def _truncated(base: Path, name: str, entries: Entries, upto: int) -> Position:
    """A copy of the played game whose log stops before entry ``upto``; that entry's
    move is then the next valid move."""
    games = base / name
    shutil.copytree(base / "played", games)
    log = games / GAME / LOG_NAME
    log.write_text("".join(dump_entry(e) for e in entries[:upto]), encoding="utf-8")
    return Position(games, log, dict(entries[upto]["move"]))


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Entries]:
    base = tmp_path_factory.mktemp("strict")
    play_demo(base / "played", 3, seed=7, echo=None, summary=lambda _line: None, game_id=GAME,
              secret=b"\x42" * 32)
    entries, _ = read_docs(base / "played" / GAME / LOG_NAME)
    return base, entries


@pytest.fixture
def turn(played: tuple[Path, Entries], tmp_path: Path) -> Position:
    """The third turn's move, with the log just before it."""
    base, entries = played
    moves = [i for i, e in enumerate(entries) if e.get("kind") == "move"]
    position = _truncated(base, f"turn-{tmp_path.name}", entries, moves[2])
    return position


@pytest.fixture
def before_nonce(played: tuple[Path, Entries], tmp_path: Path) -> Position:
    """The first move with a ``nonce`` field, with the log just before it."""
    base, entries = played
    first = next(i for i, e in enumerate(entries) if isinstance(e.get("move"), dict) and "nonce" in e["move"])
    return _truncated(base, f"nonce-{tmp_path.name}", entries, first)


@pytest.fixture
def before_commit(played: tuple[Path, Entries], tmp_path: Path) -> Position:
    """The first nonce commitment (P4), with the log just before it: a key registers here."""
    base, entries = played
    first = next(i for i, e in enumerate(entries) if e.get("kind") == "commit")
    return _truncated(base, f"commit-{tmp_path.name}", entries, first)


def write_move(tmp_path: Path, text: str | bytes, name: str = "move.yaml") -> Path:
    path = tmp_path / name
    path.write_bytes(text.encode("utf-8") if isinstance(text, str) else text)
    return path


def with_raw(move: dict[str, Any], field: tuple[str | int, ...], raw: str) -> str:
    """The move as YAML with ``field`` written as the raw YAML text ``raw``."""
    data = json.loads(json.dumps(move))
    target = data
    for step in field[:-1]:
        target = target[step]
    target[field[-1]] = MARK
    text = dump_yaml(data)
    assert text.count(MARK) == 1
    return text.replace(MARK, raw)


def refused_format(pos: Position, path: Path, *says: str) -> None:
    """`pbem check` and `pbem apply` exit 3, name the problem and P2, change nothing."""
    for args in (("check", path, "--log", pos.log), ("apply", path, "--games", pos.games)):
        before = snapshot(pos.games)
        result = cli(*args)
        assert snapshot(pos.games) == before, "a refused move changed a file"
        err = result.stderr
        assert result.exit_code == Exit.FORMAT, (args[0], result.exit_code, err)
        assert result.stdout == "" and err.startswith("pbem: ") and len(err.strip().splitlines()) == 1, err
        assert "internal error" not in err and "Traceback" not in err
        assert "P2" in err, err
        for needle in says:
            assert needle in err, err


def test_the_positions_moves_are_valid(turn: Position, before_nonce: Position, tmp_path: Path) -> None:
    for pos in (turn, before_nonce):
        path = write_move(tmp_path, dump_yaml(pos.move))
        assert "ok:" in ok("check", path, "--log", pos.log)
        ok("apply", path, "--games", pos.games)


# --- hex fields: no trailing newline ---------------------------------------------------------

HEX_SPELLINGS = {
    "double-quoted newline": lambda hexa: json.dumps(hexa + "\n"),
    "block scalar": lambda hexa: f"|\n    {hexa}\n",
    "folded block scalar": lambda hexa: f">\n    {hexa}\n",
    "tab": lambda hexa: json.dumps(hexa + "\t"),
}


@pytest.mark.parametrize("spelling", list(HEX_SPELLINGS))
def test_p2_a_hash_with_a_trailing_newline_is_refused(spelling: str, turn: Position, tmp_path: Path) -> None:
    raw = HEX_SPELLINGS[spelling](turn.move["after"]["hash"])
    path = write_move(tmp_path, with_raw(turn.move, ("after", "hash"), raw))
    refused_format(turn, path, "after.hash", "U+000")


@pytest.mark.parametrize("spelling", list(HEX_SPELLINGS))
def test_p2_a_nonce_with_a_trailing_newline_is_refused(
    spelling: str, before_nonce: Position, tmp_path: Path
) -> None:
    raw = HEX_SPELLINGS[spelling](before_nonce.move["nonce"])
    path = write_move(tmp_path, with_raw(before_nonce.move, ("nonce",), raw))
    refused_format(before_nonce, path, "at nonce", "U+000")


# --- text fields: printable Unicode only ------------------------------------------------------


LINE_CHARS = {"TAB": "\t", "LF": "\n"}
"""Refused everywhere but in a comment."""


def _escaped(char: str) -> str:
    """A YAML double-quoted escape of one character."""
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def _code(char: str) -> str:
    return f"U+{ord(char):04X}"


@pytest.mark.parametrize("name", list(FORBIDDEN) + list(LINE_CHARS))
def test_p2_an_escaped_control_or_noncharacter_in_a_region_is_refused(
    name: str, turn: Position, tmp_path: Path
) -> None:
    char = {**FORBIDDEN, **LINE_CHARS}[name]
    index = next(i for i, a in enumerate(turn.move["actions"]) if "region" in a or "path" in a)
    field = "region" if "region" in turn.move["actions"][index] else "path"
    step: tuple[str | int, ...] = ("actions", index, field) if field == "region" else ("actions", index, field, 0)
    raw = f'"gallia{_escaped(char)}"'
    path = write_move(tmp_path, with_raw(turn.move, step, raw))
    where = f"actions[{index}].region" if field == "region" else f"actions[{index}].path[0]"
    refused_format(turn, path, where, _code(char))


@pytest.mark.parametrize("name", list(FORBIDDEN))
def test_p2_an_escaped_control_or_noncharacter_in_a_comment_is_refused(
    name: str, turn: Position, tmp_path: Path
) -> None:
    char = FORBIDDEN[name]
    path = write_move(tmp_path, dump_yaml(turn.move) + f'comment: "hello {_escaped(char)} there"\n')
    refused_format(turn, path, "at comment", _code(char))


@pytest.mark.parametrize("name", [n for n, c in FORBIDDEN.items() if not 0xD800 <= ord(c) <= 0xDFFF and c != "\r"])
def test_p2_a_raw_control_or_noncharacter_is_refused_with_its_line(
    name: str, turn: Position, tmp_path: Path
) -> None:
    char = FORBIDDEN[name]
    text = dump_yaml(turn.move) + f'comment: "hello {char} there"\n'
    line = text.count("\n")
    refused_format(turn, write_move(tmp_path, text), f"line {line}", _code(char))


@pytest.mark.parametrize("name", ["C0 SOH", "NEL", "LINE SEPARATOR", "high surrogate", "FFFF", "TAB", "LF"])
def test_p2_a_key_is_text_too(name: str, turn: Position, tmp_path: Path) -> None:
    char = {**FORBIDDEN, **LINE_CHARS}[name]
    path = write_move(tmp_path, dump_yaml(turn.move) + f'"com{_escaped(char)}ment": "x"\n')
    refused_format(turn, path, "(a key)", _code(char))


def test_p2_a_comment_is_at_most_1000_characters(turn: Position, tmp_path: Path) -> None:
    longest = write_move(tmp_path, dump_yaml({**turn.move, "comment": "😀" * 1000}), "longest.yaml")
    assert "ok:" in ok("check", longest, "--log", turn.log)
    path = write_move(tmp_path, dump_yaml({**turn.move, "comment": "x" * 1001}))
    refused_format(turn, path, "comment", "1001 characters", "1000")


@pytest.mark.parametrize("comment", [
    "tab\there", "two\nlines\n", "émigré à Köln, Łódź", "rats! 🐀🐀 and 👑", "a\\u0001 is just text",
])
def test_p2_a_comment_admits_tab_newline_and_any_printable_unicode(
    comment: str, turn: Position, tmp_path: Path
) -> None:
    path = write_move(tmp_path, dump_yaml({**turn.move, "comment": comment}))
    assert "ok:" in ok("check", path, "--log", turn.log)
    ok("apply", path, "--games", turn.games)
    entries, _ = read_docs(turn.log)
    assert entries[-1]["move"]["comment"] == comment
    assert "ok:" in ok("verify", turn.log)


def test_p2_a_block_scalar_comment_is_fine(turn: Position, tmp_path: Path) -> None:
    path = write_move(tmp_path, dump_yaml(turn.move) + "comment: |\n  first\n  \tsecond\n")
    assert "ok:" in ok("check", path, "--log", turn.log)


# --- YAML: the 1.2 core schema ---------------------------------------------------------------

PLAIN_STRINGS = ["no", "yes", "on", "off", "y", "n", "010", "0x1F", "0o7", "1:00", "1e3", "1.5", ".inf",
                 "2024-01-01", "+1", "1_000", "=", "nulls", "truely"]


@pytest.mark.parametrize("plain", PLAIN_STRINGS)
def test_p2_other_plain_scalars_are_strings(plain: str, turn: Position, tmp_path: Path) -> None:
    """``region: no`` is the rules' "not a region", never a type error (YAML 1.1 read it as false)."""
    index = next(i for i, a in enumerate(turn.move["actions"]) if "region" in a)
    path = write_move(tmp_path, with_raw(turn.move, ("actions", index, "region"), plain))
    if plain[0].isalpha():  # a region name shape: the schema passes it, the rules refuse it
        result = cli("check", path, "--log", turn.log)
        assert result.exit_code == Exit.RULES, result.stderr
        assert f"'{plain}' is not a region" in result.stderr
    else:  # still a string, so the schema says so (not a float, date or sexagesimal number)
        result = cli("check", path, "--log", turn.log)
        assert result.exit_code == Exit.FORMAT, result.stderr
        assert f"'{plain}' does not match" in result.stderr
    comment = write_move(tmp_path, dump_yaml(turn.move) + f"comment: {plain}\n", "comment.yaml")
    assert "ok:" in ok("check", comment, "--log", turn.log)


@pytest.mark.parametrize(("plain", "value"), [
    ("true", True), ("True", True), ("TRUE", True), ("false", False), ("False", False), ("FALSE", False),
    ("null", None), ("Null", None), ("NULL", None), ("~", None), ("", None), ("0", 0), ("-0", 0), ("12", 12),
    ("-7", -7),
])
def test_p2_core_schema_booleans_nulls_and_integers(plain: str, value: Any) -> None:
    from pbem.log.yamlio import load_one

    assert load_one(f"k: {plain}\n", "test") == {"k": value}
    assert load_one(f'k: "{plain}"\n', "test") == {"k": plain}


def test_p2_the_loader_leaves_pyyaml_alone() -> None:
    import yaml

    assert yaml.safe_load("k: no") == {"k": False}  # SafeLoader's own resolvers are untouched


HOSTILE_YAML: dict[str, tuple[Callable[[dict[str, Any]], str], tuple[str, ...]]] = {
    "merge key": (lambda m: dump_yaml({k: v for k, v in m.items() if k != "after"})
                  + "base: &b {seq: 1}\nafter:\n  <<: *b\n", ("not allowed",)),
    "merge key alone": (lambda m: dump_yaml({k: v for k, v in m.items() if k != "after"})
                        + "after:\n  <<: {seq: 1, hash: abcdef12}\n", ("merge keys (<<) are not allowed",)),
    "anchor": (lambda m: dump_yaml(m).replace("player: ", "player: &p ", 1), ("anchors",)),
    "tag": (lambda m: dump_yaml(m) + "comment: !!str hello\n", ("tags",)),
    # P2: no tags of any kind, the non-specific '!' too
    "! on a value": (lambda m: dump_yaml(m).replace("kind: move", "kind: ! move", 1), ("tags (!)",)),
    "! on an action": (lambda m: re.sub(r"action: (\w+)", r"action: ! \1", dump_yaml(m), count=1), ("tags (!)",)),
    "! on a number": (lambda m: dump_yaml(m).replace(f"seq: {m['after']['seq']}", f"seq: ! {m['after']['seq']}"),
                      ("tags (!)",)),
    "! on a mapping": (lambda m: dump_yaml(m).replace("after:", "after: !", 1), ("tags (!)",)),
    "local tag": (lambda m: dump_yaml(m).replace("kind: move", "kind: !x move", 1), ("tags (!x)",)),
    "duplicate key": (lambda m: dump_yaml(m) + "comment: a\ncomment: b\n", ("appears twice",)),
    "big integer": (lambda m: dump_yaml(m).replace(f"seq: {m['after']['seq']}", "seq: 9007199254740993"),
                    ("too large",)),
}


@pytest.mark.parametrize("name", list(HOSTILE_YAML))
def test_p2_yaml_features_are_refused(name: str, turn: Position, tmp_path: Path) -> None:
    make, says = HOSTILE_YAML[name]
    text = make(turn.move)
    refused_format(turn, write_move(tmp_path, text), *says)


# --- game ids -----------------------------------------------------------------------------------

@pytest.mark.parametrize("game_id", [".", "..", "a.b", "-a", "_a", "A", "a" * 65, "a\n", ""])
def test_p2_bad_game_ids_are_refused(game_id: str, tmp_path: Path) -> None:
    games = tmp_path / "games"
    games.mkdir()
    result = cli("new", "--players", "red,green", "--games", games, "--", game_id)
    assert result.exit_code == Exit.FORMAT, result.stderr
    assert "P2" in result.stderr and "starting with a letter or digit" in result.stderr
    assert list(games.iterdir()) == []
    shown = cli("show", "--games", games, "--", game_id)
    assert shown.exit_code == Exit.UNKNOWN, shown.stderr
    assert "internal error" not in shown.stderr


@pytest.mark.parametrize("game_id", ["0", "9lives", "a" * 64, "spring-1347", "x_y"])
def test_p2_good_game_ids(game_id: str, tmp_path: Path) -> None:
    ok("new", game_id, "--players", "red,green", "--games", tmp_path)


def test_p2_a_move_for_a_dotted_game_id_is_refused(turn: Position, tmp_path: Path) -> None:
    for game_id in ("..", "a.b"):
        path = write_move(tmp_path, dump_yaml({**turn.move, "game": game_id}))
        result = cli("check", path, "--log", turn.log)
        assert result.exit_code == Exit.FORMAT and "at game" in result.stderr, result.stderr


# --- canonical base64 ---------------------------------------------------------------------------

B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"


def respell(text: str, index: int, bit: int) -> str:
    """``text`` with spare bit ``bit`` of its character at ``index`` set: same bytes, other spelling."""
    value = B64.index(text[index]) | bit
    return text[:index] + B64[value] + text[index + 1:]


def test_p2_a_signature_has_one_spelling(tmp_path: Path) -> None:
    ok("keygen", "--out", tmp_path / "k.key")
    from pbem.fair.keys import load_private_key, public_text, sign

    key = load_private_key(tmp_path / "k.key")
    public, signature = public_text(key), sign(key, b"message")
    assert verify(public, signature, b"message")
    spellings = {respell(signature, 85, bit) for bit in range(16)}
    assert len(spellings) == 16
    for other in spellings - {signature}:
        assert base64.b64decode(other) == base64.b64decode(signature)
        assert not verify(public, other, b"message")
    for bad in (signature + "\n", signature.rstrip("="), "-" + signature[1:], signature[:85] + "A="):
        assert not verify(public, bad, b"message")


def test_p2_a_signed_move_in_another_spelling_is_refused(tmp_path: Path) -> None:
    ok("keygen", "--out", tmp_path / "red.key")
    games = tmp_path / "games"
    ok("new", "g", "--players", "red,blue", "--games", games, "--seat-key", f"red={tmp_path / 'red.key.pub'}")
    path = tmp_path / "red-first.yaml"
    ok("nonce", "g", "--player", "red", "--out", path, "--keep", tmp_path / "kept.yaml", "--games", games)
    ok("sign", path, "--key", tmp_path / "red.key")
    text = path.read_text()
    signature = next(line for line in text.splitlines() if line.startswith("signature:")).split('"')[1]
    other = respell(signature, 85, 1 if B64.index(signature[85]) & 1 == 0 else 2)
    assert other != signature
    path.write_text(text.replace(signature, other))
    before = snapshot(games)
    for args in (("check", path, "--log", games / "g" / LOG_NAME), ("apply", path, "--games", games)):
        result = cli(*args)
        assert result.exit_code == Exit.SIGNATURE, result.stderr
        assert "does not verify" in result.stderr and "internal error" not in result.stderr
    assert snapshot(games) == before


def test_p2_a_public_key_has_one_spelling(tmp_path: Path) -> None:
    ok("keygen", "--out", tmp_path / "red.key")
    public = (tmp_path / "red.key.pub").read_text().strip()
    body = public[len("ed25519:"):]
    bit = 1 if B64.index(body[42]) & 1 == 0 else 2
    other = "ed25519:" + respell(body, 42, bit)
    assert base64.b64decode(other[8:]) == base64.b64decode(body)
    (tmp_path / "other.pub").write_text(other + "\n")
    games = tmp_path / "games"
    result = cli("new", "g", "--players", "red,blue", "--games", games, "--seat-key", f"red={tmp_path / 'other.pub'}")
    assert result.exit_code == Exit.FORMAT, result.stderr
    assert "canonical base64" in result.stderr and "P2" in result.stderr
    assert not (games / "g").exists()


def test_p2_a_move_registering_a_key_in_another_spelling_is_refused(
    before_commit: Position, tmp_path: Path
) -> None:
    ok("keygen", "--out", tmp_path / "red.key")
    body = (tmp_path / "red.key.pub").read_text().strip()[len("ed25519:"):]
    other = "ed25519:" + respell(body, 42, 1 if B64.index(body[42]) & 1 == 0 else 2)
    path = write_move(tmp_path, dump_yaml({**before_commit.move, "key": other}))
    refused_format(before_commit, path, "canonical base64")


# --- the public log --------------------------------------------------------------------------

def _hash(entry: dict[str, Any]) -> str:
    """entry_hash, but for a lone surrogate too (its canonical JSON is not UTF-8: the
    attacker hashes the bytes Python would write with surrogatepass)."""
    try:
        return entry_hash(entry)
    except UnicodeEncodeError:
        body = {k: v for k, v in entry.items() if k != "signature"}
        text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def rechain(entries: Entries) -> Entries:
    """Renumber and re-hash after an edit (as tests/test_tamper.py), so only P2 can object."""
    prev = ZERO_HASH
    out: Entries = []
    for seq, entry in enumerate(entries):
        fixed = {"seq": seq, "prev": prev, **{k: v for k, v in entry.items() if k not in ("seq", "prev")}}
        move = fixed.get("move")
        if isinstance(move, dict):
            target = 0 if fixed["kind"] in ("commit", "nonce") else seq - 1
            fixed["move"] = {**move, "after": {"seq": target, "hash": _hash(out[target])[:16]}}
        prev = _hash(fixed)
        out.append(fixed)
    return out


@pytest.fixture(scope="module")
def example() -> Entries:
    entries, _ = read_docs(EXAMPLE)
    return entries


def _tampered_log(tmp_path: Path, entries: Entries, at: int, ascii_only: bool) -> Path:
    """The log written as pbem writes it, but entry ``at`` with json.dumps (dump_entry
    would refuse it): raw characters, or every non-ASCII character escaped."""
    text = "".join(
        dump_entry(e) if i != at else "---\n" + json.dumps(e, ensure_ascii=ascii_only) + "\n"
        for i, e in enumerate(entries)
    )
    path = tmp_path / "log.yaml"
    path.write_bytes(text.encode("utf-8", "surrogatepass") if ascii_only else text.encode("utf-8"))
    return path


def _verify_refuses(log: Path, at: int, char: str) -> None:
    result = cli("verify", log)
    assert result.exit_code == Exit.TAMPERED, result.output + result.stderr
    assert f"entry {at}" in result.stderr and _code(char) in result.stderr, result.stderr
    assert "log does not verify" in result.stderr and "P2" in result.stderr
    assert "internal error" not in result.stderr


def _move_entry(entries: Entries) -> int:
    return next(i for i, e in enumerate(entries) if e.get("kind") == "move" and i > 5)


@pytest.mark.parametrize(("name", "escaped"), [
    (n, escaped) for n, c in FORBIDDEN.items() if ord(c) >= 0x7F for escaped in (False, True)
    if escaped or not 0xD800 <= ord(c) <= 0xDFFF  # a lone surrogate cannot be written raw in UTF-8
])
def test_p2_a_log_comment_with_a_forbidden_character_does_not_verify(
    name: str, escaped: bool, example: Entries, tmp_path: Path
) -> None:
    char = FORBIDDEN[name]
    at = _move_entry(example)
    entries = [dict(e) for e in example]
    entries[at] = {**entries[at], "move": {**entries[at]["move"], "comment": f"hi {char} there"}}
    _verify_refuses(_tampered_log(tmp_path, rechain(entries), at, escaped), at, char)


@pytest.mark.parametrize("char", ["\x00", "\x01", "\x08", "\x0b", "\x0c", "\r", "\x1b", "\x1f"])
def test_p2_a_log_with_an_escaped_control_character_does_not_verify(
    char: str, example: Entries, tmp_path: Path
) -> None:
    at = _move_entry(example)
    entries = [dict(e) for e in example]
    entries[at] = {**entries[at], "move": {**entries[at]["move"], "comment": f"hi {char} there"}}
    _verify_refuses(_tampered_log(tmp_path, rechain(entries), at, False), at, char)


def test_p2_a_forbidden_character_outside_a_comment_does_not_verify(example: Entries, tmp_path: Path) -> None:
    entries = [dict(e) for e in example]
    entries[0] = {**entries[0], "engine": {**entries[0]["engine"], "name": "pbem\u2028"}}
    _verify_refuses(_tampered_log(tmp_path, rechain(entries), 0, False), 0, "\u2028")


@pytest.mark.parametrize("comment", ["tab\there", "two\nlines", "émigré 🐀", "a\\u0001 is text", "\\\\r too"])
def test_p2_a_log_comment_of_printable_text_verifies(comment: str, example: Entries, tmp_path: Path) -> None:
    at = _move_entry(example)
    entries = [dict(e) for e in example]
    entries[at] = {**entries[at], "move": {**entries[at]["move"], "comment": comment}}
    log = tmp_path / "log.yaml"
    log.write_text("".join(dump_entry(e) for e in rechain(entries)), encoding="utf-8")
    assert "ok:" in ok("verify", log)


@pytest.mark.parametrize("char", ["\x7f", "\x85", "\u2028", "\u2029", "\ud800", "\ufdd0", "\U0010fffe"])
def test_p2_the_host_never_writes_a_forbidden_character(char: str) -> None:
    with pytest.raises(ValueError, match="U\\+"):
        dump_entry({"seq": 1, "comment": f"a{char}b"})
