"""Hostile text never becomes markup in a picture or the page, and custom
data's ids are held to P2-like patterns at `pbem new --data` and by every reader (P3).

Display names are free text (P2: printable), so they may hold quotes, ``<`` and event
handlers: those are drawn, escaped.  Ids, shades and link kinds are drawn as attribute
values and used as keys: custom data whose ids break the patterns is refused.
"""

from __future__ import annotations

import base64
import gzip
import itertools
import json
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from clitools import cli, ok, snapshot
from editiontools import rechain

from pbem.data import default_board
from pbem.errors import Exit
from pbem.fair.protocol import data_hash
from pbem.host.create import NewGame
from pbem.host.site import build_site
from pbem.log.game import Facts, Game
from pbem.log.logfile import LOG_NAME, read_docs, read_log
from pbem.log.yamlio import dump_entry
from pbem.referee.seatview import SeatView
from pbem.rules.data import Board, GameDataError
from pbem.sim import demo
from pbem.views.compose import compose_page
from pbem.views.endpage import end_page
from pbem.views.html import drawing, viewer_and_game
from pbem.views.markup import Markup, render
from pbem.views.svg import board_svg
from pbem.views.timeline import read_checked, steps

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "pbem" / "data"
EXAMPLES = sorted((ROOT / "examples").glob("rattus-*p/log.yaml"))
HOSTILE = (
    'x" onload="alert(1)',
    "</script><script>alert(1)</script>",
    "<svg onload=alert(1)>",
    "<!-- ]]> &amp; ' \" -->",
    "a' onclick='alert(1)",
    "<img src=x onerror=alert(1)>",
)
"""Region display names a custom map may carry (printable text, P2), each meant to break out."""


def hostile_board() -> Board:
    """The shipped map with every region's display name replaced by hostile text."""
    data = default_board().to_data()
    for region, name in zip(data["regions"], itertools.cycle(HOSTILE)):
        region["name"] = name
    return Board.from_data(data)


class Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))


def no_markup_from_data(root: ET.Element) -> None:
    """An SVG tree with no script, no foreign object and no event-handler attribute."""
    for el in root.iter():
        assert not el.tag.endswith(("script", "foreignObject")), el.tag
        assert not [k for k in el.attrib if k.lower().startswith("on")], el.attrib


def check_svg(svg: str, board: Board) -> None:
    root = ET.fromstring(svg)  # parses: no attribute or text broke out
    no_markup_from_data(root)
    names = [g.get("data-name") for g in root.iter("{http://www.w3.org/2000/svg}g") if g.get("class") == "region"]
    assert names == [r.name for r in board.regions]  # every hostile name read back exactly, as a value
    assert "<script" not in svg.lower()  # a quote in element text is text; only a parser can judge the rest
    as_html = Tags()  # the page puts the drawing in with innerHTML: read as an HTML parser does
    as_html.feed(svg)
    assert not [(t, k) for t, a in as_html.tags for k in a if t == "script" or k.lower().startswith("on")]


# --- the SVG ----------------------------------------------------------------------------------

@pytest.mark.parametrize("log", EXAMPLES, ids=lambda p: p.parent.name)
def test_every_example_renders_svg_that_parses_at_every_entry(log: Path) -> None:
    entries, hashes = read_checked(log)
    drawn = 0
    for game in steps(entries, hashes):
        no_markup_from_data(ET.fromstring(board_svg(game)))
        drawn += 1
    assert drawn == len(entries)


def with_facts(game: Game, **changed: Any) -> None:
    """Entry 0's facts of ``game`` with some changed (a drawing's input, not a replay's)."""
    game.facts = Facts(*(changed.get(f, getattr(game.facts, f)) for f in Facts._fields))


@pytest.mark.parametrize("log", EXAMPLES, ids=lambda p: p.parent.name)
def test_hostile_region_names_are_drawn_escaped_at_every_entry(log: Path) -> None:
    entries, hashes = read_checked(log)
    board = hostile_board()
    for game in steps(entries, hashes):
        with_facts(game, board=board)  # names only: the ids (and so the replay) are the shipped map's
        check_svg(board_svg(game), board)
    with_facts(game, game_id=HOSTILE[0])  # P2 keeps it out of any log; the drawing escapes it all the same
    svg = board_svg(game)
    check_svg(svg, board)
    root = ET.fromstring(svg)
    assert root.get("data-game") == HOSTILE[0]
    assert root.findtext("{http://www.w3.org/2000/svg}title", "").startswith(f"Rattus game {HOSTILE[0]},")


# --- the page (pbem html) --------------------------------------------------------------------

