"""`pbem site` costs what changed, never a wrong page: it reads the logs the host's index says changed.

A small host (two finished example games, a game in play, a game with open seats, a fair game
between two people for the standings) and its site.  A build with nothing changed opens no
log and writes no byte; a move has that game's pages made again and no other game's log read;
a host who rewrites a log by hand (the same size: a rat's salt changed and the chain made
again) is seen by `pbem site --check` (the log's size and time), a seat taken in host.yaml by hand once `pbem list
--check` has looked at its size and time; an index deleted, damaged or restored from an old
copy has the site made again from the logs, the same site a first build makes; a new key of
handles renames every player in the standings.
Every log opened is counted by an audit hook (Python's own, on every ``open``).
"""

from __future__ import annotations

import os
import random
import secrets
import shutil
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from clitools import ok, snapshot
from sitetools import open_seats, play_game
from tampering import flip_salt, rechain, write

from pbem.bots.randombot import bot_actions
from pbem.host import index, marks, people
from pbem.host.create import NewGame, create
from pbem.host.games import apply_move, load_game, reveal
from pbem.host.site import build_site
from pbem.host.sitestate import PEOPLE_KEY
from pbem.log.clock import pinned
from pbem.log.logfile import read_docs
from pbem.log.moves import after_of
from pbem.log.records import TurnMove
from pbem.log.records.sent import move_of
from pbem.sim.demo import open_game

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
AT, LATER = "2026-12-01T12:00:00Z", "2026-12-02T08:00:00Z"
ANN, BOB = "ann@one.example", "bob@two.example"

_watching: list[list[str]] = []


def _on_open(event: str, args: tuple[object, ...]) -> None:
    if event == "open" and _watching and isinstance(args[0], (str, os.PathLike)):
        path = os.fspath(args[0])
        if isinstance(path, str) and path.endswith(os.sep + "log.yaml"):
            _watching[-1].append(path)


sys.addaudithook(_on_open)  # for the whole process (a hook cannot be taken back); it counts only inside logs_read


@contextmanager
def logs_read(games: Path) -> Iterator[list[str]]:
    """The games whose log (``GAME/log.yaml`` under ``games``) is opened within the block."""
    opened: list[str] = []
    found: list[str] = []
    _watching.append(opened)
    try:
        yield found
    finally:
        _watching.pop()
        found.extend(sorted({Path(p).parent.name for p in opened if Path(p).parent.parent == games}))


def fair_game(games: Path, game_id: str, seed: int) -> None:
    """A game between two people known by their address: a secret of the host's, each seat's
    nonce (P4), random moves to the end (R6), the secret revealed (P6): it counts."""
    create(games, NewGame(game_id, ("red", "green"), emails={"red": ANN, "green": BOB}))
    game = open_game(games, game_id, {p: random.Random(f"{game_id}/{p}").randbytes(32) for p in ("red", "green")})
    rng = random.Random(seed)
    while game.state is not None and game.state.to_move is not None:
        move = TurnMove.write(game_id, game.state.to_move, after_of(game),
                              [a.to_dict() for a in bot_actions(game.state, rng)])
        game = apply_move(games, move_of(move.to_raw())).game
    reveal(games, game_id)


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    games = tmp_path_factory.mktemp("template") / "games"
    games.mkdir()
    for name in ("rattus-2p", "rattus-3p"):
        shutil.copytree(EXAMPLES / name, games / name)
    play_game(games, "live", ("ann", "dan"), seed=5, turns=2)
    open_seats(games, "open-1", ("north", "east", "south"), taken={"north": "north@example.org"})
    fair_game(games, "fair", seed=3)
    return games


@pytest.fixture
def host(template: Path, tmp_path: Path) -> tuple[Path, Path]:
    """A copy of the template's games (without its index) and their site, built once at ``AT``."""
    games, site = tmp_path / "games", tmp_path / "site"
    shutil.copytree(template, games, ignore=shutil.ignore_patterns(marks.INDEX_DIR))
    with pinned(AT):
        build_site(games, site)
    return games, site


