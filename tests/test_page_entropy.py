"""The players' entropy does not rest on the page the host sends (PROTOCOL P4; docs/fairplay.md).

The composer page is the host's file.  A host that changes its script to commit to bytes
it chose (and the policy's hash to match) gets a page that looks and works like pbem's;
it can then grind its secret against the planted nonces.  The page therefore makes the
secret number from words the player types and a code it shows, both kept by the player
(pbem.fair.words), and the player checks, with nothing the host sent, that the log holds
exactly their number: `pbem verify LOG --words SEAT`, or `openssl kdf ... SCRYPT`.  The
planted page is caught by that check, before the game starts and after; `pbem fingerprint
PAGE` names it too; the honest page passes both.  And the page keeps no nonce where another
local page could read or replace it (every file: page shares the browser's storage): round
2 asks for the words and code, or the file.
"""

from __future__ import annotations

import hashlib
import html
import subprocess
import time
from pathlib import Path

import pytest
from cdp import Browser
from clitools import cli, ok
from composetools import MEASURE

from pbem import __version__
from pbem.errors import Exit
from pbem.fair.protocol import nonce_commitment
from pbem.fair.words import code_of, secret_number, words_nonce, words_of
from pbem.host.create import NewGame, create
from pbem.host.games import apply_move, load_game
from pbem.log.moves import parse_move
from pbem.log.notation import parse
from pbem.log.yamlio import load_one
from pbem.referee.seatview import SeatView
from pbem.views.compose import compose_page, fingerprint
from pbem.views.html import csp_hash
from pbem.views.packed import PACKED_TAG, pack, readable, unpack

SECRET = bytes(range(32))
PLAYERS = ("red", "green")
WORDS = {"red": "Grandmother's  plum jam\ton the Tuesday BUS", "green": "zöld kerékpár a Duna partján reggel"}
PLANTED = "ab" * 32
"""The bytes a cheating host chose for red's nonce (and ground its secret against)."""

COMPLETE = "document.getElementById('view').getAttribute('data-complete') === 'true'"
CODES: dict[str, str] = {}
"""The code each seat's round-1 page made and showed (the player writes it down)."""


def number(games: Path, seat: str) -> bytes:
    """The secret number of the seat's words and the code its page showed."""
    return secret_number(load_game(games / "w").hashes[0], seat, WORDS[seat], CODES[seat])


def wait(browser: Browser, condition: str, what: str, seconds: float = 20.0) -> None:
    deadline = time.monotonic() + seconds
    while not browser.eval(condition):
        assert time.monotonic() < deadline, what
        time.sleep(0.05)


def page_for(games: Path, seat: str, folder: Path, name: str) -> Path:
    page = folder / name
    page.write_text(compose_page(SeatView(load_game(games / "w"), seat), "host@example.org"), encoding="utf-8")
    return page


def planted(page: Path) -> Path:
    """The host's page: the words' nonce replaced by its own bytes, the policy's hash made to match."""
    from pbem.views.composejs import OPENING_SCRIPT as SCRIPT

    text = page.read_text(encoding="utf-8")
    cheat = SCRIPT.replace("return later(()=>Secret.number(D,words,code)).then(hex);",  # as the page carries it
                           f"return later(()=>Secret.number(D,words,code)).then(()=>'{PLANTED}');")
    assert cheat != SCRIPT
    out = page.with_name("planted-" + page.name)
    out.write_text(repacked(text, cheat).replace(csp_hash(SCRIPT), csp_hash(cheat)), encoding="utf-8")
    return out


def repacked(page: str, script: str, body: str | None = None) -> str:
    """``page`` with its packed block holding ``script`` (and ``body``, else its own), as the host could pack it."""
    inside = unpack(page)
    assert inside is not None
    start = page.index(PACKED_TAG) + len(PACKED_TAG) + 1
    end = page.index("</script>", start)
    return page[:start] + pack(inside[0] if body is None else body, script) + "\n" + page[end:]


def type_and_click(browser: Browser, field: str, words: str) -> None:
    browser.eval(f"document.getElementById({field!r}).value = {words!r};"
                 "document.querySelector('#choices button').click()")


def code_in(browser: Browser, code: str) -> None:
    browser.eval(f"document.getElementById('code-in').value = {code!r}")


def on_a_phone(browser: Browser) -> None:
    """At 390 px: nothing overflows, every target is 40 px or more, no policy violation."""
    measured = browser.eval(MEASURE)
    assert measured["small"] == [] and measured["scroll"] <= measured["width"], measured


