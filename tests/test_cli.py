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

from pbem.demo import bot_actions
from pbem.errors import Exit
from pbem.host import NewGame, apply_move, create, load_game
from pbem.logfile import read_log
from pbem.moves import after_of, parse_move
from pbem.replay import Game
from pbem.rules import Phase, Stage, legal_actions
from pbem.rules.engine import place_counts
from pbem.yamlio import dump_entry, dump_yaml, load_one

SECRET = "5e" * 32
GAME = "g1"
PLAYERS = ("red", "green")
RULE = re.compile(r"\((R\d+(\.\d+)?|P\d)\)")
ROOT = Path(__file__).resolve().parent.parent


# --- helpers ----------------------------------------------------------------------

def refused(games: Path, code: Exit, *args: str | Path, says: tuple[str, ...] = ()) -> str:
    """Run a command that must be refused; returns its one-paragraph message."""
    before = snapshot(games)
    result = cli(*args)
    assert snapshot(games) == before, "a refused command changed a file"
    assert result.exit_code == code, (result.exit_code, result.stderr)
    err = result.stderr
    assert result.stdout == ""
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


def nonce_text(player: str, nonce: str) -> str:
    return dump_yaml({"game": GAME, "player": player, "kind": "nonce",
                      "after": {"seq": 0, "hash": "0" * 8}, "nonce": nonce})


# --- recorded positions -------------------------------------------------------------

@dataclass
class Position:
    """A games folder at a point of one game, copied fresh for each test."""

    games: Path
    log: Path


