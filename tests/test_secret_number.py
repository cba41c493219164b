"""Nobody chooses the deal, whatever words a player types (PROTOCOL P4; docs/fairplay.md).

The attacker is a host that holds a seat (it joined its own open game under another address)
and commits last: if it learns another seat's number from the public log before the reveals,
it can try numbers of its own until the deal suits it.  It has the log (entry 0 and round 1's
commitments) and a dictionary of common sentences.  Against numbers made from typed words
alone, as pages made them before codes, the attack finds weak words in a moment; against the
secret number of the words and the code the player keeps (80 random bits, scrypt), the same
attack finds nothing, whatever the words, because the code is not in the log.  The page and
`pbem nonce` refuse weak words anyway (the second lock, should a doctored page plant the code),
and the page's script and Python make the same number, byte for byte.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from clitools import cli, ok

from pbem.errors import Exit
from pbem.fair import strength
from pbem.fair.protocol import nonce_commitment
from pbem.fair.words import code_of, secret_number, shown_code, words_nonce, words_of
from pbem.host.create import NewGame, create
from pbem.host.games import apply_move, load_game
from pbem.log.moves import parse_move
from pbem.log.yamlio import load_one

SEATS = ("red", "green", "blue")
WEAK = {"red": "The quick brown fox jumps over the lazy dog", "green": "a a a a a", "blue": "one two three four five"}
"""The words each seat's player typed: what people type when asked for "a sentence"."""

FAMOUS = ("the quick brown fox jumps over the lazy dog", "lorem ipsum dolor sit amet", "hello world",
          "to be or not to be", "correct horse battery staple", "i love you so much", "may the force be with you",
          "the cat sat on the mat", "all work and no play makes jack a dull boy", "password password password")
NUMBERS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")


def dictionary() -> Iterator[str]:
    """The attacker's guesses, likeliest first: famous sentences, a common word said five times,
    counting (words, digits, letters), five common words in a row; each with its variants (the
    attacker knows the words are lowercased and their spacing made one space)."""
    common = [w for w in strength.common_words() if w.isascii()][:400]
    seen: set[str] = set()
    guesses: list[str] = [*FAMOUS]
    guesses += [" ".join([w] * n) for w in common[:200] for n in (5, 6)]
    guesses += [" ".join(NUMBERS[i:i + n]) for i in range(len(NUMBERS)) for n in (5, 6) if i + n <= len(NUMBERS)]
    guesses += [" ".join(str(d) for d in range(i, i + 5)) for i in range(6)]
    guesses += [" ".join("abcdefghijklmnopqrstuvwxyz"[i:i + 5]) for i in range(22)]
    guesses += [" ".join(common[i:i + 5]) for i in range(len(common) - 5)]
    for guess in guesses:
        for variant in (guess, guess + ".", guess + "!", guess.replace(" the ", " a ")):
            said = " ".join(variant.split())
            if said not in seen and len(said.split()) >= 5:
                seen.add(said)
                yield said


def public_log(log: Path) -> tuple[str, dict[str, str]]:
    """What the attacker reads in the public log: entry 0's hash (the prev of entry 1) and each
    seat's round-1 commitment."""
    entries = [json.loads(doc) for doc in log.read_text(encoding="utf-8").split("---\n") if doc.strip()]
    commits = {e["player"]: e["move"]["nonce_commitment"] for e in entries if e["kind"] == "commit"}
    return entries[1]["prev"], commits


def attack(log: Path, derive: Callable[[str, str, str], bytes], guesses: list[str],
           seconds: float) -> dict[str, str]:
    """Each seat's words the dictionary finds from the public log under ``derive``, within
    ``seconds`` (the bound asserted: the attack is real, not a token loop)."""
    entry0, commits = public_log(log)
    wanted = {c: seat for seat, c in commits.items()}
    found: dict[str, str] = {}
    started = time.monotonic()
    for guess in guesses:
        for seat in SEATS:
            commitment = nonce_commitment(derive(entry0, seat, guess))
            if wanted.get(commitment) == seat:
                found[seat] = guess
    assert time.monotonic() - started < seconds, "the attack took longer than its bound"
    return found


