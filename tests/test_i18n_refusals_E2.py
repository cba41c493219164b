"""The refusals every player meets reading YAML and mail (broken YAML, wrong
encodings, too deep nesting, a move the mail does not hold whole) and the mail host's own
refusals (IMAP, SMTP, addresses, its held key commitments) are sentences each language says.

Each refusal is made by real bad input, as the tests of its module make it; its English
stays what it was, and in hu, el and uk it holds no English sentence."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from english import english_lines
from mailmsgtools import HTML_ONLY, TWO_ATTACHMENTS

from pbem.errors import FormatError, PbemError
from pbem.host.keyconfirm import _load, _pending_path
from pbem.i18n import Msg, error_text
from pbem.log.moves import parse_move
from pbem.mail.delivery import SmtpOutbox
from pbem.mail.headers import parse_mail
from pbem.mail.host import host_address
from pbem.mail.imap import ImapBox
from pbem.mail.message import mail_move, text_move
from pbem.mail.replies import checked_address
from pbem.mail.run import process

LANGS = ("hu", "el", "uk")

MOVE = b"game: g\nplayer: red\nafter: {seq: 1, hash: abababababababab}\nactions: []\n"
SIGN_OFF = ["place gallia 2", "plague italia", "", "take care,", "Ann", "", "spread anglia"]


def _deep(depth: int) -> bytes:
    return b"game: " + b"[" * depth + b"]" * depth + b"\n"


REFUSALS: dict[str, tuple[Callable[[], object], str]] = {
    "utf16": (lambda: parse_move("game: g\n".encode("utf-16")), "is UTF-16 text, not UTF-8"),
    "not utf8": (lambda: parse_move(b"game: \xff\xfe g\n"), "is not UTF-8 text (bad byte at offset"),
    "tab": (lambda: parse_move(b"game: g\nafter:\n\tseq: 1\n"), "holds a tab; YAML indents with spaces"),
    "alias": (lambda: parse_move(b"game: &a g\nplayer: *a\n"), "YAML anchors (&name) are not allowed"),
    "tag": (lambda: parse_move(b"game: !!str g\n"), "YAML tags (tag:yaml.org,2002:str) are not allowed"),
    "twice": (lambda: parse_move(b"game: g\ngame: h\n"), "line 2: the key 'game' appears twice"),
    "merge": (lambda: parse_move(b"a: {x: 1}\nb:\n  <<: {x: 2}\n"), "YAML merge keys (<<) are not allowed"),
    "deep": (lambda: parse_move(_deep(40)), "levels deep"),
    "big": (lambda: parse_move(b"game: 99999999999999999999\n"), "is too large"),
    "control": (lambda: parse_move(b"game: g\x01\n"), "the character U+0001 (C0 control character)"),
    "escape": (lambda: parse_move(b'game: "g\\x85"\n'), "U+0085 (C1 control character) is not allowed"),
    "two docs": (lambda: parse_move(MOVE + b"---\n" + MOVE), "must hold exactly one YAML document, not 2"),
    "broken": (lambda: parse_move(b"game: [g\n"), "is not valid YAML"),
    "no move": (lambda: mail_move(parse_mail(b"From: a@b.c\nTo: h@b.c\nSubject: hi\n\nJust saying hello.\n")),
                "no move found in the message"),
    "html only": (lambda: mail_move(parse_mail(HTML_ONLY)), "no move attachment and no readable plain-text"),
    "two attachments": (lambda: mail_move(parse_mail(TWO_ATTACHMENTS)),
                        "the message has 2 move attachments (a.yaml, b.yml)"),
    "both sides": (lambda: text_move(SIGN_OFF, Msg("the message text"), {}), "holds move lines on both sides"),
    "imap server": (lambda: ImapBox("host:port", "INBOX"), "--imap 'host:port': give HOST or HOST:PORT"),
    "imap folder": (lambda: ImapBox("host", "IN\"BOX"), "a folder name of letters, digits"),
    "smtp": (lambda: SmtpOutbox("host:port", "h@b.c"), "--smtp 'host:port': give HOST:PORT"),
    "address": (lambda: checked_address("not an address", Msg("the sender")),
                "the sender 'not an address' is not a plain e-mail address"),
    "no outbox": (lambda: process(None, Path("/nonexistent"), None, None, "h@b.c"),
                  "give --outbox MAILDIR or --smtp HOST:PORT"),
    "two inboxes": (lambda: process(Path("/x"), Path("/x"), Path("/y"), None, "h@b.c", stdin=b"x"),
                    "give one inbox a run"),
    "no inbox": (lambda: process(None, Path("/x"), Path("/y"), None, "h@b.c"), "give --inbox MAILDIR"),
}


def _refusal(name: str) -> PbemError:
    make, _english = REFUSALS[name]
    with pytest.raises(PbemError) as refused:
        make()
    return refused.value


@pytest.mark.parametrize("name", sorted(REFUSALS))
def test_each_refusal_keeps_its_english_and_no_language_says_it_in_english(name: str) -> None:
    err = _refusal(name)
    assert REFUSALS[name][1] in str(err)  # the English the tests of its module match, as it was
    assert error_text(err, "en") == str(err)
    for lang in LANGS:
        said = error_text(err, lang)
        assert said != str(err)
        problem = getattr(err.words, "params", {}).get("problem")
        if name == "broken":  # PyYAML's own words of where it stopped stay as PyYAML wrote them
            assert problem and problem in said
            said = said.replace(problem, "")
        assert english_lines(said, allowed=("HOST", "MAILDIR")) == [], (lang, said)


def test_the_imap_login_without_a_user_is_said_in_the_language(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PBEM_IMAP_USER", raising=False)
    with pytest.raises(FormatError) as refused:
        ImapBox("imap.example.org", "INBOX")
    assert "$PBEM_IMAP_USER is not set" in str(refused.value)
    for lang in LANGS:
        assert english_lines(error_text(refused.value, lang)) == []


def test_the_host_without_a_from_address_and_a_damaged_file_of_held_keys(tmp_path: Path) -> None:
    with pytest.raises(FormatError) as no_from:
        host_address(tmp_path, None)
    pending = _pending_path(tmp_path / "g")
    pending.parent.mkdir(parents=True)
    pending.write_text("{not json")
    with pytest.raises(PbemError) as damaged:
        _load(tmp_path / "g")
    assert "pbem mail needs the host's own From address" in str(no_from.value)
    assert "held key commitments" in str(damaged.value) and "(P8)" in str(damaged.value)
    for err in (no_from.value, damaged.value):
        for lang in LANGS:
            said = error_text(err, lang)
            assert english_lines(said, allowed=("--from ADDRESS", str(tmp_path))) == [], (lang, said)


def test_a_mailed_key_commitment_held_by_pbem_apply_is_said_in_the_language(tmp_path: Path) -> None:
    """``pbem apply MSG.eml`` of a commitment registering a key: held under a code, nothing
    recorded yet (P8); the refusal's verdict line is a sentence of its own too."""
    from mailtools import HOST
    from seatkeytools import forged_mail

    from pbem.mail.admission import apply_mail_file

    games, message = forged_mail(tmp_path)
    with pytest.raises(PbemError) as held:
        apply_mail_file(games, message.read_bytes(), HOST)
    assert str(held.value).startswith("not now (P8): nothing recorded yet: held: game g, blue's commitment")
    assert str(held.value).endswith("a one-time code went to blue's address")
    for lang in LANGS:
        said = error_text(held.value, lang)
        assert english_lines(said) == [], (lang, said)
