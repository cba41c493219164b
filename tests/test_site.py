"""`pbem site`: the host's games as a static site, built from the public logs alone.

A small league of real games (the shipped examples, games ann won through the host's own path,
a game in play, an open game, a finished game whose host forged a rat's salt): the index sorts
them by state and says whose turn it is since when, a finished game shows its audit's verdict
and the forged one fails it (P6), the standings count none of these test games, the
build is incremental, and no page depends on a face still hidden (P10): two worlds that differ
only in their hidden faces give the same site, byte for byte.
"""

from __future__ import annotations

import json
import random
import re
import shutil
from html import unescape
from pathlib import Path

import pytest
from clitools import cli, snapshot
from hardening import LeakCheck
from sitetools import open_seats, play_game, tampered_copy, won_by

from pbem.bots.randombot import bot_actions
from pbem.host.games import apply_move, load_game
from pbem.host.site import build_site, open_games, standings_of
from pbem.log.clock import pinned
from pbem.log.moves import after_of, parse_move
from pbem.log.records import TurnMove
from pbem.log.yamlio import dump_yaml
from pbem.views.standings import Result, standings

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
AT = "2026-12-01T12:00:00Z"


@pytest.fixture(scope="module")
def league(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The games folder and its site, built once."""
    root = tmp_path_factory.mktemp("league")
    games = root / "games"
    games.mkdir()
    for name in ("rattus-2p", "rattus-3p"):
        shutil.copytree(EXAMPLES / name, games / name)
    tampered_copy(EXAMPLES / "rattus-4p", games / "rattus-4p")
    won_by(games, "ann-1", ("ann", "bob", "cat"), "ann", seed=0)
    won_by(games, "ann-2", ("bob", "cat", "ann"), "ann", seed=100)
    play_game(games, "in-play", ("ann", "dan"), seed=5, turns=3)
    open_seats(games, "open-1", ("north", "east", "south"), taken={"north": "north@example.org"})
    with pinned(AT):
        build_site(games, root / "site")
    return games, root / "site"


def page(site: Path, name: str) -> str:
    return (site / name).read_text(encoding="utf-8")


def text_of(html: str) -> str:
    """A page's words, its markup taken out (what a reader sees, near enough for a test)."""
    return unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)))


def test_the_index_lists_open_games_games_in_play_and_finished_games(league: tuple[Path, Path]) -> None:
    _games, site = league
    index = text_of(page(site, "index.html"))
    opened, playing, finished = (index.split(word, 1)[1] for word in ("Open games", "In play", "Finished"))
    assert "open-1 2 seats of 3 free; to join, mail the host 'join open-1'" in opened
    game = load_game(_games / "in-play")
    assert game.state is not None and game.state.to_move is not None
    since = game.entries[-1].at  # one move a turn here: the turn began with the last entry
    assert f"in-play ann, dan in play: {game.state.to_move} since {since}" in playing.split("Finished")[0]
    for name in ("rattus-2p", "rattus-3p", "ann-1", "ann-2"):
        assert f"{name} verdict: FAIR" in finished
    assert "open-1" not in playing  # an open game waits for players, not for a move


def test_a_finished_games_page_shows_its_audit_verdict_and_places(league: tuple[Path, Path]) -> None:
    _games, site = league
    card = text_of(page(site, "games/rattus-3p.html"))
    assert "verdict: FAIR. The rat order was fixed at the start and never touched" in card
    assert "winner blue (R6.5); cubes on the board, the palace included: blue 12, red 10, green 9" in card
    assert (site / "games" / "rattus-3p.log.yaml").read_bytes() == (EXAMPLES / "rattus-3p" / "log.yaml").read_bytes()
    viewer = page(site, "games/rattus-3p-viewer.html")
    assert "verdict: FAIR" in viewer  # the `pbem html` viewer, with the audit from the reveal on


def test_p6_a_forged_salt_fails_the_audit_on_the_site(league: tuple[Path, Path]) -> None:
    _games, site = league
    card = page(site, "games/rattus-4p.html")
    assert 'class="verdict failed"' in card
    assert "verdict: REFUSED. The log does not verify at entry" in text_of(card)
    assert "verdict: REFUSED" in text_of(page(site, "index.html")).split("rattus-4p", 1)[1][:40]
    assert "yellow" not in page(site, "standings.html")  # a forged game counts for nobody


