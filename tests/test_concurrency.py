"""P7: appends are serialized.  Rival processes on one game: exactly one move is
accepted, every other is refused as stale (exit 5) and says why; one process per
game on many games: every move lands.  No lost update, no interleaved entry.
P4's opening, all mailed at once: every commitment and nonce lands (they answer
entry 0), the game starts once, and a waiver never lands after a reveal.
(Larger runs, and SIGKILLs during appends: test_stress_slow.py, bench/stress.py.)"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

from hardening import PBEM, SECRET, judge, make_game, race_many_games, race_one_game, read_log_checked

from pbem.errors import Exit
from pbem.host.create import NewGame, create
from pbem.host.games import apply_move, load_game
from pbem.log.moves import parse_move
from pbem.log.yamlio import dump_yaml, load_one
from pbem.player.nonces import commit_move, reveal_move
from pbem.sim.demo import open_game
from pbem.sim.simulate import PLAYER_NAMES


def test_rival_moves_for_one_turn_one_wins(tmp_path: Path) -> None:
    games, inbox = tmp_path / "games", tmp_path / "inbox"
    inbox.mkdir()
    make_game(games, "race", n_players=4, seed=3, moves=6)
    result = race_one_game(games, "race", 6, seed=1, inbox=inbox)
    assert result.other == []
    assert (result.accepted, result.stale, result.lost, result.torn) == (1, 5, 0, 0)


def test_one_process_per_game_all_land(tmp_path: Path) -> None:
    games, inbox = tmp_path / "games", tmp_path / "inbox"
    inbox.mkdir()
    ids = [f"g{i}" for i in range(4)]
    for i, g in enumerate(ids):
        make_game(games, g, n_players=2 + i % 3, seed=i, moves=3)
    result = race_many_games(games, ids, seed=5, inbox=inbox)
    assert result.other == []
    assert (result.accepted, result.lost, result.torn) == (4, 0, 0)


# --- P4: the opening, with every player mailing at once ------------------------------------

NONCES = {p: bytes([i + 1]) * 16 for i, p in enumerate(PLAYER_NAMES[:4])}


def _together(games: Path, commands: list[list[str]]) -> list[tuple[int, str]]:
    """Start every ``pbem`` command at once; each one's exit code and stderr, in order."""
    procs = [subprocess.Popen([*PBEM, *c, "--games", str(games)], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for c in commands]
    out = []
    for c, p in zip(commands, procs, strict=True):
        stdout, stderr = p.communicate(timeout=120)
        judge(p.returncode, stderr, stdout, " ".join(c))
        out.append((p.returncode, stderr))
    return out


def _files(inbox: Path, moves: dict[str, dict[str, Any]], suffix: str) -> list[Path]:
    files = []
    for player, move in moves.items():
        f = inbox / f"{player}-{suffix}.yaml"
        f.write_text(dump_yaml(move), encoding="utf-8")
        files.append(f)
    return files


def test_every_seat_commits_and_reveals_at_once(tmp_path: Path) -> None:
    """P4, P7: commitments and nonces all answer entry 0, so four arriving at once are all
    recorded (none is stale), in some order; the last reveal, whichever it is, starts the
    game exactly once, with the same deal as an opening played one mail at a time (the
    seed takes the nonces in seat order, not in order of arrival)."""
    games, inbox = tmp_path / "games", tmp_path / "inbox"
    inbox.mkdir()
    players = PLAYER_NAMES[:4]
    path = create(games, NewGame("race", players, secret=SECRET))
    game = load_game(path)
    commits = _files(inbox, {p: commit_move(game, p, NONCES[p]) for p in players}, "commit")
    assert [code for code, _ in _together(games, [["apply", str(f)] for f in commits])] == [0, 0, 0, 0]
    entries, _ = read_log_checked(path)
    assert sorted(e["player"] for e in entries[1:]) == sorted(players)
    assert [e["kind"] for e in entries] == ["create"] + ["commit"] * 4

    reveals = _files(inbox, {p: reveal_move(game, p, NONCES[p]) for p in players}, "nonce")
    assert [code for code, _ in _together(games, [["apply", str(f)] for f in reveals])] == [0, 0, 0, 0]
    entries, _ = read_log_checked(path)
    assert [e["kind"] for e in entries] == ["create"] + ["commit"] * 4 + ["nonce"] * 4 + ["start"]

    one_by_one = tmp_path / "one-by-one"
    create(one_by_one, NewGame("race", players, secret=SECRET))
    start = open_game(one_by_one, "race", NONCES).entries[-1]
    assert (entries[-1]["setup"], entries[-1]["commitments"]) == (start.raw["setup"], start.raw["commitments"])


def test_one_commitment_mailed_twice_at_once(tmp_path: Path) -> None:
    """P7: the same commitment applied by two processes at once is recorded once; the
    other is refused as already applied (exit 5)."""
    games, inbox = tmp_path / "games", tmp_path / "inbox"
    inbox.mkdir()
    path = create(games, NewGame("twice", PLAYER_NAMES[:2], secret=SECRET))
    (f,) = _files(inbox, {"red": commit_move(load_game(path), "red", NONCES["red"])}, "commit")
    results = _together(games, [["apply", str(f)], ["apply", str(f)]])
    assert sorted(code for code, _ in results) == [Exit.OK, Exit.STALE]
    assert "already applied, as entry 1" in next(err for code, err in results if code == Exit.STALE)
    entries, _ = read_log_checked(path)
    assert [e["kind"] for e in entries] == ["create", "commit"]


def test_two_commitments_from_one_player_at_once(tmp_path: Path) -> None:
    """P4: a player who mails two different commitments at once has exactly one recorded;
    the other is refused (a commitment cannot be changed), whichever came second."""
    games, inbox = tmp_path / "games", tmp_path / "inbox"
    inbox.mkdir()
    path = create(games, NewGame("two", PLAYER_NAMES[:2], secret=SECRET))
    game = load_game(path)
    files = [_files(inbox, {"red": commit_move(game, "red", bytes([n]) * 16)}, f"commit-{n}")[0] for n in (1, 2)]
    results = _together(games, [["apply", str(f)] for f in files])
    assert sorted(code for code, _ in results) == [Exit.OK, Exit.RULES]
    assert "red has already committed" in next(err for code, err in results if code == Exit.RULES)
    entries, _ = read_log_checked(path)
    winner = files[[code for code, _ in results].index(Exit.OK)]
    assert [e["kind"] for e in entries] == ["create", "commit"]
    assert entries[1]["move"] == load_one(winner.read_text(), "commit")


def test_a_waiver_never_lands_after_a_reveal(tmp_path: Path) -> None:
    """P4: the host may waive only a seat that has not committed, before the first nonce is
    revealed, and a nonce is revealed only once every seat has committed or been waived. A
    waiver of the one uncommitted seat and a reveal applied at the same moment: either the
    waiver lands first and both are recorded, or the reveal comes too early and is refused
    (exit 10) while the waiver lands; never a waiver after a nonce, which would let the host
    choose between two seeds."""
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    players = PLAYER_NAMES[:3]
    for round_ in range(6):
        games = tmp_path / f"games-{round_}"
        path = create(games, NewGame("waive", players, secret=SECRET))
        game = load_game(path)
        for p in players[:2]:
            apply_move(games, parse_move(dump_yaml(commit_move(game, p, NONCES[p])).encode()))
        (reveal,) = _files(inbox, {players[0]: reveal_move(game, players[0], NONCES[players[0]])}, f"n{round_}")
        results = _together(games, [["waive", "waive", "--player", players[2]], ["apply", str(reveal)]])
        codes = [code for code, _ in results]
        entries, _ = read_log_checked(path)
        tail = [e["kind"] for e in entries[3:]]
        if codes == [Exit.OK, Exit.OK]:
            assert tail == ["waive", "nonce"]
        else:
            assert codes == [Exit.OK, Exit.STATE], results
            assert "every seat has committed or been waived" in results[1][1]
            assert tail == ["waive"]
