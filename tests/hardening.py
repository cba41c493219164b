"""Shared tools for the hardening tests and ``bench/stress.py``: games, inputs, checks.

- :func:`make_game` builds a started game on disk through the host's own API;
- :func:`bot_move` writes the next legal move file from the public state only;
- :func:`snapshot` hashes every file (and its mode) under a folder, to prove a
  refused input changed nothing;
- :func:`refusal` runs a ``pbem`` command in-process and checks that it refused
  cleanly: a known exit code (never 1, "internal error"), one ``pbem: ...``
  paragraph on stderr, no traceback;
- mutators for move files, logs and secret files;
- :class:`LeakCheck`: no face-down token's salt, and no catalogue id other than
  in the flip description of a flipped token, in anything public.
"""

from __future__ import annotations

import hashlib
import os
import random
import re
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from click.testing import CliRunner, Result

from pbem.bots.randombot import bot_actions
from pbem.cli import main
from pbem.errors import Exit
from pbem.fair import protocol
from pbem.fair.dealing import HostFaces
from pbem.host.create import NewGame, create
from pbem.host.games import apply_move, load_game
from pbem.host.secret import SECRET_NAME, read_secret, secret_for
from pbem.log.game import Game
from pbem.log.moves import after_of, parse_move
from pbem.log.records.sent import MoveFile
from pbem.log.records import TurnMove, move_of
from pbem.log.yamlio import dump_yaml
from pbem.referee.audit import host_faces
from pbem.referee.seatview import SeatView
from pbem.sim.demo import open_game
from pbem.sim.simulate import PLAYER_NAMES

PBEM = [sys.executable, "-m", "pbem"]
REFUSAL_CODES = {int(e) for e in Exit} - {Exit.OK, 1}
SECRET = bytes(range(32))


# --- games ------------------------------------------------------------------------------

def make_game(
    games: Path, game_id: str, n_players: int = 3, seed: int = 0, moves: int = 0,
    secret: bytes | None = SECRET,
) -> Path:
    """A started game (every player committed to a nonce and revealed it, P4), then
    ``moves`` bot moves applied."""
    players = PLAYER_NAMES[:n_players]
    path = create(games, NewGame(game_id, players, secret=secret))
    rng = random.Random(seed)
    open_game(games, game_id, {p: rng.getrandbits(128).to_bytes(16, "big") for p in players})
    for _ in range(moves):
        game = load_game(path)
        if game.to_move is None:
            break
        apply_move(games, parse_move(bot_move(game, rng)))
    return path


def bot_move(game: Game, rng: random.Random, player: str | None = None) -> bytes:
    """The next move file a random bot would mail (public state only)."""
    assert game.state is not None
    data: dict[str, Any] = {
        "game": game.game_id,
        "player": player or game.to_move,
        "kind": "move",
        "after": after_of(game),
        "actions": [a.to_dict() for a in bot_actions(game.state, rng)],
    }
    return dump_yaml(data).encode()


# --- files ------------------------------------------------------------------------------

def snapshot(root: Path) -> dict[str, tuple[str, int]]:
    """Every file under ``root``: relative path -> (sha256, mode)."""
    out = {}
    for dirpath, _dirs, files in os.walk(root):
        for name in files:
            p = Path(dirpath) / name
            st = p.stat()
            out[p.relative_to(root).as_posix()] = (hashlib.sha256(p.read_bytes()).hexdigest(), st.st_mode)
    return out


def changed(before: dict[str, tuple[str, int]], after: dict[str, tuple[str, int]]) -> list[str]:
    return sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))


def restore(pristine: Path, games: Path) -> None:
    shutil.rmtree(games)
    shutil.copytree(pristine, games)


# --- running pbem -----------------------------------------------------------------------

def invoke(args: list[str]) -> Result:
    return CliRunner().invoke(main, args, catch_exceptions=True)


class Crash(AssertionError):
    """pbem failed in a way a host must never see: a traceback or an internal error."""


class Changed(AssertionError):
    """A refused input changed a file in the games folder."""


def judge(code: int, stderr: str, stdout: str = "", where: str = "") -> None:
    """A run either succeeded, or refused with a known code and one ``pbem: ...`` paragraph."""
    if "Traceback" in stderr or "Traceback" in stdout:
        raise Crash(f"{where}: traceback\n{stderr}")
    if code == 0:
        return
    if code not in REFUSAL_CODES:
        raise Crash(f"{where}: exit {code}\n{stderr}")
    if not stderr.startswith("pbem: ") or "internal error" in stderr:
        raise Crash(f"{where}: unexplained refusal (exit {code}): {stderr!r}")


def run_cli(args: list[str], where: str = "") -> tuple[int, str, str]:
    """In-process ``pbem args``; raises :class:`Crash` unless it succeeded or refused cleanly."""
    result = invoke(args)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise Crash(f"{where}: {type(result.exception).__name__}: {result.exception}")
    judge(result.exit_code, result.stderr, result.stdout, where)
    return result.exit_code, result.stdout, result.stderr


