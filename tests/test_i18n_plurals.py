"""A number before a noun, as a reader reads it: every such sentence is a plural message
(``Msg.plural``), so that Ukrainian says 1 місце, 2 місця, 5 місць, 11 місць, 21 місце and
22 місця, and no English sentence pastes a count before a noun in one form ("43 записів")."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from pbem.i18n import Msg, say

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import make_catalogs  # noqa: E402 (the tool, from tools/)

COUNTS = (1, 2, 5, 11, 21, 22)
NOUNS = ("entry", "entries", "seat", "seats", "hour", "hours", "minute", "minutes", "character", "characters",
         "word", "words", "line", "lines", "rat", "rats", "cube", "cubes", "message", "messages", "commitment",
         "commitments", "token", "tokens", "move", "moves", "attachment", "attachments", "answer", "answers",
         "digit", "digits", "bot", "bots", "player", "players", "day", "days", "action", "actions", "level", "levels",
         "part", "parts", "container", "containers", "reveal", "reveals")
COUNTED = re.compile(r"\{(\w+)\} (?:[\w-]+ )?(" + "|".join(NOUNS) + r")\b(?!:)")
NAMES = {"player", "seat", "game", "region", "card", "token", "what", "where", "winner", "sender", "address",
         "source", "target", "plague", "who", "path", "file", "out", "kind", "name", "tied", "seats", "players",
         "first", "second", "option", "tries", "line", "code", "fingerprint", "seq", "move", "problem", "awaited",
         "side"}
"""Placeholders that hold a name, a list of names (``{seats}`` of a seat list), an entry's number or a
code, never a count."""


def test_no_english_message_puts_a_count_before_a_noun_but_a_plural_one() -> None:
    """Every message whose count stands before a noun (``{n} entries``) is a plural message;
    a placeholder that holds a name or a list of names is not a count."""
    pasted = []
    for message in make_catalogs.extract():
        if message.plural is not None or message.context is not None:
            continue
        for found in COUNTED.finditer(message.msgid):
            if found.group(1) not in NAMES:
                pasted.append(message.msgid)
    assert pasted == [], pasted


# (the English singular, the words that must follow each count in Ukrainian: 1, 2, 5, 11, 21, 22)
UKRAINIAN = {
    "{game}: {free} of {n} seat open; {deadline}; its players read {langs}; press: {press}": (
        "з {n} місця", "з {n} місць", "з {n} місць", "з {n} місць", "з {n} місця", "з {n} місць"),
    "game {game} is waiting for players ({n} open seat left); its opening (P4) begins once every seat is filled; "
    "nothing was changed": ("{n} вільне місце", "{n} вільні місця", "{n} вільних місць", "{n} вільних місць",
                            "{n} вільне місце", "{n} вільні місця"),
    "... and {n} line more: send 'history' for the whole game": ("{n} рядок", "{n} рядки", "{n} рядків", "{n} рядків",
                                                                 "{n} рядок", "{n} рядки"),
    "every move replays under the rules with its recorded outcome ({n} entry, P7)": (
        "{n} запис,", "{n} записи,", "{n} записів,", "{n} записів,", "{n} запис,", "{n} записи,"),
    "the log, {n} entry": ("{n} запис", "{n} записи", "{n} записів", "{n} записів", "{n} запис", "{n} записи"),
    "this code has expired (a code lasts {n} hour); ask again; nothing was changed": (
        "{n} годину", "{n} години", "{n} годин", "{n} годин", "{n} годину", "{n} години"),
    "{region} already holds {n} rat; choose another neighbour": ("{n} щур;", "{n} щури;", "{n} щурів;", "{n} щурів;",
                                                                 "{n} щур;", "{n} щури;"),
    "the message has {n} move attachment ({names}); send one move": (
        "{n} вкладення з ходом", "{n} вкладення з ходами", "{n} вкладень", "{n} вкладень", "{n} вкладення з ходом",
        "{n} вкладення з ходами"),
}


def plurals() -> dict[str, str]:
    return {m.msgid: str(m.plural) for m in make_catalogs.extract() if m.plural is not None}


@pytest.mark.parametrize("n", COUNTS)
def test_ukrainian_says_each_count_in_its_own_form(n: int) -> None:
    """1 and 21 take the first form, 2 and 22 the second, 5 and 11 the third (the catalog's
    Plural-Forms), in the messages a seat reads most: the lobby's seats, the log's entries, a
    code's hours, a full region's rats."""
    found = plurals()
    for singular, forms in UKRAINIAN.items():
        values = {name: f"<{name}>" for name in re.findall(r"\{(\w+)\}", singular) if name != "n"}
        text = say(Msg.plural(singular, found[singular], n, **values), "uk")
        want = forms[COUNTS.index(n)].format(n=n)
        assert want in text, (n, want, text)


@pytest.mark.parametrize("n", COUNTS)
def test_every_plural_message_reads_in_ukrainian_for_1_2_5_11_21_and_22(n: int) -> None:
    """Every plural message has its three Ukrainian forms, and each count is said with its
    number and every value in place; the form for 5 and 11 is never the one for 1 and 21
    where the English tells one from many."""
    for singular, plural in plurals().items():
        values = {name: f"<{name}>" for name in re.findall(r"\{(\w+)\}", singular + plural) if name != "n"}
        text = say(Msg.plural(singular, plural, n, **values), "uk")
        assert "{" not in text and all(v in text for v in values.values()), (n, text)
        assert str(n) in text or "{n}" not in singular + plural, (n, text)
        if singular != plural and n in (5, 11):
            one = say(Msg.plural(singular, plural, 1, **values), "uk")
            assert one.replace("1", str(n)) != text, (singular, text)