@pytest.fixture(scope="module")
def positions(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """One 2-player game, saved: just created; at a fresh turn (a region without rats,
    the player on turn holds neither Peasant nor Knight); over; revealed."""
    base = tmp_path_factory.mktemp("positions")
    games = base / "play"
    saved: dict[str, Path] = {}

    def save(name: str) -> None:
        shutil.copytree(games, base / name)
        saved[name] = base / name

    create(games, NewGame(GAME, PLAYERS, first="red", secret=bytes.fromhex(SECRET)))
    save("created")
    game = load_game(games / GAME)
    for i, player in enumerate(PLAYERS):
        hash0 = game.hashes[0][:16]
        game = apply_text(games, nonce_text(player, f"{i + 1:02x}" * 8).replace("0" * 8, hash0))
    rng = random.Random(11)
    while game.state is not None and game.state.to_move is not None:
        if "turn" not in saved and _fresh_turn_with_empty_region(game):
            save("turn")
        game = apply_text(games, bot_move(game, rng))
    assert "turn" in saved
    save("over")
    ok("reveal", GAME, "--games", games)
    save("revealed")
    return saved


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

def test_happy_path(tmp_path: Path) -> None:
    games = tmp_path / "games"
    secret_file = tmp_path / "secret.hex"
    secret_file.write_text(SECRET + "\n")
    out = ok("new", GAME, "--players", "red,green", "--first", "red", "--secret-file", secret_file,
             "--games", games)
    assert "created game g1" in out
    log = games / GAME / "log.yaml"
    assert (games / GAME / "secret.yaml").stat().st_mode & 0o777 == 0o600
    assert "not started" in ok("show", GAME, "--games", games)

    # P4: red mails a nonce, made from the template; green sends none.
    ok("template", GAME, "--player", "red", "--out", tmp_path / "red-nonce.yaml", "--games", games)
    text = (tmp_path / "red-nonce.yaml").read_text()
    assert "nonce: '00'" in text or 'nonce: "00"' in text
    (tmp_path / "red-nonce.yaml").write_text(re.sub(r"nonce: .00.", 'nonce: "c0ffee"', text))
    assert "ok: a well-formed nonce" in ok("check", tmp_path / "red-nonce.yaml", "--log", log)
    assert "nonce from red recorded" in ok("apply", tmp_path / "red-nonce.yaml", "--games", games)
    assert "the game starts; first player red" in ok("start", GAME, "--games", games)

    rng = random.Random(5)
    n = 0
    shown = False
    while True:
        game = load_game(games / GAME)
        if game.over:
            break
        n += 1
        path = tmp_path / f"move-{n:03d}.yaml"
        ok("template", GAME, "--out", path, "--games", games)
        template = load_one(path.read_text(), "template")
        assert template["player"] == game.to_move()
        assert template["after"] == after_of(game)
        assert game.state is not None
        template["actions"] = [a.to_dict() for a in bot_actions(game.state, rng)]
        path.write_text(dump_yaml(template))
        assert "ok:" in ok("check", path, "--log", log)
        assert f"{template['player']}'s move accepted" in ok("apply", path, "--games", games)
        if not shown and n >= 6:
            shown = True
            board = ok("show", GAME, "--games", games)
            assert "cards:" in board and "rats left in supply" in board
            assert "private to green" in ok("show", GAME, "--as", "green", "--games", games)
            data = json.loads(ok("show", GAME, "--json", "--games", games))
            now = load_game(games / GAME)
            assert data["to_move"] == now.to_move()
            assert data["last_entry"] == {"seq": now.last_seq, "hash": now.last_hash}
            mine = json.loads(ok("show", GAME, "--json", "--as", "red", "--games", games))
            assert mine["private"]["player"] == "red"

    assert "game g1: over" in ok("verify", log)
    assert "the secret is revealed" in ok("reveal", GAME, "--games", games)
    out = ok("audit", log)
    assert "verdict: FAIR" in out and "final scores:" in out
    entries, _ = read_log(log)
    assert entries[-1] == {**entries[-1], "kind": "reveal", "secret": SECRET}
    assert entries[0]["secret"]["made"] == "supplied"
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
    "alias": lambda v: b"game: &g g1\nplayer: red\nkind: move\nafter: {seq: 1, hash: '00000000'}\nactions: [*g]\n",
    "alias_only": lambda v: b"game: g1\nplayer: red\nkind: move\nafter: {seq: 1, hash: '00000000'}\nactions: [*g]\n",
    "tag": lambda v: (v + "comment: !!python/name:os.system ''\n").encode(),
    "oversize": lambda v: (v + "#" + "x" * (300 * 1024) + "\n").encode(),
    "duplicate_key": lambda v: v.replace("kind: move\n", "kind: move\nkind: nonce\n", 1).encode(),
    "two_documents": lambda v: (v + "---\n" + v).encode(),
    "not_a_mapping": lambda v: b"- game\n- g1\n",
    "missing_after": lambda v: re.sub(r"after:\n  seq: \d+\n  hash: \"?\w+\"?\n", "", v, count=1).encode(),
    "short_hash": lambda v: re.sub(r"hash: \"?\w+\"?", "hash: abc", v, count=1).encode(),
    "nonce_in_move": lambda v: (v + 'nonce: "00"\n').encode(),
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
    player = load_game(g / GAME).to_move()
    assert player is not None
    refused(g, Exit.UNKNOWN, "apply", _write(tmp_path, "b.yaml", valid.replace(f"player: {player}", "player: black")),
            "--games", g, says=("'black' is not a player", "(R2.1)"))
    refused(g, Exit.UNKNOWN, "apply", tmp_path / "missing.yaml", "--games", g, says=("does not exist", "(P1)"))
    refused(g, Exit.UNKNOWN, "show", "nope", "--games", g)
    refused(g, Exit.UNKNOWN, "show", GAME, "--as", "black", "--games", g, says=("(R2.1)",))
    refused(g, Exit.UNKNOWN, "template", GAME, "--player", "black", "--games", g, says=("(R2.1)",))
    refused(g, Exit.UNKNOWN, "start", "Bad Id!", "--games", g, says=("(P2)",))
    refused(g, Exit.UNKNOWN, "verify", g / "nope.yaml")


def test_not_your_turn(at: Any, tmp_path: Path) -> None:
    pos = at("turn")
    game = load_game(pos.games / GAME)
    other = next(p for p in PLAYERS if p != game.to_move())
    text = move_text(game, other, [{"action": "take_card", "card": "monk"}])
    refused(pos.games, Exit.RULES, "apply", _write(tmp_path, "m.yaml", text), "--games", pos.games,
            says=(f"it is {game.to_move()}'s turn", "(R3)"))


def test_stale_and_resent_moves(at: Any, tmp_path: Path) -> None:
    pos = at("turn")
    g = pos.games
    game = load_game(g / GAME)
    stale = _valid(pos).replace(f"seq: {game.last_seq}\n", f"seq: {game.last_seq - 1}\n").replace(
        game.last_hash[:16], game.hashes[-2][:16])
    refused(g, Exit.STALE, "apply", _write(tmp_path, "stale.yaml", stale), "--games", g,
            says=("moved on", "(P7)"))
    wrong = _valid(pos).replace(game.last_hash[:16], "deadbeef")
    refused(g, Exit.STALE, "apply", _write(tmp_path, "wrong.yaml", wrong), "--games", g,
            says=("no such entry", "(P7)"))
    future = _valid(pos).replace(f"seq: {game.last_seq}\n", f"seq: {game.last_seq + 5}\n")
    refused(g, Exit.STALE, "apply", _write(tmp_path, "future.yaml", future), "--games", g)
    sent = _write(tmp_path, "sent.yaml", _valid(pos))
    ok("apply", sent, "--games", g)
    refused(g, Exit.STALE, "apply", sent, "--games", g, says=("already applied", "(P7)"))
    refused(g, Exit.STALE, "check", sent, "--log", pos.log, says=("already applied",))
    # a nonce sent twice
    pos = at("created")
    log0 = load_game(pos.games / GAME).hashes[0][:16]
    first = _write(tmp_path, "n1.yaml", nonce_text("red", "aa").replace("0" * 8, log0))
    ok("apply", first, "--games", pos.games)
    refused(pos.games, Exit.STALE, "apply", first, "--games", pos.games, says=("already applied",))
    again = _write(tmp_path, "n2.yaml", nonce_text("red", "bb").replace("0" * 8, log0))
    refused(pos.games, Exit.STALE, "apply", again, "--games", pos.games, says=("already sent a nonce", "(P4)"))


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


def test_wrong_time(at: Any, tmp_path: Path) -> None:
    created = at("created")
    game = load_game(created.games / GAME)
    place = [{"action": "place", "region": "gallia", "count": 2}]
    early = _write(tmp_path, "early.yaml", move_text(game, "red", place))
    refused(created.games, Exit.STATE, "apply", early, "--games", created.games, says=("not started", "(P4)"))
    refused(created.games, Exit.STATE, "reveal", GAME, "--games", created.games, says=("(P6)",))
    refused(created.games, Exit.STATE, "new", GAME, "--players", "red,green", "--games", created.games,
            says=("already exists",))

    turn = at("turn")
    game = load_game(turn.games / GAME)
    late = nonce_text("red", "ab").replace("0" * 8, game.hashes[0][:16])
    refused(turn.games, Exit.STATE, "apply", _write(tmp_path, "late.yaml", late), "--games", turn.games,
            says=("has started", "(P4)"))
    refused(turn.games, Exit.STATE, "start", GAME, "--games", turn.games, says=("already started",))
    refused(turn.games, Exit.STATE, "reveal", GAME, "--games", turn.games, says=("game is over", "(P6)"))
    refused(turn.games, Exit.STATE, "audit", turn.log, says=("revealed secret", "(P6)"))

    over = at("over")
    game = load_game(over.games / GAME)
    after = _write(tmp_path, "after.yaml", move_text(game, "red", [{"action": "end"}]))
    refused(over.games, Exit.STATE, "apply", after, "--games", over.games, says=("game is over",))
    refused(over.games, Exit.STATE, "audit", over.log, says=("(P6)",))
    refused(over.games, Exit.STATE, "template", GAME, "--games", over.games)

    revealed = at("revealed")
    refused(revealed.games, Exit.STATE, "reveal", GAME, "--games", revealed.games, says=("already been revealed",))


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


# --- a tampered log -----------------------------------------------------------------------

def test_tampered_log_is_refused_and_left_alone(at: Any, tmp_path: Path) -> None:
    pos = at("turn")
    g = pos.games
    valid = _write(tmp_path, "valid.yaml", _valid(pos))
    entries, _ = read_log(pos.log)
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
                 ("reveal", GAME, "--games", g), ("start", GAME, "--games", g)):
        refused(g, Exit.TAMPERED, *args, says=(message, "(P7)"))
    # a torn log (half an entry), or one with a byte that is not UTF-8, is refused the same way
    data = pos.log.read_bytes()
    pos.log.write_bytes(data[: len(data) - 40])
    refused(g, Exit.TAMPERED, "apply", valid, "--games", g, says=("(P7)",))
    pos.log.write_bytes(data.replace(b'"kind": "start"', b'"kind": "st\xe4rt"'))
    refused(g, Exit.TAMPERED, "apply", valid, "--games", g, says=("not UTF-8", "(P7)"))
    refused(g, Exit.TAMPERED, "verify", pos.log, says=("not UTF-8", "(P7)"))


# --- two hosts at once ----------------------------------------------------------------------

def test_two_concurrent_applies(at: Any, tmp_path: Path) -> None:
    """P7: two `pbem apply` processes answering the same entry: one wins, one is stale."""
    pos = at("created")
    g = pos.games
    game = load_game(g / GAME)
    for i, player in enumerate(PLAYERS):
        game = apply_text(g, nonce_text(player, f"{i + 7:02x}").replace("0" * 8, game.hashes[0][:16]))
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    for round_ in range(4):
        game = load_game(g / GAME)
        assert game.state is not None and game.to_move() is not None
        options = legal_actions(game.state)[:2]
        assert len(options) == 2
        files = [
            _write(tmp_path, f"r{round_}-{i}.yaml", move_text(game, str(game.to_move()), [a.to_dict()]))
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
        assert "(P7)" in loser[2] and "Traceback" not in loser[2]
        assert ok("verify", pos.log)
        entries, _ = read_log(pos.log)
        assert len(entries) == game.last_seq + 2  # exactly one new entry
        winner = files[[r[0] for r in results].index(Exit.OK)]
        assert entries[-1]["move"] == load_one(winner.read_text(), "move")
        assert not [p for p in (g / GAME).iterdir() if p.name.endswith(".tmp")]