@pytest.fixture
def games(tmp_path: Path) -> Path:
    folder = tmp_path / "games"
    create(folder, NewGame("w", SEATS))
    return folder


def commit_with_words(games: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """Every seat commits with its weak words through `pbem nonce --from-words`, its estimate
    of the words switched off (as if the page had let them through): the codes it made."""
    monkeypatch.setattr(strength, "check_strength", lambda words: 99.0)
    monkeypatch.chdir(tmp_path)
    codes = {}
    for seat in SEATS:
        ok("nonce", "w", "--player", seat, "--from-words", "--out", tmp_path / f"{seat}.txt", "--games", games,
           input=WEAK[seat] + "\n")
        codes[seat] = load_one((tmp_path / f"nonce-w-{seat}.yaml").read_text(), "kept")["code"]
        ok("apply", tmp_path / f"{seat}.txt", "--games", games)
    return codes


def test_p4_a_dictionary_attack_on_the_public_log_finds_words_alone_in_a_moment(games: Path) -> None:
    """The attack as it worked: the three seats made their numbers from their words alone (the
    derivation before codes); from the public log a few thousand guesses find all three."""
    entry0 = load_game(games / "w").hashes[0]
    for seat in SEATS:
        apply_move(games, parse_move(f"game w {seat}\nafter 0 {entry0[:16]}\ncommit "
                                     f"{nonce_commitment(words_nonce(entry0, seat, WEAK[seat]))}\n".encode()))
    guesses = list(dictionary())
    assert 2000 <= len(guesses) <= 10_000, len(guesses)
    found = attack(games / "w" / "log.yaml", words_nonce, guesses, seconds=20)
    assert found == {seat: words_of(WEAK[seat]) for seat in SEATS}


def test_p4_the_same_attack_finds_no_secret_number_made_with_the_same_weak_words(
        games: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The same seats, the same weak words, made through `pbem nonce --from-words` (words and a
    new code): the whole dictionary under the words-only derivation finds nothing, and neither
    do the likeliest words under the secret number's derivation with any code the attacker can
    name (it is not in the log: 2^80 codes).  Only an attacker handed the code (a doctored page
    that planted it) finds weak words: which is why the page and `pbem nonce` refuse them."""
    codes = commit_with_words(games, tmp_path, monkeypatch)
    log = games / "w" / "log.yaml"
    assert not any(code_of(c) in log.read_text() for c in codes.values())  # the code never leaves the player
    guesses = list(dictionary())
    assert attack(log, words_nonce, guesses, seconds=20) == {}
    for code in ("0" * 16, "Z" * 16, "0123456789ABCDEF"):
        def guessed(entry0: str, seat: str, words: str, code: str = code) -> bytes:
            return secret_number(entry0, seat, words, code)

        assert attack(log, guessed, guesses[:3], seconds=30) == {}
    handed = attack(log, lambda e, s, w: secret_number(e, s, w, codes["red"]), guesses[:1], seconds=30)
    assert handed == {"red": words_of(WEAK["red"])}


def test_p4_weak_words_are_refused_with_their_estimate_and_no_file_is_written(games: Path, tmp_path: Path,
                                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """`pbem nonce --from-words` refuses each weak sentence with one paragraph naming the estimate
    and the rule (exit 3, nothing kept, no move); a sentence of one's own is taken."""
    monkeypatch.chdir(tmp_path)
    for words in (*WEAK.values(), "i love you so much darling", "monday tuesday wednesday thursday friday"):
        refused = cli("nonce", "w", "--player", "red", "--from-words", "--out", tmp_path / "c.txt", "--games", games,
                      input=words + "\n")
        assert refused.exit_code == Exit.FORMAT, (words, refused.output)
        assert "these secret words are too easy to guess: about" in refused.stderr
        assert "a secret number needs 48 (P4)" in refused.stderr and refused.stdout == ""
        assert list(tmp_path.iterdir()) == [games]
    made = ok("nonce", "w", "--player", "red", "--from-words", "--out", tmp_path / "c.txt", "--games", games,
              input="grandmother's plum jam on the tuesday bus\n")
    assert "your code: " in made and (tmp_path / "nonce-w-red.yaml").exists()


def test_p4_round_two_from_the_saved_file_and_from_words_and_code_on_another_device(
        games: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """red makes the number on a laptop; round 2 works from the file kept there and, in a fresh
    folder with nothing of it ("another device"), from the words and the code as written down
    (small letters, spaces for dashes): the same move.  A wrong code writes nothing."""
    words = "grandmother's plum jam on the tuesday bus"
    laptop, phone = tmp_path / "laptop", tmp_path / "phone"
    laptop.mkdir()
    phone.mkdir()
    monkeypatch.chdir(laptop)
    made = ok("nonce", "w", "--player", "red", "--from-words", "--out", "c.txt", "--games", games, input=words + "\n")
    assert "commitment move for red written to c.txt; the nonce is kept in nonce-w-red.yaml (mode 0600)" in made
    kept = (laptop / "nonce-w-red.yaml").read_text()
    code = load_one(kept, "kept")["code"]
    assert "plum" not in kept  # the file keeps the number and the code, never the words
    ok("apply", "c.txt", "--games", games)
    for seat in ("green", "blue"):
        ok("nonce", "w", "--player", seat, "--out", f"{seat}.txt", "--games", games)
        ok("apply", f"{seat}.txt", "--games", games)
    from_file = ok("nonce", "w", "--player", "red", "--reveal", "--games", games)
    monkeypatch.chdir(phone)
    log = games / "w" / "log.yaml"
    wrong = cli("nonce", log, "--player", "red", "--reveal", "--from-words", "--code", "0" * 16, "--out", "n.txt",
                input=words + "\n")
    assert wrong.exit_code == Exit.TAMPERED and not (phone / "n.txt").exists()
    assert "First check what you typed: the same secret words, and the code as you wrote it down" in wrong.stderr
    typed = ok("nonce", log, "--player", "red", "--reveal", "--from-words", input=f"{words.upper()}\n"
               f"{code.lower().replace('-', ' ')}\n")
    said = ok("nonce", log, "--player", "red", "--reveal", "--from-words", "--code", code, "--out", "n.txt",
              input=words + "\n")
    assert "nonce move for red written to n.txt (the secret number of your words and code)" in said
    assert (phone / "n.txt").read_text() == typed
    (phone / "n.txt").unlink()
    assert typed == from_file and list(phone.iterdir()) == []
    apply_move(games, parse_move(typed.encode()))
    said = ok("verify", log, "--words", "red", "--code", code, input=words + "\n")
    assert "ok: red's commitment (entry 1) is to exactly the secret number of red's words and code" in said


def test_p4_verify_still_checks_a_number_made_from_the_words_alone_and_says_so(games: Path) -> None:
    """A game opened before codes: the seat's nonce is its words' alone; `verify --words` with no
    code checks it and names that derivation and its weakness."""
    entry0 = load_game(games / "w").hashes[0]
    words = "grandmother's plum jam on the tuesday bus"
    apply_move(games, parse_move(f"game w red\nafter 0 {entry0[:16]}\ncommit "
                                 f"{nonce_commitment(words_nonce(entry0, 'red', words))}\n".encode()))
    said = ok("verify", games / "w" / "log.yaml", "--words", "red", "--code", "", input=words + "\n")
    assert "ok: red's commitment (entry 1) is to exactly the nonce of red's words alone (made as before codes" in said


def test_p4_a_code_is_eighty_random_bits_written_to_be_read_back() -> None:
    """16 signs of 32 (80 bits), shown in four groups; read back whatever the case, dashes or
    spaces, an O as 0 and an I or L as 1; anything else refused (P4)."""
    assert code_of(shown_code("K7QM3XZP9D2FHT6A")) == "K7QM3XZP9D2FHT6A"
    assert shown_code("k7qm 3xzp-9d2f ht6a") == "K7QM-3XZP-9D2F-HT6A"
    assert code_of("OIL0-0000-0000-0000") == "0110000000000000"
    for bad in ("K7QM-3XZP-9D2F", "K7QM-3XZP-9D2F-HT6U", "K7QM-3XZP-9D2F-HT6A-0"):
        with pytest.raises(Exception, match=r"a code is 16 letters and digits.*\(P4\)"):
            code_of(bad)
    from pbem.fair.words import new_code

    made = {new_code() for _ in range(200)}
    assert len(made) == 200 and all(len(c) == 16 and code_of(c) == c for c in made)
    assert len({c[i] for c in made for i in range(16)}) == 32  # every sign turns up


SAMPLES = [*WEAK.values(), "grandmother's plum jam on the tuesday bus", "zöld kerékpár a duna partján reggel",
           "ένα δύο τρία τέσσερα πέντε", "один два три чотири п'ять", "constructor __proto__ tostring valueof x",
           "sphinx of black quartz judge my vow now", "1 2 3 4 5 6", "purple elephants dance under frozen waterfalls"]


def test_p4_the_page_makes_pythons_number_and_estimate_and_refuses_weak_words(browser: Any, games: Path,
                                                                             tmp_path: Path) -> None:
    """The page's own scrypt (over WebCrypto) gives Python's secret number byte for byte, for
    words in four alphabets and several codes; its estimate is Python's for every sample; it
    reads codes as Python does; and typed weak words are refused on the page with its estimate."""
    from pbem.referee.seatview import SeatView
    from pbem.views.compose import compose_page

    page = tmp_path / "red.html"
    page.write_text(compose_page(SeatView(load_game(games / "w"), "red"), "host@example.org"), encoding="utf-8")
    browser.open(page)
    entry0 = load_game(games / "w").hashes[0]
    data = "JSON.parse(document.getElementById('pbem-data').textContent)"
    hexed = "b => Array.from(b).map(x => (x < 16 ? '0' : '') + x.toString(16)).join('')"
    codes = ("K7QM3XZP9D2FHT6A", "0000000000000000", "ZZZZZZZZZZZZZZZZ", "0123456789ABCDEF")
    for words, code in zip(SAMPLES[3:7], codes, strict=True):
        said = words_of(words)
        shown = browser.eval(f"Secret.number({data}, {json.dumps(said)}, {code!r}).then({hexed})", wait=True)
        assert shown == secret_number(entry0, "red", words, code).hex(), words
    estimates = browser.eval(f"{json.dumps([words_of(w) for w in SAMPLES])}.map(w => Secret.estimate({data}, w))")
    assert [round(e, 9) for e in estimates] == [round(strength.estimate(words_of(w)), 9) for w in SAMPLES]
    for text in ("k7qm 3xzp-9d2f ht6a", "OIL0-0000-0000-0000", "K7QM-3XZP-9D2F", "K7QM-3XZP-9D2F-HT6U"):
        try:
            expected: str | None = code_of(text)
        except Exception:
            expected = None
        assert browser.eval(f"Secret.codeOf({text!r})") == expected, text
    for words in WEAK.values():
        browser.eval(f"document.getElementById('words-in').value = {words!r};"
                     "document.querySelector('#choices button').click()")
        status = str(browser.eval("document.getElementById('status').textContent"))
        assert "these secret words are too easy to guess: about" in status and "needs 48 (P4)" in status, status
        assert browser.eval("document.getElementById('view').getAttribute('data-complete')") == "false"
