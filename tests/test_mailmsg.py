"""Moves out of mail as real clients write it (pbem/mail/message.py); fixtures in tests/data/mail."""

from __future__ import annotations

from pathlib import Path

import pytest
from mailmsgtools import HTML_ONLY, TWO_ATTACHMENTS

from pbem.errors import Exit, FormatError
from pbem.fair.keys import load_private_key, move_message, sign, verify
from pbem.log.moves import parse_move
from pbem.log.records import CommitMove
from pbem.log.yamlio import dump_yaml
from pbem.mail.headers import parse_mail
from pbem.mail.bodytext import unflow
from pbem.mail.message import looks_like_mail, mail_move, yaml_block

MAIL = Path(__file__).parent / "data" / "mail"
CLIENTS = [
    "thunderbird-attachment.eml",
    "thunderbird-flowed.eml",
    "gmail.eml",
    "outlook.eml",
    "inline-signature.eml",
]


def expected() -> dict[str, object]:
    return parse_move((MAIL / "expected-move.yaml").read_bytes()).to_raw()


@pytest.mark.parametrize("name", CLIENTS)
def test_every_client_yields_the_same_signed_move(name: str) -> None:
    data = (MAIL / name).read_bytes()
    assert looks_like_mail("no-extension", data)
    mail = parse_mail(data)
    assert mail.sender == "red@example.org"
    assert mail.message_id and mail.message_id.startswith("<")
    assert not mail.automatic
    move, where = mail_move(mail)
    assert move.to_raw() == expected()
    assert ("attachment" in where) == (name == "thunderbird-attachment.eml")
    public = (MAIL / "red.key.pub").read_text().strip()
    assert verify(public, move.to_raw()["signature"], move_message(move.to_raw()))


def test_outlook_fixture_really_is_crlf_base64_with_html() -> None:
    raw = (MAIL / "outlook.eml").read_bytes()
    assert b"\r\n" in raw and b"\n" not in raw.replace(b"\r\n", b"")
    assert raw.count(b"Content-Transfer-Encoding: base64") == 2
    assert b"text/html" in raw


def test_gmail_fixture_is_quoted_printable_alternative() -> None:
    raw = (MAIL / "gmail.eml").read_bytes()
    assert b"multipart/alternative" in raw and b"quoted-printable" in raw and b"=C3=A0" in raw


def test_a_move_file_is_not_mail() -> None:
    assert not looks_like_mail("move.yaml", (MAIL / "expected-move.yaml").read_bytes())
    assert not looks_like_mail("move.yaml", b"From: x\ngame: y\n")  # no other mail header
    assert looks_like_mail("m.eml", b"anything")


def test_unflow_joins_soft_breaks_and_unstuffs() -> None:
    text = "a: long \nline\n   - item\n> quoted \n> more\n-- \nsig"
    assert unflow(text) == "a: long line\n  - item\n> quoted more\n-- \nsig"
    assert unflow("ab \ncd", delsp=True) == "abcd"


def test_block_stops_at_quotes_attribution_signature_and_fences() -> None:
    text = (
        "Hi!\n\n```\ngame: g\nplayer: red\n# a comment\nkind: nonce\n```\nOn Monday, Host wrote:\n"
        "> game: other\n"
    )
    assert yaml_block(text) == "game: g\nplayer: red\n# a comment\nkind: nonce\n"
    assert yaml_block("game: g\nplayer: red\n\nOn Mon, X <x@y> wrote:\ngame: h\n") == (
        "game: g\nplayer: red\n"
    )
    assert yaml_block("nothing here\n> game: g\n") is None


def test_a_hard_wrapped_signature_is_joined_again() -> None:
    sig = "A" * 86 + "=="
    text = f'game: g\nsignature: "{sig[:60]}\n{sig[60:]}"\n'
    assert yaml_block(text) == f'game: g\nsignature: "{sig}"\n'
    text = f"game: g\nsignature: {sig[:70]}\n{sig[70:]}\n"
    assert yaml_block(text) == f"game: g\nsignature: {sig}\n"


