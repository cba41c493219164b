"""The `pbem` command line: the happy path, and every kind of bad input refused.

A refusal exits with its kind's code (:class:`pbem.errors.Exit`), prints one
paragraph naming the problem and the rule (``R3.2``, ``P7``) with no
traceback, and leaves every file in the games folder byte-identical.
"""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from clitools import cli, ok, snapshot

from pbem.bots.randombot import bot_actions
from pbem.errors import Exit
from pbem.fair.protocol import nonce_commitment
from pbem.host.create import NewGame, create
from pbem.host.games import apply_move, load_game
from pbem.log.game import Game, Opening
from pbem.log.logfile import read_docs
from pbem.log.moves import after_of, parse_move
from pbem.log.notation_write import action_line
from pbem.log.yamlio import dump_entry, dump_yaml, load_one
from pbem.player.nonces import commit_move, reveal_move
from pbem.rules import Phase, Stage, legal_actions, play
from pbem.rules.checks import place_counts

SECRET = "5e" * 32
GAME = "g1"
PLAYERS = ("red", "green")
NONCES = {"red": bytes([1]) * 16, "green": bytes([2]) * 16}  # P4's minimum: 16 bytes
NOW = "2026-11-30T09:15:00Z"
RULE = re.compile(r"\((R\d+(\.\d+)?|P\d)\)")
ROOT = Path(__file__).resolve().parent.parent


# --- helpers ----------------------------------------------------------------------

def refused(games: Path, code: Exit, *args: str | Path, says: tuple[str, ...] = (), verdict: str = "") -> str:
    """Run a command that must be refused; returns its one-paragraph message.

    Every file under ``games`` (pass a folder above it to cover a player's kept
    nonce too) must be byte-identical afterwards.  Nothing goes to stdout, except,
    with ``verdict``, `pbem audit`'s one verdict line starting so."""
    before = snapshot(games)
    result = cli(*args)
    assert snapshot(games) == before, "a refused command changed a file"
    assert result.exit_code == code, (result.exit_code, result.stderr)
    err = result.stderr
    out = result.stdout
    assert out == "" or (verdict and out.startswith(verdict) and len(out.splitlines()) == 1), out
    assert err.startswith("pbem: ") and err.endswith("\n"), err
    assert len(err.strip().splitlines()) == 1, err  # one paragraph
    assert RULE.search(err), f"no rule named: {err}"
    assert "internal error" not in err
    for needle in says:
        assert needle in err, err
    return err


def move_text(game: Game, player: str, actions: list[dict[str, Any]], **head: Any) -> str:
    data: dict[str, Any] = {"game": game.game_id, "player": player, "kind": "move", "after": after_of(game)}
    data.update(head)
    data["actions"] = actions
    return dump_yaml(data)


def bot_move(game: Game, rng: random.Random) -> str:
    assert game.state is not None and game.state.to_move is not None
    actions = [a.to_dict() for a in bot_actions(game.state, rng)]
    return move_text(game, game.state.to_move, actions)


def apply_text(games: Path, text: str) -> Game:
    return apply_move(games, parse_move(text.encode())).game


def commit_text(game: Game, player: str, nonce: bytes | None = None) -> str:
    """P4 round 1: ``player``'s commitment (to their nonce in NONCES unless named)."""
    return dump_yaml(commit_move(game, player, NONCES[player] if nonce is None else nonce))


def reveal_text(game: Game, player: str, nonce: bytes | None = None) -> str:
    """P4 round 2: ``player``'s nonce (their nonce in NONCES unless named)."""
    return dump_yaml(reveal_move(game, player, NONCES[player] if nonce is None else nonce))


def kinds(log: Path) -> list[str]:
    return [e["kind"] for e in read_docs(log)[0]]


# --- recorded positions -------------------------------------------------------------

@dataclass
class Position:
    """A games folder at a point of one game, copied fresh for each test."""

    games: Path
    log: Path


