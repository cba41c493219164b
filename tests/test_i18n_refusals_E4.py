"""Second round (E4): the refusals of the seats (R8), the keys and the nonces (P4,
P8), `pbem verify --extends`'s verdicts and fork proof (P9), the clock warnings (P7) and the
lines of `pbem keygen`/`sign`/`nonce` are said in hu, el and uk, with no English sentence
left; English stays as it was (the tests of those modules hold its words)."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
from clitools import cli, ok
from deadlinetools import timed_out_log
from english import english_lines
from historytools import GAME, forked, new_game, refused  # noqa: F401 (forked: a fixture)
from tampering import EXAMPLE, rechain, write

from pbem.errors import Exit, PbemError
from pbem.fair.keys import check_public_text, load_private_key, read_public_key
from pbem.host.games import load_game
from pbem.i18n import error_text, say
from pbem.log.clock import at_of, seconds
from pbem.log.logfile import read_docs, read_log
from pbem.player.nonces import kept
from pbem.referee.clocks import ahead, early_timeouts
from pbem.referee.history import compare
from pbem.referee.replay import replay

LANGS = ("hu", "el", "uk")


def no_english(text: str, tmp: Path) -> None:
    """``text`` (its folder names, which hold 'of', left out) has no English sentence."""
    cleaned = text.replace(str(tmp), "T")
    assert english_lines(cleaned) == [], cleaned


def refusal_of(call: object, *args: object) -> PbemError:
    with pytest.raises(PbemError) as caught:
        call(*args)  # type: ignore[operator]
    return caught.value


# --- the seats (R8.1-R8.4): `pbem verify --lang` on a log that lies about a timeout ---------------

@pytest.mark.parametrize("lang", LANGS)
def test_a_false_timeout_is_refused_in_the_readers_language(tmp_path: Path, lang: str) -> None:
    es = timed_out_log(tmp_path)
    early = copy.deepcopy(es)
    early[-1]["at"] = early[-1]["due"] = at_of(seconds(es[-1]["at"]) - 3600)
    nodeadline = copy.deepcopy(es)
    nodeadline[0]["options"] = {"first": "red"}
    for name, entries in (("early", early), ("nodeadline", nodeadline)):
        log = write(tmp_path / f"{name}.yaml", rechain(entries))
        english = cli("verify", log)
        said = cli("verify", log, "--lang", lang)
        assert english.exit_code == said.exit_code == Exit.TAMPERED
        assert said.stderr != english.stderr
        no_english(said.stderr, tmp_path)
        with pytest.raises(PbemError) as caught:
            replay(*read_log(log))
        assert error_text(caught.value, "en") == str(caught.value)  # English as str() writes it
        no_english(error_text(caught.value, lang), tmp_path)


# --- the keys (P8) and the nonces (P4) ---------------------------------------------------------

@pytest.mark.parametrize("lang", LANGS)
def test_key_and_nonce_refusals_and_lines_are_said_in_the_language(tmp_path: Path, lang: str) -> None:
    key = tmp_path / "k"
    made = cli("keygen", "--out", key, "--lang", lang)
    assert made.exit_code == 0
    no_english(made.stdout, tmp_path)
    again = cli("keygen", "--out", key, "--lang", lang)
    assert again.exit_code != 0 and str(key) in again.stderr
    no_english(again.stderr, tmp_path)
    pub = tmp_path / "k.pub"
    errors = [
        refusal_of(load_private_key, pub),  # a public key to sign with
        refusal_of(read_public_key, key),  # a private key where the public one goes
        refusal_of(check_public_text, "ed25519:short"),
        refusal_of(check_public_text, "ed25519:" + "A" * 42 + "B="),  # not canonical
    ]
    (tmp_path / "bad.pub").write_text("ed25519:nope\n")
    errors.append(refusal_of(read_public_key, tmp_path / "bad.pub"))
    for err in errors:
        no_english(error_text(err, lang), tmp_path)

    games = tmp_path / "games"
    ok("new", "n1", "--players", "red,blue", "--first", "red", "--games", games)
    game = load_game(games / "n1")
    where = tmp_path / "nonce.yaml"
    committed = cli("nonce", "n1", "--player", "red", "--keep", where, "--out", tmp_path / "c.yaml",
                    "--lang", lang, "--games", games)
    assert committed.exit_code == 0, committed.output
    no_english(committed.stdout, tmp_path)
    twice = cli("nonce", "n1", "--player", "red", "--keep", where, "--lang", lang, "--games", games)
    assert twice.exit_code != 0
    no_english(twice.stderr, tmp_path)
    missing = cli("nonce", "n1", "--player", "red", "--reveal", "--keep", tmp_path / "none.yaml",
                  "--lang", lang, "--games", games)
    assert missing.exit_code != 0
    no_english(missing.stderr, tmp_path)
    no_english(error_text(refusal_of(kept, where, game, "blue"), lang), tmp_path)  # another seat's file
    (tmp_path / "junk.yaml").write_text("game: n1\n")
    no_english(error_text(refusal_of(kept, tmp_path / "junk.yaml", game, "red"), lang), tmp_path)

    signed = cli("sign", tmp_path / "c.yaml", "--key", key, "--lang", lang)
    assert signed.exit_code == 0, signed.output
    no_english(signed.stdout, tmp_path)
    with_pub = cli("sign", tmp_path / "c.yaml", "--key", pub, "--lang", lang)
    assert with_pub.exit_code != 0
    no_english(with_pub.stderr, tmp_path)


def test_the_english_lines_of_keygen_nonce_and_sign_are_what_they_were(tmp_path: Path) -> None:
    key = tmp_path / "k"
    out = ok("keygen", "--out", key)
    assert out.startswith(f"private key: {key} (mode 0600; keep it, never send it)\npublic key:  {key}.pub: ed25519:")
    games = tmp_path / "games"
    ok("new", "n1", "--players", "red,blue", "--first", "red", "--games", games)
    move = tmp_path / "c.yaml"
    out = ok("nonce", "n1", "--player", "red", "--keep", tmp_path / "n.yaml", "--out", move, "--games", games)
    assert out == (f"commitment move for red written to {move}; the nonce is kept in {tmp_path / 'n.yaml'} "
                   "(mode 0600)\n")
    assert ok("sign", move, "--key", key) == f"signed {move} (red's commit for game n1)\n"


# --- one history (P9): the verdicts, the refusals, the proof ------------------------------------

@pytest.mark.parametrize("lang", LANGS)
def test_verify_extends_says_its_verdicts_in_the_language(tmp_path: Path, lang: str) -> None:
    entries, hashes = read_docs(EXAMPLE)
    cut = write(tmp_path / "cut.yaml", entries[:-3])
    _out, english = refused(cut, EXAMPLE)
    said = cli("verify", cut, "--extends", EXAMPLE, "--lang", lang)
    assert said.exit_code == Exit.TAMPERED and said.stderr != english
    no_english(said.stderr, tmp_path)
    cut_entries, cut_hashes = read_docs(cut)
    for result in (compare(entries, hashes, entries, hashes), compare(entries, hashes, cut_entries, cut_hashes),
                   compare(cut_entries, cut_hashes, entries, hashes)):
        no_english(say(result.message, lang), tmp_path)
    first, second = tmp_path / "first", tmp_path / "second"
    old, new = new_game(first), new_game(second)
    recreated = compare(*read_docs(new), *read_docs(old))
    assert recreated.outcome == "recreated"
    no_english(say(recreated.message, lang), tmp_path)


def test_the_fork_proof_is_said_in_every_language(
        forked: tuple[Path, Path, str], tmp_path: Path) -> None:
    new, old, _host = forked  # tests/test_history.py's: the host signed two entries for one position
    result = compare(*read_docs(new), *read_docs(old))
    assert result.proof is not None and str(result.proof.statement()).startswith("PROOF OF TWO HISTORIES")
    for lang in LANGS:
        no_english(say(result.proof.statement(), lang), tmp_path)
        no_english(say(result.message, lang), tmp_path)
        said = cli("verify", new, "--extends", old, "--lang", lang)
        assert said.exit_code == Exit.TAMPERED
        no_english(said.stderr, tmp_path)


# --- the reader's clock (P7, R8.2) ---------------------------------------------------------------

def test_the_clock_warnings_are_said_in_the_language(tmp_path: Path) -> None:
    entries = read_log(EXAMPLE)[0]
    before = entries[0].at
    earlier = at_of(seconds(before) - 86400)
    one, many = ahead(entries[-1:], earlier), ahead(entries, earlier)
    assert "later entr" not in one[0] and f"(and {len(entries) - 1} later entries)" in many[0]
    assert ahead(entries[:2], earlier)[0].startswith("warning (P7): entry 0 (and 1 later entry) is stamped")
    for lang in LANGS:
        for line in (*ahead(entries[-1:], earlier, lang), *ahead(entries, earlier, lang),
                     *ahead(entries[:2], earlier, lang)):
            no_english(line, tmp_path)
    es = timed_out_log(tmp_path)
    log = write(tmp_path / "t.yaml", es)
    timed = read_log(log)[0]
    kept_last = timed[-1].since  # type: ignore[attr-defined]
    start = seconds(timed[kept_last].at)
    english = early_timeouts(timed, kept_last, start, start + 60, 72 * 3600)
    assert english and english[0].startswith(f"warning (R8.2): entry {len(timed) - 1} times red out")
    for lang in LANGS:
        for line in early_timeouts(timed, kept_last, start, start + 60, 72 * 3600, lang):
            no_english(line, tmp_path)
