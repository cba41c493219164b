"""The audit in the player's browser (PROTOCOL P3-P6): the end mail's page and the viewer check the
log with WebCrypto and nothing the host computed, and say what tools/audit_min.py and `pbem audit` say.

A player with only a mail client and a browser opens the page the last mail attaches: it checks the
revealed secret against entry 0's commitment (P3), the seed against every player's nonce (P4), every
draw (P5) and every face turned up against its commitment (P6).  Its exit code and lines are the
minimal verifier's, word for word, on every example and on every tampered log the verifier's own
tests make; a changed face, a changed nonce and a changed secret are each caught and named.  It
fetches nothing.
"""

from __future__ import annotations

import base64
import copy
import gzip
import json
import re
import time
from pathlib import Path
from typing import Any

import pytest
import yaml
from audittools import EXAMPLE, EXAMPLES, ROOT, TOOL_MODULE, pbem, tampered
from clitools import ok
from deadlinetools import moved_past_absences
from pagetools import ARTIFACTS, audit_text, audited, open_page
from tampering import Entries, first, rechain, write

from pbem.fair.protocol import nonce_commitment, secret_commitment
from pbem.host.create import NewGame, create
from pbem.log.logfile import read_docs
from pbem.views.endpage import end_page
from pbem.views.packed import readable
from pbem.views.trust import audit_verdict
from pbem.views.timeline import game_at, read_checked

READY = "!!document.getElementById('audit')"


def page_for(log: Path, out: Path, lang: str = "en") -> Path:
    entries, hashes = read_checked(log)
    game = game_at(entries, hashes, len(entries) - 1)
    out.write_text(end_page(game, log.read_bytes().decode("utf-8"), lang), encoding="utf-8")
    return out


def minimal(log: Path) -> dict[str, Any]:
    code, lines = TOOL_MODULE.audit(str(log))
    return {"code": code, "lines": lines}