def run_process(args: list[str], timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*PBEM, *args], capture_output=True, text=True, timeout=timeout, check=False)


# --- a host under fuzzing ---------------------------------------------------------------

class FuzzHost:
    """One games folder with a game in play, its pristine copy, and a fresh legal move;
    and two games still in their opening (P4), each with a fresh legal opening move:
    ``valid_commit`` (blue is the last to commit in ``COMMITTING``) and
    ``valid_nonce`` (green reveals, in ``REVEALING``, where red already did)."""

    GAME = "fuzz-1"
    COMMITTING = "fuzz-commit"
    REVEALING = "fuzz-reveal"

    def __init__(self, root: Path) -> None:
        from pbem.player.nonces import commit_move, reveal_move

        self.games = root / "games"
        self.pristine = root / "pristine"
        self.inbox = root / "inbox"
        self.inbox.mkdir()
        self.path = make_game(self.games, self.GAME, n_players=3, seed=7, moves=8)
        (self.path / "moves").mkdir()  # somewhere a host keeps what it was sent
        self.valid = bot_move(load_game(self.path), random.Random(1))
        players = PLAYER_NAMES[:3]
        self.nonces = {p: bytes([k + 1]) * 16 for k, p in enumerate(players)}
        for game_id in (self.COMMITTING, self.REVEALING):
            opening = create(self.games, NewGame(game_id, players, secret=SECRET))
            for p in players if game_id == self.REVEALING else players[:2]:
                commit = commit_move(load_game(opening), p, self.nonces[p])
                apply_move(self.games, parse_move(dump_yaml(commit).encode()))
        game = load_game(self.games / self.COMMITTING)
        self.valid_commit = dump_yaml(commit_move(game, "blue", self.nonces["blue"])).encode()
        game = load_game(self.games / self.REVEALING)
        apply_move(self.games, parse_move(dump_yaml(reveal_move(game, "red", self.nonces["red"])).encode()))
        game = load_game(self.games / self.REVEALING)
        self.valid_nonce = dump_yaml(reveal_move(game, "green", self.nonces["green"])).encode()
        shutil.copytree(self.games, self.pristine)
        self.log = self.path / "log.yaml"
        self.log_bytes = self.log.read_bytes()
        self.secret_bytes = (self.path / SECRET_NAME).read_bytes()
        self.accepted = 0

    def apply(self, data: bytes, where: str, must_refuse: bool = False, name: str = "move.yaml") -> int:
        """``pbem apply`` on ``data``: refused with nothing changed, or accepted (then undone)."""
        move = self.inbox / name
        move.write_bytes(data)
        before = snapshot(self.games)
        code, _out, err = run_cli(["apply", str(move), "--games", str(self.games)], where)
        if code == 0:
            if must_refuse:
                raise Crash(f"{where}: accepted")
            logs = [f for f in changed(before, snapshot(self.games)) if f.endswith("/log.yaml")]
            if len(logs) != 1:
                raise Crash(f"{where}: accepted, yet {len(logs)} logs changed")
            read_log_checked(self.games / logs[0].removesuffix("/log.yaml"))  # what was accepted verifies
            self.accepted += 1
            restore(self.pristine, self.games)
        else:
            if changed(before, snapshot(self.games)):
                raise Changed(f"{where}: refused, yet changed {changed(before, snapshot(self.games))}: {err}")
        return code

    def apply_eml(self, data: bytes, where: str, must_refuse: bool = False) -> int:
        """``pbem apply MESSAGE.eml``: as :meth:`apply`, for a mailed move."""
        return self.apply(data, where, must_refuse, name="message.eml")

    def check(self, data: bytes, where: str) -> int:
        move = self.inbox / "move.yaml"
        move.write_bytes(data)
        before = snapshot(self.games)
        code, _out, _err = run_cli(["check", str(move), "--log", str(self.log)], where)
        if changed(before, snapshot(self.games)):
            raise Changed(f"{where}: check changed {changed(before, snapshot(self.games))}")
        return code


    def try_log(self, data: bytes) -> int:
        """Put ``data`` in place of the game's log and run every command on it: what
        ``verify`` refuses, every other command refuses too, and no refusal changes a file.
        Returns the number of commands run."""
        self.log.write_bytes(data)
        try:
            move = self.inbox / "move.yaml"
            move.write_bytes(self.valid)
            before = snapshot(self.games)
            verified, _out, _err = run_cli(["verify", str(self.log)], "verify")
            for args in (["show", self.GAME], ["show", self.GAME, "--json"], ["template", self.GAME],
                         ["apply", str(move)]):
                code, _out, err = run_cli([*args, "--games", str(self.games)], " ".join(args))
                if verified != 0 and code == 0:
                    raise Crash(f"{args} took a log that verify refused")
                if code != 0 and changed(before, snapshot(self.games)):
                    raise Changed(f"{args}: refused, yet changed {changed(before, snapshot(self.games))}: {err}")
            run_cli(["check", str(move), "--log", str(self.log)], "check")
            run_cli(["audit", str(self.log)], "audit")
            return 7
        finally:
            restore(self.pristine, self.games)

    def try_secret(self, data: bytes) -> None:
        """A damaged secret file: a move that needs it is refused (or, if the damage is
        harmless, accepted), never a crash, nothing changed on a refusal."""
        (self.path / SECRET_NAME).write_bytes(data)
        try:
            self.apply(self.valid, "damaged secret")
        finally:
            restore(self.pristine, self.games)