@pytest.fixture(scope="module")
def hostile_game(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A whole demo game on the shipped map with hostile region names: its games folder."""
    games = tmp_path_factory.mktemp("hostile") / "games"
    def with_board(*args: Any, **kwargs: Any) -> NewGame:
        spec = NewGame(*args, **kwargs)
        spec.board = hostile_board()
        return spec

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(demo, "NewGame", with_board)
        nonces = {p: bytes([i + 1]) * 32 for i, p in enumerate(("red", "green", "blue"))}
        demo.play_demo(games, 3, seed=3, echo=None, summary=lambda _line: None, game_id="h",
                       secret=bytes(32), nonces=nonces)
    return games


def test_the_page_of_a_game_with_hostile_names_holds_them_only_as_text(hostile_game: Path, tmp_path: Path) -> None:
    page = tmp_path / "game.html"
    ok("html", hostile_game / "h" / LOG_NAME, "-o", page)
    text = page.read_text(encoding="utf-8")
    parser = Tags()
    parser.feed(text)
    scripts = [(a.get("type"), a.get("id")) for t, a in parser.tags if t == "script"]
    assert scripts == [(None, None), ("application/json", "pbem-audit"), ("application/json", "pbem-data")]
    assert not [(t, k) for t, a in parser.tags for k in a if k.lower().startswith("on")]
    assert text.count("<script") == 3 and "unsafe-inline" not in text
    for block in ("pbem-audit", "pbem-data"):  # the log's own text for the browser's audit; the entries
        blob = text.split(f'<script type="application/json" id="{block}">', 1)[1].split("</script>", 1)[0]
        assert not set(blob) & {"<", ">", "&", "\u2028", "\u2029"} and blob.isascii()
    packed = json.loads(text.split('id="pbem-audit">', 1)[1].split("</script>", 1)[0])["log_gz"]
    assert gzip.decompress(base64.b64decode(packed)) == (hostile_game / "h" / LOG_NAME).read_bytes()
    data = json.loads(blob)
    board = hostile_board()
    for frame in data["entries"]:
        check_svg(drawing(data, frame["svg"]), board)
        no_markup_from_data(ET.fromstring(drawing(data, frame["panel"])))  # the side panel, its own drawing: it parses
    lines = "\n".join(line for frame in data["entries"] for line in frame["lines"])
    assert any(name in lines for name in HOSTILE)  # the narration names regions, as text (textContent)


def test_the_page_with_hostile_names_runs_in_a_browser_with_no_csp_report(hostile_game: Path, tmp_path: Path) -> None:
    from picturetools import browse

    page = tmp_path / "game.html"
    ok("html", hostile_game / "h" / LOG_NAME, "-o", page)
    n = len(read_log(hostile_game / "h" / LOG_NAME)[0])
    drawn = browse(page, n // 2)
    assert drawn.entry == str(n // 2)
    assert set(drawn.rats) and all(region for region in drawn.rats)


def only_text(page: str, scripts: int) -> None:
    """A page whose tags are its own: ``scripts`` script elements, no event handler anywhere."""
    parser = Tags()
    parser.feed(page)
    assert [t for t, _a in parser.tags].count("script") == scripts
    assert not [(t, k) for t, a in parser.tags for k in a if k.lower().startswith("on")]
    assert "<script>alert" not in page and "<img src=x" not in page and "<svg onload" not in page


def test_every_kind_of_page_holds_hostile_names_and_press_only_as_text(hostile_game: Path, tmp_path: Path) -> None:
    """The composer at every turn, the viewer with a press text meant to break out, the end page
    and the site's pages: each a page joined from escaped parts, the hostile text in it as text."""
    entries, hashes = read_checked(hostile_game / "h" / LOG_NAME)
    composed = 0
    for game in steps(entries, hashes):
        if game.state is not None and game.state.to_move is not None and game.last_seq % 5 == 0:
            page = compose_page(SeatView(game, game.state.to_move), "host@example.org")
            assert isinstance(page, Markup)
            only_text(page, scripts=2)  # the page's own script and its data block
            composed += 1
    assert composed
    press = [("2026-11-30T09:00:00Z", "red", text) for text in HOSTILE]
    viewer, _n, final = viewer_and_game(entries, hashes, press=press)
    assert isinstance(viewer, Markup)
    only_text(viewer, scripts=2)
    assert all(render("{text}", text=text) in viewer for text in HOSTILE)  # each said, escaped, in the press
    end = end_page(final, (hostile_game / "h" / LOG_NAME).read_text(encoding="utf-8"))
    assert isinstance(end, Markup)
    only_text(end, scripts=2)
    build_site(hostile_game, tmp_path / "site")
    for site_page in (tmp_path / "site").rglob("*.html"):
        only_text(site_page.read_text(encoding="utf-8"), scripts=2 if site_page.name.endswith("-viewer.html") else 0)

# --- custom data held to the patterns (P2/P3) ---------------------------------------------------

def custom_folder(tmp_path: Path, map_edit: tuple[str, str] = ("", ""), token_edit: tuple[str, str] = ("", "")) -> Path:
    folder = tmp_path / "data"
    folder.mkdir()
    for name, (old, new) in (("map.yaml", map_edit), ("tokens.yaml", token_edit)):
        text = (DATA / name).read_text(encoding="utf-8")
        if old:
            assert old in text
            text = text.replace(old, new, 1)
        (folder / name).write_text(text, encoding="utf-8")
    return folder


REFUSED = {  # what is edited in the shipped data -> (the field the refusal names, the rule it cites)
    "handler in a region id": (("{id: anglia,", """{id: 'x" onload="alert(1)',"""), None,
                               "region 1's id", "an id must be 1-32 characters of a-z"),
    "< in a region id": (("{id: scandia,", "{id: '<b>',"), None, "region 2's id", "^[a-z][a-z0-9_-]{0,31}$"),
    "space in a region id": (("{id: russia,", "{id: 'rus sia',"), None, "region 3's id", "an id must be"),
    "capital in a region id": (("{id: gallia,", "{id: Gallia,"), None, "region 4's id", "starting with a letter"),
    "quote in a shade": (("{id: anglia,   name: Anglia,   shade: light}", """{id: anglia, name: A, shade: 'li"ght'}"""),
                         None, "region anglia's shade", "an id must be"),
    "handler in a link kind": (("[anglia, gallia, arrow]", "[anglia, gallia, 'arrow onload=x']"), None,
                               "the kind of link anglia-gallia", "an id must be"),
    "control character in a name": (("name: Anglia,", 'name: "Ang\\alia",'), None, "region anglia's name",
                                    "U+0007 is not printable"),
    "> in a token id": (None, ("{id: S01,", "{id: 'S01>',"), "token 1's id", "^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$"),
}


@pytest.mark.parametrize("case", REFUSED, ids=list(REFUSED))
def test_pbem_new_data_refuses_ids_that_break_the_patterns_and_writes_nothing(case: str, tmp_path: Path) -> None:
    map_edit, token_edit, field, rule = REFUSED[case]
    folder = custom_folder(tmp_path, map_edit or ("", ""), token_edit or ("", ""))
    games = tmp_path / "games"
    games.mkdir()
    before, games_before = snapshot(folder), snapshot(games)
    result = cli("new", "bad", "--players", "red,green", "--data", folder, "--games", games)
    assert result.exit_code == Exit.FORMAT, result.output + result.stderr
    message = result.stderr.strip()
    assert field in message and rule in message and "(P3)" in message and "P2" in message, message
    assert "\n\n" not in message  # one paragraph
    assert snapshot(folder) == before and snapshot(games) == games_before and not (games / "bad").exists()


def test_the_shipped_data_passes_the_patterns_and_long_or_padded_names_do_not() -> None:
    data = default_board().to_data()
    Board.from_data(data)
    for bad in ("x" * 41, " Anglia", "Anglia\u2028", ""):
        data["regions"][0]["name"] = bad
        with pytest.raises(GameDataError, match=r"region anglia's name"):
            Board.from_data(data)


def test_a_replayed_log_whose_entry_0_breaks_the_patterns_is_refused(tmp_path: Path) -> None:
    """The strong attacker: a hostile region id, data_hash recomputed, edition 'custom', chain fixed."""
    entries, _ = read_docs(ROOT / "examples" / "rattus-2p" / "log.yaml")
    first = entries[0]
    game_map, hostile = first["data"]["map"], 'x" onload="alert(1)'
    game_map["regions"][0]["id"] = hostile
    game_map["links"] = [[hostile if x == "anglia" else x for x in link] for link in game_map["links"]]
    first["data_hash"], first["edition"] = data_hash(game_map, first["data"]["tokens"]), "custom"
    log = tmp_path / "doctored.yaml"
    log.write_text("".join(dump_entry(e) for e in rechain(entries)), encoding="utf-8")
    for args in (("verify", log), ("audit", log), ("html", log, "-o", tmp_path / "p.html")):
        result = cli(*args)
        assert result.exit_code == Exit.TAMPERED, result.output + result.stderr
        assert "entry 0" in result.stderr and "region 1's id" in result.stderr and "(P3)" in result.stderr
    assert not (tmp_path / "p.html").exists()