def test_no_move_and_two_attachments_are_refused() -> None:
    mail = parse_mail(b"From: a@b.c\nTo: h@b.c\nSubject: hi\n\nJust saying hello.\n")
    with pytest.raises(FormatError, match="no move found"):
        mail_move(mail)
    with pytest.raises(FormatError, match="no move attachment"):
        mail_move(parse_mail(HTML_ONLY))
    with pytest.raises(FormatError, match="2 move attachments"):
        mail_move(parse_mail(TWO_ATTACHMENTS))


def test_automatic_messages_are_marked() -> None:
    assert parse_mail(b"From: MAILER-DAEMON@x.org\nSubject: bounce\n\nx\n").automatic
    assert parse_mail(b"From: a@x.org\nAuto-Submitted: auto-replied\n\nx\n").automatic
    assert not parse_mail(b"From: a@x.org\nAuto-Submitted: no\n\nx\n").automatic


def test_a_v1_move_with_a_short_hash_prefix_is_malformed() -> None:
    """P7 (v2): a move names at least the first 16 hex digits of the entry it answers;
    the 8 digits v1 allowed are refused as malformed, naming the schema."""
    text = (MAIL / "expected-move.yaml").read_text().replace('"3fa4c1d2e5b60718"', '"3fa4c1d2"')
    assert '"3fa4c1d2"' in text
    mail = parse_mail(b"From: red@example.org\nTo: h@b.c\nSubject: move\n\n" + text.encode())
    with pytest.raises(FormatError, match=r"after/hash.*schemas/move\.json") as refused:
        mail_move(mail)
    assert refused.value.exit_code == Exit.FORMAT and refused.value.rule == "P7"


def test_a_mailed_commitment_registering_a_key_survives_hard_wraps() -> None:
    """P4, P8: a nonce commitment that registers a key ('key:'), signed with it; a client
    that hard-wraps both base64 values does not break the move or its signature."""
    public = (MAIL / "red.key.pub").read_text().strip()
    data = {"game": "spring-1347", "player": "red", "kind": "commit",
            "after": {"seq": 0, "hash": "3fa4c1d2e5b60718"}, "nonce_commitment": "ab" * 32, "key": public}
    signature = sign(load_private_key(MAIL / "red.key"), move_message(data))
    text = dump_yaml({k: v for k, v in data.items() if k != "key"})
    text += f'key: "{public[:30]}\n{public[30:]}"\nsignature: "{signature[:60]}\n{signature[60:]}"\n'
    mail = parse_mail(b"From: red@example.org\nTo: h@b.c\nSubject: commit\n\nMy commitment:\n\n"
                      + text.encode() + b"\n-- \nRed\n")
    move, _where = mail_move(mail)
    assert isinstance(move, CommitMove) and move.to_raw() == {**data, "signature": signature}
    assert verify(public, move.to_raw()["signature"], move_message(move.to_raw()))


def test_r7_3_a_sentence_a_client_wrapped_to_begin_with_a_keyword_is_prose_not_a_move() -> None:
    """A prose line that happens to begin with 'plague' or 'take' (wrapped at 72 columns) is
    not the move; a short damaged move line next to prose still is, and refuses the move."""
    from pbem.mail.message import move_lines, text_move

    lines = ["Here is my turn. I thought about the Monk for a long time, but the",
             "plague in the east worries me more than anything else this week,",
             "so the cubes go west.", "", "place gallia 2", "plague italia", "", "take care,", "Ann"]
    assert move_lines(lines) == [False, False, False, False, True, True, False, True, False]
    move = text_move(lines, "the message text", {"game": "g", "player": "red", "after": {"seq": 3, "hash": "ab" * 8}})
    assert move is not None and [a["action"] for a in move.to_raw()["actions"]] == ["place", "move_plague"]  # 'take care'
    with pytest.raises(FormatError, match="both sides"):  # a second block after the sign-off
        text_move([*lines, "", "spread anglia"], "the message text", {})
    damaged = ["My turn:", "place gallia 2", "plague ital", "y"]  # a short cut line stays a move line
    assert move_lines(damaged) == [False, True, True, False]
    assert move_lines(["take the Monk, said my friend, but I will not"]) == [True]  # alone: a move (refused)
