"""The composer page (`pbem html --compose`), clicked in a real
headless Chromium driven by Playwright (tests/cdp.py).

From positions of seeded random games, a random legal turn is clicked through the page,
and the move text the page wrote is judged by the referee (pbem.referee.admit.judge);
the page fetches nothing; at 390 px nothing overflows and every target is 40 px or more.
The opening: the page's commitment is Python's, and a commit and a nonce made by the page
are accepted by the host.  A screenshot of each position goes to $PBEM_ARTEFACTS (or tmp).
"""

from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path
from urllib.parse import quote

import pytest
from cdp import Browser
from clitools import cli, ok
from composetools import CLICK_A_TURN, MEASURE, PLAYERS, SECRET, Played, demo_dirs, played, positions  # noqa: F401 (fixtures)

from pbem.errors import Exit
from pbem.fair.protocol import nonce_commitment
from pbem.fair.words import secret_number
from pbem.host.create import NewGame, create
from pbem.host.games import apply_move, game_dir, load_game
from pbem.host.private import seat_view
from pbem.log.game import Game
from pbem.log.logfile import LOG_NAME
from pbem.log.moves import parse_move
from pbem.log.notation import parse
from pbem.referee.admit import judge
from pbem.referee.seatview import SeatView, face_text
from pbem.rules import State, winner
from pbem.sim.demo import open_game
from pbem.views.compose import changed_regions, compose_page
from pbem.views.html import drawing, game_page
from pbem.views.packed import readable
from pbem.views.text import result_lines
from pbem.views.timeline import game_at, read_checked


def artefacts(tmp: Path) -> Path:
    folder = Path(os.environ["PBEM_ARTEFACTS"]) / "compose" if os.environ.get("PBEM_ARTEFACTS") else tmp / "shots"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def to_move(game: Game) -> tuple[State, str]:
    """A position's state and the seat to move there (every position :func:`positions` picks has one)."""
    assert game.state is not None and game.state.to_move is not None
    return game.state, game.state.to_move


def page_json(page: str) -> str:
    """The data a page embeds (its ``pbem-data`` script)."""
    found = re.search(r'id="pbem-data">(.*)</script>', readable(page))
    assert found is not None
    return found.group(1)


def click_turns(browser: Browser, played: Played, count: int, tmp: Path) -> None:
    shots = artefacts(tmp)
    started = time.monotonic()
    seen: set[str] = set()
    marks, sizes = 0, []
    for n, (game, seq) in enumerate(positions(played, count, seed=19)):
        _state, seat = to_move(game)
        page = tmp / f"compose-{n}.html"
        page.write_text(compose_page(SeatView(game, seat), "host@example.org"), encoding="utf-8")
        sizes.append(len(page.read_bytes()))
        browser.requests.clear()
        browser.open(page)
        result = browser.eval(CLICK_A_TURN.replace("SEED", str(1000 + n)))
        assert result["complete"] == "true", (seq, result)
        verdict = judge(game, parse_move(result["text"].encode(), "the page's move"))  # a refusal raises
        links = browser.eval("[document.getElementById('send').href, document.getElementById('download').href]")
        assert links == ["mailto:host@example.org?subject=%5Brattus%20g%5D%20move&body=" + quote(result["text"]),
                         "data:text/plain;charset=utf-8," + quote(result["text"])], links
        assert verdict.move.player == seat and verdict.actions, (seq, result)
        marked = browser.eval("Array.prototype.map.call(document.querySelectorAll('#board [data-changed]'), "
                              "function (g) { return g.getAttribute('data-region'); })")
        assert marked == changed_regions(game), (seq, marked)
        marks += bool(marked)
        measured = browser.eval(MEASURE)
        assert measured["viewport"] and measured["csp"] == "0", measured
        assert measured["scroll"] <= measured["width"] == 390, (seq, measured)
        assert measured["small"] == [], (seq, measured)
        assert browser.requests == [page.as_uri()], browser.requests  # nothing fetched but the page
        seen.update(line.split()[0] for line in result["text"].splitlines()[2:])
        browser.screenshot(shots / f"position-{n:02d}-entry-{seq}.png")
    assert marks >= count // 2, marks  # most entries move cubes or rats, and the page marks where
    assert {"place", "take", "plague", "spread"} <= seen, seen  # the draw reaches every common kind of step
    # the page travels in every "your move" mail (base64: 4/3); about 4 kB of it is the opening's
    # secret number (scrypt, the code, the words' estimate), in every page so that one fingerprint
    # covers them all
    assert max(sizes) <= 43_000, sizes
    print(f"\n{count} positions clicked ({', '.join(sorted(seen))}) in {time.monotonic() - started:.1f} s; "
          f"pages: median {sorted(sizes)[count // 2]} bytes, largest {max(sizes)}; screenshots in {shots}")