# --- hostile inputs ---------------------------------------------------------------------

def billion_laughs() -> bytes:
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for i in range(1, 10):
        prev, cur = chr(ord("a") + i - 1), chr(ord("a") + i)
        lines.append(f"{cur}: &{cur} [" + ",".join([f"*{prev}"] * 9) + "]")
    return ("\n".join(lines) + "\n").encode()


def hostile_moves(valid: bytes) -> dict[str, bytes]:
    """Named hand-made attacks on a move file (``valid`` is a fresh legal move of any kind:
    a turn, or an opening commit or nonce; the attacks on ``actions`` need a turn)."""
    text = valid.decode()
    kind = re.search(r"^kind: \w+$", text, re.M)
    kind_line = kind.group(0) if kind else "kind: move"
    return {
        "empty": b"",
        "only a comment": b"# nothing\n",
        "a scalar": b"42\n",
        "a list": b"- 1\n- 2\n",
        "two documents": valid + b"---\n" + valid,
        "billion laughs": billion_laughs(),
        "one alias": text.replace("game:", "x: &g 1\ny: *g\ngame:").encode(),
        "python tag": b"!!python/object/apply:os.system ['echo pwned']\n",
        "custom tag": text.replace(kind_line, kind_line.replace(": ", ": !tag ")).encode(),
        "deep flow nesting": b"[" * 200_000 + b"]" * 200_000,
        "deep block nesting": "".join(f"{' ' * i}k{i}:\n" for i in range(2000)).encode() + b" " * 2000 + b"v\n",
        "deep mapping in actions": text.replace("actions:", "actions: [" + "{a: " * 500 + "1" + "}" * 500 + "]\nx:")
        .encode(),
        "huge int": text.replace(kind_line, kind_line + "\nn: " + "9" * 5000).encode(),
        "huge seq": re.sub(r"seq: \d+", "seq: " + "9" * 400, text).encode(),
        "seq 2**53+1": re.sub(r"seq: \d+", f"seq: {2**53 + 1}", text).encode(),
        "negative seq": re.sub(r"seq: \d+", "seq: -1", text).encode(),
        "float seq": re.sub(r"seq: \d+", "seq: 1.5", text).encode(),
        "inf": re.sub(r"seq: \d+", "seq: .inf", text).encode(),
        "nan": re.sub(r"seq: \d+", "seq: .nan", text).encode(),
        "date": text.replace(kind_line, kind_line + "\nwhen: 2024-01-01").encode(),
        "binary": text.replace(kind_line, kind_line + "\nb: !!binary aGVsbG8=").encode(),
        "set": text.replace(kind_line, kind_line + "\ns: !!set {a, b}").encode(),
        "unknown key": text.replace(kind_line, kind_line + "\nbonus: 1").encode(),
        "int key": text.replace(kind_line, kind_line + "\n1: x").encode(),
        "null key": text.replace(kind_line, kind_line + "\n~: x").encode(),
        "complex key": text.replace(kind_line, kind_line + "\n? [a, b]\n: x").encode(),
        "merge key": text.replace(kind_line, kind_line + "\n<<: {x: 1}").encode(),
        "duplicate key": text.replace(kind_line, kind_line + "\nkind: nonce").encode(),
        "latin-1": text.encode() + "# caf\xe9\n".encode("latin-1"),
        "utf-16": text.encode("utf-16"),
        "lone surrogate bytes": text.encode() + b"# \xed\xa0\x80\n",
        "nul bytes": text.encode() + b"\x00\x00",
        "bom": b"\xef\xbb\xbf" + valid,
        "crlf": text.replace("\n", "\r\n").encode(),
        "tabs": text.replace("  ", "\t").encode(),
        "game id path": text.replace(f"game: {text.split('game: ')[1].split()[0]}", "game: ../../etc").encode(),
        "game id newline": text.replace("game: ", 'game: "x\\n').replace("\nplayer", '"\nplayer', 1).encode(),
        "player unknown": re.sub(r"player: \w+", "player: mallory", text).encode(),
        "player wrong type": re.sub(r"player: \w+", "player: [1]", text).encode(),
        "actions not a list": re.sub(r"actions:[\s\S]*", "actions: {a: 1}\n", text).encode(),
        "action unknown": re.sub(r"actions:[\s\S]*", "actions:\n- {action: win}\n", text).encode(),
        "action extra field": re.sub(r"actions:[\s\S]*", "actions:\n- {action: end, x: 1}\n", text).encode(),
        "action wrong types": re.sub(r"actions:[\s\S]*", "actions:\n- {action: place, region: 1, count: x}\n",
                                     text).encode(),
        "many actions": re.sub(r"actions:[\s\S]*", "actions:\n" + "- {action: end}\n" * 1000, text).encode(),
        "long string": text.replace(kind_line, kind_line + "\nnote: " + "x" * 200_000).encode(),
        "just over the cap": valid + b"#" * (256 * 1024),
        "unterminated quote": b'game: "abc\n',
        "bad indentation": b"game: a\n  player: b\n player: c\n",
        "control chars": b"game: \x07\x1b[31m\n",
    }


