"""Bots that play from their seat's view only, bot seats in a real game,
`pbem bot`, `pbem demo --play-as`, `pbem tournament`."""

from __future__ import annotations

import mailbox
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from clitools import cli, ok, snapshot

from pbem.bots.knowledge import Knowledge, from_public
from pbem.bots.levels import Bot, make_bot
from pbem.bots.mcts import MctsBot
from pbem.bots.randombot import bot_actions
from pbem.data import default_catalogue
from pbem.errors import Exit
from pbem.fair.protocol import Deal
from pbem.host.games import load_game
from pbem.log.logfile import LOG_NAME
from pbem.rules import MappingFaces, State, play
from pbem.rules.data import Token
from pbem.rules.events import TokenLooked
from pbem.sim.arena import learn, play_game, play_turn

ROOT = Path(__file__).resolve().parent.parent
from pbem.log.yamlio import dump_yaml, load_stream
from pbem.sim.simulate import new_random_game
from pbem.sim.tournament import seating, wilson

CATALOGUE = default_catalogue()
NAMES = [Deal.name(i) for i in range(1, 50)]


# --- the seat's knowledge -----------------------------------------------------------------

def test_the_pool_is_the_catalogue_minus_every_face_the_seat_has_seen() -> None:
    faces = {t: CATALOGUE.tokens[i] for i, t in enumerate(NAMES)}
    know = from_public("red", CATALOGUE, {"t01": faces["t01"]}, {"t02": faces["t02"], "t01": faces["t01"]})
    assert len(know.pool) == 47 and faces["t01"] not in know.pool and faces["t02"] not in know.pool
    assert know.hidden == tuple(NAMES[2:])
    assert know.known("t02") == faces["t02"] and know.known("t03") is None
    sample = know.sample(random.Random(1))
    assert sample.face("t02") == faces["t02"]  # its own look is kept (R5.6)
    assert sorted(sample.face(t).id for t in NAMES) == sorted(t.id for t in CATALOGUE.tokens)


# --- no bot can peek (P10) ---------------------------------------------------------------

def seat_position(seed: int) -> tuple[State, Knowledge, Knowledge]:
    """A reachable position (random bots, the host's faces, each seat learning only what it
    may) and the seat-to-move's knowledge under two face sets that agree on everything the
    seat has seen (public flips, its own looks) and permute every face hidden from it."""
    rng = random.Random(seed)
    n = rng.choice((2, 3, 4))
    state, dealt = new_random_game(n, seed)
    one = {t: dealt.face(t) for t in NAMES}
    looks: dict[str, set[str]] = {p: set() for p in state.players}
    for _ in range(rng.randrange(4, 160)):
        player = state.to_move
        assert player is not None
        before = state
        state, events = play(state, player, bot_actions(state, rng), MappingFaces(one))
        for e in events:
            if isinstance(e, TokenLooked):
                looks[e.player].add(e.token)
        if state.to_move is None:
            state = before
            break
    me = state.to_move
    assert me is not None
    hidden = [t for t in NAMES if t not in state.flipped and t not in looks[me]]
    shuffled = [one[t] for t in hidden]
    rng.shuffle(shuffled)
    two: dict[str, Token] = {**one, **dict(zip(hidden, shuffled, strict=True))}
    assert two != one or len(hidden) < 2

    def knowledge(faces: dict[str, Token]) -> Knowledge:  # what the seat sees under these faces
        return from_public(me, CATALOGUE, {t: faces[t] for t in state.flipped},
                           {t: faces[t] for t in looks[me]})

    return state, knowledge(one), knowledge(two)


def bots(seed: int) -> list[Bot]:
    return [make_bot("random", random.Random(seed)), make_bot("greedy", random.Random(seed)),
            MctsBot(random.Random(seed), seconds=0.0, rounds=3)]