def test_twelve_random_turns_clicked_through_the_page_are_accepted(
        browser: Browser, played: Played, tmp_path: Path) -> None:
    click_turns(browser, played, 12, tmp_path)


def test_a_browser_that_cannot_unpack_the_page_shows_what_to_do_and_the_template(
        browser: Browser, played: Played, tmp_path: Path) -> None:
    """The page travels packed (its script and body gzipped in it); a browser without
    DecompressionStream shows the page's no-script part: open it in a current browser, or
    write the lines of the template it shows."""
    game, _seq = positions(played, 1, seed=7)[0]
    _state, seat = to_move(game)
    page = tmp_path / "old-browser.html"
    page.write_text(compose_page(SeatView(game, seat), "host@example.org"), encoding="utf-8")
    old = browser.chromium.new_context(viewport={"width": 390, "height": 844})  # a browser of its own
    try:
        tab = old.new_page()
        tab.add_init_script("delete window.DecompressionStream;")  # as a browser from before it had one
        tab.goto(page.as_uri(), wait_until="load")
        tab.wait_for_selector("div.noscript", state="attached")
        shown = str(tab.inner_text("body"))
        ran = tab.evaluate("document.getElementById('move')")
    finally:
        old.close()
    assert f"game g {seat}" in shown and "open the file in" in shown, shown
    assert ran is None  # nothing of the packed page ran


@pytest.mark.slow
def test_thirty_random_turns_clicked_through_the_page_are_accepted(
        browser: Browser, played: Played, tmp_path: Path) -> None:
    click_turns(browser, played, 30, tmp_path)


def test_the_pages_commitment_is_pythons_and_its_opening_moves_are_accepted(
        browser: Browser, tmp_path: Path) -> None:
    """P4 from the page: its commitment is the protocol's, the nonce is the secret number of the
    words the player typed and the code the page showed (pbem.fair.words), and round two takes
    the words and the code again; the browser keeps no nonce (tests/test_page_entropy.py: why,
    and the attacks)."""
    games = tmp_path / "games"
    path = create(games, NewGame("o", PLAYERS, secret=SECRET))
    made: dict[str, str] = {}
    codes: dict[str, str] = {}
    for round_ in ("commit", "nonce"):
        for seat in PLAYERS:
            game = load_game(path)
            page = tmp_path / f"open-{round_}-{seat}.html"
            page.write_text(compose_page(SeatView(game, seat)), encoding="utf-8")
            browser.requests.clear()
            browser.open(page)
            for nonce in (bytes(32), bytes(range(32)), bytes([255]) * 32):
                assert browser.eval(f"window.pbemCommitment('{nonce.hex()}')", wait=True) == nonce_commitment(nonce)
            field = "words-in" if round_ == "commit" else "nonce-in"
            said = f"document.querySelector('label[for={field}]').textContent"  # above the field, never cut off
            assert browser.eval(said).startswith("your secret words")
            if round_ == "nonce":
                browser.eval(f"document.getElementById('code-in').value = {codes[seat]!r}")
            browser.eval(f"document.getElementById('{field}').value = 'the words {seat} chose for game o';"
                         "document.querySelector('#choices button').click()")
            deadline = time.monotonic() + 10
            while browser.eval("document.getElementById('view').getAttribute('data-complete')") != "true":
                assert time.monotonic() < deadline, ("the page made no move", round_, seat)
                time.sleep(0.05)
            text = browser.eval("document.getElementById('move').textContent")
            move = parse(text)
            if round_ == "commit":
                codes[seat] = browser.eval("document.getElementById('code-kept').textContent")
                made[seat] = secret_number(game.hashes[0], seat, f"the words {seat} chose for game o",
                                           codes[seat]).hex()
                assert move["nonce_commitment"] == nonce_commitment(bytes.fromhex(made[seat]))
                assert browser.eval("document.getElementById('nonce').textContent") == \
                    f"your secret number: {made[seat]}"
            else:
                assert move["nonce"] == made[seat]
            assert browser.eval("localStorage.length") == 0
            assert browser.requests == [page.as_uri()]
            apply_move(games, parse_move(text.encode(), "the page's move"))
    started = load_game(game_dir(games, "o"))
    assert started.state is not None and started.state.to_move is not None


def test_the_winner_and_the_tie_break_are_shown_on_both_pages(played: Played) -> None:
    entries, hashes = played[0]
    final = game_at(entries, hashes, len(entries) - 1)
    state = final.state
    assert state is not None
    scores = state.scores()
    lines = result_lines(state)
    assert lines[0] == f"winner: {winner(state)} with {max(scores.values())} cubes (the palace included, R6.5)"
    assert (len(lines) == 2) == (sorted(scores.values())[-2] == max(scores.values()))
    assert lines[0] in readable(compose_page(SeatView(final, PLAYERS[0])))
    viewer = json.loads(page_json(game_page(entries, hashes)[0]))
    assert viewer["entries"][-1]["lines"][-len(lines):] == lines or lines[0] in viewer["entries"][-1]["lines"]
    assert not any(line.startswith("winner: ") for frame in viewer["entries"][:-3] for line in frame["lines"])
    tied = state.copy()  # R6.5: a tie goes to whoever would have played soonest after the last turn
    a, b = tied.players[0], tied.players[1]
    tied.palace[a] += max(scores.values()) + 5 - scores[a]
    tied.palace[b] += max(scores.values()) + 5 - scores[b]
    tie = result_lines(tied)
    assert tie[0].startswith(f"winner: {winner(tied)} with {max(scores.values()) + 5} cubes")
    assert tie[1].startswith(f"tie-break: {a}, {b} tie on {max(scores.values()) + 5}; {winner(tied)} would")