def test_test_games_and_seats_held_by_no_address_rate_nobody(league: tuple[Path, Path]) -> None:
    """Every finished game here had its secret supplied (TEST GAME) and no seat an address: no
    person to rate, and the page says which games count (tests/test_standings_people.py rates people)."""
    games, site = league
    assert standings_of(games) == []
    table = text_of(page(site, "standings.html"))
    assert "Over 0 games that count." in table and "Test games, games with bot seats" in table, table
    assert not re.search(r"\b(ann|bob|cat)\b", table), table


def test_standings_order_a_field_that_finishes_in_the_same_order_every_time() -> None:
    """Four games of the same three players, always ann, then bob, then cat: that order, and
    a newcomer with one win over them sits below ann, who won four."""
    results = [Result(f"g{n}", f"2026-01-0{n + 1}", ("ann", "bob", "cat")) for n in range(4)]
    assert [row.player for row in standings(results)] == ["ann", "bob", "cat"]
    with_newcomer = [*results, Result("g9", "2026-01-09", ("dan", "bob", "cat"))]
    order = [row.player for row in standings(with_newcomer)]
    assert order.index("ann") < order.index("dan") and order[-1] == "cat"


def test_a_build_with_nothing_changed_writes_nothing(league: tuple[Path, Path]) -> None:
    games, site = league
    before = snapshot(site)
    with pinned("2031-01-01T00:00:00Z"):  # a footer's time would differ, had anything been written
        built = build_site(games, site)
    assert built.pages == 0 and snapshot(site) == before


def test_a_move_rebuilds_that_games_pages_alone(tmp_path: Path) -> None:
    games, site = tmp_path / "games", tmp_path / "site"
    games.mkdir()
    shutil.copytree(EXAMPLES / "rattus-2p", games / "rattus-2p")
    game = play_game(games, "live", ("ann", "bob"), seed=3, turns=2)
    build_site(games, site)
    finished = (site / "games" / "rattus-2p-viewer.html").stat().st_mtime_ns
    assert game.state is not None and game.state.to_move is not None
    move = TurnMove.write("live", game.state.to_move, after_of(game),
                          [a.to_dict() for a in bot_actions(game.state, random.Random(1))])
    apply_move(games, parse_move(dump_yaml(move.to_raw()).encode()))
    assert build_site(games, site).pages == 3 + 1  # its card, viewer and log; the index (the standings rate nobody)
    assert (site / "games" / "rattus-2p-viewer.html").stat().st_mtime_ns == finished
    assert f"last entry {game.last_seq + 1} at" in text_of(page(site, "games/live.html"))
    shutil.rmtree(games / "live")
    build_site(games, site)
    assert not list((site / "games").glob("live*")) and "live" not in page(site, "index.html")


def test_the_site_folder_must_be_new_empty_or_a_site(tmp_path: Path) -> None:
    games, out = tmp_path / "games", tmp_path / "out"
    games.mkdir()
    out.mkdir()
    (out / "notes.txt").write_text("mine\n")
    before = snapshot(tmp_path)
    result = cli("site", "--games", games, "--site", out)
    assert result.exit_code != 0 and "holds files that pbem did not make" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and snapshot(tmp_path) == before


def test_pbem_site_on_the_command_line(tmp_path: Path) -> None:
    games = tmp_path / "games"
    games.mkdir()
    shutil.copytree(EXAMPLES / "rattus-3p", games / "rattus-3p")
    result = cli("site", "--games", games, "--site", tmp_path / "site")
    assert result.exit_code == 0, result.stderr
    assert "1 games; 5 pages written" in result.output


def test_open_games_are_the_games_with_a_free_seat(league: tuple[Path, Path]) -> None:
    games, _site = league
    assert [(g.game_id, g.seats, g.free) for g in open_games(games)] == [("open-1", 3, 2)]