def one_move(games: Path, game_id: str) -> None:
    game = load_game(games / game_id)
    assert game.state is not None and game.state.to_move is not None
    move = TurnMove.write(game_id, game.state.to_move, after_of(game),
                          [a.to_dict() for a in bot_actions(game.state, random.Random(game.last_seq))])
    apply_move(games, move_of(move.to_raw()))


def changed(before: dict[str, str], after: dict[str, str]) -> set[str]:
    return {name for name in before.keys() | after.keys() if before.get(name) != after.get(name)}


def first_build(games: Path, out: Path) -> dict[str, str]:
    """The site a first build makes of the games now, at ``LATER``."""
    with pinned(LATER):
        build_site(games, out)
    return snapshot(out)


def test_a_build_with_nothing_changed_opens_no_log_and_writes_no_byte(host: tuple[Path, Path]) -> None:
    games, site = host
    before = snapshot(site)
    with pinned(LATER), logs_read(games) as read:  # a footer's time would differ, had a page been written
        built = build_site(games, site)
    assert read == [] and built.pages == 0 and built.games == 5
    assert snapshot(site) == before


def test_a_move_has_that_games_pages_made_again_and_no_other_log_read(host: tuple[Path, Path],
                                                                      tmp_path: Path) -> None:
    games, site = host
    before = snapshot(site)
    one_move(games, "live")
    with pinned(LATER), logs_read(games) as read:
        built = build_site(games, site)
    assert read == ["live"]
    assert changed(before, snapshot(site)) == {"games/live.html", "games/live-viewer.html", "games/live.log.yaml",
                                               "index.html", ".pbem-site.json"}  # the standings rate the same
    assert built.pages == 3 + 1
    assert snapshot(site) | {"standings.html": ""} == first_build(games, tmp_path / "fresh") | {"standings.html": ""}


def test_a_log_rewritten_by_hand_to_the_same_size_is_seen(host: tuple[Path, Path], tmp_path: Path) -> None:
    """The host changes a revealed rat's salt and chains every entry again (the stronger cheat,
    P6): the log keeps its size, not its time.  A plain build follows the index, which no host
    write told (it reads no log); `pbem site --check` reads that log alone and shows it refused."""
    games, site = host
    log = games / "rattus-3p" / "log.yaml"
    size = log.stat().st_size
    entries = read_docs(log)[0]
    flip_salt(entries)
    write(log, rechain(entries))
    assert log.stat().st_size == size
    with pinned(LATER), logs_read(games) as read:
        build_site(games, site)
    assert read == []
    with pinned(LATER), logs_read(games) as read:
        build_site(games, site, check=True)
    assert read == ["rattus-3p"]
    card = (site / "games" / "rattus-3p.html").read_text(encoding="utf-8")
    assert 'class="verdict failed"' in card and "verdict: REFUSED" in card
    assert (site / "games" / "rattus-3p.log.yaml").read_bytes() == log.read_bytes()
    fresh = first_build(games, tmp_path / "fresh")
    assert snapshot(site)["games/rattus-3p.html"] == fresh["games/rattus-3p.html"]
    assert snapshot(site)["index.html"] == fresh["index.html"]


def test_a_seat_taken_by_hand_in_host_yaml_is_on_the_index_page_once_the_index_is_checked(
        host: tuple[Path, Path]) -> None:
    """host.yaml is the host's own file, which pbem's commands change and index at once; one
    edited by hand is found by `pbem list --check` (its size and time), and the site follows."""
    games, site = host
    before = snapshot(site)
    assert "2 seats of 3 free" in (site / "index.html").read_text(encoding="utf-8")
    settings = games / "open-1" / "host.yaml"
    text = settings.read_text(encoding="utf-8")
    taken = '  north: "north@example.org"\n'
    assert taken in text
    settings.write_text(text.replace(taken, taken + '  east: "east@example.org"\n'), encoding="utf-8")
    assert ok("list", "--check", "--games", games).splitlines()[0] == (
        "open-1: the index held an older state of its host.yaml; read again")
    with pinned(LATER), logs_read(games) as read:
        build_site(games, site)
    assert read == []  # its log is the one its pages were made from: only its seats changed
    assert changed(before, snapshot(site)) == {"index.html"}
    index_page = (site / "index.html").read_text(encoding="utf-8")
    assert "1 seat of 3 free" in index_page and "2 seats of 3 free" not in index_page