@pytest.fixture(scope="module")
def positions(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """One 2-player game, saved: just created; every seat committed, no nonce revealed
    (P4); at a fresh turn (a region without rats, the player on turn holds neither
    Peasant nor Knight); over; revealed."""
    base = tmp_path_factory.mktemp("positions")
    games = base / "play"
    saved: dict[str, Path] = {}

    def save(name: str) -> None:
        shutil.copytree(games, base / name)
        saved[name] = base / name

    with pytest.MonkeyPatch.context() as clock:  # a fixed clock (P7 'at'): the same hashes every run
        clock.setenv("PBEM_NOW", NOW)
        _play(games, save)
    return saved


def _play(games: Path, save: Any) -> None:
    create(games, NewGame(GAME, PLAYERS, first="red", secret=bytes.fromhex(SECRET)))
    save("created")
    game = load_game(games / GAME)
    for player in PLAYERS:
        game = apply_text(games, commit_text(game, player))
    assert game.opening is Opening.REVEAL
    save("committed")
    for player in PLAYERS:
        game = apply_text(games, reveal_text(game, player))
    assert game.started and kinds(games / GAME / "log.yaml")[-1] == "start"
    rng = random.Random(11)
    turn = False
    while game.state is not None and game.state.to_move is not None:
        if not turn and _fresh_turn_with_empty_region(game):
            save("turn")
            turn = True
        game = apply_text(games, bot_move(game, rng))
    assert turn
    save("over")
    ok("reveal", GAME, "--games", games)
    save("revealed")


def _fresh_turn_with_empty_region(game: Game) -> bool:
    s = game.state
    assert s is not None
    player = s.to_move
    return (
        player is not None and s.phase is Phase.TURN and s.turn.stage is Stage.MAIN
        and not s.turn.placed and not s.turn.card_taken and not s.turn.used
        and s.cards["peasant"] != player and s.cards["knight"] != player
        and s.supply[player] > 2
        and any(not s.rats[r] for r in s.regions) and any(s.rats[r] for r in s.regions)
    )


@pytest.fixture
def at(positions: dict[str, Path], tmp_path: Path) -> Any:
    def copy(name: str) -> Position:
        games = tmp_path / name
        shutil.copytree(positions[name], games)
        return Position(games, games / GAME / "log.yaml")
    return copy


# --- the happy path --------------------------------------------------------------------

def test_happy_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PBEM_NOW", NOW)  # P7: every entry's 'at' comes from the host's clock
    games = tmp_path / "games"
    secret_file = tmp_path / "secret.hex"
    secret_file.write_text(SECRET + "\n")
    out = ok("new", GAME, "--players", "red,green", "--first", "red", "--secret-file", secret_file,
             "--reveal-secret", "manual", "--games", games)  # P6: the host reveals, below
    assert "created game g1" in out and "TEST GAME" in out
    log = games / GAME / "log.yaml"
    assert (games / GAME / "secret.yaml").stat().st_mode & 0o777 == 0o600
    entry0 = read_docs(log)[0][0]
    assert (entry0["protocol"], entry0["edition"], entry0["at"]) == ("pbem-rattus/v2", "standard", NOW)
    assert "waiting for the fingerprints of the secret numbers of red, green" in ok("show", GAME, "--games", games)
    hash0 = load_game(games / GAME).hashes[0]

    # P4 round 1. Red fills in the template by hand; green lets 'pbem nonce' make and keep one.
    red_nonce = bytes.fromhex("c0ffee" * 5 + "00")
    red_commit = tmp_path / "red-commit.txt"
    ok("template", GAME, "--player", "red", "--out", red_commit, "--games", games)
    template = red_commit.read_text()
    assert f"game {GAME} red\nafter 0 {hash0[:16]}\n" in template and "# commit <the fingerprint, 64 hex digits>" in template
    red_commit.write_text(template + f"commit {nonce_commitment(red_nonce)}\n")  # the notation
    assert "ok: red's nonce commitment would be recorded (P4)" in ok("check", red_commit, "--log", log)
    assert "entry 1: red's nonce commitment recorded (P4)" in ok("apply", red_commit, "--games", games)
    kept, green_commit = tmp_path / "green-nonce.yaml", tmp_path / "green-commit.yaml"
    ok("nonce", GAME, "--player", "green", "--keep", kept, "--out", green_commit, "--games", games)
    assert kept.stat().st_mode & 0o777 == 0o600
    assert load_one(green_commit.read_text(), "commit")["kind"] == "commit"
    out = ok("apply", green_commit, "--games", games)
    assert "entry 2: green's nonce commitment recorded (P4)" in out
    assert "waiting for red, green to send their secret numbers" in out

    # P4 round 2: the nonces; the last reveal starts the game by itself.
    red_reveal = tmp_path / "red-reveal.txt"
    ok("template", GAME, "--player", "red", "--out", red_reveal, "--games", games)
    template = red_reveal.read_text()
    assert f"game {GAME} red\nafter 0 {hash0[:16]}\n" in template and "# nonce <" in template
    red_reveal.write_text(template + f"nonce {red_nonce.hex()}\n")
    assert "ok: red's nonce matches the commitment" in ok("check", red_reveal, "--log", log)
    out = ok("apply", red_reveal, "--games", games)
    assert "entry 3: red's nonce revealed" in out and "waiting for green to send their secret numbers" in out
    green_reveal = tmp_path / "green-reveal.yaml"
    ok("nonce", GAME, "--player", "green", "--reveal", "--keep", kept, "--out", green_reveal, "--games", games)
    out = ok("apply", green_reveal, "--games", games)
    assert "entry 4: green's nonce revealed" in out
    assert "entry 5: the game starts; first player red" in out
    assert kinds(log) == ["create", "commit", "commit", "nonce", "nonce", "start"]

    rng = random.Random(5)
    n = 0
    shown = False
    while True:
        game = load_game(games / GAME)
        if game.over:
            break
        n += 1
        path = tmp_path / f"move-{n:03d}.txt"
        ok("template", GAME, "--out", path, "--games", games)
        after = after_of(game)
        assert f"game {GAME} {game.to_move}\nafter {after['seq']} {after['hash']}\n" in path.read_text()
        assert game.state is not None
        actions = bot_actions(game.state, rng)
        path.write_text(path.read_text() + "".join(action_line(a) + "\n" for a in actions))
        checked = ok("check", path, "--log", log)
        accepted = "the 1 action" if len(actions) == 1 else f"all {len(actions)} actions"
        assert f"ok: the host would accept {accepted} against entry {game.last_seq} (P10)" in checked
        assert f"{game.to_move}'s move accepted" in ok("apply", path, "--games", games)
        if not shown and n >= 6:
            shown = True
            board = ok("show", GAME, "--games", games)
            assert "cards:" in board and "rats left in supply" in board
            assert "private to green" in ok("show", GAME, "--as", "green", "--games", games)
            data = json.loads(ok("show", GAME, "--json", "--games", games))
            now = load_game(games / GAME)
            assert data["to_move"] == now.to_move
            assert data["last_entry"] == {"seq": now.last_seq, "hash": now.last_hash}
            mine = json.loads(ok("show", GAME, "--json", "--as", "red", "--games", games))
            assert mine["private"]["player"] == "red"

    out = ok("verify", log)
    assert "game g1: over" in out and "trust (P1)" in out and "TEST GAME" in out
    assert "the secret is revealed" in ok("reveal", GAME, "--games", games)
    out = ok("audit", log)
    assert "verdict: FAIR" in out and "final scores:" in out and "TEST GAME" in out
    entries, _ = read_docs(log)
    assert entries[-1] == {**entries[-1], "kind": "reveal", "secret": SECRET}
    assert entries[0]["secret"]["made"] == "supplied"
    assert {e["at"] for e in entries} == {NOW}
    assert load_game(games / GAME).nonces == {"red": red_nonce.hex(), "green": load_one(
        kept.read_text(), "kept")["nonce"]}
    for player in PLAYERS:  # Witch looks, if any, show for their holder only
        private = games / GAME / "private" / f"{player}.yaml"
        shown_private = ok("show", GAME, "--as", player, "--games", games)
        assert ("you saw rat" in shown_private) == private.exists()


# --- bad move files: exit 3 (FORMAT) -------------------------------------------------

def _valid(pos: Position) -> str:
    """A legal move for the player on turn at the 'turn' position."""
    game = load_game(pos.games / GAME)
    return bot_move(game, random.Random(1))


BAD_FORMATS: dict[str, Any] = {
    "broken_yaml": lambda v: b"game: g1\nplayer: [red\nkind: move\n",
    "not_utf8": lambda v: b"# caf\xe9\n" + v.encode(),
    "wrong_type_seq": lambda v: re.sub(r"seq: \d+", "seq: five", v).encode(),
    "wrong_type_count": lambda v: v.replace(
        "actions:\n", "actions:\n- {action: place, region: gallia, count: two}\n", 1).encode(),
    "unknown_key": lambda v: (v + "colour: red\n").encode(),
    # P2: YAML 1.2 core schema, so 2.5 and 2024-05-01 are strings, not a number of the right type
    "float": lambda v: re.sub(r"seq: \d+", "seq: 2.5", v).encode(),
    "date": lambda v: re.sub(r"seq: \d+", "seq: 2024-05-01", v).encode(),
    "alias": lambda v: b"game: &g g1\nplayer: red\nkind: move\nafter: {seq: 1, hash: '%s'}\nactions: [*g]\n"
    % b"0" * 16,
    "alias_only": lambda v: b"game: g1\nplayer: red\nkind: move\nafter: {seq: 1, hash: '%s'}\nactions: [*g]\n"
    % b"0" * 16,
    "tag": lambda v: (v + "comment: !!python/name:os.system ''\n").encode(),
    "oversize": lambda v: (v + "#" + "x" * (300 * 1024) + "\n").encode(),
    "duplicate_key": lambda v: v.replace("kind: move\n", "kind: move\nkind: nonce\n", 1).encode(),
    "two_documents": lambda v: (v + "---\n" + v).encode(),
    "not_a_mapping": lambda v: b"- game\n- g1\n",
    "missing_after": lambda v: re.sub(r"after:\n  seq: \d+\n  hash: \"?\w+\"?\n", "", v, count=1).encode(),
    "short_hash": lambda v: re.sub(r"hash: \"?\w+\"?", "hash: abc", v, count=1).encode(),
    # P7 (v2): at least the first 16 hex digits of the entry's hash; 15 are too few
    "hash_of_15_digits": lambda v: re.sub(r"hash: \"?(\w{15})\w*\"?", r'hash: "\1"', v, count=1).encode(),
    "uppercase_hash": lambda v: re.sub(r"hash: \"?(\w+)\"?", lambda m: f'hash: "{m[1].upper()}"', v,
                                       count=1).encode(),
    # P4's fields belong to the opening's kinds, never to a turn's move
    "nonce_in_move": lambda v: (v + f'nonce: "{"ab" * 16}"\n').encode(),
    "commitment_in_move": lambda v: (v + f'nonce_commitment: "{"ab" * 32}"\n').encode(),
}


@pytest.mark.parametrize("name", list(BAD_FORMATS))
def test_bad_format_is_refused(name: str, at: Any, tmp_path: Path) -> None:
    pos = at("turn")
    path = tmp_path / f"{name}.yaml"
    valid = _valid(pos)
    path.write_bytes(BAD_FORMATS[name](valid))
    assert path.read_bytes() != valid.encode()
    refused(pos.games, Exit.FORMAT, "apply", path, "--games", pos.games)
    refused(pos.games, Exit.FORMAT, "check", path, "--log", pos.log)


def test_format_messages_name_the_problem(at: Any, tmp_path: Path) -> None:
    pos = at("turn")
    valid = _valid(pos)
    expect = {
        "not_utf8": ("not UTF-8", "(P2)"),
        "float": ("after/seq", "'2.5' is not of type 'integer'", "(P7)"),
        "date": ("after/seq", "'2024-05-01' is not of type 'integer'", "(P7)"),
        "alias": ("anchors", "(P2)"),
        "alias_only": ("aliases", "(P2)"),
        "tag": ("tags", "(P2)"),
        "duplicate_key": ("'kind' appears twice", "(P2)"),
        "unknown_key": ("unexpected field", "colour", "(P7)"),
        "wrong_type_seq": ("after/seq", "(P7)"),
        "oversize": ("larger than", "(P2)"),
        "broken_yaml": ("not valid YAML", "line", "(P2)"),
    }
    for name, says in expect.items():
        path = tmp_path / f"{name}.yaml"
        path.write_bytes(BAD_FORMATS[name](valid))
        refused(pos.games, Exit.FORMAT, "apply", path, "--games", pos.games, says=says)


OPENING_FORMATS: dict[str, tuple[str, Any, str]] = {  # P2, P4, P7: (position, mutation of a valid move, rule)
    "nonce_of_15_bytes": ("committed", lambda v: re.sub(r"nonce: \"?\w+\"?", f'nonce: "{"01" * 15}"', v), "P7"),
    "nonce_of_65_bytes": ("committed", lambda v: re.sub(r"nonce: \"?\w+\"?", f'nonce: "{"01" * 65}"', v), "P7"),
    "nonce_odd_length": ("committed", lambda v: re.sub(r"nonce: \"?\w+\"?", f'nonce: "{"01" * 16}1"', v), "P7"),
    "nonce_uppercase": ("committed", lambda v: re.sub(r"nonce: \"?\w+\"?", f'nonce: "{"AB" * 16}"', v), "P7"),
    "nonce_unquoted_digits": ("committed",  # YAML 1.2 reads it as a number, too large (P2)
                              lambda v: re.sub(r"nonce: \"?\w+\"?", f"nonce: {'12' * 16}", v), "P2"),
    "nonce_with_actions": ("committed", lambda v: v + "actions:\n- {action: end}\n", "P7"),
    "nonce_with_commitment": ("committed", lambda v: v + f'nonce_commitment: "{"ab" * 32}"\n', "P7"),
    "commitment_of_63_digits": ("created", lambda v: re.sub(r"nonce_commitment: \"?(\w+)\w\"?",
                                                           r'nonce_commitment: "\1"', v), "P7"),
    "commitment_missing": ("created", lambda v: re.sub(r"nonce_commitment: .*\n", "", v), "P7"),
    "commitment_with_nonce": ("created", lambda v: v + f'nonce: "{"ab" * 16}"\n', "P7"),
    "key_not_ed25519": ("created", lambda v: v + "key: 'rsa:AAAA'\n", "P7"),
}


@pytest.mark.parametrize("name", list(OPENING_FORMATS))
def test_bad_opening_move_is_refused(name: str, at: Any, tmp_path: Path) -> None:
    """P4's commitment and nonce are exact hex fields; a move of one kind carries no other kind's field."""
    where, mutate, rule = OPENING_FORMATS[name]
    pos = at(where)
    game = load_game(pos.games / GAME)
    valid = reveal_text(game, "red") if where == "committed" else commit_text(game, "red")
    path = tmp_path / f"{name}.yaml"
    path.write_text(mutate(valid))
    assert path.read_text() != valid
    says = (f"({rule})", "move.json" if rule == "P7" else "nonce")
    refused(pos.games, Exit.FORMAT, "apply", path, "--games", pos.games, says=says)
    refused(pos.games, Exit.FORMAT, "check", path, "--log", pos.log, says=says)


# --- who, when and against what ---------------------------------------------------------

def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_unknown_game_and_player(at: Any, tmp_path: Path) -> None:
    pos = at("turn")
    valid = _valid(pos)
    g = pos.games
    other_game = valid.replace("game: g1\n", "game: nope\n")
    assert other_game != valid
    refused(g, Exit.UNKNOWN, "apply", _write(tmp_path, "a.yaml", other_game), "--games", g,
            says=("no game 'nope'", "(P1)"))
    player = load_game(g / GAME).to_move
    assert player is not None
    refused(g, Exit.UNKNOWN, "apply", _write(tmp_path, "b.yaml", valid.replace(f"player: {player}", "player: black")),
            "--games", g, says=("'black' is not a player", "(R2.1)"))
    refused(g, Exit.UNKNOWN, "apply", tmp_path / "missing.yaml", "--games", g, says=("does not exist", "(P1)"))
    refused(g, Exit.UNKNOWN, "show", "nope", "--games", g)
    refused(g, Exit.UNKNOWN, "show", GAME, "--as", "black", "--games", g, says=("(R2.1)",))
    refused(g, Exit.UNKNOWN, "template", GAME, "--player", "black", "--games", g, says=("(R2.1)",))
    refused(g, Exit.UNKNOWN, "waive", "Bad Id!", "--player", "red", "--games", g, says=("(P2)",))
    refused(g, Exit.UNKNOWN, "verify", g / "nope.yaml")
    # the opening's commands (P4) know their game and players too
    created = at("created")
    g = created.games
    refused(tmp_path, Exit.UNKNOWN, "nonce", "nope", "--player", "red", "--keep", tmp_path / "k", "--games", g,
            says=("no game 'nope'", "(P1)"))
    refused(tmp_path, Exit.UNKNOWN, "nonce", GAME, "--player", "black", "--keep", tmp_path / "k", "--games", g,
            says=("'black' is not a player", "(R2.1)"))
    refused(g, Exit.UNKNOWN, "waive", GAME, "--player", "black", "--games", g,
            says=("'black' is not a player", "(R2.1)"))
    refused(g, Exit.UNKNOWN, "abandon", "nope", "--games", g, says=("no game 'nope'", "(P1)"))
    # a commitment for a seat the game does not have
    black_commit = commit_text(load_game(g / GAME), "red").replace("player: red", "player: black")
    black = _write(tmp_path, "black.yaml", black_commit)
    refused(g, Exit.UNKNOWN, "apply", black, "--games", g, says=("'black' is not a player", "(R2.1)"))


def test_pbem_start_is_gone(at: Any) -> None:
    """P4 (v2): no host command starts a game; the last reveal (or waiver) does."""
    pos = at("committed")
    before = snapshot(pos.games)
    result = cli("start", GAME, "--games", pos.games)
    assert result.exit_code == Exit.USAGE and "No such command 'start'" in result.stderr
    assert snapshot(pos.games) == before


def test_not_your_turn(at: Any, tmp_path: Path) -> None:
    pos = at("turn")
    game = load_game(pos.games / GAME)
    other = next(p for p in PLAYERS if p != game.to_move)
    text = move_text(game, other, [{"action": "take_card", "card": "monk"}])
    refused(pos.games, Exit.RULES, "apply", _write(tmp_path, "m.yaml", text), "--games", pos.games,
            says=(f"it is {game.to_move}'s turn", "(R3)"))


def test_stale_and_resent_moves(at: Any, tmp_path: Path) -> None:
    pos = at("turn")
    g = pos.games
    game = load_game(g / GAME)
    last = game.last_seq
    stale = _valid(pos).replace(f"seq: {last}\n", f"seq: {last - 1}\n").replace(
        game.last_hash[:16], game.hashes[-2][:16])
    refused(g, Exit.STALE, "apply", _write(tmp_path, "stale.yaml", stale), "--games", g,
            says=(f"written against entry {last - 1}", f"moved on to entry {last}", "(P7)"))
    wrong = _valid(pos).replace(game.last_hash[:16], "deadbeef" * 2)
    refused(g, Exit.STALE, "apply", _write(tmp_path, "wrong.yaml", wrong), "--games", g,
            says=(f"entry {last} of this log has hash {game.last_hash[:16]}", "another copy", "(P7)"))
    future = _valid(pos).replace(f"seq: {last}\n", f"seq: {last + 5}\n")
    refused(g, Exit.STALE, "apply", _write(tmp_path, "future.yaml", future), "--games", g,
            says=(f"the log has only {last + 1} entries", "(P7)"))
    sent = _write(tmp_path, "sent.yaml", _valid(pos))
    ok("apply", sent, "--games", g)
    refused(g, Exit.STALE, "apply", sent, "--games", g, says=(f"already applied, as entry {last + 1}", "(P7)"))
    refused(g, Exit.STALE, "check", sent, "--log", pos.log, says=("already applied",))


def test_opening_moves_answer_entry_0(at: Any, tmp_path: Path) -> None:
    """P4, P7: commitments and nonces answer entry 0, whatever came after it; one sent
    twice is stale, and one written against another entry 0 (the game created again
    under the same id) is stale too."""
    pos = at("created")
    g = pos.games
    game = load_game(g / GAME)
    commit = _write(tmp_path, "commit.yaml", commit_text(game, "red"))
    ok("apply", commit, "--games", g)
    refused(g, Exit.STALE, "apply", commit, "--games", g, says=("already applied, as entry 1", "(P7)"))
    refused(g, Exit.STALE, "check", commit, "--log", pos.log, says=("already applied",))
    game = load_game(g / GAME)  # entry 1 now exists: green must still answer entry 0, not it
    green = commit_text(game, "green")
    on_entry_1 = green.replace("seq: 0\n", "seq: 1\n").replace(game.hashes[0][:16], game.hashes[1][:16])
    assert on_entry_1 != green
    refused(g, Exit.STALE, "apply", _write(tmp_path, "e1.yaml", on_entry_1), "--games", g,
            says=("written against entry 1", f"it must answer entry 0 ({game.hashes[0][:16]})", "(P7)"))
    other_zero = green.replace(game.hashes[0][:16], "0123456789abcdef")
    refused(g, Exit.STALE, "apply", _write(tmp_path, "z.yaml", other_zero), "--games", g,
            says=("another copy of this game's log", "(P7)"))
    ok("apply", _write(tmp_path, "green.yaml", green), "--games", g)
    # round 2: a nonce sent twice, and a second, different nonce from the same player
    game = load_game(g / GAME)
    nonce = _write(tmp_path, "nonce.yaml", reveal_text(game, "red"))
    ok("apply", nonce, "--games", g)
    refused(g, Exit.STALE, "apply", nonce, "--games", g, says=("already applied, as entry 3", "(P7)"))
    again = _write(tmp_path, "again.yaml", reveal_text(game, "red", bytes([9]) * 16))
    refused(g, Exit.STALE, "apply", again, "--games", g, says=("red has already revealed their nonce", "(P4)"))


def _turn_state(pos: Position) -> tuple[Game, str, str, str, int]:
    """(game, player, a region without rats, a region with rats, its cube count)."""
    game = load_game(pos.games / GAME)
    s = game.state
    assert s is not None and s.to_move is not None
    empty = next(r for r in s.regions if not s.rats[r])
    full = next(r for r in s.regions if s.rats[r])
    return game, s.to_move, empty, full, place_counts(s, s.to_move, full)[0]


def test_illegal_moves_cite_their_rule(at: Any, tmp_path: Path) -> None:
    pos = at("turn")
    g = pos.games
    game, player, empty, full, count = _turn_state(pos)
    s = game.state
    assert s is not None
    here = s.plague
    step1 = s.neighbours[here][0]
    step2 = next(r for r in s.neighbours[step1] if r != here)
    far = next(r for r in s.regions if r != here and r not in s.neighbours[here])
    unused = next(r for r in game.board.regions_in_use(4) if r not in s.regions)
    place = {"action": "place", "region": full, "count": count}
    cases: list[tuple[list[dict[str, Any]], str, str]] = [
        ([{"action": "place", "region": empty, "count": 1}], "R3.2", empty),
        ([{"action": "place", "region": full, "count": count + 1}], "R3.2", full),
        ([place, {"action": "move_plague", "path": [step1, step2]}], "R5.4", "not 2"),
        ([place, {"action": "move_plague", "path": [far]}], "R3.3", "not a neighbour"),
        ([{"action": "move_plague", "path": [step1]}], "R3.2", "compulsory"),
        ([{"action": "place", "region": unused, "count": 1}], "R1.2", "not a region in use"),
        ([{"action": "king", "region": full}], "R5.1", "King"),
        ([place, place], "R3.2", "already placed"),
        ([{"action": "end"}], "R3.4", "end"),
    ]
    for i, (actions, rule, says) in enumerate(cases):
        path = _write(tmp_path, f"illegal-{i}.yaml", move_text(game, player, actions))
        refused(g, Exit.RULES, "apply", path, "--games", g, says=(f"({rule})", says))
        refused(g, Exit.RULES, "check", path, "--log", pos.log, says=(f"({rule})",))


def _whole_turns(game: Game) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Two legal moves for the player on turn, found from public facts alone: one whose
    plague move starts an outbreak (R4.2), one whose turn ends without one (R3.4)."""
    s = game.state
    assert s is not None and s.to_move is not None
    outbreak = ended = None
    for seed in range(200):
        actions = bot_actions(s, random.Random(seed))
        after, _events = play(s, s.to_move, actions)  # no faces: stops where the outbreak begins
        if after.phase is Phase.TURN and after.turn.stage is Stage.OUTBREAK and outbreak is None:
            outbreak = [a.to_dict() for a in actions]
        elif after.to_move != s.to_move and ended is None:
            ended = [a.to_dict() for a in actions]
    assert outbreak is not None and ended is not None
    return outbreak, ended


def test_nothing_follows_the_end_of_a_turn(at: Any, tmp_path: Path) -> None:
    """R7.4: the outbreak ends the turn, so after the plague's move and spreads a move may
    hold only the Knight's cubes and the flip order; after a turn that ended, nothing.
    Both are refused before any face is consulted (P10): `pbem check`, which has no
    face, gives the host's exact words."""
    pos = at("turn")
    g = pos.games
    game = load_game(g / GAME)
    player = game.to_move
    assert player is not None
    outbreak, ended = _whole_turns(game)
    extra = {"action": "take_card", "card": "monk"}
    path = _write(tmp_path, "after-outbreak.yaml", move_text(game, player, [*outbreak, extra]))
    says: tuple[str, ...] = (f"action {len(outbreak) + 1} (take)", "the outbreak in", "has begun", "(R7.4)")
    host = refused(g, Exit.RULES, "apply", path, "--games", g, says=says)
    assert refused(g, Exit.RULES, "check", path, "--log", pos.log, says=says) == host
    path = _write(tmp_path, "after-end.yaml", move_text(game, player, [*ended, extra]))
    says = (f"action {len(ended) + 1} (take)", "your turn ended with the action before it", "(R7.4)")
    host = refused(g, Exit.RULES, "apply", path, "--games", g, says=says)
    assert refused(g, Exit.RULES, "check", path, "--log", pos.log, says=says) == host
    # without the extra action both are whole turns the host accepts
    for name, actions in (("outbreak", outbreak), ("ended", ended)):
        path = _write(tmp_path, f"{name}.yaml", move_text(game, player, actions))
        assert "the turn is complete: mail it" in ok("check", path, "--log", pos.log)


def test_r7_5_check_refuses_a_half_turn_saying_what_is_owed_and_writes_nothing(at: Any, tmp_path: Path) -> None:
    """R7.5: a move file holds the rest of the turn; `pbem check` gives the host's verdict
    offline (P10), and the host refuses the same half turn with the same words."""
    pos = at("turn")
    game, player, _empty, full, count = _turn_state(pos)
    path = _write(tmp_path, "part.yaml", move_text(game, player, [{"action": "place", "region": full, "count": count}]))
    before = snapshot(pos.games)
    says = ("(R7.5)", "refused whole and nothing was recorded", "you still owe: move the plague")
    checked = refused(pos.games, Exit.RULES, "check", path, "--log", pos.log, says=says)
    assert refused(pos.games, Exit.RULES, "apply", path, "--games", pos.games, says=says) == checked
    assert snapshot(pos.games) == before


def test_r7_5_a_move_may_stop_right_after_a_witch_look(at: Any, tmp_path: Path) -> None:
    pos = at("turn")
    game, player, _empty, _full, _count = _turn_state(pos)
    assert game.state is not None
    token = next(t for r in game.state.regions for t in game.state.rats[r])
    look = [{"action": "take_card", "card": "witch"}, {"action": "witch_look", "token": token}]
    path = _write(tmp_path, "look.yaml", move_text(game, player, look))
    out = ok("check", path, "--log", pos.log)
    assert "the turn is not finished" in out and "what your Witch saw" in out


def test_wrong_time(at: Any, tmp_path: Path) -> None:
    created = at("created")
    game = load_game(created.games / GAME)
    place = [{"action": "place", "region": "gallia", "count": 2}]
    early = _write(tmp_path, "early.yaml", move_text(game, "red", place))
    refused(created.games, Exit.STATE, "apply", early, "--games", created.games,
            says=("has not started", "waits for red, green to commit", "(P4)"))
    refused(created.games, Exit.STATE, "reveal", GAME, "--games", created.games, says=("(P6)",))
    refused(created.games, Exit.STATE, "new", GAME, "--players", "red,green", "--games", created.games,
            says=("already exists",))
    committed = at("committed")
    game = load_game(committed.games / GAME)
    early = _write(tmp_path, "early2.yaml", move_text(game, "red", place))
    refused(committed.games, Exit.STATE, "apply", early, "--games", committed.games,
            says=("has not started", "waits for red, green to reveal", "(P4)"))

    turn = at("turn")
    game = load_game(turn.games / GAME)
    late_commit = _write(tmp_path, "late-commit.yaml", commit_text(game, "red", bytes([7]) * 16))
    late_nonce = _write(tmp_path, "late-nonce.yaml", reveal_text(game, "red", bytes([7]) * 16))
    for late in (late_commit, late_nonce):
        refused(turn.games, Exit.STATE, "apply", late, "--games", turn.games, says=("has started", "(P4)"))
        refused(turn.games, Exit.STATE, "check", late, "--log", turn.log, says=("has started", "(P4)"))
    refused(turn.games, Exit.STATE, "waive", GAME, "--player", "green", "--games", turn.games,
            says=("has started", "(P4)"))
    refused(turn.games, Exit.STATE, "abandon", GAME, "--games", turn.games, says=("has started", "(P4)"))
    refused(turn.games, Exit.STATE, "reveal", GAME, "--games", turn.games, says=("game is over", "(P6)"))
    refused(turn.games, Exit.STATE, "audit", turn.log, says=("revealed secret", "(P6)"), verdict="verdict: NOT YET")

    over = at("over")
    game = load_game(over.games / GAME)
    after = _write(tmp_path, "after.yaml", move_text(game, "red", [{"action": "end"}]))
    refused(over.games, Exit.STATE, "apply", after, "--games", over.games, says=("game is over",))
    refused(over.games, Exit.STATE, "audit", over.log, says=("(P6)",), verdict="verdict: NOT YET")
    refused(over.games, Exit.STATE, "template", GAME, "--games", over.games)

    revealed = at("revealed")
    refused(revealed.games, Exit.STATE, "reveal", GAME, "--games", revealed.games, says=("already been revealed",))


# --- the opening (P4): commit, then reveal -----------------------------------------------------

def test_reveals_wait_for_every_commitment(at: Any, tmp_path: Path) -> None:
    """P4: no nonce is taken until every seat has committed or been waived, so that no one
    can choose a nonce after seeing another; nor is a nonce that is not the one committed to."""
    pos = at("created")
    g = pos.games
    game = load_game(g / GAME)
    ok("apply", _write(tmp_path, "red-commit.yaml", commit_text(game, "red")), "--games", g)
    early = _write(tmp_path, "red-nonce.yaml", reveal_text(game, "red"))
    refused(g, Exit.STATE, "apply", early, "--games", g, says=("still to commit: green", "(P4)"))
    refused(g, Exit.STATE, "check", early, "--log", pos.log, says=("still to commit: green", "(P4)"))
    uncommitted = _write(tmp_path, "green-nonce.yaml", reveal_text(game, "green"))
    refused(g, Exit.STATE, "apply", uncommitted, "--games", g, says=("green has not committed", "(P4)"))

    pos = at("committed")
    g = pos.games
    game = load_game(g / GAME)
    changed = _write(tmp_path, "changed.yaml", reveal_text(game, "red", bytes([3]) * 16))
    says = ("does not match red's commitment", "(P4)")
    refused(g, Exit.RULES, "apply", changed, "--games", g, says=says)
    refused(g, Exit.RULES, "check", changed, "--log", pos.log, says=says)
    recommit = _write(tmp_path, "recommit.yaml", commit_text(game, "red", bytes([3]) * 16))
    refused(g, Exit.RULES, "apply", recommit, "--games", g, says=("red has already committed", "(P4)"))
    assert kinds(pos.log) == ["create", "commit", "commit"]


def test_waive_only_before_the_first_reveal(at: Any, tmp_path: Path) -> None:
    """P4: the host may waive a seat (it adds no nonce) only until a nonce is revealed:
    after that, a waiver would let the host choose between two seeds."""
    pos = at("created")
    g = pos.games
    out = ok("waive", GAME, "--player", "green", "--games", g)
    assert "entry 1: the host waived green's nonce (P4)" in out
    assert "waiting for the fingerprints of the secret numbers of red; waived: green" in out
    refused(g, Exit.STALE, "waive", GAME, "--player", "green", "--games", g, says=("already waived", "(P4)"))
    game = load_game(g / GAME)
    green = _write(tmp_path, "green.yaml", commit_text(game, "green"))
    refused(g, Exit.STATE, "apply", green, "--games", g, says=("green's seat was waived", "(P4)"))
    ok("apply", _write(tmp_path, "red.yaml", commit_text(game, "red")), "--games", g)
    out = ok("apply", _write(tmp_path, "red-nonce.yaml", reveal_text(game, "red")), "--games", g)
    assert "the game starts" in out  # the only committed seat revealed
    assert kinds(pos.log) == ["create", "waive", "commit", "nonce", "start"]
    game = load_game(g / GAME)
    assert game.seed_nonces() == [NONCES["red"], b""]  # a waived seat's nonce: zero bytes

    pos = at("committed")
    g = pos.games
    game = load_game(g / GAME)
    ok("apply", _write(tmp_path, "first.yaml", reveal_text(game, "red")), "--games", g)
    refused(g, Exit.STATE, "waive", GAME, "--player", "green", "--games", g,
            says=("only before the first nonce is revealed", "(P4)"))


def test_waiving_every_seat_starts_the_game(at: Any) -> None:
    """P4: with every seat waived nothing is awaited, and the last waiver starts the game."""
    pos = at("created")
    ok("waive", GAME, "--player", "red", "--games", pos.games)
    out = ok("waive", GAME, "--player", "green", "--games", pos.games)
    assert "entry 3: the game starts; first player red" in out
    assert kinds(pos.log) == ["create", "waive", "waive", "start"]
    assert "ok: 4 entries" in ok("verify", pos.log)


def test_abandon_before_the_start(at: Any, tmp_path: Path) -> None:
    """P4: a game whose nonces are not all revealed can only be abandoned, on the record;
    after that it takes nothing."""
    pos = at("committed")
    g = pos.games
    game = load_game(g / GAME)
    out = ok("abandon", GAME, "--games", g)
    assert "entry 3: the host abandoned the game before its start (P4)" in out
    assert kinds(pos.log)[-1] == "abandon" and "abandoned" in ok("verify", pos.log)
    nonce = _write(tmp_path, "nonce.yaml", reveal_text(game, "red"))
    refused(g, Exit.STATE, "apply", nonce, "--games", g, says=("abandoned", "(P4)"))
    move = _write(tmp_path, "move.yaml", move_text(load_game(g / GAME), "red", [{"action": "end"}]))
    refused(g, Exit.STATE, "apply", move, "--games", g, says=("abandoned", "(P4)"))
    refused(g, Exit.STATE, "waive", GAME, "--player", "red", "--games", g, says=("abandoned", "(P4)"))
    refused(g, Exit.STATE, "abandon", GAME, "--games", g, says=("abandoned", "(P4)"))


def test_pbem_nonce_keeps_the_nonce_and_never_replaces_it(at: Any, tmp_path: Path) -> None:
    """P4: `pbem nonce` keeps the nonce (mode 0600) and writes its commitment; a second
    run cannot replace it (a commitment cannot change), and --reveal sends only the kept
    nonce of this very game: not one kept for an earlier game under the same id."""
    pos = at("created")
    g = pos.games
    keep = tmp_path / "keep" / "red.yaml"
    keep.parent.mkdir()
    refused(tmp_path, Exit.UNKNOWN, "nonce", GAME, "--player", "red", "--reveal", "--keep", keep, "--games", g,
            says=("no kept nonce", "(P4)"))
    commit = tmp_path / "commit.yaml"
    out = ok("nonce", GAME, "--player", "red", "--keep", keep, "--out", commit, "--games", g)
    assert str(keep) in out and keep.stat().st_mode & 0o777 == 0o600
    kept = bytes.fromhex(load_one(keep.read_text(), "kept")["nonce"])
    assert 16 <= len(kept) <= 64
    assert load_one(commit.read_text(), "commit")["nonce_commitment"] == nonce_commitment(kept)
    refused(tmp_path, Exit.STATE, "nonce", GAME, "--player", "red", "--keep", keep, "--games", g,
            says=("already holds a nonce", "(P4)"))
    refused(tmp_path, Exit.STATE, "nonce", GAME, "--player", "red", "--keep", tmp_path / "other.yaml",
            "--out", commit, "--games", g, says=("exists", "(P7)"))
    # the game is created again under the same id (a new entry 0): the kept nonce is not for it
    shutil.rmtree(g / GAME)
    create(g, NewGame(GAME, PLAYERS, first="red", secret=bytes(32)))
    refused(tmp_path, Exit.STATE, "nonce", GAME, "--player", "red", "--reveal", "--keep", keep, "--games", g,
            says=("created again", "(P4)"))
    refused(tmp_path, Exit.STATE, "nonce", GAME, "--player", "green", "--reveal", "--keep", keep, "--games", g,
            says=("(P4)",))


def test_bad_new_game(tmp_path: Path) -> None:
    games = tmp_path / "games"
    games.mkdir()
    bad_secret = _write(tmp_path, "s.hex", "not hex")
    refused(games, Exit.FORMAT, "new", GAME, "--players", "red,green", "--secret-file", bad_secret,
            "--games", games, says=("(P1)",))
    short = _write(tmp_path, "short.hex", "ab" * 16)
    refused(games, Exit.FORMAT, "new", GAME, "--players", "red,green", "--secret-file", short,
            "--games", games, says=("32 bytes",))
    refused(games, Exit.FORMAT, "new", GAME, "--players", "red", "--games", games, says=("(R2)",))
    refused(games, Exit.FORMAT, "new", GAME, "--players", "red,red", "--games", games)
    refused(games, Exit.FORMAT, "new", GAME, "--players", "Red,green", "--games", games, says=("(P2)",))
    refused(games, Exit.FORMAT, "new", GAME, "--players", "red,green", "--first", "blue",
            "--games", games, says=("(R2.1)",))
    refused(games, Exit.FORMAT, "new", "Bad Id", "--players", "red,green", "--games", games, says=("(P2)",))
    assert snapshot(games) == {}


@pytest.mark.parametrize("game_id", ["a.b", ".hidden", "..."])
def test_game_ids_are_those_of_p2(game_id: str, tmp_path: Path) -> None:
    """P2: game ids match ^[a-z0-9][a-z0-9_-]{0,63}$: no dot, so no hidden or dot-only folder."""
    games = tmp_path / "games"
    games.mkdir()
    refused(games, Exit.FORMAT, "new", game_id, "--players", "red,green", "--games", games)


def test_pbem_nonce_that_cannot_write_its_move_keeps_nothing(at: Any, tmp_path: Path) -> None:
    """P4: if the commitment move cannot be written, no nonce is kept, so the player can run
    `pbem nonce` again (a kept nonce whose commitment was never sent blocks every retry)."""
    pos = at("created")
    keep = tmp_path / "keep.yaml"
    before = snapshot(tmp_path)
    result = cli("nonce", GAME, "--player", "red", "--keep", keep, "--out", tmp_path / "no" / "commit.yaml",
                 "--games", pos.games)
    assert result.exit_code not in (Exit.OK, 1) and "internal error" not in result.stderr, result.stderr
    assert snapshot(tmp_path) == before
    ok("nonce", GAME, "--player", "red", "--keep", keep, "--out", tmp_path / "commit.yaml", "--games", pos.games)


# --- a tampered log -----------------------------------------------------------------------

def test_tampered_log_is_refused_and_left_alone(at: Any, tmp_path: Path) -> None:
    pos = at("turn")
    g = pos.games
    valid = _write(tmp_path, "valid.yaml", _valid(pos))
    entries, _ = read_docs(pos.log)
    k = next(i for i, e in enumerate(entries) if e["kind"] == "move")
    for item in entries[k]["outcome"]:
        if item["event"] == "cubes_placed":
            item["count"] += 1
            break
    else:  # pragma: no cover
        raise AssertionError("no cubes_placed")
    pos.log.write_text("".join(dump_entry(e) for e in entries), encoding="utf-8")
    message = f"entry {k + 1}: its prev does not match the hash of entry {k}"
    for args in (("apply", valid, "--games", g), ("show", GAME, "--games", g), ("verify", pos.log),
                 ("template", GAME, "--games", g), ("check", valid, "--log", pos.log),
                 ("reveal", GAME, "--games", g), ("waive", GAME, "--player", "red", "--games", g),
                 ("abandon", GAME, "--games", g)):
        refused(g, Exit.TAMPERED, *args, says=(message, "(P7)"))
    # a torn log (half an entry), or one with a byte that is not UTF-8, is refused the same way
    data = pos.log.read_bytes()
    pos.log.write_bytes(data[: len(data) - 40])
    refused(g, Exit.TAMPERED, "apply", valid, "--games", g, says=("(P7)",))
    assert b'"kind": "start"' in data
    pos.log.write_bytes(data.replace(b'"kind": "start"', b'"kind": "st\xe4rt"'))
    refused(g, Exit.TAMPERED, "apply", valid, "--games", g, says=("not UTF-8", "(P7)"))
    refused(g, Exit.TAMPERED, "verify", pos.log, says=("not UTF-8", "(P7)"))


def test_tampered_opening_is_refused(at: Any, tmp_path: Path) -> None:
    """P4, P7: a commitment changed in the log after a player sent it breaks the chain, so
    the player's nonce can never be matched against a commitment the host rewrote."""
    pos = at("committed")
    g = pos.games
    game = load_game(g / GAME)
    nonce = _write(tmp_path, "nonce.yaml", reveal_text(game, "red"))
    entries, _ = read_docs(pos.log)
    assert entries[1]["kind"] == "commit" and entries[1]["player"] == "red"
    entries[1]["move"]["nonce_commitment"] = nonce_commitment(bytes([9]) * 16)
    pos.log.write_text("".join(dump_entry(e) for e in entries), encoding="utf-8")
    message = "entry 2: its prev does not match the hash of entry 1"
    for args in (("apply", nonce, "--games", g), ("check", nonce, "--log", pos.log), ("verify", pos.log),
                 ("waive", GAME, "--player", "green", "--games", g),
                 ("nonce", GAME, "--player", "red", "--keep", tmp_path / "k.yaml", "--games", g)):
        refused(tmp_path, Exit.TAMPERED, *args, says=(message, "(P7)"))


# --- two hosts at once ----------------------------------------------------------------------

def test_two_concurrent_applies(at: Any, tmp_path: Path) -> None:
    """P7: two `pbem apply` processes answering the same entry: one wins, one is stale."""
    pos = at("committed")
    g = pos.games
    game = load_game(g / GAME)
    for player in PLAYERS:
        game = apply_text(g, reveal_text(game, player))
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    for round_ in range(4):
        game = load_game(g / GAME)
        assert game.state is not None and game.to_move is not None
        options = legal_actions(game.state)[:2]
        assert len(options) == 2
        files = [
            _write(tmp_path, f"r{round_}-{i}.yaml", move_text(game, str(game.to_move), [a.to_dict()]))
            for i, a in enumerate(options)
        ]
        procs = [
            subprocess.Popen(
                [sys.executable, "-m", "pbem.cli", "apply", str(f), "--games", str(g)],
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=ROOT,
            )
            for f in files
        ]
        results = [(p.wait(timeout=60), *p.communicate()) for p in procs]
        codes = sorted(r[0] for r in results)
        assert codes == [Exit.OK, Exit.STALE], results
        loser = next(r for r in results if r[0] == Exit.STALE)
        assert "(P7)" in loser[2] and "moved on" in loser[2] and "Traceback" not in loser[2]
        assert ok("verify", pos.log)
        entries, _ = read_docs(pos.log)
        assert len(entries) == game.last_seq + 2  # exactly one new entry
        winner = files[[r[0] for r in results].index(Exit.OK)]
        assert entries[-1]["move"] == load_one(winner.read_text(), "move")
        assert not [p for p in (g / GAME).iterdir() if p.name.endswith(".tmp")]
