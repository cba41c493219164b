"""`pbem show` (neighbours, cubes, --at, --svg, --png), `pbem history`,
`pbem list`, the board as SVG/PNG (P10: no hidden face in any picture), the report
mail's inline PNG, and `pbem html` driven in a real headless Chromium."""

from __future__ import annotations

import ast
import json
import mailbox
import os
import re
import shutil
import struct
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from clitools import cli, ok, snapshot
from picturetools import Drawn, browse, chromium, csp_reports

from pbem.errors import Exit
from pbem.host.games import abandon, apply_move, game_dir, load_game
from pbem.log.logfile import LOG_NAME
from pbem.log.moves import parse_move
from pbem.log.records import Entry
from pbem.log.yamlio import dump_yaml
from pbem.player.nonces import commit_move
from pbem.referee.audit import host_faces
from pbem.sim.demo import open_game, play_demo
from pbem.views.layout import HEIGHT, MAP_WIDTH
from pbem.views.svg import board_svg, map_svg
from pbem.views.timeline import game_at, read_checked

PLAYERS = ("red", "green", "blue")
SECRET = bytes(range(32))
NONCES = {p: bytes([i + 1]) * 32 for i, p in enumerate(PLAYERS)}
ROOT = Path(__file__).resolve().parent.parent
SVG_NS = "{http://www.w3.org/2000/svg}"


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A whole seeded test game, revealed: the games folder holding game 'g'."""
    games = tmp_path_factory.mktemp("pictures") / "games"
    play_demo(games, 3, seed=11, echo=None, summary=lambda _line: None, game_id="g",
              secret=SECRET, nonces=NONCES)
    return games


def entries_of(games: Path) -> tuple[list[Entry], list[str]]:
    return read_checked(games / "g" / LOG_NAME)


def mid_game_seq(games: Path) -> int:
    """An entry in the middle of play with rats on the board and cubes placed."""
    entries, _hashes = entries_of(games)
    start = next(e.seq for e in entries if e.raw["kind"] == "start")
    return (start + len(entries)) // 2


# --- pbem show -------------------------------------------------------------------------

def test_show_lists_each_regions_neighbours_and_each_players_cubes_on_the_board(finished: Path) -> None:
    seq = mid_game_seq(finished)
    entries, hashes = entries_of(finished)
    game = game_at(entries, hashes, seq)
    assert game.state is not None
    text = ok("show", "g", "--games", finished, "--at", str(seq))
    for region in game.state.regions:
        names = ", ".join(game.board.name_of(n) for n in game.state.neighbours[region])
        assert f"neighbours: {names}" in text
    counts = {p: sum(game.state.cubes[r].get(p, 0) for r in game.state.regions) for p in PLAYERS}
    assert sum(counts.values()) > 0
    scores = game.state.scores()  # R6.5: the text counts the palace too
    assert "cubes on the board (the palace included): " + ", ".join(f"{p} {scores[p]}" for p in PLAYERS) in text
    data = json.loads(ok("show", "g", "--games", finished, "--at", str(seq), "--json"))
    assert data["last_entry"]["seq"] == seq
    assert data["on_board"] == counts
    assert data["regions"]["gallia"]["neighbours"] == list(game.state.neighbours["gallia"])


def test_show_at_is_the_replay_of_the_logs_prefix(finished: Path) -> None:
    entries, _hashes = entries_of(finished)
    last = json.loads(ok("show", "g", "--games", finished, "--json"))
    assert json.loads(ok("show", "g", "--games", finished, "--json", "--at", str(len(entries) - 1))) == last
    start = next(e.raw["seq"] for e in entries if e.raw["kind"] == "start")
    before = json.loads(ok("show", "g", "--games", finished, "--json", "--at", str(start - 1)))
    assert before["started"] is False
    at_start = json.loads(ok("show", "g", "--games", finished, "--json", "--at", str(start)))
    assert at_start["plague"] == entries[start].raw["setup"]["plague"]


def test_show_refuses_an_entry_the_log_does_not_have_and_files_it_would_overwrite(
        finished: Path, tmp_path: Path) -> None:
    n = len(entries_of(finished)[0])
    before = snapshot(finished)
    result = cli("show", "g", "--games", finished, "--at", str(n))
    assert result.exit_code == Exit.UNKNOWN
    assert f"there is no entry {n}" in result.stderr and "(P7)" in result.stderr
    taken = tmp_path / "board.svg"
    taken.write_text("mine")
    result = cli("show", "g", "--games", finished, "--svg", taken)
    assert result.exit_code == Exit.STATE and "pbem does not overwrite files" in result.stderr
    assert taken.read_text() == "mine"
    result = cli("show", "g", "--games", finished, "--png", tmp_path / "no-such-dir" / "b.png")
    assert result.exit_code == Exit.UNKNOWN and "does not exist" in result.stderr
    assert snapshot(finished) == before


# --- pbem history and pbem list ----------------------------------------------------------

def test_history_tells_every_entry_in_order_with_its_events(finished: Path) -> None:
    entries, _ = entries_of(finished)
    text = ok("history", "g", "--games", finished)
    heads = [int(m) for m in re.findall(r"^entry (\d+):", text, re.M)]
    assert heads == list(range(len(entries)))
    assert "the host creates game g for red, green, blue" in text
    assert "nonce commitment recorded (P4)" in text
    assert re.search(r"^entry \d+: the game starts; first player \w+, plague in [A-Z]\w+", text, re.M)
    assert re.search(r"^  \w+ places 2 cubes in [A-Z]\w+$", text, re.M)
    assert re.search(r"^  the plague moves to ", text, re.M)
    assert re.search(r"^  rat t\d\d in \w+ is [SN]\d\d \(threshold \d", text, re.M)  # revealed by the flip
    assert re.search(r"^  game over: red \d+, green \d+, blue \d+; \w+ wins$", text, re.M)
    assert "the secret is revealed" in text
    assert text.rstrip().splitlines()[-1].startswith("now: the game is over: ")
    for entry in entries:  # each headline carries its entry's time
        assert f"[{entry.raw['at']}]" in text


def test_list_shows_every_game_its_state_who_is_to_move_and_since_when(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    games = tmp_path / "games"
    play_demo(games, 2, seed=5, echo=None, summary=lambda _line: None, game_id="done",
              secret=SECRET, nonces={"red": NONCES["red"], "green": NONCES["green"]})
    monkeypatch.setenv("PBEM_NOW", "2026-11-30T09:00:00Z")  # pbem/log/clock.py: the entries' 'at'
    ok("new", "fresh", "--players", "red,blue", "--games", games)
    ok("new", "playing", "--players", "red,blue", "--first", "blue", "--games", games)
    ok("new", "gone", "--players", "red,blue", "--games", games)
    ok("new", "halfway", "--players", "red,blue", "--games", games)
    monkeypatch.setenv("PBEM_NOW", "2026-11-30T10:30:00Z")
    open_game(games, "playing", {"red": NONCES["red"], "blue": NONCES["blue"]})
    abandon(games, "gone")
    for player in ("red", "blue"):  # P4 round 1 done: round 2 waits for both since the last commit
        game = load_game(game_dir(games, "halfway"))
        apply_move(games, parse_move(dump_yaml(commit_move(game, player, NONCES[player])).encode()))
    lines = ok("list", "--games", games).splitlines()
    assert [line.split(":")[0] for line in lines] == ["done", "fresh", "gone", "halfway", "playing"]
    done, fresh, gone, halfway, playing = lines
    assert done.startswith("done: over, secret revealed since ")
    assert fresh == ("fresh: opening round 1 of 2; red, blue to commit to a nonce (P4) "
                     "since 2026-11-30T09:00:00Z (entry 0); last entry 0")
    assert gone == "gone: abandoned since 2026-11-30T10:30:00Z (entry 1); last entry 1"
    assert halfway == ("halfway: opening round 2 of 2; red, blue to reveal their nonce (P4) "
                       "since 2026-11-30T10:30:00Z (entry 2); last entry 2")
    start = len(read_checked(games / "playing" / LOG_NAME)[0]) - 1
    assert playing == (f"playing: in play; blue to move since 2026-11-30T10:30:00Z (entry {start}); "
                       f"last entry {start}")


def test_list_says_where_it_looked_when_there_is_no_game(tmp_path: Path) -> None:
    out = ok("list", "--games", tmp_path)
    assert out.startswith("no games in ") and "--games" in out


# --- the board as a picture (P10) -------------------------------------------------------------

def hidden_faces(games: Path, seq: int) -> tuple[set[str], set[str]]:
    """(the public names face down on the board at ``seq``, every face id still hidden then)."""
    entries, hashes = entries_of(games)
    game = game_at(entries, hashes, seq)
    assert game.state is not None
    faces = host_faces(game, SECRET)  # the test knows the secret: it supplied it
    flipped = {ev["token"] for e in entries[: seq + 1] if e.raw["kind"] == "move"
               for ev in e.raw["outcome"] if ev["event"] == "token_flipped"}
    on_board = {t for r in game.state.regions for t in game.state.rats[r]}
    names = [faces.deal.name(i) for i in range(1, 50)]
    return on_board, {faces.deal.id_of(t) for t in names if t not in flipped}


def test_the_svg_is_xml_with_every_region_and_face_down_rat_and_no_hidden_face(finished: Path) -> None:
    seq = mid_game_seq(finished)
    entries, hashes = entries_of(finished)
    game = game_at(entries, hashes, seq)
    svg = board_svg(game)
    root = ET.fromstring(svg)
    assert root.tag == f"{SVG_NS}svg"
    texts = {el.text for el in root.iter(f"{SVG_NS}text")}
    for region in game.board.regions:
        assert region.name in texts
    on_board, hidden = hidden_faces(finished, seq)
    assert on_board and hidden
    drawn = {el.get("data-token") for el in root.iter(f"{SVG_NS}g") if el.get("class") == "rat"}
    assert drawn == on_board
    assert on_board <= texts
    ids = {t.id for t in game.catalogue.tokens}
    shown = set(re.findall(r"[A-Za-z0-9]+", svg))
    assert not (shown & hidden), "P10: a hidden face is in the picture"
    assert not (shown & ids), "the picture shows no face at all, flipped or not"
    assert game.state is not None
    plague = [el.get("data-region") for el in root.iter(f"{SVG_NS}g") if el.get("class") == "plague"]
    assert plague == [game.state.plague]
    cards = {el.get("data-card"): el.get("data-holder") for el in root.iter(f"{SVG_NS}g")
             if el.get("class") == "card"}
    assert game.state is not None
    assert cards == {c: h or "" for c, h in game.state.cards.items()}


def test_the_builder_marks_the_changed_regions_and_draws_the_map_alone(finished: Path) -> None:
    """Highlights and the map-only view are the builder's parameters (as python-chess's
    ``svg.board(..., lastmove=, fill=)``): no markup is edited after it is built."""
    entries, hashes = entries_of(finished)
    game = game_at(entries, hashes, mid_game_seq(finished))
    state = game.state
    assert state is not None
    marked = sorted(state.regions)[:2]
    root = ET.fromstring(board_svg(game, changed=marked))
    groups = {str(g.get("data-region")): g for g in root.iter(f"{SVG_NS}g") if g.get("class") == "region"}
    assert sorted(r for r, g in groups.items() if g.get("data-changed") == "true") == marked
    assert ET.fromstring(board_svg(game)).find(f".//{SVG_NS}g[@data-changed]") is None
    plain = ET.fromstring(map_svg(game))
    assert plain.get("viewBox") == f"0 0 {MAP_WIDTH} {HEIGHT}" and plain.get("width") == str(MAP_WIDTH)


def test_no_view_edits_markup_after_the_builder() -> None:
    """No view, report or page module rewrites a drawing or a page with a regular expression or
    by replacing one of its attributes: the builder says it all (tests it above)."""
    offenders = []
    for path in sorted([*(ROOT / "pbem" / "views").glob("*.py"), *(ROOT / "pbem" / "mail").glob("*.py")]):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
                continue
            regex = isinstance(node.func.value, ast.Name) and node.func.value.id == "re" and node.func.attr in (
                "sub", "subn")
            markup = node.func.attr == "replace" and any(
                isinstance(a, ast.Constant) and isinstance(a.value, str) and ('="' in a.value or "viewBox" in a.value)
                for a in node.args)
            if regex or markup:
                offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert offenders == []


def test_the_svg_of_a_custom_map_places_unknown_regions_apart(finished: Path) -> None:
    entries, hashes = entries_of(finished)
    game = game_at(entries, hashes, 0)
    renamed = game.board.__class__(
        tuple(r.__class__("atlantis" if r.id == "anglia" else r.id, r.name, r.shade) for r in game.board.regions),
        tuple((("atlantis" if a == "anglia" else a), b, k) for a, b, k in game.board.links),
        game.board.shades_for,
    )
    fields: dict[str, Any] = {f: renamed if f == "board" else getattr(game.facts, f) for f in game.facts._fields}
    game.facts = game.facts.__class__(**fields)
    root = ET.fromstring(board_svg(game))
    boxes = []
    for g in root.iter(f"{SVG_NS}g"):
        if g.get("class") == "region":
            rect = g.find(f"{SVG_NS}rect")
            assert rect is not None
            boxes.append((float(rect.get("x", 0)), float(rect.get("y", 0))))
    assert len(boxes) == 12
    for i, (x1, y1) in enumerate(boxes):  # no two boxes overlap
        for x2, y2 in boxes[i + 1:]:
            assert abs(x1 - x2) >= 190 or abs(y1 - y2) >= 118


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert data[12:16] == b"IHDR"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def test_show_draws_svg_and_png_files(finished: Path, tmp_path: Path) -> None:
    svg, png = tmp_path / "board.svg", tmp_path / "board.png"
    ok("show", "g", "--games", finished, "--at", str(mid_game_seq(finished)), "--svg", svg, "--png", png)
    ET.fromstring(svg.read_text(encoding="utf-8"))
    data = png.read_bytes()
    assert png_size(data) == (1300, 780)
    assert len(data) > 20_000  # a drawing, not an empty canvas


def test_pbem_apply_does_not_load_the_picture_modules() -> None:
    code = "import sys, pbem.cli, pbem.host.games, pbem.views.report; print(sorted(m for m in sys.modules if " \
           "m.startswith(('pbem.views.svg', 'pbem.views.html', 'resvg'))))"
    out = subprocess.run(["python", "-c", code], capture_output=True, text=True, check=True,
                         env={**os.environ, "PYTHONPATH": str(ROOT)}, cwd=ROOT)
    assert out.stdout.strip() == "[]"


def test_report_mails_carry_the_board_inline_after_the_text(tmp_path: Path) -> None:
    from mailtools import HOST, commit, deliver, eml, setup_game

    games, inbox = setup_game(tmp_path, key_for_red=False)
    outbox = tmp_path / "outbox"
    deliver(inbox, eml("blue@example.net", commit(games, "blue")))
    ok("mail", "--inbox", inbox, "--outbox", outbox, "--games", games, "--from", HOST)
    sent = [m for _k, m in mailbox.Maildir(str(outbox), create=False).items()]
    reports = [m for m in sent if "] entry " in str(m["Subject"])]
    assert reports
    pictures = 0
    for report in reports:
        parts = [p for p in report.walk() if not p.is_multipart()]
        assert parts[0].get_content_type() == "text/plain"
        if parts[1].get_content_type() == "text/html":  # a seat with a part to send: its page draws the board
            assert "round 1 of 2" in str(report["Subject"]) and (parts[1].get_filename() or "").endswith(".html")
            continue
        assert parts[1].get_content_type() == "image/png"
        assert parts[1].get_content_disposition() == "inline"
        data = parts[1].get_payload(decode=True)
        assert isinstance(data, bytes) and png_size(data) == (800, 624)  # the map alone, small
        assert len(data) < 60_000
        pictures += 1
    assert pictures  # the seat that sent the commitment gets the picture


# --- pbem html in a real browser ------------------------------------------------------------

def test_the_html_page_is_one_file_that_loads_nothing(finished: Path, tmp_path: Path) -> None:
    page = tmp_path / "game.html"
    out = ok("html", finished / "g" / LOG_NAME, "-o", page)
    n = len(entries_of(finished)[0])
    assert f"{n} entries" in out
    text = page.read_text(encoding="utf-8")
    assert "default-src 'none'" in text  # the page may fetch nothing (Content-Security-Policy)
    assert not re.search(r"""(src|href)\s*=|<link|@import|url\((?!#)""", text)
    urls = set(re.findall(r"https?://[^\s\"'<>)\\]+", text))
    assert urls <= {"http://www.w3.org/2000/svg"}  # the SVG namespace, a name, never fetched
    assert "verdict: FAIR." in text
    result = cli("html", finished / "g" / LOG_NAME, "-o", page)
    assert result.exit_code == Exit.STATE and "does not overwrite" in result.stderr


def test_the_page_in_a_real_browser_shows_each_entry_as_pbem_show_does(finished: Path) -> None:
    if shutil.which("chromium") is None:
        pytest.skip("no browser: Debian's 'chromium' is not installed (.ci/run installs it with apt-get)")
    artifacts = ROOT / "test-artifacts"
    artifacts.mkdir(exist_ok=True)
    page = artifacts / "game.html"
    page.unlink(missing_ok=True)
    ok("html", finished / "g" / LOG_NAME, "-o", page)
    entries, _ = entries_of(finished)
    for seq in (mid_game_seq(finished), len(entries) - 1):
        drawn = browse(page, seq)
        assert drawn.entry == str(seq), "the page honours #entry=N (so its script ran under the CSP)"
        shown = json.loads(ok("show", "g", "--games", finished, "--json", "--at", str(seq)))
        assert drawn.rats == {r: v["rats"] for r, v in shown["regions"].items()}
        assert drawn.cubes == {r: v["cubes"] for r, v in shown["regions"].items()}
        assert drawn.plague == [shown["plague"]]
        assert drawn.looks["compact"] == drawn.looks["standard"]  # a phone's drawing shows the same pieces
        words = "".join(drawn.words)
        assert f"entry {seq}: " in words
        assert ("verdict: FAIR." in words) == (entries[seq].raw["kind"] == "reveal")
    shot = artifacts / "game-entry.png"
    shot.unlink(missing_ok=True)
    chromium("--hide-scrollbars", "--window-size=1340,1200", f"--screenshot={shot}",
             f"{page.as_uri()}#entry={mid_game_seq(finished)}")
    assert png_size(shot.read_bytes()) == (1340, 1200)
    print(f"screenshot of the page at entry {mid_game_seq(finished)}: {shot}")


def test_the_browser_check_sees_a_refused_handler_and_a_tampered_hash(finished: Path, tmp_path: Path) -> None:
    """The CSP checks above can fail: an inline handler is refused and reported, and a script whose
    hash is not the policy's does not run (the page shows no entry)."""
    page = tmp_path / "game.html"
    ok("html", finished / "g" / LOG_NAME, "-o", page)
    text = page.read_text(encoding="utf-8")
    assert "unsafe-inline" not in text and re.search(r"script-src 'sha256-[A-Za-z0-9+/]{43}='", text)
    handler = tmp_path / "handler.html"
    handler.write_text(text.replace('<div id="verdict"></div>',
                                    '<div id="verdict"></div><img src="data:," onerror="document.title=1">'))
    result = chromium("--dump-dom", handler.as_uri())
    drawn = Drawn()
    drawn.feed(result.stdout)
    assert drawn.violations == "1" and len(csp_reports(result.stderr)) == 1
    tampered = tmp_path / "tampered.html"
    tampered.write_text(text.replace("violations += 1;", "violations += 2;"))
    result = chromium("--dump-dom", tampered.as_uri())
    drawn = Drawn()
    drawn.feed(result.stdout)
    assert drawn.entry == "" and csp_reports(result.stderr), "a script the policy does not name ran"
