"""The host's one step.  After any entry is recorded (a move, a commitment, a nonce,
a waiver, a timeout R8.2, a resignation or a new player R8.4), the host brings the game to the
next human decision, in the game's lock: the start entry (P4), the stand-in's turns of a
resigned seat (R8.3, R8.4) and the bot seats' decisions (entry 0 ``options.bots``)."""

from __future__ import annotations

import ast
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

from clitools import ok

from pbem.bots.randombot import bot_actions
from pbem.host.games import apply_move, load_game
from pbem.log.clock import at_of, pinned, seconds
from pbem.log.game import Game
from pbem.log.moves import after_of, parse_move
from pbem.log.records import Timeout
from pbem.log.yamlio import dump_yaml, load_stream
from pbem.player.nonces import commit_move, reveal_move

PBEM = Path(__file__).resolve().parent.parent / "pbem"
NONCES = {"red": b"r" * 32, "green": b"g" * 32, "yellow": b"y" * 32}

TOOL = Path(__file__).resolve().parent.parent / "tools" / "audit_min.py"


def send(games: Path, data: dict[str, Any]) -> None:
    """A human seat's move, through the host's own path (``pbem apply``'s)."""
    apply_move(games, parse_move(dump_yaml(data).encode(), "move"))


def bot_game(games: Path, players: str, bots: dict[str, str], *extra: str) -> Game:
    """``pbem new`` with bot seats, then the humans' opening (P4): the bots commit and reveal
    on their own, the last reveal starts the game (the host's step)."""
    args = [f"--bot={seat}={level}" for seat, level in bots.items()]
    ok("new", "g", "--players", players, "--first", players.split(",")[0], "--games", games, *args, *extra)
    humans = [p for p in players.split(",") if p not in bots]
    for make in (commit_move, reveal_move):
        for player in humans:
            send(games, make(load_game(games / "g"), player, NONCES[player]))
    game = load_game(games / "g")
    assert game.started
    return game


def move_of(game: Game, rng: random.Random) -> dict[str, Any]:
    assert game.state is not None and game.to_move is not None
    return {"game": game.game_id, "player": game.to_move, "kind": "move", "after": after_of(game),
            "actions": [a.to_dict() for a in bot_actions(game.state, rng)]}


def kinds_since(game: Game, seq: int) -> list[tuple[str, str | None]]:
    return [(e.raw["kind"], e.raw.get("player")) for e in game.entries[seq:]]


def test_r8_2_a_bot_seat_answers_a_timeout_in_the_same_tick(tmp_path: Path) -> None:
    """Red lets the deadline pass: `pbem tick` records the timeout (R8.2, the stand-in plays red's
    turn, R8.3) and blue, the host's bot, plays its turn at once; green is to move, and blue is
    never stood in for."""
    games = tmp_path / "games"
    game = bot_game(games, "red,blue,green", {"blue": "random"}, "--deadline", "24h")
    assert game.to_move == "red"
    later = at_of(seconds(game.entries[-1].raw["at"]) + 25 * 3600)
    out = ok("tick", "--now", later, "--games", games)
    assert "1 timeout(s) recorded" in out
    after = load_game(games / "g")
    assert kinds_since(after, game.last_seq + 1) == [("timeout", "red"), ("move", "blue")]
    assert after.to_move == "green"
    assert "0 timeout(s)" in ok("tick", "--now", later, "--games", games)  # green's deadline runs anew


def test_r8_4_after_a_resignation_the_stand_in_then_the_bot_seats_play_on(tmp_path: Path) -> None:
    """Red resigns on its turn: the stand-in plays red's turn (R8.4), then blue (a bot), then
    yellow (a bot); green, the only human left, is to move."""
    games = tmp_path / "games"
    game = bot_game(games, "red,blue,yellow,green", {"blue": "random", "yellow": "greedy"})
    send(games, {"game": "g", "player": "red", "kind": "resign", "after": after_of(game)})
    after = load_game(games / "g")
    assert kinds_since(after, game.last_seq + 1) == [
        ("resign", "red"), ("standin", "red"), ("move", "blue"), ("move", "yellow")]
    assert after.to_move == "green"