def commit_from(browser: Browser, games: Path, page: Path, seat: str) -> str:
    browser.requests.clear()
    browser.open(page)
    on_a_phone(browser)
    browser.eval("localStorage.clear()")  # (one browser for the module: what earlier tests left)
    type_and_click(browser, "words-in", WORDS[seat])
    wait(browser, COMPLETE, "the page made no commitment")
    assert browser.requests == [page.as_uri()]
    assert browser.eval("document.getElementById('words-kept').textContent") == words_of(WORDS[seat])
    CODES[seat] = str(browser.eval("document.getElementById('code-kept').textContent"))
    assert len(CODES[seat]) == 19 and code_of(CODES[seat])
    text = str(browser.eval("document.getElementById('move').textContent"))
    apply_move(games, parse_move(text.encode(), "the page's commitment"))
    assert browser.eval("localStorage.length") == 0  # nothing kept where another page could read it
    shown = str(browser.eval("document.getElementById('nonce').textContent"))
    assert shown.startswith("your secret number: ")
    return shown.split()[-1]


def reveal_from(browser: Browser, games: Path, page: Path, seat: str) -> str:
    browser.open(page)
    on_a_phone(browser)
    code_in(browser, CODES[seat].lower().replace("-", " "))  # as written down: case and dashes do not count
    type_and_click(browser, "nonce-in", WORDS[seat].upper())  # case and spacing do not count
    wait(browser, COMPLETE, "the page revealed no nonce")
    text = str(browser.eval("document.getElementById('move').textContent"))
    apply_move(games, parse_move(text.encode(), "the page's nonce"))
    return text


@pytest.fixture
def games(tmp_path: Path) -> Path:
    folder = tmp_path / "games"
    create(folder, NewGame("w", PLAYERS, secret=SECRET))
    return folder


def test_p4_the_pages_secret_number_is_pythons_and_the_player_checks_it_with_openssl(
        browser: Browser, games: Path, tmp_path: Path) -> None:
    """The honest page: its number is the documented derivation of the words and the code it
    showed (checked by Python and by OpenSSL's scrypt), its moves are accepted, and `pbem
    verify --words` confirms it before the start (the commitment) and after (the start's nonce)."""
    entry0 = load_game(games / "w").hashes[0]
    for seat in PLAYERS:
        shown = commit_from(browser, games, page_for(games, seat, tmp_path, f"c-{seat}.html"), seat)
        assert shown == number(games, seat).hex() != words_nonce(entry0, seat, WORDS[seat]).hex()
        salt = f"pbem-rattus/v2/secret-number {entry0} {seat} {code_of(CODES[seat])}"
        kdf = subprocess.run(["openssl", "kdf", "-keylen", "32", "-kdfopt", f"pass:{words_of(WORDS[seat])}",
                              "-kdfopt", f"salt:{salt}", "-kdfopt", "n:32768", "-kdfopt", "r:8", "-kdfopt", "p:1",
                              "SCRYPT"], capture_output=True, text=True, check=True)
        assert kdf.stdout.strip().replace(":", "").lower() == shown
    log = games / "w" / "log.yaml"
    said = ok("verify", log, "--words", "red", input=WORDS["red"] + "\n" + CODES["red"] + "\n")
    assert "ok: red's commitment (entry 1) is to exactly the secret number of red's words and code" in said
    assert "nonces (P4): checked here against what their player kept: red" in said
    assert "not checked here: green" in said
    for seat in PLAYERS:
        reveal_from(browser, games, page_for(games, seat, tmp_path, f"n-{seat}.html"), seat)
    assert load_game(games / "w").started
    said = ok("verify", log, "--words", "green", "--code", CODES["green"], input=WORDS["green"] + "\n")
    assert "ok: the start (entry 5) used exactly the secret number of green's words and code" in said