def test_the_viewer_marks_what_each_entry_changed_and_has_a_viewport(played: Played) -> None:
    entries, hashes = played[0]
    page = game_page(entries, hashes)[0]
    assert '<meta name="viewport" content="width=device-width, initial-scale=1">' in page
    data = json.loads(page_json(page))
    frames = data["entries"]
    for seq in (20, 30):
        changed = changed_regions(game_at(entries, hashes, seq))
        assert changed
        assert re.findall(r'data-changed="true" data-region="(\w+)"', drawing(data, frames[seq]["svg"])) == changed


def test_a_seats_own_looks_are_on_its_page_only(demo_dirs: list[Path]) -> None:
    """P10, R5.6: the Witch's holder sees what it looked at; no other seat's page says it."""
    found = 0
    for folder in demo_dirs:
        entries, hashes = read_checked(folder / LOG_NAME)
        for entry in entries:
            actions = entry.raw.get("move", {}).get("actions", []) if isinstance(entry.raw.get("move"), dict) else []
            if not any(a.get("action") == "witch_look" for a in actions):
                continue
            game = game_at(entries, hashes, entry.seq)
            looker = entry.raw["move"]["player"]
            own = seat_view(folder, game, looker)
            if not own.private:
                continue
            found += 1
            words = {t: f"{t} (you looked): {face_text(game, i)}" for t, i in own.private.items()}
            assert all(w in readable(compose_page(own)) for w in words.values())
            for seat in set(PLAYERS) - {looker}:
                view = seat_view(folder, game, seat)
                other = readable(compose_page(view))
                assert not any(w in other for t, w in words.items() if t not in view.private)
                assert other.count("(you looked)") == len(view.private)
    assert found


def test_pbem_html_compose_writes_the_page(played: Played, demo_dirs: list[Path], tmp_path: Path) -> None:
    games = tmp_path / "games"
    path = create(games, NewGame("o", PLAYERS, secret=SECRET))
    out = tmp_path / "red.html"
    text = ok("html", path / LOG_NAME, "-o", out, "--compose", "red", "--to", "host@example.org")
    assert "red's move as of entry 0" in text
    data = json.loads(page_json(out.read_text()))
    assert data["opening"] == "commit" and data["to"] == "host@example.org" and data["state"] is None
    assert cli("html", path / LOG_NAME, "-o", out, "--compose", "red").exit_code == Exit.STATE  # no overwrite
    final = tmp_path / "final.html"
    entries, hashes = played[0]
    (tmp_path / "g").mkdir()
    (tmp_path / "g" / LOG_NAME).write_text((demo_dirs[0] / LOG_NAME).read_text())
    ok("html", tmp_path / "g" / LOG_NAME, "-o", final, "--compose", "blue")
    assert "nothing for blue to send now: the game is over" in readable(final.read_text())
    assert result_lines(game_at(entries, hashes, len(entries) - 1).state)[0] in readable(final.read_text())


def test_pbem_check_accepts_the_move_of_a_page_pbem_html_compose_wrote(browser: Browser, tmp_path: Path) -> None:
    """The commands as a player runs them: the page from the CLI, its move text to a .txt, `pbem check`."""
    games = tmp_path / "games"
    create(games, NewGame("e2e", PLAYERS, secret=SECRET))
    game = open_game(games, "e2e", {p: bytes([i + 7]) * 32 for i, p in enumerate(PLAYERS)})
    log = games / "e2e" / LOG_NAME
    texts = []
    for turn in range(8):  # the setup's six placements, one a move (R2.5), then two turns
        seat = game.to_move
        assert seat is not None
        page = tmp_path / f"e2e-{turn}.html"
        ok("html", log, "-o", page, "--compose", seat, "--to", "host@example.org")
        browser.open(page)
        text = browser.eval(CLICK_A_TURN.replace("SEED", str(turn)))["text"]
        move = tmp_path / f"e2e-{turn}.txt"
        move.write_text(text, encoding="utf-8")
        assert "the host would accept" in ok("check", move, "--log", log)
        game = apply_move(games, parse_move(text.encode())).game
        texts.append(text)
    assert sum("\nplague " in t for t in texts) >= 2, texts