def test_p4_after_a_waiver_the_bot_seat_reveals_at_once(tmp_path: Path) -> None:
    """P4: red commits, green's nonce is waived (`pbem waive`): the reveal round begins, and blue,
    the host's bot, reveals its nonce in the same step; red is awaited."""
    games = tmp_path / "games"
    ok("new", "g", "--players", "red,blue,green", "--games", games, "--bot", "blue=random")
    send(games, commit_move(load_game(games / "g"), "red", NONCES["red"]))
    before = load_game(games / "g")
    ok("waive", "g", "--player", "green", "--games", games)
    after = load_game(games / "g")
    assert [k for k, _p in kinds_since(after, before.last_seq + 1)] == ["waive", "nonce"]
    assert after.entries[-1].raw["player"] == "blue" and after.awaited == ("red",)


def test_r8_4_pbem_replace_runs_the_step(tmp_path: Path) -> None:
    """A game left waiting on its bot seat (as an older pbem's timeout left it: the entry written
    without the host's step) is brought on by the next recorded entry, here `pbem replace`."""
    from pbem.host.secret import secret_for
    from pbem.host.step import _write
    from pbem.log.logfile import locked
    from pbem.referee.audit import host_faces
    from pbem.referee.seats import standin_entry

    games = tmp_path / "games"
    game = bot_game(games, "red,blue,green", {"blue": "random"}, "--deadline", "24h")
    send(games, {"game": "g", "player": "red", "kind": "resign", "after": after_of(game)})
    game = load_game(games / "g")
    assert game.to_move == "green"  # red stood in for, blue answered
    path = games / "g"
    while game.to_move != "blue":  # green's timeouts without the step (red stood in): blue waits
        later = at_of(seconds(game.entries[-1].raw["at"]) + 25 * 3600)
        with pinned(later), locked(path):
            faces = host_faces(game, secret_for(game, path))
            game = _write(path, game, [standin_entry(game, faces, timed_out=True)], faces=faces).game
    waiting = load_game(path)
    assert waiting.to_move == "blue"
    ok("replace", "g", "--seat", "red", "--games", games)
    after = load_game(path)
    assert kinds_since(after, waiting.last_seq + 1)[:2] == [("replace", "red"), ("move", "blue")]
    assert after.to_move in ("red", "green")  # a human seat (red is one again)


def test_r5_6_a_look_is_filed_under_the_entry_that_recorded_it(tmp_path: Path) -> None:
    """R5.6: red's move looks at a rat and ends the turn; blue has resigned, so the stand-in plays
    blue's turn in the same write.  Red's private file names red's move, not the stand-in's."""
    from pbem.host.secret import secret_for
    from pbem.referee.audit import host_faces
    from pbem.rules import WitchLook, play
    from pbem.rules.legal import legal_of

    games = tmp_path / "games"
    ok("new", "g", "--players", "red,blue", "--first", "blue", "--games", games)
    for make in (commit_move, reveal_move):
        for player, nonce in (("red", b"r" * 32), ("blue", b"b" * 32)):
            send(games, make(load_game(games / "g"), player, nonce))
    game = load_game(games / "g")
    send(games, {"game": "g", "player": "blue", "kind": "resign", "after": after_of(game)})
    rng = random.Random(5)
    for _ in range(300):
        game = load_game(games / "g")
        assert game.state is not None and game.to_move == "red"
        looks = legal_of(game.state, WitchLook)
        if not looks:
            send(games, move_of(game, rng))
            continue
        faces = host_faces(game, secret_for(game, games / "g"))
        seen, _events = play(game.state.copy(), "red", [looks[0]], faces)
        rest = bot_actions(seen, rng)
        state, _events = play(game.state.copy(), "red", [looks[0], *rest], faces)
        if state.to_move == "red":
            continue  # a second look in the same turn: try another position
        send(games, {"game": "g", "player": "red", "kind": "move", "after": after_of(game),
                     "actions": [a.to_dict() for a in [looks[0], *rest]]})
        after = load_game(games / "g")
        assert kinds_since(after, game.last_seq + 1)[:2] == [("move", "red"), ("standin", "blue")]
        docs = load_stream((games / "g" / "private" / "red.yaml").read_text(), "private")
        assert docs[-1]["seq"] == game.last_seq + 1 and docs[-1]["token"] == looks[0].to_dict()["token"]
        return
    raise AssertionError("red never had a look")  # pragma: no cover


