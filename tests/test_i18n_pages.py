"""The pages and the board picture in the reader's language (Hungarian, Greek, Ukrainian).

The viewer (`pbem html`), the composer page (`pbem html --compose`, the page of a "your
move" mail) and the board drawing hold no English sentence in hu, el or uk: neither the
page's visible text (its markup's words, titles and placeholders, and the drawing's texts)
nor the words its script shows (the page's JSON data: the script itself knows no language,
so its text and its CSP hash are the same in every language).  Region and card names are
the language's own (Γαλλία), the notation's lines stay as they are, and a Greek composer
page clicked in Chromium still writes moves the referee accepts.

Every word is judged, those the pages take from other views too (the narration, the status
line, the next step, the notices, the audit's findings).  The English pages stay as they
were (tests/test_compose.py and tests/test_pictures.py hold them).
"""

from __future__ import annotations

import json
import re
import struct
import time
import xml.etree.ElementTree as ET
import zlib
from collections.abc import Callable, Iterable, Iterator
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from cdp import Browser
from clitools import ok
from composetools import CLICK_A_TURN, MEASURE, SECRET, positions
from english import english_lines

from pbem.fair.protocol import nonce_commitment
from pbem.host.create import NewGame, create
from pbem.host.games import apply_move, game_dir, load_game
from pbem.host.private import seat_view
from pbem.i18n import translator
from pbem.log.game import Game
from pbem.log.logfile import LOG_NAME
from pbem.log.moves import parse_move
from pbem.log.notation import parse
from pbem.mail.pictures import PICTURE_NAME, board_picture_of, picture_name
from pbem.referee.admit import judge
from pbem.referee.seatview import SeatView
from pbem.sim.demo import play_demo
from pbem.views.compose import compose_page, page_data, script_words
from pbem.views.packed import readable
from pbem.views.composewords import KINDS, PROMPTS
from pbem.views.html import csp_hash, drawing, game_page
from pbem.views.svg import board_png, board_svg
from pbem.views.timeline import game_at, read_checked

LANGS = ("hu", "el", "uk")
PLAYERS = ("red", "green", "blue")

DATA = re.compile(r'id="pbem-data">(.*)</script>')


def readable_page(*args: Any) -> str:
    """A composer page as the browser builds it: its packed body in place (pbem.views.packed)."""
    return readable(compose_page(*args))


class Visible(HTMLParser):
    """The words a reader sees on a page: text outside scripts and styles, titles, placeholders."""

    def __init__(self) -> None:
        super().__init__()
        self.words: list[str] = []
        self._hidden = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("script", "style"):
            self._hidden += 1
        self.words.extend(v for k, v in attrs if k in ("title", "placeholder", "alt", "aria-label") and v)

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style"):
            self._hidden -= 1

    def handle_data(self, data: str) -> None:
        if not self._hidden and data.strip():
            self.words.append(data)


def visible(page: str) -> list[str]:
    seen = Visible()
    seen.feed(page)
    return seen.words


def svg_words(svg: str) -> list[str]:
    """Every text of a board drawing (its texts and titles)."""
    return [el.text for el in ET.fromstring(svg).iter() if el.text and el.text.strip()]


def data_words(value: Any, page: dict[str, Any] | None = None) -> Iterator[str]:
    """Every string in a page's JSON data but its drawings and the notation's own lines."""
    if isinstance(value, dict) and "parts" in value:  # the viewer: drawings as lines of its table
        page = value
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for v in value:
            yield from data_words(v, page)
    elif isinstance(value, dict):
        for key, v in value.items():
            if key in ("svg", "panel"):  # an entry's map and its panel: their texts
                yield from svg_words(v if isinstance(v, str) or page is None else drawing(page, v))
            elif key not in ("tree", "game", "seat", "to", "prefix", "after", "opening", "committed", "changed", "at",
                             "parts", "common", "phrases", "sequences"):  # (the estimate's lists: never shown)
                yield from data_words(v, page)


def english_in(words: Iterable[str]) -> list[str]:
    return english_lines("\n".join(words))