ACTIONS_ONLY = {"deep mapping in actions", "actions not a list", "action unknown", "action extra field",
                "action wrong types", "many actions"}
"""The attacks of :func:`hostile_moves` that change a turn's actions: no-ops on an opening move."""


def mutate_bytes(data: bytes, rng: random.Random) -> bytes:
    """One random edit of a byte string: flip, delete, insert, duplicate or truncate."""
    if not data:
        return bytes([rng.randrange(256)])
    op = rng.randrange(6)
    i = rng.randrange(len(data))
    if op == 0:
        return data[:i] + bytes([data[i] ^ (1 << rng.randrange(8))]) + data[i + 1:]
    if op == 1:
        j = min(len(data), i + rng.randrange(1, 16))
        return data[:i] + data[j:]
    if op == 2:
        return data[:i] + bytes(rng.randrange(256) for _ in range(rng.randrange(1, 8))) + data[i:]
    if op == 3:
        j = min(len(data), i + rng.randrange(1, 64))
        return data[:j] + data[i:]
    if op == 4:
        return data[:i]
    return data[:i] + rng.choice([b"\n", b"---\n", b"&a ", b"*a", b"!!", b"{", b"]", b": ", b"- ", b"'", b'"'])\
        + data[i:]


def mutate_log(data: bytes, rng: random.Random) -> bytes:
    """One random edit of a log: a byte edit, a line deleted, a document duplicated,
    dropped or swapped, or the file cut short."""
    op = rng.randrange(6)
    if op == 0 or len(data) < 2:
        return mutate_bytes(data, rng)
    lines = data.splitlines(keepends=True)
    if op == 1:
        del lines[rng.randrange(len(lines))]
        return b"".join(lines)
    docs = [b"---\n" + d for d in data.split(b"---\n") if d]
    if not docs:  # nothing but separators left: edit the bytes instead
        return mutate_bytes(data, rng)
    if op == 2:
        i = rng.randrange(len(docs))
        docs.insert(rng.randrange(len(docs) + 1), docs[i])
    elif op == 3 and len(docs) > 1:
        del docs[rng.randrange(len(docs))]
    elif op == 4 and len(docs) > 1:
        i, j = rng.sample(range(len(docs)), 2)
        docs[i], docs[j] = docs[j], docs[i]
    else:
        return data[: rng.randrange(len(data))]
    return b"".join(docs)


# --- leaks ------------------------------------------------------------------------------

FLIP_RE = re.compile(r"rat (t\d\d) in [^\n]*? is ([A-Za-z0-9_-]+) \(threshold")


@dataclass
class LeakCheck:
    """P6: what is public never shows a face-down or removed token's face or salt.

    At the moment of output, for every token not flipped: its salt hex appears
    nowhere; and a catalogue id appears only in the flip description of a
    flipped token whose face it is ("rat t07 in Gallia is S03 (threshold ...").
    Ids that the input itself named (an error echoing the sender's text) are
    not the engine's doing and are allowed.
    """

    path: Path
    checked: int = 0
    leaks: list[str] = field(default_factory=list)
    _secret: bytes | None = None
    _faces: tuple[str, HostFaces, dict[str, str]] | None = None
    _ids: dict[tuple[str, ...], re.Pattern[str]] = field(default_factory=dict)

    def faces(self, game: Game) -> tuple[HostFaces, dict[str, str]] | None:
        """The host's faces and every token's salt hex (None before the start)."""
        if game.state is None:
            return None
        if self._secret is None:
            self._secret = read_secret(self.path)[0]
        key = game.hashes[0] + str(sorted(game.nonces.items()))
        if self._faces is None or self._faces[0] != key:
            faces = host_faces(game, self._secret)
            salts = {protocol.Deal.name(i): faces.salt(protocol.Deal.name(i))
                     for i in range(1, protocol.N_TOKENS + 1)}
            self._faces = (key, faces, salts)
        return self._faces[1], self._faces[2]

    def check(self, text: str, game: Game, what: str, user_input: str = "", ids: bool = True) -> None:
        self.checked += 1
        catalogue = tuple(t.id for t in game.catalogue.tokens)
        if catalogue not in self._ids:
            self._ids[catalogue] = re.compile(r"\b(" + "|".join(map(re.escape, catalogue)) + r")\b")
        ids_re = self._ids[catalogue]
        known = self.faces(game)
        faces = known[0] if known is not None else None
        flipped = set(game.state.flipped) if game.state is not None else set()
        if known is not None:
            lower = text.lower()
            for name, salt in known[1].items():
                if name not in flipped and salt in lower:
                    self.leaks.append(f"{what}: the salt of face-down {name} appears")
        if not ids:
            return
        rest = text
        for found in FLIP_RE.finditer(text):
            token, token_id = found.group(1), found.group(2)
            if token not in flipped:
                self.leaks.append(f"{what}: names the face of {token}, which is not flipped")
            elif faces is not None and faces.look(token) != token_id:
                self.leaks.append(f"{what}: says {token} is {token_id}, its face is {faces.look(token)}")
            rest = rest.replace(found.group(0), "")
        allowed = set(ids_re.findall(user_input))
        for token_id in set(ids_re.findall(rest)) - allowed:
            self.leaks.append(f"{what}: catalogue id {token_id} outside a flip description: {rest[:300]!r}")

    def check_modes(self, game_path: Path) -> None:
        """The secret file and private/ files are 0600, the private folder 0700."""
        self.checked += 1
        mode = (game_path / SECRET_NAME).stat().st_mode & 0o777
        if mode != 0o600:
            self.leaks.append(f"{game_path / SECRET_NAME} has mode {mode:o}, not 600")
        private = game_path / "private"
        if private.exists():
            if private.stat().st_mode & 0o077:
                self.leaks.append(f"{private} is readable by others ({private.stat().st_mode & 0o777:o})")
            for p in private.iterdir():
                if p.stat().st_mode & 0o777 != 0o600:
                    self.leaks.append(f"{p} has mode {p.stat().st_mode & 0o777:o}, not 600")