# --- structure: every path that records an entry ends with the host's step ---------------------

def _calls(node: ast.AST) -> set[str]:
    """The functions ``node`` calls by name (not methods: a list's ``append`` is no log's)."""
    return {n.func.id for n in ast.walk(node) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}


def test_every_path_that_records_an_entry_ends_with_the_host_step() -> None:
    """Only pbem/host/step.py appends to a game's log (entry 0 aside, pbem/host/create.py); in it,
    only ``_write`` appends, and ``_write`` is called only by ``record`` (which then runs the step)
    and by the step's own loop; every operation of pbem/host/games.py that writes calls ``record``."""
    appenders = sorted(
        str(p.relative_to(PBEM.parent)) for p in PBEM.rglob("*.py")
        if "append(path / LOG_NAME" in p.read_text() or ("logfile import" in p.read_text()
        and "append" in p.read_text().split("logfile import", 1)[1].split("\n", 1)[0])
    )
    assert appenders == ["pbem/host/create.py", "pbem/host/step.py"], appenders
    step = ast.parse((PBEM / "host" / "step.py").read_text())
    functions = {f.name: f for f in step.body if isinstance(f, ast.FunctionDef)}
    assert {name for name, f in functions.items() if "append" in _calls(f)} == {"_write"}
    assert {name for name, f in functions.items() if "_write" in _calls(f)} == {"record", "_answer"}
    assert "_answer" in _calls(functions["record"])
    games = ast.parse((PBEM / "host" / "games.py").read_text())
    for f in (f for f in games.body if isinstance(f, ast.FunctionDef)):
        if "locked" in _calls(f) and f.name not in ("load_game",):
            assert "record" in _calls(f), f"pbem.host.games.{f.name} writes without the host's step"
    outside = [str(p.relative_to(PBEM.parent)) for p in PBEM.rglob("*.py")
               if p.parent.name != "host" and ("_write(" in p.read_text() or "import _write" in p.read_text())]
    assert not outside, outside


# --- a whole bot game by every path ---------------------------------------------------------

