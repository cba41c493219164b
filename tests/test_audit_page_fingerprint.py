"""The end mail's audit page is checkable: `pbem fingerprint PAGE` (P6).

The page the last mail attaches checks the log in the player's browser and says FAIR or REFUSED.
The host sends it, so a cheating host rewrites the log (a flipped rat's salt, every entry
re-chained) and changes one line of the page's script so that it always says FAIR, then puts the
new script's hash in the page's security policy, so that the browser runs it.  The browser then
says FAIR of the rewritten log.  `pbem fingerprint` refuses that page, naming the changed line,
and accepts the honest page, whose browser check says REFUSED of the same log.  The page's
fingerprint (its head: the policy and the script, which holds every word of the verdict) is the
one docs/fairplay.md publishes, in every language, and the page says how to check it.
"""

from __future__ import annotations

import base64
import copy
import gzip
import hashlib
import re
from pathlib import Path
from typing import Any

import pytest
from clitools import cli, ok
from pagetools import audited, open_page
from tampering import flip_salt, rechain, write

from pbem import __version__
from pbem.errors import Exit
from pbem.log.logfile import read_docs
from pbem.views.endpage import end_page, fingerprint
from pbem.views.html import csp_hash
from pbem.views.packed import repack, unpack, unpacked
from pbem.views.timeline import game_at, read_checked

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "rattus-3p" / "log.yaml"
ALWAYS_FAIR = ("  function verdict(err, notes) {", "  function verdict(err, notes) { err = null; notes = [];")


def page_for(log: Path, out: Path, lang: str = "en") -> Path:
    """The page the end mail attaches for ``log`` (the end mail's own function: tests/test_mail_end.py)."""
    entries, hashes = read_checked(log)
    game = game_at(entries, hashes, len(entries) - 1)
    out.write_text(end_page(game, log.read_bytes().decode("utf-8"), lang), encoding="utf-8")
    return out


def head_of(text: str) -> str:
    """What ``sed -n '/^<head>$/,/^<\\/script>$/p' PAGE`` prints."""
    return text[text.index("<head>\n"):text.index("\n</script>\n") + len("\n</script>\n")]


def with_log(page: Path, log: Path, out: Path) -> Path:
    """``page`` carrying ``log`` instead of its own (packed as pbem packs it)."""
    text = page.read_text(encoding="utf-8")
    inside = unpack(text)
    assert inside is not None
    packed = base64.b64encode(gzip.compress(log.read_bytes(), mtime=0)).decode("ascii")
    body = re.sub(r'\{"log_gz":"[^"]*"\}', '{"log_gz":"' + packed + '"}', inside[0])
    out.write_text(repack(text, body, inside[1]), encoding="utf-8")
    return out


def doctored(page: Path, out: Path) -> Path:
    """The host's one-line change: the script's verdict is always FAIR; its hash put in the policy."""
    text = page.read_text(encoding="utf-8")
    inside = unpack(text)
    assert inside is not None and inside[1].count(ALWAYS_FAIR[0]) == 1
    changed = inside[1].replace(ALWAYS_FAIR[0], ALWAYS_FAIR[1])
    text = repack(text.replace(csp_hash(inside[1]), csp_hash(changed)), inside[0], changed)
    out.write_text(text, encoding="utf-8")
    return out