def test_p4_a_page_with_the_hosts_planted_nonce_is_caught_by_the_words_and_the_fingerprint(
        browser: Browser, games: Path, tmp_path: Path) -> None:
    """The attack: red's page commits to the host's bytes, looks and works as pbem's (its
    policy admits the changed script, no violation).  red's words catch it at once, before
    any reveal, and after the start; the page's fingerprint names it; green's honest page passes."""
    page = page_for(games, "red", tmp_path, "red.html")
    cheat = planted(page)
    shown = commit_from(browser, games, cheat, "red")
    assert shown == PLANTED and browser.eval("document.documentElement.getAttribute('data-csp-violations')") == "0"
    commit_from(browser, games, page_for(games, "green", tmp_path, "green.html"), "green")
    log = games / "w" / "log.yaml"
    caught = cli("verify", log, "--words", "red", input=WORDS["red"] + "\n" + CODES["red"] + "\n")
    assert caught.exit_code == Exit.TAMPERED, caught.output + caught.stderr
    assert "entry 1: red's commitment is not to the secret number of red's words and code" in caught.stderr
    assert "(P4)" in caught.stderr and "do not reveal it" in caught.stderr
    assert "green's commitment (entry 2) is to exactly" in ok("verify", log, "--words", "green",
                                                              input=WORDS["green"] + "\n" + CODES["green"] + "\n")
    refused = cli("fingerprint", cheat)
    assert refused.exit_code == Exit.TAMPERED and f"not {fingerprint()}" in refused.stderr, refused.stderr
    assert "do not make your nonce with it" in refused.stderr
    assert fingerprint() in ok("fingerprint", page) and fingerprint() in ok("fingerprint")
    # the host's round-2 page reveals its bytes; the game starts on the host's deal, and red still sees it
    for seat, nonce in (("red", bytes.fromhex(PLANTED)), ("green", number(games, "green"))):
        game = load_game(games / "w")
        apply_move(games, parse_move(f"game w {seat}\nafter 0 {game.hashes[0][:16]}\nnonce {nonce.hex()}\n".encode()))
    after = cli("verify", log, "--words", "red", input=WORDS["red"] + "\n" + CODES["red"] + "\n")
    assert after.exit_code == Exit.TAMPERED and f"the start used the nonce {PLANTED[:16]}... for red" in after.stderr
    assert "not the secret number of red's words and code" in after.stderr


def test_p4_another_local_page_finds_no_nonce_and_a_changed_one_is_recovered_from_the_words(
        browser: Browser, games: Path, tmp_path: Path) -> None:
    """Every file: page shares one storage.  After round 1 an unrelated local page finds no
    nonce there; it writes a wrong one where earlier pages kept theirs; red's round-2 page
    says so and recovers from the words (not a refusal); a nonce an earlier page kept that
    is red's is used once and removed; the downloaded nonce file is read as well."""
    for seat in PLAYERS:
        commit_from(browser, games, page_for(games, seat, tmp_path, f"c-{seat}.html"), seat)
    other = tmp_path / "elsewhere" / "unrelated.html"
    other.parent.mkdir()
    other.write_text("<!DOCTYPE html><html><body><pre id='move'></pre></body></html>", encoding="utf-8")
    browser.open(other)
    assert browser.eval("JSON.stringify(Object.assign({}, localStorage))") == "{}"
    browser.eval(f"localStorage.setItem('pbem-nonce/w/red', '{PLANTED}')")
    browser.open(page_for(games, "red", tmp_path, "n-red.html"))
    changed = "document.getElementById('status').textContent.indexOf('another page changed it') >= 0"
    wait(browser, changed, "the page did not say the kept nonce was changed")
    assert not browser.eval(COMPLETE)
    type_and_click(browser, "nonce-in", WORDS["red"])
    wait(browser, "document.getElementById('status').textContent.indexOf('the code you wrote down') >= 0",
         "the words without the code were not named")
    code_in(browser, CODES["red"])
    type_and_click(browser, "nonce-in", "not my words at all, sorry")
    wait(browser, "document.getElementById('status').textContent.indexOf('do not give the fingerprint you sent') >= 0",
         "wrong words were not named")
    type_and_click(browser, "nonce-in", WORDS["red"])
    wait(browser, COMPLETE, "the page did not recover from the words and the code")
    text = str(browser.eval("document.getElementById('move').textContent"))
    assert parse(text)["nonce"] == number(games, "red").hex()
    kept = tmp_path / "red-nonce.txt"
    kept.write_text(text, encoding="utf-8")  # what the page's "Download your secret number" holds
    apply_move(games, parse_move(text.encode(), "red's nonce"))
    green = number(games, "green").hex()  # an earlier page kept green's: used, removed
    browser.eval(f"localStorage.setItem('pbem-nonce/w/green', '{green}')")
    browser.open(page_for(games, "green", tmp_path, "n-green.html"))
    wait(browser, COMPLETE, "the kept nonce that is green's was not used")
    wait(browser, "localStorage.getItem('pbem-nonce/w/green') === null", "green's kept nonce was left there")
    apply_move(games, parse_move(str(browser.eval("document.getElementById('move').textContent")).encode()))
    said = ok("verify", games / "w" / "log.yaml", "--nonce", kept)  # the page's file: read, and said for what it is
    assert "ok: the start (entry 5) used exactly the nonce red kept in red-nonce.txt (P4)" in said
    assert "it shows what the log holds, not who made the nonce" in said and "--words red" in said
    assert "nonces (P4): none checked here" in said