@pytest.mark.parametrize("seed", range(12))
def test_no_bot_can_peek_its_move_is_the_same_whatever_the_faces_hidden_from_it(seed: int) -> None:
    state, one, two = seat_position(seed)
    for bot_one, bot_two in zip(bots(seed), bots(seed), strict=True):
        move_one = bot_one.choose(state.copy(), one)
        move_two = bot_two.choose(state.copy(), two)
        assert move_one == move_two, bot_one.level
        assert move_one  # and it is a real move, legal on the public facts (R7.4)
        play(state, state.to_move or "", move_one)


def test_every_level_plays_whole_games_to_the_end() -> None:
    result = play_game(["greedy", "random", "mcts"], seed=5, seconds=0.02)
    assert sum(result.scores.values()) > 0 and result.winner in result.players
    assert all(result.decisions[p] > 0 for p in result.players)


def test_a_bot_answers_its_witch_look_in_the_same_turn() -> None:
    """R5.6: a random bot that looks is asked again, with the look learnt, before the turn ends."""
    for seed in range(40):
        state, faces = new_random_game(3, seed)
        know = {p: from_public(p, CATALOGUE, {}, {}) for p in state.players}
        bot = make_bot("random", random.Random(seed))
        while state.to_move is not None:
            player = state.to_move
            state, events = play_turn(state, bot, know, faces, CATALOGUE)
            looked = [e for e in events if isinstance(e, TokenLooked)]
            if looked:
                assert know[player].known(looked[0].token) == faces.face(looked[0].token)
                assert state.to_move != player or state.phase.value == "final"
                return
    pytest.fail("no Witch look in 40 games")  # pragma: no cover


def test_learn_tells_a_look_to_its_holder_only() -> None:
    state, faces = new_random_game(2, 1)
    know = {p: from_public(p, CATALOGUE, {}, {}) for p in state.players}
    learn(know, [TokenLooked("red", "t01", faces.face("t01").id)], CATALOGUE)
    assert know["red"].known("t01") == faces.face("t01") and know["green"].known("t01") is None


# --- tournaments --------------------------------------------------------------------------

def test_wilson_interval_and_seat_rotation() -> None:
    low, high = wilson(50, 100)
    assert low == pytest.approx(0.4038, abs=1e-3) and high == pytest.approx(0.5962, abs=1e-3)
    assert wilson(0, 10)[0] == 0.0
    assert [seating(["a", "b", "c"], g) for g in range(3)] == [("a", "b", "c"), ("b", "c", "a"), ("c", "a", "b")]


def test_pbem_tournament_prints_shares_with_intervals() -> None:
    out = ok("tournament", "--count", "2", "--player-count", "2", "--bots", "greedy,random", "--seed", "3",
             "--jobs", "2")
    assert "greedy (1 seat): wins" in out and "95% CI" in out and "ms per turn" in out
    bad = cli("tournament", "--player-count", "3", "--bots", "greedy,random")
    assert bad.exit_code == Exit.FORMAT and "one per seat" in bad.stderr


# --- bot seats on the real path ------------------------------------------------------------

def test_new_refuses_a_bot_seat_with_a_player_key_and_changes_nothing(tmp_path: Path) -> None:
    ok("keygen", "--out", tmp_path / "blue.key")
    games = tmp_path / "games"
    games.mkdir()
    before = snapshot(tmp_path)
    for extra, why in (
        (["--bot", "blue=greedy", "--seat-key", f"blue={tmp_path / 'blue.key.pub'}"], "no player key"),
        (["--bot", "blue=genius"], "no bot level"),
        (["--bot", "pink=greedy"], "not one of the players"),
        (["--bot", "red=random", "--bot", "blue=random"], "at least one human seat"),
        (["--bot-seconds", "2"], "needs a --bot seat"),
        (["--bot", "blue=mcts", "--bot-seconds", "0"], "0.1 to 60.0 seconds"),
        (["--bot", "blue=mcts", "--bot-seconds", "nan"], "0.1 to 60.0 seconds"),
        (["--bot", "blue=mcts", "--bot-seconds", "1e9"], "0.1 to 60.0 seconds"),
    ):
        result = cli("new", "g", "--players", "red,blue", "--games", games, *extra)
        assert result.exit_code == Exit.FORMAT and why in result.stderr, result.stderr
        assert snapshot(tmp_path) == before