def turns(played: list[tuple[list[Any], list[str]]], count: int, seed: int) -> list[tuple[Game, int]]:
    """:func:`composetools.positions`, typed: positions of the games with a seat to move."""
    found: list[tuple[Game, int]] = positions(played, count, seed)
    return found


def mover(game: Game) -> str:
    assert game.state is not None and game.state.to_move is not None
    return game.state.to_move


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A seeded 3-player game played to the end: its folder (a revealed secret: the audit's verdict)."""
    games = tmp_path_factory.mktemp("i18n-pages") / "games"
    play_demo(games, 3, seed=3, echo=None, summary=lambda _line: None, game_id="g", secret=SECRET,
              nonces={p: bytes([i + 1]) * 32 for i, p in enumerate(PLAYERS)})
    return games / "g"


@pytest.fixture(scope="module")
def played(demo: Path) -> list[tuple[list[Any], list[str]]]:
    return [read_checked(demo / LOG_NAME)]


@pytest.mark.parametrize("lang", LANGS)
def test_the_viewer_holds_no_english_sentence(lang: str, demo: Path) -> None:
    page, n = game_page(*read_checked(demo / LOG_NAME), lang=lang)
    assert f'<html lang="{lang}"' in page
    data = json.loads(DATA.search(page).group(1))  # type: ignore[union-attr]
    assert data["verdict"] is not None and n == len(data["entries"])
    assert english_in(visible(page)) == []
    assert english_in(data_words(data)) == []
    assert "{i}" in data["words"]["where"] and "{last}" in data["words"]["where"]
    names = {translator(lang).pgettext("region", r) for r in ("gallia", "italia", "hispania")}
    assert names <= set(svg_words(drawing(data, data["entries"][-1]["svg"])))  # Γαλλία, not Gallia


@pytest.mark.parametrize("lang", LANGS)
def test_the_composer_page_and_its_scripts_words_hold_no_english_sentence(
        lang: str, played: list[tuple[list[Any], list[str]]], demo: Path, tmp_path: Path) -> None:
    entries, hashes = played[0]
    pages = []
    for game, _seq in turns(played, 4, seed=22):
        pages.append(readable_page(SeatView(game, mover(game)), "host@example.org", lang))
    final = game_at(entries, hashes, len(entries) - 1)
    pages.append(readable_page(SeatView(final, "blue"), None, lang))  # nothing to send: the game is over
    opening = create(tmp_path / "games", NewGame("o", PLAYERS, secret=SECRET))
    pages.append(readable_page(SeatView(load_game(opening), "red"), None, lang))  # the opening (P4)
    for entry in entries:  # a seat's own Witch look, in words (R5.6)
        move = entry.raw.get("move")
        if isinstance(move, dict) and any(a.get("action") == "witch_look" for a in move.get("actions", [])):
            view = seat_view(demo, game_at(entries, hashes, entry.seq), move["player"])
            if view.private:
                page = readable_page(view, None, lang)
                assert english_in(visible(page)) == [] and "(" in page
                pages.append(page)
                break
    else:
        pytest.fail("no Witch look in the game")
    for page in pages:
        assert f'<html lang="{lang}"' in page
        assert english_in(visible(page)) == [], english_in(visible(page))
        data = json.loads(DATA.search(page).group(1))  # type: ignore[union-attr]
        assert english_in(data_words(data)) == [], english_in(data_words(data))
    game, _seq = turns(played, 1, seed=4)[0]
    words = page_data(SeatView(game, mover(game)), None, lang)["words"]
    assert set(words["kinds"]) == set(KINDS) and set(words["prompts"]) == set(PROMPTS)
    assert english_in(data_words(words)) == []


def test_the_script_and_its_hash_are_the_same_in_every_language(played: list[tuple[list[Any], list[str]]]) -> None:
    """The scripts know no language: every page admits the same script and style (CSP)."""
    game, _seq = turns(played, 1, seed=4)[0]
    entries, hashes = played[0]
    heads = set()
    for lang in ("en", *LANGS):
        for page in (readable_page(SeatView(game, mover(game)), None, lang),
                     game_page(entries[:12], hashes[:12], lang=lang)[0]):
            policy = re.search(r'Content-Security-Policy" content="([^"]+)"', page).group(1)  # type: ignore[union-attr]
            script = re.search(r"<script>(.*?)</script>", page, re.S).group(1)  # type: ignore[union-attr]
            assert csp_hash(script) in policy
            heads.add((page.count("<script>"), policy))
    assert len(heads) == 2  # one policy for the composer, one for the viewer


def test_the_english_pages_keep_their_words(played: list[tuple[list[Any], list[str]]]) -> None:
    game, _seq = turns(played, 1, seed=4)[0]
    seat = mover(game)
    page = readable_page(SeatView(game, seat))
    assert page == readable_page(SeatView(game, seat), None, "en")
    for words in (f"Rattus g: {seat}&#39;s move", "Send opens your mail program with the move; or Copy it",
                  '<html lang="en"', ">undo<", ">Send<"):
        assert words in page
    data = json.loads(DATA.search(page).group(1))["words"]  # type: ignore[union-attr]
    assert data["kinds"]["monk"] == "Monk: move a rat" and data["prompts"]["count"] == "how many cubes?"
    assert data["take"]["witch"] == "take the Witch" and data["cubes"]["2"] == "2 cubes"
    opening = script_words("en")  # the opening's own words (P4)
    assert opening["make"] == "make my secret number from these words"
    assert opening["mismatch"].startswith("these secret words and code (or this number) do not give the fingerprint")
    entries, hashes = played[0]
    viewer = game_page(entries, hashes)[0]
    assert '<button id="first" title="first entry (Home)">&laquo; first</button>' in viewer
    assert json.loads(DATA.search(viewer).group(1))["words"] == {"where": "entry {i} of {last}  ({at})"}  # type: ignore[union-attr]
    svg = board_svg(game)
    assert svg == board_svg(game, lang="en")
    assert {"Players", "Palace", "Class cards", "neighbours over land", "Gallia"} <= set(svg_words(svg))


@pytest.mark.parametrize("lang", LANGS)
def test_the_board_picture_names_regions_and_cards_in_the_language(
        lang: str, played: list[tuple[list[Any], list[str]]]) -> None:
    entries, hashes = played[0]
    for seq in (0, 7, 30, len(entries) - 1):  # the opening, the setup, a turn, the end
        words = svg_words(board_svg(game_at(entries, hashes, seq), lang=lang))
        assert english_in(words) == [], (seq, english_in(words))
    drawn = set(svg_words(board_svg(game_at(entries, hashes, 30), lang=lang)))
    said = translator(lang)
    assert {said.pgettext("region", r) for r in ("gallia", "turcia", "anglia")} <= drawn
    assert {said.pgettext("card", c) for c in ("monk", "witch", "king")} <= drawn
    assert not {"Monk", "Witch", "Players", "Palace", "Class cards"} & drawn


def _png_rows(png: bytes) -> list[bytes]:
    """A PNG's pixel rows, unfiltered (8-bit RGB or RGBA, as resvg writes them)."""
    pos, chunks, head = 8, b"", b""
    while pos < len(png):
        size, kind = struct.unpack(">I4s", png[pos:pos + 8])
        body = png[pos + 8:pos + 8 + size]
        if kind == b"IHDR":
            head = body
        elif kind == b"IDAT":
            chunks += body
        pos += 12 + size
    width, height, depth, colour = struct.unpack(">IIBB", head[:10])
    assert depth == 8 and colour in (2, 6)
    step = 3 if colour == 2 else 4
    raw, rows, prev = zlib.decompress(chunks), [], bytes(width * step)
    stride = width * step + 1
    for y in range(height):
        kind, line = raw[y * stride], bytearray(raw[y * stride + 1:(y + 1) * stride])
        for i in range(len(line)):
            a = line[i - step] if i >= step else 0
            b, c = prev[i], prev[i - step] if i >= step else 0
            pred = (0, a, b, (a + b) // 2, a + b - c)[kind]
            if kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else b if pb <= pc else c
            line[i] = (line[i] + pred) & 255
        prev = bytes(line)
        rows.append(prev)
    return rows


def _ink(text: str) -> tuple[int, bytes]:
    """How many dark pixels ``text`` draws in the board's font, and the drawing."""
    svg = (f'<svg xmlns="http://www.w3.org/2000/svg" width="240" height="40"><text x="4" y="28" font-size="24" '
           f'font-family="DejaVu Sans, Liberation Sans, Arial, Helvetica, sans-serif">{text}</text></svg>')
    png = board_png(svg)
    rows = _png_rows(png)
    return sum(1 for row in rows for v in row[::len(row) // 240] if v < 128), b"".join(rows)


@pytest.mark.parametrize("words", [("Γαλλία", "Ιππότης", "Μάγισσα"), ("Галлія", "Відьма", "Чернець"),
                                   ("Lengyelország", "Kereskedő", "Törökország")])
def test_greek_and_cyrillic_render_in_the_png_not_as_boxes(words: tuple[str, ...]) -> None:
    """A missing glyph draws a box (the same for every letter) or nothing: each word here
    draws ink, and each differently, so the font the PNG uses has their letters."""
    drawn = [_ink(w) for w in words]
    assert all(ink > 40 for ink, _ in drawn), [ink for ink, _ in drawn]
    assert len({pixels for _, pixels in drawn}) == len(words)
    boxes = [_ink(c * 5) for c in words[0][:3]]  # three different letters, five of each
    assert len({pixels for _, pixels in boxes}) == 3


def test_the_picture_cache_keeps_one_picture_per_language(tmp_path: Path, demo: Path) -> None:
    """board.cache keyed by the entry and the language: a Greek mail never gets the
    Hungarian picture, and each language is drawn once per entry (sealed, as English is)."""
    folder = tmp_path / "g"
    folder.mkdir()
    (folder / LOG_NAME).write_bytes((demo / LOG_NAME).read_bytes())
    game = load_game(folder)
    drawn: list[str] = []

    def painter(lang: str) -> Callable[[Any], bytes]:
        def paint(g: Any) -> bytes:
            drawn.append(lang)
            return f"PNG {lang} {g.last_seq}".encode()
        return paint

    for _ in range(3):
        for lang in ("en", *LANGS):
            assert board_picture_of(game, folder, painter(lang), lang) == f"PNG {lang} {game.last_seq}".encode()
    assert drawn == ["en", *LANGS]
    assert picture_name("en") == PICTURE_NAME and len({picture_name(x) for x in ("en", *LANGS)}) == 4
    (folder / picture_name("el")).write_bytes((folder / picture_name("hu")).read_bytes())  # another's picture
    assert board_picture_of(game, folder, painter("el"), "el") == f"PNG el {game.last_seq}".encode()
    assert drawn[-1] == "el"
    with pytest.raises(ValueError):
        board_picture_of(game, folder, painter("fr"), "fr")


def test_pbem_html_lang_writes_both_pages_in_the_language(tmp_path: Path, demo: Path) -> None:
    viewer, composer = tmp_path / "viewer.html", tmp_path / "compose.html"
    said = ok("html", demo / LOG_NAME, "-o", viewer, "--lang", "uk")
    assert "open it in a browser" not in said and english_lines(said.replace(str(viewer), "")) == []
    assert '<html lang="uk"' in viewer.read_text(encoding="utf-8")
    assert "записів" in said  # the plural form of 'entries' Ukrainian uses for this count
    opening = create(tmp_path / "games", NewGame("o", PLAYERS, secret=SECRET))
    said = ok("html", opening / LOG_NAME, "-o", composer, "--compose", "red", "--lang", "el")
    assert "κίνηση του red" in said
    page = readable(composer.read_text(encoding="utf-8"))
    assert '<html lang="el"' in page and "Ο γύρος 2 χρειάζεται ξανά τις μυστικές σου λέξεις" in page


def test_a_greek_composer_page_clicked_in_chromium_writes_accepted_moves(
        browser: Browser, played: list[tuple[list[Any], list[str]]], tmp_path: Path) -> None:
    """The composer's clicks on the Greek page: the moves are the notation's, and the referee takes them."""
    seen_steps = set()
    for n, (game, seq) in enumerate(turns(played, 8, seed=23)):
        seat = mover(game)
        page = tmp_path / f"el-{n}.html"
        page.write_text(compose_page(SeatView(game, seat), "host@example.org", "el"), encoding="utf-8")
        browser.requests.clear()
        browser.open(page)
        seen_steps.add(browser.eval("document.getElementById('step').textContent"))
        result = browser.eval(CLICK_A_TURN.replace("SEED", str(2200 + n)))
        assert result["complete"] == "true", (seq, result)
        verdict = judge(game, parse_move(result["text"].encode(), "the page's move"))  # a refusal raises
        assert verdict.move.player == seat and verdict.actions
        shown = browser.eval("[document.getElementById('step').textContent, document.getElementById('send')"
                             ".textContent, document.documentElement.lang]")
        assert shown[0] in (translator("el").gettext(m) for m in (
            "the move is complete: send it", "the move stops after the look: send it, and the host shows you the face",
            "an outbreak follows: the move is complete. You may choose below which rats flip first"))
        assert shown[1:] == ["Αποστολή", "el"]
        measured = browser.eval(MEASURE)
        assert measured["csp"] == "0" and measured["scroll"] <= measured["width"], measured
        assert measured["small"] == [], measured
        assert browser.requests == [page.as_uri()]
    prompts = {translator("el").gettext(m) for m in PROMPTS.values()}
    assert english_in(seen_steps) == [] and seen_steps <= prompts, seen_steps - prompts


def test_the_ukrainian_opening_pages_make_a_commit_and_a_nonce_the_host_accepts(
        browser: Browser, tmp_path: Path) -> None:
    """P4 in Ukrainian: the page's buttons and status are the language's, its moves the protocol's."""
    games = tmp_path / "games"
    path = create(games, NewGame("u", PLAYERS, secret=SECRET))
    words = page_data(SeatView(load_game(path), "red"), None, "uk")["words"]
    made: dict[str, str] = {}
    codes: dict[str, str] = {}
    for round_ in ("commit", "nonce"):
        for seat in PLAYERS:
            page = tmp_path / f"uk-{round_}-{seat}.html"
            page.write_text(compose_page(SeatView(load_game(path), seat), None, "uk"), encoding="utf-8")
            browser.open(page)
            field = "words-in" if round_ == "commit" else "nonce-in"
            assert browser.eval(f"document.querySelector('label[for={field}]').textContent") == \
                words["words" if round_ == "commit" else "placeholder"]
            assert browser.eval("document.querySelector('#choices button').textContent") == \
                words["make" if round_ == "commit" else "use"]
            browser.eval(f"document.getElementById('{field}').value = 'nonce 00';"
                         "document.querySelector('#choices button').click()")
            deadline = time.monotonic() + 10
            while browser.eval("document.getElementById('status').textContent") != words["few"]:
                assert time.monotonic() < deadline, ("two words were not refused", round_, seat)
                time.sleep(0.05)
            if round_ == "nonce":  # the code the round-1 page showed, as the player wrote it down
                browser.eval(f"document.getElementById('code-in').value = {codes[seat]!r}")
            browser.eval(f"document.getElementById('{field}').value = 'слова гравця {seat} для цієї гри';"
                         "document.querySelector('#choices button').click()")
            deadline = time.monotonic() + 10
            while browser.eval("document.getElementById('view').getAttribute('data-complete')") != "true":
                assert time.monotonic() < deadline, ("the page made no move", round_, seat)
                time.sleep(0.05)
            text = browser.eval("document.getElementById('move').textContent")
            if round_ == "commit":
                made[seat] = browser.eval("document.getElementById('nonce').textContent").split()[-1]
                codes[seat] = browser.eval("document.getElementById('code-kept').textContent")
                assert parse(text)["nonce_commitment"] == nonce_commitment(bytes.fromhex(made[seat]))
            else:
                assert parse(text)["nonce"] == made[seat]
            apply_move(games, parse_move(text.encode(), "the page's move"))
    started = load_game(game_dir(games, "u"))
    assert started.state is not None and started.state.to_move is not None