def test_p4_round_two_takes_the_nonce_file_the_page_downloaded(browser: Browser, games: Path,
                                                              tmp_path: Path) -> None:
    """A player who kept the file, not the words: the page reads it (a file input) and reveals."""
    for seat in PLAYERS:
        commit_from(browser, games, page_for(games, seat, tmp_path, f"c-{seat}.html"), seat)
    entry0 = load_game(games / "w").hashes[0]
    kept = tmp_path / "w-red-nonce.txt"
    kept.write_text(f"game w red\nafter 0 {entry0[:16]}\nnonce {number(games, 'red').hex()}\n")
    browser.open(page_for(games, "red", tmp_path, "n-red.html"))
    browser.page.set_input_files("#nonce-load", kept)  # as the file chooser gives it: a 'change' event
    wait(browser, COMPLETE, "the page did not read the nonce file")
    assert parse(str(browser.eval("document.getElementById('move').textContent")))["nonce"] == \
        number(games, "red").hex()


def test_p4_round_two_takes_the_nonce_file_pasted_whole_on_another_device(browser: Browser, games: Path,
                                                                         tmp_path: Path) -> None:
    """The nonce move saved on a phone, its whole text pasted into the page on a laptop: the
    one-line field drops the line breaks, and the page still finds the nonce line and reveals."""
    for seat in PLAYERS:
        commit_from(browser, games, page_for(games, seat, tmp_path, f"c-{seat}.html"), seat)
    entry0 = load_game(games / "w").hashes[0]
    nonce = number(games, "red").hex()
    browser.open(page_for(games, "red", tmp_path, "n-red.html"))
    type_and_click(browser, "nonce-in", f"game w red\nafter 0 {entry0[:16]}\nnonce {nonce}\n")
    wait(browser, COMPLETE, "the page did not read the pasted nonce file")
    assert parse(str(browser.eval("document.getElementById('move').textContent")))["nonce"] == nonce


@pytest.mark.parametrize("lang", ["en", "hu", "el", "uk"])
def test_p4_every_opening_page_says_what_the_two_rounds_protect_and_what_to_do(games: Path, lang: str) -> None:
    """A player's first page: one sentence on what the two rounds protect, and the round's own
    prompt, in the player's language; a turn's page has neither."""
    from pbem.i18n import Msg, translator

    say = translator(lang).say
    why = say(Msg("Two rounds make the deal fair: first every player sends a fingerprint of a secret number, "
                  "then, once all have, the numbers themselves; with the host's secret they fix the rats' order, "
                  "so nobody, the host included, can choose it after seeing the others'."))
    first = html.unescape(readable(compose_page(SeatView(load_game(games / "w"), "red"), "host@example.org", lang)))
    assert 'id="opening"' in first and why in first
    assert (say(Msg.plural("Round 1 of 2: type your secret words, a sentence of your own ({n} word or more), and tap "
                           "the button; the page adds a code of its own. Write down the words and the code, then "
                           "Send: round 2 asks for both.", "Round 1 of 2: type your secret words, a sentence of your "
                           "own ({n} words or more), and tap the button; the page adds a code of its own. Write down "
                           "the words and the code, then Send: round 2 asks for both.", 5)).split(":")[0]) in first
    if lang != "en":
        assert "Two rounds make the deal fair" not in first


def test_p4_the_words_derivation_refuses_what_it_cannot_keep() -> None:
    """Five words or more, no control character; case, NFC and spacing do not count."""
    assert words_of(" Ünő  ÉS\u00a0a\tborjú  ma ") == "ünő és a borjú ma"
    assert words_of("U\u0308no es a borju ma") == words_of("Üno es a borju ma")
    for bad in ("four words are few", "a b c d\u0007 e", "x " * 600):
        with pytest.raises(Exception, match=r"\(P4\)"):
            words_of(bad)
    assert words_nonce("0" * 64, "red", "a b c d e") == hashlib.sha256(
        b"pbem-rattus/v1/words\n" + b"0" * 64 + b"\nred\na b c d e").digest()
    assert words_nonce("0" * 64, "red", "a b c d e") != words_nonce("1" * 64, "red", "a b c d e")
    assert len(nonce_commitment(words_nonce("0" * 64, "red", "a b c d e"))) == 64