@pytest.fixture(scope="module")
def end_3p(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return page_for(EXAMPLE, tmp_path_factory.mktemp("end") / "audit.html")


@pytest.fixture
def entries() -> Entries:
    return copy.deepcopy(read_docs(EXAMPLE)[0])


def test_on_every_example_the_page_says_what_audit_min_and_pbem_audit_say(browser: Any, tmp_path: Path) -> None:
    for log in EXAMPLES:
        page = page_for(log, tmp_path / f"{log.parent.name}.html")
        open_page(browser, page, READY)
        seen = audited(browser)
        assert {"code": seen["code"], "lines": seen["lines"]} == minimal(log), log
        code, verdict, _err = pbem("audit", log)
        assert (seen["code"], seen["lines"][-1], seen["verdict"]) == (code, verdict, verdict), log
        assert seen["kind"] == "fair" and seen["source"] == "checked: the copy of the log in this page"
        assert any(line.startswith("ok: all ") and "flipped tokens" in line for line in seen["lines"])
        said = browser.eval("document.getElementById('audit-next').textContent")
        assert any(line.startswith("TEST GAME:") for line in seen["lines"])  # the examples' secrets were supplied
        assert said.startswith("But this is a test game: its secret was not made at random"), said
        assert browser.requests[-1] == page.as_uri() and all(u.startswith("file:") for u in browser.requests)
    browser.screenshot(ARTIFACTS / "audit-page-phone.png") if ARTIFACTS.is_dir() else None


def test_every_tampered_log_gets_the_minimal_verifiers_answer(browser: Any, end_3p: Path, entries: Entries,
                                                               tmp_path: Path) -> None:
    """The verifier's own tampering cases (tests/audittools.py): the same code, the same lines."""
    open_page(browser, end_3p, READY)
    audited(browser)
    refused = 0
    for name, make, _sees in tampered():
        log = write(tmp_path / f"{name}.yaml", make(copy.deepcopy(entries)))
        seen = audit_text(browser, log.read_text(encoding="utf-8"), log.name)
        assert {"code": seen["code"], "lines": seen["lines"]} == minimal(log), name
        assert seen["source"] == f"checked: your file {log.name}"
        refused += seen["kind"] == "refused"
        if seen["kind"] == "refused":
            assert seen["verdict"] == seen["lines"][-1] and seen["verdict"].startswith("verdict: REFUSED.")
    assert refused == 25  # the other five are the rules' edits the verifier says it does not replay
    assert all(u.startswith("file:") for u in browser.requests)


def test_a_log_with_absences_gets_the_minimal_verifiers_answer(browser: Any, end_3p: Path, tmp_path: Path) -> None:
    """R8.5: absences, and a move written before another seat's absence, pass P7 in the page as in
    tools/audit_min.py (the audit then waits for the secret)."""
    log = moved_past_absences(tmp_path / "games")
    open_page(browser, end_3p, READY)
    audited(browser)
    seen = audit_text(browser, log.read_text(encoding="utf-8"), log.name)
    assert {"code": seen["code"], "lines": seen["lines"]} == minimal(log) and seen["code"] == 10, seen["lines"]


def refusal(browser: Any, es: Entries, tmp_path: Path) -> tuple[int, str, str]:
    """Audit ``es`` in the page: its exit code, its first line and its verdict (both as audit_min says them)."""
    log = write(tmp_path / "edited.yaml", es)
    seen = audit_text(browser, log.read_text(encoding="utf-8"))
    assert {"code": seen["code"], "lines": seen["lines"]} == minimal(log)
    return seen["code"], seen["lines"][0], seen["verdict"]


def test_a_changed_face_is_caught_and_named(browser: Any, end_3p: Path, entries: Entries, tmp_path: Path) -> None:
    """P6: the host swaps the face a flip revealed and re-hashes the whole chain."""
    open_page(browser, end_3p, READY)
    k = first(entries, lambda e: any(ev["event"] == "token_flipped" for ev in e.get("outcome", [])))
    flip = next(ev for ev in entries[k]["outcome"] if ev["event"] == "token_flipped")
    other = next(t for t in ("S01", "S02") if t != flip["token_id"])
    flip["token_id"] = other
    code, line, verdict = refusal(browser, rechain(entries), tmp_path)
    assert code == 7
    assert line == (f"failed: entry {k}: the reveal of {flip['token']} ({other}) does not match its commitment "
                    "in the start entry (P6)")
    assert verdict.startswith(f"verdict: REFUSED. The log does not verify at entry {k} (P6;")


def test_a_changed_nonce_is_caught_and_named(browser: Any, end_3p: Path, entries: Entries, tmp_path: Path) -> None:
    """P4: a revealed nonce that is not the one committed; then one whose commitment was changed too,
    which the start entry's nonces betray; then the start's nonces changed as well: the deal is not
    what the secret and the nonces give (P5)."""
    open_page(browser, end_3p, READY)
    k = first(entries, lambda e: e["kind"] == "nonce")
    player, nonce = entries[k]["player"], "ab" * 32
    es = copy.deepcopy(entries)
    es[k]["move"]["nonce"] = nonce
    code, line, _ = refusal(browser, rechain(es), tmp_path)
    assert (code, line) == (7, f"failed: entry {k}: {player}'s nonce does not match the commitment (P4)")
    c = first(es, lambda e: e["kind"] == "commit" and e["player"] == player)
    es[c]["move"]["nonce_commitment"] = nonce_commitment(bytes.fromhex(nonce))
    start = first(es, lambda e: e["kind"] == "start")
    code, line, _ = refusal(browser, rechain(es), tmp_path)
    assert (code, line) == (7, f"failed: entry {start}: the nonces differ from the revealed ones (P4)")
    es[start]["nonces"][player] = nonce
    code, line, verdict = refusal(browser, rechain(es), tmp_path)
    assert code == 7 and re.fullmatch(rf"failed: entry {start}: the published (setup|commitments) are not what "
                                      r"the revealed secret gives \(P5\)", line.replace(" setup is ", " setup are "))
    assert f"at entry {start} (P5;" in verdict


def test_a_changed_secret_is_caught_and_named(browser: Any, end_3p: Path, entries: Entries, tmp_path: Path) -> None:
    """P3: a secret that does not open entry 0's commitment; then one that does (entry 0 changed and the
    chain re-hashed): the deal it gives is not the one published at the start."""
    open_page(browser, end_3p, READY)
    es = copy.deepcopy(entries)
    es[-1]["secret"] = "cd" * 32
    code, line, _ = refusal(browser, rechain(es), tmp_path)
    last = len(es) - 1
    assert (code, line) == (7, f"failed: entry {last}: the revealed secret does not match the commitment of entry 0 "
                               "(P3)")
    es[0]["secret"]["commitment"] = secret_commitment(bytes.fromhex("cd" * 32))
    code, line, _ = refusal(browser, rechain(es), tmp_path)
    start = first(es, lambda e: e["kind"] == "start")
    assert code == 7 and re.fullmatch(rf"failed: entry {start}: the published (setup|commitments) are not what "
                                      r"the revealed secret gives \(P5\)", line.replace(" setup is ", " setup are "))


def test_a_log_chosen_from_the_disk_is_checked(browser: Any, end_3p: Path, entries: Entries, tmp_path: Path) -> None:
    """The file chooser: the player's own copy of the log, read by the browser, not sent anywhere."""
    open_page(browser, end_3p, READY)
    audited(browser)
    cut = write(tmp_path / "kept.yaml", entries[:-1])  # a copy kept before the secret was revealed
    browser.eval("document.getElementById('audit').setAttribute('data-code', '')")  # no answer until the file's
    browser.page.set_input_files("#audit-file", cut)
    seen = audited(browser)
    assert seen["source"] == "checked: your file kept.yaml"
    assert (seen["code"], seen["kind"], seen["lines"]) == (10, "notyet", minimal(cut)["lines"])
    assert all(u.startswith("file:") for u in browser.requests)


def long_game_page(browser: Any, entries: Entries, tmp_path: Path) -> Path:
    """The end page of a game too long for the page to carry its log, open and asking for the
    attached log.yaml.gz (or its parts); the log it asks for, written as log.yaml."""
    log = write(tmp_path / "log.yaml", entries)
    entries_, hashes = read_checked(log)
    page = tmp_path / "long.html"
    page.write_text(end_page(game_at(entries_, hashes, len(entries_) - 1), None), encoding="utf-8")
    open_page(browser, page, READY)
    deadline = time.monotonic() + 20
    while "log.yaml.gz.001" not in str(browser.eval("document.getElementById('audit-source').textContent")):
        assert time.monotonic() < deadline, "the page did not ask for the attached log or its parts"
        time.sleep(0.05)
    return log


def test_the_mails_log_yaml_gz_chosen_from_the_disk_is_checked(browser: Any, entries: Entries,
                                                                tmp_path: Path) -> None:
    """A long game's end page carries no copy of the log (the mail stays small) and asks for the
    attached log.yaml.gz; chosen from the disk, gzipped as it is, the browser unpacks and checks it."""
    log = long_game_page(browser, entries, tmp_path)
    packed = tmp_path / "log.yaml.gz"
    packed.write_bytes(gzip.compress(log.read_bytes()))
    node = browser.send("DOM.querySelector", nodeId=browser.send("DOM.getDocument")["root"]["nodeId"],
                        selector="#audit-file")["nodeId"]
    browser.send("DOM.setFileInputFiles", nodeId=node, files=[str(packed)])
    seen = audited(browser)
    assert seen["source"] == "checked: your file log.yaml.gz"
    assert (seen["code"], seen["lines"]) == (minimal(log)["code"], minimal(log)["lines"])
    assert all(u.startswith("file:") for u in browser.requests)


def test_a_long_logs_parts_chosen_together_are_joined_and_checked(browser: Any, entries: Entries,
                                                                  tmp_path: Path) -> None:
    """A log too long for one mail comes in parts (log.yaml.gz.001 and on, pbem.mail.final.log_parts):
    chosen together, in any order, the page joins them in the order of their names and checks the log."""
    log = long_game_page(browser, entries, tmp_path)
    packed = gzip.compress(log.read_bytes())
    third = len(packed) // 3 + 1
    parts = [tmp_path / f"log.yaml.gz.{n:03d}" for n in (1, 2, 3)]
    for n, part in enumerate(parts):
        part.write_bytes(packed[n * third:(n + 1) * third])
    browser.page.set_input_files("#audit-file", [str(parts[2]), str(parts[0]), str(parts[1])])
    seen = audited(browser)
    assert seen["source"] == "checked: your file log.yaml.gz.001 + log.yaml.gz.002 + log.yaml.gz.003"
    assert (seen["code"], seen["lines"]) == (minimal(log)["code"], minimal(log)["lines"])
    assert seen["kind"] == "fair"


def test_signatures_are_checked_with_the_browsers_ed25519(browser: Any, end_3p: Path, tmp_path: Path) -> None:
    """P8: a host-signed log verifies; a signature moved to another entry is refused (exit 8), as audit_min says."""
    from pbem.fair.keys import keygen
    from pbem.sim.demo import open_game

    keygen(tmp_path / "host.key")
    create(tmp_path, NewGame("signed", ("red", "green"), host_key_file=tmp_path / "host.key"))
    open_game(tmp_path, "signed")
    es = read_docs(tmp_path / "signed" / "log.yaml")[0]
    open_page(browser, end_3p, READY)
    good = write(tmp_path / "good.yaml", es)
    seen = audit_text(browser, good.read_text(encoding="utf-8"))
    assert (seen["code"], seen["lines"]) == (10, minimal(good)["lines"])  # signatures hold; no secret yet
    es[3]["signature"] = es[2]["signature"]
    bad = write(tmp_path / "bad.yaml", es)
    seen = audit_text(browser, bad.read_text(encoding="utf-8"))
    assert (seen["code"], seen["lines"]) == (8, minimal(bad)["lines"])
    assert seen["lines"][0] == "failed: entry 3: the host signature does not verify (or entry 0 names no host key) (P8)"


def test_unreadable_logs_are_refused_as_the_verifier_refuses_them(browser: Any, end_3p: Path, tmp_path: Path) -> None:
    """P2: a float, a key twice, a document that is no JSON: refused as a whole, P2, exit 7."""
    open_page(browser, end_3p, READY)
    text = EXAMPLE.read_text(encoding="utf-8")
    edits = (("float", text.replace('"seq": 1,', '"seq": 1.0,', 1)),
             ("twice", text.replace(' "kind": "create",', ' "kind": "create", "kind": "create",', 1)),
             ("yaml", text.replace("{", "key: [", 1)), ("empty", ""))
    assert all(edited != text for _name, edited in edits)
    for name, edited in edits:
        log = tmp_path / f"{name}.yaml"
        log.write_text(edited, encoding="utf-8")
        seen = audit_text(browser, edited)
        want = minimal(log)
        assert (seen["code"], seen["lines"][-1]) == (want["code"], want["lines"][-1]), name
        assert seen["code"] == 7 and "as a whole (P" in seen["verdict"], name


def test_the_verdict_is_said_in_the_players_language(browser: Any, tmp_path: Path) -> None:
    log = EXAMPLES[-1]
    entries, hashes = read_checked(log)
    game = game_at(entries, hashes, len(entries) - 1)
    for lang in ("hu", "el", "uk"):
        open_page(browser, page_for(log, tmp_path / f"{lang}.html", lang), READY)
        seen = audited(browser)
        assert seen["verdict"] == audit_verdict(None, game, lang=lang) != seen["lines"][-1]
        assert seen["lines"] == minimal(log)["lines"]  # the checker's own lines, as the tool prints them


def test_where_scripts_do_not_run_the_page_says_to_open_it_in_a_browser(browser: Any, end_3p: Path) -> None:
    shown = "getComputedStyle(document.getElementById('audit-needs-script')).display"
    open_page(browser, end_3p, READY)
    assert browser.eval(shown) == "none"
    browser.send("Emulation.setScriptExecutionDisabled", value=True)
    try:  # the page's body is packed (its script unpacks it): its no-script part says what to do
        open_page(browser, end_3p, "document.querySelector('noscript') !== null")
        said = str(browser.eval("document.body.innerText"))
        assert "open it in a web browser" in said and "tools/audit_min.py log.yaml.gz" in said, said
        assert browser.eval("document.getElementById('audit')") is None
    finally:
        browser.send("Emulation.setScriptExecutionDisabled", value=False)
    text = readable(end_3p.read_text(encoding="utf-8"))
    assert "open it in a web browser" in text and "tools/audit_min.py" in text
    assert 'id="audit-needs-script" class="needs-script">' in text  # not hidden until a script hides it


def test_the_pages_log_is_the_log_and_cannot_break_out_of_its_block(tmp_path: Path) -> None:
    es = copy.deepcopy(read_docs(EXAMPLE)[0])
    k = first(es, lambda e: e.get("kind") == "move" and e["seq"] > 10)
    es[k]["move"] = {**es[k]["move"], "comment": "</script><script>alert(1)</script> & <!--"}
    log = write(tmp_path / "log.yaml", rechain(es))
    page = page_for(log, tmp_path / "audit.html")
    text = readable(page.read_text(encoding="utf-8"))  # as the browser builds it: the packed body in place
    assert "</script><script>alert" not in text and text.count("<script") == 2  # its loader, the log
    block = re.search(r'<script type="application/json" id="pbem-audit">(.*?)</script>', text, re.S)
    assert block is not None
    assert gzip.decompress(base64.b64decode(json.loads(block.group(1))["log_gz"])) == log.read_bytes()


VECTORS = yaml.safe_load((ROOT / "docs" / "protocol-vectors.yaml").read_text(encoding="utf-8"))


@pytest.mark.parametrize("case", [c for c in VECTORS["cases"] if not any(c["input"]["nonces"])],
                         ids=lambda c: c["name"])
def test_the_protocol_vectors_deal_is_what_the_browser_recomputes(browser: Any, end_3p: Path, tmp_path: Path,
                                                                   case: dict[str, Any]) -> None:
    """P4-P6 against docs/protocol-vectors.yaml: a game made from a case's secret, every seat waived (its
    nonces are empty), the secret revealed at once.  The start publishes the case's commitments, and
    the browser recomputes exactly them (it says HOST'S DEAL: no player's nonce went into the seed)."""
    inp = case["input"]
    games = tmp_path / "games"
    create(games, NewGame(inp["game_id"], tuple(inp["players"]), first=inp["first_named"],
                          secret=bytes.fromhex(inp["secret"])))
    for player in inp["players"]:
        ok("waive", inp["game_id"], "--player", player, "--games", games)
    es = read_docs(games / inp["game_id"] / "log.yaml")[0]
    start = es[-1]
    assert start["kind"] == "start" and start["commitments"] == [t["commit"] for t in case["tokens"]]
    assert start["setup"]["plague"] == case["plague_start"]
    es.append({"at": es[-1]["at"], "kind": "reveal", "secret": inp["secret"]})
    log = write(tmp_path / "revealed.yaml", rechain(es))
    open_page(browser, end_3p, READY)
    seen = audit_text(browser, log.read_text(encoding="utf-8"))
    assert (seen["code"], seen["kind"], seen["lines"]) == (0, "host", minimal(log)["lines"])
    assert "ok: all 49 commitments recomputed; they commit to exactly the game's catalogue (P6)" in seen["lines"]
    said = browser.eval("document.getElementById('audit-next').textContent")
    assert said == ("No player's words went into the order of the rats: the host alone could have chosen it. "
                    "Ask the host why.")


def test_a_file_chosen_while_the_page_checks_its_own_copy_is_the_one_shown(browser: Any, end_3p: Path,
                                                                          entries: Entries, tmp_path: Path) -> None:
    es = copy.deepcopy(entries)
    es[-1]["secret"] = "cd" * 32
    bad = write(tmp_path / "bad.yaml", es)
    open_page(browser, end_3p, READY)
    browser.eval(f"window.pbemAuditText({json.dumps(bad.read_text(encoding='utf-8'))}, 'bad.yaml')")  # at once
    seen = audited(browser)
    time.sleep(1.5)  # the page's own check, had it run on, would have finished by now
    again = audited(browser)
    assert seen == again and seen["source"] == "checked: your file bad.yaml" and seen["code"] == 7