@pytest.mark.parametrize("harm", ["deleted", "damaged", "an old copy"])
def test_an_index_lost_or_stale_makes_the_site_again_from_the_logs(host: tuple[Path, Path], harm: str) -> None:
    """Whatever became of the index, the next build is the site the logs make (every log read),
    byte for byte the site as it was (at the same time on the clock: a footer says when its page
    was made), and the build after it reads no log again."""
    games, site = host
    kept = games.parent / "index-copy"
    shutil.copytree(games / marks.INDEX_DIR, kept)
    one_move(games, "live")
    with pinned(AT):
        build_site(games, site)
    want = snapshot(site)
    db = games / marks.INDEX_DIR / index.DB_NAME
    if harm == "deleted":
        shutil.rmtree(games / marks.INDEX_DIR)
    elif harm == "damaged":
        for name in (index.DB_NAME + "-wal", index.DB_NAME + "-shm"):
            (db.parent / name).unlink(missing_ok=True)
        db.write_bytes(b"not a database\n" * 100)
    else:  # a backup's index, from before the move and that move's build
        shutil.rmtree(games / marks.INDEX_DIR)
        shutil.copytree(kept, games / marks.INDEX_DIR)
    with pinned(AT), logs_read(games) as read:
        build_site(games, site)
    assert "live" in read and snapshot(site) == want
    with pinned(AT), logs_read(games) as read:
        assert build_site(games, site).pages == 0
    assert read == []


def test_a_build_killed_before_its_index_page_leaves_a_site_the_next_build_makes_right(
        host: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The build keeps the rows of the games it looked at, then is killed before it writes the
    index page: the next build does not take the kept rows' word for the page, and writes the
    site a first build makes."""
    games, site = host
    one_move(games, "live")

    def killed(*_args: object) -> str:
        raise KeyboardInterrupt

    monkeypatch.setattr("pbem.host.sitepages._index", killed)
    with pinned(LATER), pytest.raises(KeyboardInterrupt):
        build_site(games, site)
    monkeypatch.undo()
    with pinned(LATER):
        build_site(games, site)
    assert snapshot(site) == first_build(games, tmp_path / "fresh")
    with pinned(LATER), logs_read(games) as read:
        assert build_site(games, site).pages == 0
    assert read == []


def test_a_page_removed_from_the_site_is_made_again(host: tuple[Path, Path]) -> None:
    games, site = host
    before = snapshot(site)
    (site / "games" / "rattus-2p.html").unlink()
    with pinned(AT), logs_read(games) as read:
        build_site(games, site)
    assert read == ["rattus-2p"] and snapshot(site) == before


def test_a_new_key_of_handles_renames_every_player_without_a_log_read(host: tuple[Path, Path]) -> None:
    games, site = host
    old = people.handle(people.people_key(games), ANN)
    assert old in (site / "standings.html").read_text(encoding="utf-8")
    key = games / PEOPLE_KEY
    key.unlink()
    fd = os.open(key, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    os.write(fd, secrets.token_bytes(32))
    os.close(fd)
    with pinned(LATER), logs_read(games) as read:
        build_site(games, site)
    table = (site / "standings.html").read_text(encoding="utf-8")
    assert read == [] and old not in table and people.handle(people.people_key(games), ANN) in table


def test_the_site_names_the_key_of_handles_as_the_standings_do() -> None:
    assert PEOPLE_KEY == people.KEY_NAME