def bad_actions(game: Game, rng: random.Random) -> list[dict[str, Any]]:
    """Plausible but mostly illegal actions naming real tokens and regions: their refusals
    must not give a face away."""
    assert game.state is not None
    state = game.state
    tokens = [protocol.Deal.name(i) for i in range(1, protocol.N_TOKENS + 1)]
    regions = list(state.regions)
    t, r, r2 = rng.choice(tokens), rng.choice(regions), rng.choice(regions)
    options: list[dict[str, Any]] = [
        {"action": "flip", "token": t},
        {"action": "monk", "token": t, "target": r},
        {"action": "witch_look", "token": t},
        {"action": "witch_swap"},
        {"action": "spread", "region": r},
        {"action": "move_plague", "path": [r]},
        {"action": "knight_move", "path": [r, r2]},
        {"action": "king", "region": r},
        {"action": "merchant", "source": r, "target": r2, "count": rng.randrange(5)},
        {"action": "place", "region": r, "count": rng.randrange(4)},
        {"action": "take_card", "card": rng.choice(["witch", "monk", "king", "knight", "peasant", "merchant"])},
        {"action": "knight_cubes"},
        {"action": "end"},
    ]
    return [rng.choice(options) for _ in range(rng.randrange(1, 4))]


def move_dict(game: Game, player: str, actions: Iterable[dict[str, Any]]) -> dict[str, Any]:
    return {"game": game.game_id, "player": player, "kind": "move", "after": after_of(game),
            "actions": list(actions)}


def move_bytes(game: Game, player: str, actions: Iterable[dict[str, Any]]) -> bytes:
    return dump_yaml(move_dict(game, player, actions)).encode()


def leak_game(
    games: Path, game_id: str, n_players: int, seed: int, leak: LeakCheck | None = None,
    bad_per_turn: int = 2, on_output: Callable[[], None] | None = None, secret: bytes | None = None,
) -> LeakCheck:
    """Play one bot game through the command line in-process, checking every public
    output: each apply's report, refusals of bad moves, ``show``, ``show --json``,
    ``template``, and the public log itself."""
    rng = random.Random(seed)
    path = make_game(games, game_id, n_players, seed, secret=secret)
    leak = leak or LeakCheck(path)
    leak.path = path
    leak._secret = None
    leak._faces = None
    move_file = games / f".{game_id}.move.yaml"
    while True:
        game = load_game(path)
        player = game.to_move
        for args, ids in ((["show", game_id], True), (["show", game_id, "--json"], True),
                          (["template", game_id], True)):
            if player is None and args[0] == "template":
                continue
            code, out, err = run_cli([*args, "--games", str(games)], f"{game_id}: {' '.join(args)}")
            leak.check(out + err, game, f"{game_id} entry {game.last_seq}: pbem {' '.join(args)}", ids=ids)
        if player is None:
            break
        for _ in range(bad_per_turn):
            sender = rng.choice(game.players)
            data = move_bytes(game, sender, bad_actions(game, rng))
            move_file.write_bytes(data)
            before = snapshot(path)
            code, out, err = run_cli(["apply", str(move_file), "--games", str(games)], f"{game_id}: bad move")
            if code == 0:  # a lucky legal move: a real turn
                game = load_game(path)
                leak.check(out, game, f"{game_id} entry {game.last_seq}: report", data.decode())
                break
            if changed(before, snapshot(path)):
                leak.leaks.append(f"{game_id}: a refused move changed {changed(before, snapshot(path))}")
            leak.check(err + out, game, f"{game_id} entry {game.last_seq}: refusal", data.decode())
        game = load_game(path)
        if game.to_move is None:
            continue
        move_file.write_bytes(bot_move(game, rng))
        code, out, err = run_cli(["apply", str(move_file), "--games", str(games)], f"{game_id}: bot move")
        if code != 0:
            raise Crash(f"{game_id}: the bot's legal move was refused: {err}")
        game = load_game(path)
        leak.check(out, game, f"{game_id} entry {game.last_seq}: report")
        leak.check_modes(path)
        if on_output is not None:
            on_output()
    game = load_game(path)
    leak.check((path / "log.yaml").read_text(encoding="utf-8"), game, f"{game_id}: log.yaml", ids=False)
    code, out, err = run_cli(["reveal", game_id, "--games", str(games)], f"{game_id}: reveal")
    assert code == 0, err
    move_file.unlink(missing_ok=True)
    return leak