def test_the_fingerprint_pbem_publishes_is_every_pages_own(games: Path, tmp_path: Path) -> None:
    """The published fingerprint (docs/fairplay.md, `pbem fingerprint`) is the head of every
    composer page, in every language; the page shows it; a page with an extra script is named."""
    rows = [line for line in (Path(__file__).parent.parent / "docs" / "fairplay.md").read_text().splitlines()
            if line.startswith("| 0.")]
    assert rows and rows[-1].startswith(f"| {__version__} |") and fingerprint() in rows[-1]
    assert fingerprint() in ok("fingerprint") and __version__ in ok("fingerprint")
    for lang in ("en", "hu", "el", "uk"):
        page = tmp_path / f"c-{lang}.html"
        page.write_text(compose_page(SeatView(load_game(games / "w"), "red"), None, lang), encoding="utf-8")
        text = page.read_text(encoding="utf-8")
        head = text[text.index("<head>\n"):text.index("\n</script>\n") + len("\n</script>\n")]
        assert hashlib.sha256(head.encode()).hexdigest() == fingerprint() and fingerprint() in readable(text)
        assert f"ok: {page.name} is pbem {__version__}'s composer page" in ok("fingerprint", page)
    refresh = "<meta http-equiv=\"refresh\" content=\"0;url=https://x.example\">"
    page.write_text(text.replace("</body>", refresh + "</body>"))
    refused = cli("fingerprint", page)
    assert refused.exit_code == Exit.TAMPERED and "(<meta)" in refused.stderr, refused.stderr
    inside = unpack(text)  # the same markup packed inside the page's body
    assert inside is not None
    page.write_text(repacked(text, inside[1], inside[0].replace("</main>", refresh + "</main>")))
    refused = cli("fingerprint", page)
    assert refused.exit_code == Exit.TAMPERED and "(<meta)" in refused.stderr, refused.stderr
    from pbem.views.composejs import OPENING_SCRIPT as SCRIPT

    page.write_text(repacked(text, SCRIPT + "alert(1);\n"))  # another script packed: the policy would block it
    refused = cli("fingerprint", page)
    assert refused.exit_code == Exit.TAMPERED and "this version's script" in refused.stderr, refused.stderr