def test_p10_the_site_is_the_same_in_two_worlds_that_differ_only_in_hidden_faces(tmp_path: Path) -> None:
    """A game in play copied into a second world whose secret, Witch looks and addresses are
    others: the same public log, other hidden facts; both sites are the same byte for byte, and
    no page shows a face-down rat's face or salt."""
    one, two = tmp_path / "one", tmp_path / "two"
    one.mkdir()
    game = play_game(one, "deep", ("ann", "bob", "cat"), seed=11, turns=14)
    assert game.state is not None and game.state.to_move is not None
    two.mkdir()
    shutil.copytree(one / "deep", two / "deep")
    (two / "deep" / "secret.yaml").write_text(f"secret: {'5a' * 32}\nmade: supplied\n")
    private = two / "deep" / "private"
    private.mkdir(exist_ok=True)
    for seat in game.players:  # other Witch looks, or looks where there were none
        (private / f"{seat}.yaml").write_text(f"# {seat}: other looks\n")
    (two / "deep" / "host.yaml").write_text("emails: {ann: ann@elsewhere.example}\n")
    for cache in (two / "deep").glob("*.cache"):
        cache.unlink()
    with pinned(AT):
        build_site(one, tmp_path / "site-one")
        build_site(two, tmp_path / "site-two")
    assert snapshot(tmp_path / "site-one") == snapshot(tmp_path / "site-two")
    leak = LeakCheck(one / "deep")
    for path in sorted((tmp_path / "site-one").rglob("*.html")):
        leak.check(path.read_text(encoding="utf-8"), game, path.name)
    assert leak.leaks == [] and leak.checked >= 4
    assert "ann@" not in "".join(snapshot(tmp_path / "site-two").values())


def test_a_hostile_log_is_shown_as_words_never_as_markup(tmp_path: Path) -> None:
    """A log whose text is markup: refused (P2, P7), and its words on the site are escaped."""
    games = tmp_path / "games"
    (games / "evil").mkdir(parents=True)
    entry = {"seq": 0, "prev": "0" * 64, "at": AT, "kind": "<script>alert(1)</script>"}
    (games / "evil" / "log.yaml").write_text(f"--- {json.dumps(entry)}\n")
    build_site(games, tmp_path / "site")
    for name in ("index.html", "games/evil.html"):
        shown = page(tmp_path / "site", name)
        assert "<script" not in shown and "&lt;script&gt;alert(1)&lt;/script&gt;" in shown, name
        assert "verdict: REFUSED" in shown, name


@pytest.mark.parametrize(("lang", "word"), [("hu", "Ranglista"), ("el", "Κατάταξη"), ("uk", "Рейтинг")])
def test_the_site_in_a_players_language(tmp_path: Path, lang: str, word: str) -> None:
    """The pages in the host's language; the verdict keeps its word, FAIR, as `pbem audit` does."""
    games = tmp_path / "games"
    games.mkdir()
    shutil.copytree(EXAMPLES / "rattus-3p", games / "rattus-3p")
    result = cli("site", "--games", games, "--site", tmp_path / "site", "--lang", lang)
    assert result.exit_code == 0, result.stderr
    index = page(tmp_path / "site", "index.html")
    assert f'<html lang="{lang}">' in index and word in index and "FAIR" in index
    assert "Finished" not in index  # every heading said in the language


def test_a_build_shared_over_processes_writes_the_same_pages(league: tuple[Path, Path], tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """A first build of many games draws them in several processes; each game's pages are the
    ones a build in one process writes, byte for byte."""
    games, _site = league
    monkeypatch.setattr("pbem.host.sitepages.PARALLEL_FROM", 10**9)
    one = build_site(games, tmp_path / "one")
    monkeypatch.setattr("pbem.host.sitepages.PARALLEL_FROM", 2)
    monkeypatch.setattr("os.cpu_count", lambda: 2)
    shared = build_site(games, tmp_path / "shared")
    assert one == shared and one.pages > 10
    pages = sorted(p.name for p in (tmp_path / "one" / "games").iterdir())
    assert pages == sorted(p.name for p in (tmp_path / "shared" / "games").iterdir())
    for name in pages:
        assert (tmp_path / "one" / "games" / name).read_bytes() == (tmp_path / "shared" / "games" / name).read_bytes()