def leak_game_memory(
    games: Path, game_id: str, n_players: int, seed: int, leak: LeakCheck | None = None,
    bad_per_turn: int = 2, secret: bytes | None = None, langs: tuple[str, ...] = ("en",),
) -> LeakCheck:
    """The same checks as :func:`leak_game`, thousands of times faster: the game is made
    on disk, then every move goes through the host's own path: the referee's verdict
    (``pbem.referee.admit.judge``: freshness and the rules, on public facts), the
    resolution with the host's faces (``host.resolve``) and ``host._write`` (which
    chains the entry and replays it as any reader would), with only the two disk
    writes (log append, private file) left out; reports are the command line's own
    ``_report``, refusals its ``pbem: <error>`` paragraph, in each of ``langs`` (
    the refusals and ``show``'s names are translated)."""
    import contextlib
    import io
    import json
    from unittest import mock

    import pbem.host.step as host
    from pbem.cli.shell import _report
    from pbem.errors import PbemError
    from pbem.i18n import error_text
    from pbem.referee.admit import judge
    from pbem.views.json import state_json
    from pbem.views.template import template
    from pbem.views.text import board_lines

    rng = random.Random(seed)
    path = make_game(games, game_id, n_players, seed, secret=secret)
    leak = leak or LeakCheck(path)
    leak.path, leak._secret, leak._faces = path, None, None
    leak.check_modes(path)
    game = load_game(path)
    host_faces_ = host_faces(game, secret_for(game, path))  # the host's, once the game started

    def attempt(data: dict[str, Any]) -> tuple[bool, str]:
        out = io.StringIO()
        try:
            move = move_of(data)  # parsing is fuzzed elsewhere
            verdict = judge(game, move)  # every refusal comes from here, before any face
            assert isinstance(move, TurnMove)  # the attempts are turns
            entry, events = host.resolve(game, verdict, move, host_faces_)
            with mock.patch.object(host, "append"), mock.patch.object(host, "write_private", return_value=[]):
                applied = host._write(path, game, [entry], events=events, faces=host_faces_)
            with contextlib.redirect_stdout(out):
                _report(applied)
        except PbemError as err:
            return False, "\n".join(f"pbem: {error_text(err, lang)}" for lang in langs)
        return True, out.getvalue()

    while True:
        player = game.to_move
        where = f"{game_id} entry {game.last_seq}"
        for lang in langs:
            leak.check("\n".join(board_lines(game, lang=lang)), game, f"{where}: show --lang {lang}")
        leak.check(json.dumps(state_json(game), ensure_ascii=False), game, f"{where}: show --json")
        if player is None:
            break
        leak.check(template(SeatView(game, player)), game, f"{where}: template")
        for _ in range(bad_per_turn):
            data = move_dict(game, rng.choice(game.players), bad_actions(game, rng))
            ok, text = attempt(data)
            leak.check(text, game, f"{where}: {'report' if ok else 'refusal'}", str(data))
            if ok:
                break
        player = game.to_move
        if player is None:
            continue
        assert game.state is not None
        ok, text = attempt(move_dict(game, player, [a.to_dict() for a in bot_actions(game.state, rng)]))
        if not ok:
            raise Crash(f"{where}: the bot's legal move was refused: {text}")
        leak.check(text, game, f"{game_id} entry {game.last_seq}: report")
    from pbem.log.yamlio import dump_entry
    leak.check("".join(dump_entry(e.raw) for e in game.entries), game, f"{game_id}: the log", ids=False)
    return leak


# --- processes: concurrency and kills ---------------------------------------------------

def rivals(game: Game, n: int, seed: int) -> list[bytes]:
    """``n`` different legal moves for the same turn (as far as the position allows)."""
    out: list[bytes] = []
    for k in range(n * 20):
        move = bot_move(game, random.Random(seed * 1000 + k))
        if move not in out:
            out.append(move)
        if len(out) == n:
            return out
    while len(out) < n:  # few choices: rivals may send the same move (refused as a repeat)
        out.append(out[len(out) % max(1, len(out))])
    return out