@pytest.fixture(scope="module")
def rewritten(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example game's log as a cheating host rewrites it: the first flipped rat's salt
    changed (another face), every entry after it re-chained."""
    entries = copy.deepcopy(read_docs(EXAMPLE)[0])
    flip_salt(entries)
    return write(tmp_path_factory.mktemp("rewritten") / "log.yaml", rechain(entries))


def test_p6_the_honest_page_is_accepted_and_its_fingerprint_is_the_published_one(tmp_path: Path) -> None:
    rows = [line for line in (ROOT / "docs" / "fairplay.md").read_text(encoding="utf-8").splitlines()
            if line.startswith("| pbem ")]
    assert rows and rows[-1].startswith(f"| pbem {__version__} |") and fingerprint() in rows[-1]
    assert f"audit page of pbem {__version__}: fingerprint {fingerprint()}" in ok("fingerprint")
    for lang in ("en", "hu", "el", "uk"):
        page = page_for(EXAMPLE, tmp_path / f"rattus-3p-60-audit-{lang}.html", lang)
        text = page.read_text(encoding="utf-8")
        assert hashlib.sha256(head_of(text).encode("utf-8")).hexdigest() == fingerprint()  # the same in every language
        said = ok("fingerprint", page, "--lang", lang)
        assert said.startswith("ok: ") and fingerprint() in said, said
        shown = unpacked(text)  # the page as the browser unpacks it
        assert "pbem fingerprint rattus-3p-60-audit.html" in shown and "sha256sum" in shown  # how to check it
        assert f'data-pbem="{__version__} {fingerprint()}"' in shown


def test_p6_a_page_changed_to_always_say_fair_is_refused_naming_the_line(rewritten: Path, tmp_path: Path) -> None:
    honest = page_for(EXAMPLE, tmp_path / "honest.html")
    assert ok("fingerprint", honest).startswith("ok: ")
    cheat = doctored(honest, tmp_path / "cheat.html")
    before = cheat.read_bytes()
    refused = cli("fingerprint", cheat)
    assert refused.exit_code == Exit.TAMPERED, refused.output + refused.stderr
    lines = unpacked(honest.read_text(encoding="utf-8")).split("\n")  # counted as the page unpacks
    line = 1 + next(k for k, text in enumerate(lines) if text.startswith(ALWAYS_FAIR[0]))
    assert f"its lines 6, {line}, counted as the page unpacks, differ" in refused.stderr, refused.stderr
    assert f"at line {line} the file has" in refused.stderr, refused.stderr
    assert "err = null; notes = [];" in refused.stderr and "so its script or its words are not pbem's" in refused.stderr
    assert f"pbem {__version__}'s is {fingerprint()}" in refused.stderr and "do not take its verdict" in refused.stderr
    assert cheat.read_bytes() == before
    sent = with_log(cheat, rewritten, tmp_path / "sent.html")  # what the cheat mails: the rewritten log inside
    refused = cli("fingerprint", sent)
    assert refused.exit_code == Exit.TAMPERED, refused.output + refused.stderr
    assert "the log it carries does not replay" in refused.stderr and "(P6)" in refused.stderr
    assert "so its script or its words are not pbem's" in refused.stderr, refused.stderr


def test_p6_changed_words_around_the_verdict_are_named_too(tmp_path: Path) -> None:
    """The script untouched (the head's fingerprint is pbem's), a line of the host's words changed."""
    page = page_for(EXAMPLE, tmp_path / "page.html")
    text = page.read_text(encoding="utf-8")
    page.write_text(text.replace("<h1>Rattus game rattus-3p: the end</h1>",
                                 "<h1>Rattus game rattus-3p: the end (verdict: FAIR)</h1>"), encoding="utf-8")
    refused = cli("fingerprint", page)
    assert refused.exit_code == Exit.TAMPERED and "(verdict: FAIR)" in refused.stderr, refused.stderr
    assert "so its script" not in refused.stderr  # the head is pbem's: the host's words changed
    inside = unpack(text)
    assert inside is not None
    page.write_text(repack(text, inside[0].replace('{"log_gz":"', '{"log_gz":"AAAA'), inside[1]), encoding="utf-8")
    garbled = cli("fingerprint", page)
    assert garbled.exit_code == Exit.TAMPERED and "cannot be unpacked" in garbled.stderr, garbled.stderr


def test_p6_in_a_browser_the_changed_page_says_fair_and_the_honest_one_refused(browser: Any, rewritten: Path,
                                                                            tmp_path: Path) -> None:
    """Why the fingerprint matters: both pages run (the policy admits each one's script); only the
    file check tells them apart."""
    honest = with_log(page_for(EXAMPLE, tmp_path / "page.html"), rewritten, tmp_path / "honest.html")
    cheat = doctored(honest, tmp_path / "cheat.html")
    open_page(browser, honest, "!!document.getElementById('audit')")
    assert audited(browser)["kind"] == "refused"
    open_page(browser, cheat, "!!document.getElementById('audit')")
    seen = audited(browser)
    assert seen["kind"] == "fair" and seen["verdict"].startswith("verdict: FAIR"), seen


def test_p6_a_long_games_page_without_its_log_is_checked_with_the_attached_log(tmp_path: Path) -> None:
    """A very long game's page carries no copy of its log (the mail would pass 100 KB): `pbem
    fingerprint` says to give the attached log.yaml.gz, and with it accepts the page; with another
    game's log it refuses."""
    entries, hashes = read_checked(EXAMPLE)
    page = tmp_path / "long.html"
    page.write_text(end_page(game_at(entries, hashes, len(entries) - 1), None, "en"), encoding="utf-8")
    asked = cli("fingerprint", page)
    assert asked.exit_code == Exit.TAMPERED and "--log log.yaml.gz" in asked.stderr, asked.stderr
    attached = tmp_path / "log.yaml.gz"
    attached.write_bytes(gzip.compress(EXAMPLE.read_bytes(), mtime=0))
    assert ok("fingerprint", page, "--log", attached).startswith("ok: ")
    other = cli("fingerprint", page, "--log", ROOT / "examples" / "rattus-2p" / "log.yaml")
    assert other.exit_code == Exit.TAMPERED, other.stderr