def test_a_bot_game_with_a_resignation_and_timeouts_plays_to_its_end_by_every_path(tmp_path: Path) -> None:
    """Red mails its moves (`pbem mail`), green's come as files (`pbem apply MSG.eml`) until green
    resigns (R8.4: the stand-in plays green from then on); now and then a human lets the deadline
    pass and `pbem tick` records the timeout (R8.2, R8.3).  Blue is the host's bot: after every
    kind of entry it answers at once, so no human ever waits on it, and it reads the rats the
    stand-in flipped as any seat does.  The game ends and audits fair (P6)."""
    import mailbox

    from mailtools import HOST, eml, replies, to_of

    games, inbox, outbox = tmp_path / "games", tmp_path / "inbox", tmp_path / "outbox"
    mailbox.Maildir(str(inbox), create=True)
    addresses = {"red": "red@example.org", "green": "green@example.net"}
    # A fixed secret fixes the rat order: with a fresh one, once in many runs the stand-in's
    # first flip came so late that blue had no turn left after it and the test failed.
    secret = tmp_path / "secret.hex"
    secret.write_text("5e" * 32 + "\n")
    ok("new", "g", "--players", "red,blue,green", "--first", "red", "--games", games, "--deadline", "24h",
       "--secret-file", secret, "--bot", "blue=random", *(f"--seat-email={p}={a}" for p, a in addresses.items()))

    def by_mail(data: dict[str, Any]) -> None:
        mailbox.Maildir(str(inbox)).add(eml(addresses["red"], data))
        assert "applied: game g" in ok("mail", "--inbox", inbox, "--outbox", outbox, "--games", games,
                                       "--from", HOST)

    def by_file(data: dict[str, Any]) -> None:
        message = tmp_path / "green.eml"
        message.write_bytes(eml(addresses["green"], data))
        ok("apply", message, "--games", games, "--from", HOST)

    send_as = {"red": by_mail, "green": by_file}
    for make in (commit_move, reveal_move):
        for player in ("red", "green"):
            send_as[player](make(load_game(games / "g"), player, NONCES[player]))
    rng = random.Random(17)
    for turn in range(600):
        game = load_game(games / "g")
        if game.over:
            break
        mover = game.to_move
        assert mover is not None and mover in addresses and mover not in game.resigned, mover  # never a bot's turn
        if mover == "green" and game.state is not None and game.state.turn_number >= 4:
            by_file({"game": "g", "player": "green", "kind": "resign", "after": after_of(game)})
        elif turn % 7 == 3:
            later = at_of(seconds(game.entries[-1].raw["at"]) + 25 * 3600)
            assert "1 timeout(s) recorded" in ok("tick", "--now", later, "--from", HOST, "--games", games)
        else:
            send_as[mover](move_of(game, rng))
    game = load_game(games / "g")
    assert game.over and game.resigned == {"green"}
    kinds = {e.raw["kind"] for e in game.entries}
    assert {"timeout", "standin", "resign"} <= kinds
    flipped = [e for e in game.entries if e.raw["kind"] in ("timeout", "standin")
               and any(o.get("event") == "token_flipped" for o in e.raw["outcome"])]
    assert flipped, "no stand-in turn flipped a rat"
    assert any(e.raw["kind"] == "move" and e.raw["player"] == "blue" and e.raw["seq"] > flipped[0].raw["seq"]
               for e in game.entries)  # the bot played on after a stand-in's flip
    for index, entry in enumerate(game.entries[1:-1], 1):  # after every entry, a bot seat answers at once
        if game.entries[index + 1].raw.get("player") == "blue":
            assert game.entries[index + 1].raw["at"] == entry.raw["at"]
    assert game.secret is not None  # P6: the step revealed the secret at the end (pbem new --reveal-secret auto)
    log = games / "g" / "log.yaml"
    flips = sum(len(e.reveals) for e in game.entries)  # moves', timeouts' and stand-ins' alike
    audited, verified = ok("audit", log), ok("verify", log)
    minimal = subprocess.run([sys.executable, str(TOOL), str(log)], capture_output=True, text=True, check=False)
    assert "verdict: FAIR" in audited and minimal.returncode == 0, minimal.stdout + minimal.stderr
    for said in (audited, verified, minimal.stdout):  # P6: every reader counts every flip, whoever made it
        assert f"all {flips} flipped tokens are the dealt tokens" in said, said
    ok("mail", "--inbox", inbox, "--outbox", outbox, "--games", games, "--from", HOST)  # the queue delivered
    timeout_notices = [m for m in replies(outbox) if ": timeout, the stand-in played" in str(m["Subject"])]
    assert timeout_notices and {to_of(m) for m in timeout_notices} <= set(addresses.values())


def test_every_mail_transport_goes_through_the_one_admission_function() -> None:
    """In pbem/mail only the admission path applies a move (through the host's step);
    the Maildir reader (`pbem mail`) and the file reader (`pbem apply MSG.eml`) call its admit."""
    mail = PBEM / "mail"
    applying = sorted(p.name for p in mail.glob("*.py") if "apply_move" in p.read_text())
    assert applying == ["admission.py"], applying
    host = ast.parse((mail / "host.py").read_text())
    handle = next(f for f in ast.walk(host) if isinstance(f, ast.FunctionDef) and f.name == "_handle")
    assert "admit" in {n.func.attr for n in ast.walk(handle) if isinstance(n, ast.Call)
                       and isinstance(n.func, ast.Attribute)}
    admission = ast.parse((mail / "admission.py").read_text())
    file_reader = next(f for f in admission.body if isinstance(f, ast.FunctionDef) and f.name == "apply_mail_file")
    assert "admit" in {n.func.attr for n in ast.walk(file_reader) if isinstance(n, ast.Call)
                       and isinstance(n.func, ast.Attribute)}
    cli = (PBEM / "cli" / "hosting.py").read_text()
    assert "from pbem.mail.admission import apply_mail_file" in cli