@dataclass
class RaceResult:
    accepted: int = 0
    stale: int = 0
    other: list[str] = field(default_factory=list)
    lost: int = 0  # accepted by a process, not in the log
    torn: int = 0  # entries in the log no process can account for


def race_one_game(games: Path, game_id: str, n: int, seed: int, inbox: Path) -> RaceResult:
    """``n`` processes apply ``n`` rival moves for the same turn at the same moment:
    exactly one is accepted, the others are refused as stale (exit 5), each saying why."""
    path = games / game_id
    game = load_game(path)
    before = len(game.entries)
    files = []
    for i, data in enumerate(rivals(game, n, seed)):
        f = inbox / f"{game_id}-{seed}-{i}.yaml"
        f.write_bytes(data)
        files.append(f)
    procs = [subprocess.Popen([*PBEM, "apply", str(f), "--games", str(games)], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for f in files]
    result = RaceResult()
    winner = None
    for f, p in zip(files, procs, strict=True):
        out, err = p.communicate(timeout=120)
        judge(p.returncode, err, out, f"race {f.name}")
        if p.returncode == 0:
            result.accepted += 1
            winner = f
        elif p.returncode == Exit.STALE and err.startswith("pbem: stale move (P7): ") and "entry" in err:
            result.stale += 1
        else:
            result.other.append(f"exit {p.returncode}: {err.strip()}")
    entries, _hashes = read_log_checked(path)
    added = len(entries) - before
    result.lost = max(0, result.accepted - added)
    result.torn = max(0, added - result.accepted)
    if winner is not None and added == 1:
        sent = parse_move(winner.read_bytes()).to_raw()
        if entries[-1].get("move") != sent:
            result.lost += 1
    for f in files:
        f.unlink()
    return result


def race_many_games(games: Path, game_ids: list[str], seed: int, inbox: Path) -> RaceResult:
    """One process per game, all at once: every move is accepted and lands in its own log."""
    files = []
    before = {}
    for g in game_ids:
        game = load_game(games / g)
        before[g] = len(game.entries)
        f = inbox / f"{g}-{seed}.yaml"
        f.write_bytes(bot_move(game, random.Random(seed)))
        files.append(f)
    procs = [subprocess.Popen([*PBEM, "apply", str(f), "--games", str(games)], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for f in files]
    result = RaceResult()
    for g, f, p in zip(game_ids, files, procs, strict=True):
        out, err = p.communicate(timeout=120)
        judge(p.returncode, err, out, f"race {f.name}")
        if p.returncode == 0:
            result.accepted += 1
        else:
            result.other.append(f"{g}: exit {p.returncode}: {err.strip()}")
        entries, _ = read_log_checked(games / g)
        added = len(entries) - before[g]
        if p.returncode == 0 and (added != 1 or entries[-1].get("move") != parse_move(f.read_bytes()).to_raw()):
            result.lost += 1
        if added > (1 if p.returncode == 0 else 0):
            result.torn += 1
        f.unlink()
    return result


def read_log_checked(path: Path) -> tuple[list[dict[str, Any]], list[str]]:
    """The log's entries after a full replay (chain, reveals, rules): what ``pbem verify`` checks."""
    from pbem.log.logfile import parse_log, read_docs
    from pbem.referee.replay import replay

    entries, hashes = read_docs(path / "log.yaml")
    replay(*parse_log(entries))
    return entries, hashes


@dataclass
class KillResult:
    attempts: int = 0
    killed: int = 0
    completed: int = 0  # the process finished (exit 0) before the kill
    landed_while_killed: int = 0  # killed after the rename: the entry is whole
    torn: int = 0  # the log does not verify, or gained a part of an entry
    lost: int = 0  # exit 0, entry missing
    leftovers: int = 0  # temporary files a killed process left behind
    games: int = 0


def kill_campaign(games: Path, appends: int, seed: int, inbox: Path, verify_every: int = 25) -> KillResult:
    """Apply ``appends`` moves, each by a ``pbem apply`` process that is SIGKILLed at a
    random moment between its start and 1.6 times a typical apply's duration (the
    first 3 run to the end to measure it), so most die somewhere along the way and
    a good share finish first, whatever the machine's load.  After each: the log verifies and holds the
    whole entry or none of it; an exit 0 always left its entry."""
    import signal
    import time

    rng = random.Random(seed)
    result = KillResult()
    durations: list[float] = []
    game_id = ""
    while result.attempts < appends:
        if not game_id or load_game(games / game_id).to_move is None:
            game_id = f"kill-{seed}-{result.games}"
            make_game(games, game_id, n_players=4, seed=seed + result.games)
            result.games += 1
        path = games / game_id
        game = load_game(path)
        before = len(game.entries)
        f = inbox / "move.yaml"
        data = bot_move(game, rng)
        f.write_bytes(data)
        started = time.perf_counter()
        p = subprocess.Popen([*PBEM, "apply", str(f), "--games", str(games)],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        if len(durations) < 3:  # calibrate: how long an apply takes on this machine now
            p.wait()
            durations.append(time.perf_counter() - started)
        time.sleep(rng.uniform(0, 1.6 * sorted(durations)[len(durations) // 2]))
        if p.poll() is None:
            p.send_signal(signal.SIGKILL)
        _out, err = p.communicate()
        result.attempts += 1
        code = p.returncode
        result.killed += code == -signal.SIGKILL
        if code not in (0, -signal.SIGKILL):
            judge(code, err.decode(), "", "killed apply")
            raise Crash(f"an unkilled apply was refused: {err.decode()}")
        try:
            entries, _ = read_log_checked(path) if result.attempts % verify_every else verify_process(path)
        except Exception as e:
            result.torn += 1
            raise Crash(f"after a kill the log of {game_id} does not verify: {e}") from None
        added = len(entries) - before
        if added not in (0, 1) or (added == 1 and entries[-1].get("move") != parse_move(data).to_raw()):
            result.torn += 1
        if code == 0:
            result.completed += 1
            if added != 1:
                result.lost += 1
        elif added == 1:
            result.landed_while_killed += 1
    result.leftovers = sum(1 for _ in games.rglob(".*.tmp"))
    for left in games.rglob(".*.tmp"):
        left.unlink()
    return result


def verify_process(path: Path) -> tuple[list[dict[str, Any]], list[str]]:
    """``pbem verify`` as its own process, then the entries."""
    done = run_process(["verify", str(path / "log.yaml")])
    if done.returncode != 0:
        raise Crash(f"pbem verify: {done.stderr}")
    return read_log_checked(path)


# --- mail messages (pbem/mail/: ``pbem apply MESSAGE.eml``) ---------

def valid_eml(move: bytes, attach: bool = True, message_id: str = "<m1@example.org>", second: bool = False) -> bytes:
    from email.message import EmailMessage

    msg = EmailMessage()
    msg["From"] = "Red <red@example.org>"
    msg["To"] = "host@example.org"
    msg["Subject"] = "my move"
    msg["Message-ID"] = message_id
    if attach:
        msg.set_content("Here is my move.\n")
        msg.add_attachment(move, maintype="application", subtype="yaml", filename="move.yaml")
        if second:
            msg.add_attachment(move, maintype="application", subtype="yaml", filename="move2.yaml")
    else:
        msg.set_content(move.decode() + "\n-- \nRed\n")
    return bytes(msg)


def hostile_emls(move: bytes) -> dict[str, bytes]:
    """Named hand-made attacks on a mailed move (``move``: a fresh legal move file)."""
    good = valid_eml(move)
    body = valid_eml(move, attach=False)
    head = b"From: red@example.org\nTo: host@example.org\nSubject: x\nMessage-ID: <h@x>\n"
    nested = head + b"MIME-Version: 1.0\n"
    for i in range(2000):
        nested += f'Content-Type: multipart/mixed; boundary="b{i}"\n\n--b{i}\n'.encode()
    nested += b"Content-Type: text/plain\n\n" + move
    return {
        "no move": head + b"\nhello\n",
        "empty body": head + b"\n",
        "headers only": head,
        "html only": head + b"Content-Type: text/html\n\n<p>" + move + b"</p>\n",
        "two attachments": valid_eml(move, second=True),
        "deep multipart nesting": nested,
        "bad base64": good.replace(b"Content-Transfer-Encoding: base64", b"Content-Transfer-Encoding: base64\n")
        + b"@@@@====\n",
        "unknown charset": head + b"Content-Type: text/plain; charset=x-klingon\n\n" + move,
        "bad utf-8 in body": head + b"Content-Type: text/plain; charset=utf-8\n\n\xff\xfe" + move,
        "bad quoted-printable": head + b"Content-Transfer-Encoding: quoted-printable\n\n=ZZ=\n" + move,
        "huge header": head.replace(b"Subject: x", b"Subject: " + b"x" * 1_000_000) + b"\n" + move,
        "many headers": b"".join(b"X-H%d: v\n" % i for i in range(50_000)) + head + b"\n" + move,
        "no From": body.replace(b"From: Red <red@example.org>\n", b""),
        "two From": body.replace(b"From: Red", b"From: a@b.c, Red"),
        "bounce": body.replace(b"Subject:", b"Auto-Submitted: auto-replied\nSubject:"),
        "billion laughs attached": valid_eml(billion_laughs()),
        "alias in body": valid_eml(move.replace(b"kind: move", b"kind: &k move\nx: *k"), attach=False),
        "format flowed junk": head + b"Content-Type: text/plain; format=flowed; delsp=yes\n\n" + b" \n" * 1000
        + move,
        "nul bytes": body.replace(b"my move", b"my\x00move") + b"\x00" * 100,
        "mbox separator": b"From red@example.org Mon Jan  1 00:00:00 2024\n" + body,
        "crlf": body.replace(b"\n", b"\r\n"),
        "bare cr": body.replace(b"\n", b"\r"),
        "just over the cap": body + b"x" * (8 * 1024 * 1024),
    }