def test_p4_pbem_nonce_words_commits_and_reveals_the_words_and_codes_number(
        games: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`pbem nonce --from-words`: the page's derivation over the words and a new code, which it
    says and keeps in the nonce file; the reveal takes the words and the code again and refuses
    words that do not give the commitment (no file written)."""
    monkeypatch.chdir(tmp_path)
    for seat in PLAYERS:
        made = ok("nonce", "w", "--player", seat, "--from-words", "--out", tmp_path / f"{seat}-c.yaml", "--games",
                  games, input=WORDS[seat] + "\n")
        CODES[seat] = load_one((tmp_path / f"nonce-w-{seat}.yaml").read_text(), "kept")["code"]
        assert f"your code: {CODES[seat]}. Write it down with your secret words" in made
        ok("apply", tmp_path / f"{seat}-c.yaml", "--games", games)
    assert load_game(games / "w").commits["red"] == nonce_commitment(number(games, "red"))
    wrong = cli("nonce", "w", "--player", "red", "--reveal", "--from-words", "--out", tmp_path / "red-n.yaml",
                "--games", games, input="these are not the words\n" + CODES["red"] + "\n")
    assert wrong.exit_code == Exit.TAMPERED and "not to the secret number of red's words and code" in wrong.stderr
    assert not (tmp_path / "red-n.yaml").exists()
    few = cli("nonce", "w", "--player", "red", "--reveal", "--from-words", "--games", games,
              input="too few words\n" + CODES["red"] + "\n")
    assert few.exit_code == Exit.FORMAT and "5 words or more" in few.stderr and few.stdout == ""
    ok("nonce", "w", "--player", "red", "--reveal", "--from-words", "--out", tmp_path / "red-n.yaml", "--games", games,
       input=WORDS["red"].lower() + "\n" + CODES["red"].lower() + "\n")
    ok("apply", tmp_path / "red-n.yaml", "--games", games)
    ok("nonce", "w", "--player", "green", "--reveal", "--out", tmp_path / "green-n.yaml", "--games", games)
    ok("apply", tmp_path / "green-n.yaml", "--games", games)
    said = ok("verify", games / "w" / "log.yaml", "--nonce", tmp_path / "nonce-w-green.yaml", "--words", "red",
              input=WORDS["red"] + "\n" + CODES["red"] + "\n")
    assert "nonces (P4): checked here against what their player kept: red, green;" in said
    assert "not checked here" not in said


def test_every_trust_statement_says_what_it_rests_on(games: Path, tmp_path: Path) -> None:
    """No output says "nobody chose the rat order" outright: the trust line says it holds only
    if some player's nonce was their own; verify names the seats it checked (none here); the
    last mail tells each player the check; a commitment given as a nonce file is named."""
    from pbem.mail.final import end_text
    from pbem.views.timeline import game_at, read_checked

    log = Path(__file__).parent.parent / "examples" / "rattus-2p" / "log.yaml"
    said = ok("verify", log)
    assert "nobody, the host included" not in said
    assert "that nobody chose the rat order holds only if some player's nonce was that player's own" in said
    assert "nonces (P4): none checked here" in said and "'pbem verify LOG --words SEAT'" in said
    entries, hashes = read_checked(log)
    _subject, body = end_text(game_at(entries, hashes, len(entries) - 1))
    assert "No audit can tell who made a nonce" in body and "--words SEAT" in body
    assert "only if some player's nonce was that player's own" in body
    commit = tmp_path / "red-commit.txt"
    commit.write_text(f"game w red\nafter 0 {load_game(games / 'w').hashes[0][:16]}\ncommit {'0' * 64}\n")
    refused = cli("verify", games / "w" / "log.yaml", "--nonce", commit)
    assert refused.exit_code == Exit.FORMAT and "red's commit move, not a nonce" in refused.stderr, refused.stderr


def recipe(folder: Path, seat: str, words: str, code: str) -> list[str]:
    """docs/fairplay.md's standard-tools check, run as written (sh, grep, openssl, sha256sum, xxd)
    in the log's folder: [nonce found in the log (count), the commitment of the words' nonce]."""
    doc = (Path(__file__).parent.parent / "docs" / "fairplay.md").read_text(encoding="utf-8")
    block = doc.split("## The same check with standard tools", 1)[1].split("```\n", 3)[3].split("```", 1)[0]
    script = block.replace("'your words as the page showed them'", '"$WORDS"').replace(" red ", ' $SEAT ') \
        .replace("K7QM3XZP9D2FHT6A", "$CODE")
    assert '"$WORDS"' in script and '$SEAT' in script and "$CODE" in script and "log.yaml" in script, script
    run = subprocess.run(["sh", "-c", script],
                         cwd=folder, env={"WORDS": words, "SEAT": seat, "CODE": code, "PATH": "/usr/bin:/bin"},
                         capture_output=True, text=True)
    return [line.split()[0] for line in run.stdout.splitlines()]


def test_p4_the_documented_standard_tools_check_catches_the_planted_nonce(games: Path) -> None:
    """Before the start: the commitment the recipe prints is red's in the log for red's words,
    and not for a planted nonce; after the start, the words' nonce is found in the log."""
    game = load_game(games / "w")
    entry0 = game.hashes[0]
    codes = {"red": "K7QM3XZP9D2FHT6A", "green": "0123456789ABCDEF"}
    red = secret_number(entry0, "red", WORDS["red"], codes["red"])
    for seat, nonce in (("red", red), ("green", bytes.fromhex(PLANTED))):
        move = f"game w {seat}\nafter 0 {entry0[:16]}\ncommit {nonce_commitment(nonce)}\n"
        apply_move(games, parse_move(move.encode()))
    found, commitment = recipe(games / "w", "red", words_of(WORDS["red"]), codes["red"])  # only its commitment
    assert found == "0" and commitment == load_game(games / "w").commits["red"]
    found, commitment = recipe(games / "w", "green", words_of(WORDS["green"]), codes["green"])
    assert found == "0" and commitment != load_game(games / "w").commits["green"]  # green's page planted its own
    for seat, nonce in (("red", red), ("green", bytes.fromhex(PLANTED))):
        apply_move(games, parse_move(f"game w {seat}\nafter 0 {entry0[:16]}\nnonce {nonce.hex()}\n".encode()))
    assert int(recipe(games / "w", "red", words_of(WORDS["red"]), codes["red"])[0]) >= 1  # its reveal and the start
    assert recipe(games / "w", "green", words_of(WORDS["green"]), codes["green"])[0] == "0"  # the start used another
