"""The composer page travels with every "your move" mail, and a
player with only a mail client and a browser plays from it.

Each player opens the page attached to the host's newest mail in a real headless
Chromium, clicks (the opening's commitment and nonce, made by WebCrypto from the words
the player types, then random legal turns), and mails back what the page's Send link holds: its
subject and body.  The host applies every one.  The fast test plays the opening and a few
turns from the pages; the slow one a whole game, by turns from the page and in the
notation, to a FAIR audit.  A report to a player not to move carries the small map picture,
the mover's mail the page instead; the log goes compressed and `pbem verify` reads it.
"""

from __future__ import annotations

import random
import time
from email.message import EmailMessage
from email.utils import make_msgid
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from cdp import Browser
from clitools import cli, ok
from composetools import CLICK_A_TURN
from mailtools import HOST, attachment, to_of
from notationtools import ADDRESSES, SHAPES, Table, turn_lines

from pbem.host.games import load_game
from pbem.log.logfile import LOG_NAME


@pytest.fixture(autouse=True)
def no_picture(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("pbem.mail.replies.board_picture", lambda game, lang="en": None)


def page_of(msg: EmailMessage, player: str, folder: Path) -> Path:
    """The composer page attached to ``msg``, saved as a player's browser opens it."""
    data = attachment(msg, f"-{player}.html")
    assert data is not None, f"no page attached to {msg['Subject']!r}"
    path = folder / f"page-{make_msgid()[1:9]}.html"
    path.write_bytes(data)
    return path


def wait_for(browser: Browser, condition: str, what: str, seconds: float = 60.0) -> None:
    """Until the page's ``condition`` holds (a loaded machine is slow, not wrong)."""
    deadline = time.monotonic() + seconds
    while not browser.eval(condition):
        assert time.monotonic() < deadline, what
        time.sleep(0.05)


CODES: dict[str, str] = {}
"""The code each player's round-one page showed (the player writes it down with the words)."""


def sent_from_page(browser: Browser, page: Path, player: str, seed: int) -> EmailMessage:
    """Open the page, click the player's part (a commitment, a nonce, or a random turn), and
    write the mail its Send link opens: the host's address, the subject, the body.  In the
    opening the player types their words, in round one and again in round two with the code."""
    browser.requests.clear()
    browser.open(page)
    complete = "document.getElementById('view').getAttribute('data-complete') === 'true'"
    ready = f"!!document.querySelector('#choices button, #board .can') || {complete}"  # the page's script has run
    wait_for(browser, ready, "the page showed no choice")
    field = next((f for f in ("words-in", "nonce-in") if browser.eval(f"!!document.getElementById('{f}')")), None)
    if field == "nonce-in":  # round two: the code the round-one page showed, as written down
        browser.eval(f"document.getElementById('code-in').value = {CODES[player]!r}")
    if field is not None:
        browser.eval(f"document.getElementById('{field}').value = 'the words {player} keeps for this game';"
                     "document.querySelector('#choices button').click()")
    elif not browser.eval(complete):  # a turn to click (WebCrypto answers a little later)
        browser.eval(CLICK_A_TURN.replace("SEED", str(seed)))
    wait_for(browser, complete, "the page made no move")
    if field == "words-in":
        CODES[player] = str(browser.eval("document.getElementById('code-kept').textContent"))
    link = urlsplit(browser.eval("document.getElementById('send').href"))
    assert link.scheme == "mailto" and link.path == HOST, link
    query = parse_qs(link.query)
    assert browser.requests == [page.as_uri()], browser.requests  # the page fetched nothing
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = ADDRESSES[player], HOST, query["subject"][0]
    msg["Message-ID"] = make_msgid(domain="example.org")
    msg.set_content(query["body"][0] + "\n")
    return msg


def opened_from_pages(t: Table, browser: Browser, folder: Path) -> None:
    """P4 by page: each round's invitation carries the page; the page makes the nonce from the
    player's words and sends the commitment, then, from the words again, the nonce."""
    for round_ in ("commit", "nonce"):
        for n, player in enumerate(ADDRESSES):
            msg = t.last_mail_to(player)
            out = t.send(player, sent_from_page(browser, page_of(msg, player, folder), player, n))
            assert "applied: game g" in out, (round_, player, out)
    assert load_game(t.games / "g").started


def turn_from_page(t: Table, browser: Browser, folder: Path, seed: int) -> str:
    game = load_game(t.games / "g")
    assert game.state is not None and game.state.to_move is not None
    player = game.state.to_move
    msg = t.last_mail_to(player)
    assert "your move" in str(msg["Subject"]) and f"-{player}.html" in (msg.get_body(("plain",)) or msg) \
        .get_content()  # the mail names the page
    return t.send(player, sent_from_page(browser, page_of(msg, player, folder), player, seed))


def test_the_opening_and_turns_from_the_page_attached_to_each_mail(
        tmp_path: Path, browser: Browser) -> None:
    t = Table(tmp_path)
    opened_from_pages(t, browser, tmp_path)
    for turn in range(4):
        out = turn_from_page(t, browser, tmp_path, 100 + turn)
        assert "applied: game g" in out, (turn, out)
    # what each mail of the last run carries: the page for the seat to move, else the log only
    game = load_game(t.games / "g")
    for msg in t.sent:
        player = next(p for p, a in ADDRESSES.items() if a == to_of(msg))
        names = [part.get_filename() or "" for part in msg.iter_attachments()]
        assert any(n.endswith("-log.yaml.gz") for n in names), names
        assert any(n.endswith(f"-{player}.html") for n in names) == (player == game.to_move), names
    log = attachment(t.sent[0], "-log.yaml.gz")  # the compressed log as mailed, not inflated
    assert log is not None
    copy = tmp_path / "mailed-log.yaml.gz"
    copy.write_bytes(log)
    ok("verify", copy)  # a mailed copy, compressed, is read as it is (exit 0)
    copy.write_bytes(copy.read_bytes()[:-9])  # cut short in the mail: refused, with what to do
    cut = cli("verify", copy)
    assert cut.exit_code != 0 and "not a whole gzip file" in cut.output + cut.stderr


@pytest.mark.slow
def test_a_whole_game_by_mail_from_the_pages_and_the_notation(tmp_path: Path, browser: Browser) -> None:
    """Every player only uses the page's output or the notation, the opening included."""
    t = Table(tmp_path)
    opened_from_pages(t, browser, tmp_path)
    rng = random.Random(19)
    for turn in range(400):
        game = load_game(t.games / "g")
        if game.over:
            break
        if turn % 2 == 0 and attachment(t.last_mail_to(game.to_move or ""), ".html") is not None:
            out = turn_from_page(t, browser, tmp_path, turn)
        else:
            player, lines = turn_lines(t, rng)
            out = t.send(player, SHAPES[turn % len(SHAPES)](t, player, lines))
        assert "applied: game g" in out, (turn, out)
    game = load_game(t.games / "g")
    assert game.over and turn >= 20, turn  # a whole game: its length varies with the deal (30 seen)
    assert "verdict: FAIR" in ok("audit", t.games / "g" / LOG_NAME)