def test_the_hosts_bot_seats_think_as_long_as_pbem_new_said(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`pbem new --bot-seconds S` keeps S in host.yaml (the host's, not the log's: a bot's move
    is an ordinary move whatever it cost) and every bot seat's decision gets S."""
    import pbem.bots.levels as levels
    from pbem.host.games import apply_move
    from pbem.host.settings import load_settings
    from pbem.log.moves import parse_move
    from pbem.log.yamlio import dump_yaml
    from pbem.player.nonces import commit_move, reveal_move

    asked: list[tuple[str, float]] = []
    real = levels.make_bot

    def make_bot(level: str, rng: random.Random, seconds: float) -> Bot:
        asked.append((level, seconds))
        return real(level, rng, seconds)

    monkeypatch.setattr(levels, "make_bot", make_bot)
    games = tmp_path / "games"
    ok("new", "g", "--players", "red,blue", "--first", "blue", "--games", games,
       "--bot", "blue=greedy", "--bot-seconds", "0.25")
    assert load_settings(games / "g").bot_seconds == 0.25
    for make in (commit_move, reveal_move):  # red opens the game; blue, first, moves at once
        data = make(load_game(games / "g"), "red", bytes(range(32)))
        apply_move(games, parse_move(dump_yaml(data).encode(), "move"))
    assert asked and all(a == ("greedy", 0.25) for a in asked), asked
    assert load_game(games / "g").state.to_move == "red"  # type: ignore[union-attr]
    # host.yaml edited by hand to a bad value: red's next move is refused before anything is written
    move = tmp_path / "red.yaml"
    ok("bot", "g", "--games", games, "--player", "red", "--level", "random", "--out", move)
    (games / "g" / "host.yaml").write_text("bot_milliseconds: -3\n")
    before = snapshot(games)
    refused = cli("apply", move, "--games", games)
    assert refused.exit_code != 0 and "bot_milliseconds" in refused.stderr, refused.stderr
    assert snapshot(games) == before


def test_pbem_bot_writes_a_legal_move_of_that_seat(tmp_path: Path) -> None:
    games = tmp_path / "games"
    ok("demo", "--play-as", "red", "--player-count", "3", "--games", games, "--seed", "4", "--level", "random")
    game_id = next(p.name for p in games.iterdir() if p.is_dir() and not p.name.startswith("+"))
    refused = cli("bot", game_id, "--games", games, "--player", "green")
    assert refused.exit_code == Exit.STATE and "not to move" in refused.stderr
    out = tmp_path / "m.yaml"
    ok("bot", game_id, "--games", games, "--player", "red", "--level", "greedy", "--out", out)
    assert "ok" in ok("check", out, "--log", games / game_id / LOG_NAME).lower()


def test_play_as_red_against_bots_to_the_end_and_audit(tmp_path: Path) -> None:
    """After each apply the bots answer until it is red's turn again."""
    games = tmp_path / "games"
    out = ok("demo", "--play-as", "red", "--player-count", "4", "--games", games, "--seed", "2", "--level", "random")
    assert "pbem apply" in out and "write your move" in out
    game_id = next(p.name for p in games.iterdir() if p.is_dir() and not p.name.startswith("+"))
    rng = random.Random(2)
    for _ in range(400):
        game = load_game(games / game_id)
        assert game.state is not None
        if game.over:
            break
        assert game.state.to_move == "red"
        move = tmp_path / "move.yaml"
        move.write_text(dump_yaml({"game": game_id, "player": "red", "kind": "move",
                                   "after": {"seq": game.last_seq, "hash": game.last_hash[:16]},
                                   "actions": [a.to_dict() for a in bot_actions(game.state, rng)]}))
        report = ok("apply", move, "--games", games)
        assert "BOT SEATS: blue (random), green (random), yellow (random)" in report
    assert load_game(games / game_id).over
    ok("reveal", game_id, "--games", games)
    audited = ok("audit", games / game_id / LOG_NAME)
    assert "verdict: FAIR" in audited and "BOT SEATS" in audited
    # the minimal verifier (tools/audit_min.py) says so too: the host held those seats
    minimal = subprocess.run([sys.executable, str(ROOT / "tools" / "audit_min.py"), str(games / game_id / LOG_NAME)],
                             capture_output=True, text=True, timeout=120, check=False)
    assert minimal.returncode == 0, minimal.stdout + minimal.stderr
    assert "BOT SEATS: blue (random), green (random), yellow (random) played by the host's bots" in minimal.stdout
    assert minimal.stdout.rstrip().splitlines()[-1] == [
        line for line in audited.splitlines() if line.startswith("verdict: ")][-1]


def test_two_humans_and_two_bots_play_to_the_end_by_mail_and_the_audit_passes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Red and green mail their moves; blue (greedy) and yellow (random) are the
    host's bots, which commit, reveal and play at once after each applied message."""
    monkeypatch.setattr("pbem.mail.replies.board_picture", lambda game, lang="en": None)  # the words only: the
    monkeypatch.setattr("pbem.mail.replies.composer_page", lambda view, to, lang="en": (None, "not here"))  # bots' test
    games, inbox, outbox = tmp_path / "games", tmp_path / "inbox", tmp_path / "outbox"
    mailbox.Maildir(str(inbox), create=True)
    addresses = {"red": "red@example.org", "green": "green@example.net"}
    ok("new", "g", "--players", "red,green,blue,yellow", "--games", games,
       "--seat-email", f"red={addresses['red']}", "--seat-email", f"green={addresses['green']}",
       "--bot", "blue=greedy", "--bot", "yellow=random")
    game = load_game(games / "g")
    assert set(game.commits) == {"blue", "yellow"}  # the bots committed at once (P4)
    from email.message import EmailMessage

    def send(player: str, data: dict[str, Any]) -> None:
        msg = EmailMessage()
        msg["From"], msg["To"], msg["Subject"] = addresses[player], "host@example.org", "move"
        msg.set_content(dump_yaml(data))
        mailbox.Maildir(str(inbox)).add(bytes(msg))
        assert "applied: game g" in ok("mail", "--inbox", inbox, "--outbox", outbox, "--games", games,
                                       "--from", "host@example.org")

    from pbem.player.nonces import commit_move, reveal_move

    nonces = {"red": b"r" * 32, "green": b"g" * 32}
    for player in ("red", "green"):
        send(player, commit_move(load_game(games / "g"), player, nonces[player]))
    for player in ("red", "green"):
        send(player, reveal_move(load_game(games / "g"), player, nonces[player]))
    rng = random.Random(13)
    for _ in range(500):
        game = load_game(games / "g")
        assert game.state is not None
        mover = game.state.to_move
        if mover is None:
            break
        assert mover in addresses  # the bots never leave a human waiting on them
        send(mover, {"game": "g", "player": mover, "kind": "move",
                      "after": {"seq": game.last_seq, "hash": game.last_hash[:16]},
                      "actions": [a.to_dict() for a in bot_actions(game.state, rng)]})
    game = load_game(games / "g")
    assert game.over
    movers = {e.raw["player"] for e in game.entries if e.raw["kind"] == "move"}
    assert movers == {"red", "green", "blue", "yellow"}
    assert game.secret is not None  # P6: revealed by the host's step (pbem new --reveal-secret auto)
    audited = ok("audit", games / "g" / LOG_NAME)
    assert "verdict: FAIR" in audited and "BOT SEATS: blue (greedy), yellow (random)" in audited
    assert "schemas/entry.json" in ok("verify", games / "g" / LOG_NAME)  # options.bots fits the schema
    for player in ("blue", "yellow"):  # a bot seat's looks are in its private file, as a player's
        private = games / "g" / "private" / f"{player}.yaml"
        if private.exists():
            assert all(d["token"] for d in load_stream(private.read_text(), "private"))
