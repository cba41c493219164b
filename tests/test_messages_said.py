"""Messages as a reader reads them, in every language: a count in the right form for one
and for many (1, 2, 5, 21: Ukrainian's three forms), a refusal that is a whole sentence
a catalog can translate (never an f-string), and a stand-in's turn told as what it did,
not as an order to the reader (R8.3).
"""

from __future__ import annotations

import ast
import importlib
import pkgutil
import re
import sys
from pathlib import Path

import pytest

import pbem
from pbem.errors import BusyError, InternalError, PbemError
from pbem.i18n import Msg, say

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import make_catalogs  # noqa: E402 (the tool, from tools/)

LANGS = ("en", "hu", "el", "uk")


def plurals() -> list[make_catalogs.Message]:
    return [m for m in make_catalogs.extract() if m.plural is not None]


def test_every_plural_message_has_its_english_for_one_and_for_many() -> None:
    found = plurals()
    assert len(found) > 30
    for m in found:
        assert "(s)" not in m.msgid + str(m.plural), m.msgid
        assert m.msgid != m.plural, f"{m.msgid!r}: a count before the same English for one and many"


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("n", [1, 2, 5, 21])
def test_every_plural_message_is_said_with_1_2_5_and_21(lang: str, n: int) -> None:
    for m in plurals():
        assert m.plural is not None
        values = {name: f"<{name}>" for name in re.findall(r"\{(\w+)\}", m.msgid + m.plural) if name != "n"}
        text = say(Msg.plural(m.msgid, m.plural, n, **values), lang)
        assert "{" not in text and (str(n) in text or "{n}" not in m.msgid + m.plural), (lang, n, text)
        assert all(v in text for v in values.values()), (lang, n, text)
        if lang == "en":
            assert text == (m.msgid if n == 1 else m.plural).format(n=n, **values)
            assert not re.search(r"\b1 (entries|cubes|rats|actions|lines|reveals|tokens|moves)\b", text), text


def test_greek_and_ukrainian_say_one_and_many_apart_where_english_does() -> None:
    for m in plurals():
        assert m.plural is not None
        values = {name: f"<{name}>" for name in re.findall(r"\{(\w+)\}", m.msgid + m.plural) if name != "n"}
        one, many = (say(Msg.plural(m.msgid, m.plural, n, **values), "el") for n in (1, 5))
        assert one.replace("1", "5") != many, m.msgid


# --- refusals are sentences a catalog holds -------------------------------------------------

def error_classes() -> set[str]:
    """The names of pbem's refusals: every PbemError but the host's own troubles (a busy
    mailbox, an internal error), whose words go to the host's log, not to a player."""
    for info in pkgutil.walk_packages(pbem.__path__, "pbem."):
        if not info.name.endswith("__main__"):
            importlib.import_module(info.name)
    found: set[str] = set()
    todo: list[type] = [PbemError]
    while todo:
        cls = todo.pop()
        if not issubclass(cls, BusyError | InternalError):
            found.add(cls.__name__)
        todo.extend(cls.__subclasses__())
    return found


def test_no_refusal_is_an_f_string() -> None:
    refusals = error_classes()
    assert {"RuleError", "NotationError", "HostileMail", "ActionFormatError"} <= refusals
    unsaid = []
    for path in sorted((ROOT / "pbem").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Call) and node.args):
                continue
            name = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", "")
            words = node.args[0]
            built = isinstance(words, ast.JoinedStr | ast.BinOp) or (
                isinstance(words, ast.Call) and getattr(words.func, "attr", "") == "format")
            if name in refusals and built:
                unsaid.append(f"{path.relative_to(ROOT)}:{node.lineno}: {name}({ast.unparse(words)[:80]})")
    assert not unsaid, "\n".join(unsaid)


def test_the_verdict_words_a_script_reads_stay_as_they_are() -> None:
    """README: `ok:` and `FAIR` are language-neutral, each followed by a translated sentence
    (pbem check, the audit, the end mail and the page say the same word)."""
    for lang in ("hu", "el", "uk"):
        for entry in make_catalogs.read_po(make_catalogs.po_path(lang).read_text(encoding="utf-8")):
            if entry.msgid.startswith("ok: "):
                assert all(s.startswith("ok: ") for s in entry.strings), (lang, entry.strings)
            if "FAIR" in entry.msgid:
                assert all("FAIR" in s for s in entry.strings), (lang, entry.strings)


FORM = re.compile(r"\b(?:take|place|king|merchant|monk|look|swap|plague|spread|knight|flip|game|after|player|commit|"
                  r"nonce)((?: (?:[A-Z]{2,}|N))+)")


def test_the_notations_placeholders_are_written_alike_in_every_language() -> None:
    """One style: a form's placeholders (merchant FROM TO N) stay as `pbem rules notation`
    writes them, in the template and in every message, whatever the language."""
    checked = 0
    for lang in ("hu", "el", "uk"):
        for entry in make_catalogs.read_po(make_catalogs.po_path(lang).read_text(encoding="utf-8")):
            for form in FORM.finditer(entry.msgid):
                checked += 1
                for said in entry.strings:
                    assert all(re.search(rf"\b{word}\b", said) for word in form.group(1).split()), (lang, form[0], said)
    assert checked > 20


INTERNAL_IDS = re.compile(r"take_card|move_plague|knight_move|knight_cubes|witch_look|witch_swap")


def test_a_refusal_names_the_action_by_the_word_a_player_writes() -> None:
    """R7.3: 'action 2 (take): ...', never the log's id (take_card), in every language."""
    from ruletesttools import refusals_of_the_rule_tests

    from pbem.i18n import error_text

    refusals = refusals_of_the_rule_tests()
    assert any("(take)" in str(err) for err in refusals) and any("(place)" in str(err) for err in refusals)
    for err in refusals:
        for lang in LANGS:
            said = error_text(err, lang)
            assert not INTERNAL_IDS.search(said), (lang, said)


# --- the stand-in, in the third person -------------------------------------------------------

IMPERATIVE = {"en": r"the stand-in: (place|move|put)", "hu": r"helyettesítő: (rakj|léptesd|tedd)",
              "el": r"αναπληρωτής: (τοποθέτησε|μετακίνησε|βάλε)", "uk": r"замінник: (розмістіть|перемістіть|покладіть)"}


@pytest.mark.parametrize("lang", LANGS)
def test_a_stand_in_turn_is_told_as_what_the_stand_in_did(tmp_path: Path, lang: str) -> None:
    """R8.2-R8.3: red misses the deadline; the history tells the stand-in's placement, the
    plague's move and the spreads in the third person, in each language."""
    from clitools import ok
    from deadlinetools import at, new_game

    from pbem.host.games import load_game
    from pbem.views.narrate import entry_lines
    from pbem.views.standin_acts import standin_did

    new_game(tmp_path)
    ok("tick", "--now", at(72), "--games", tmp_path)
    game = load_game(tmp_path / "g")
    told = "\n".join(entry_lines(game, game.entries[-1], lang))
    assert not re.search(IMPERATIVE[lang], told), told
    third = {"en": "the stand-in places", "hu": "a helyettesítő", "el": "ο αναπληρωτής τοποθετεί",
             "uk": "замінник розміщує"}[lang]
    assert third in told, told
    for action in game.entries[-1].actions:  # type: ignore[attr-defined]
        said = standin_did(game, action, lang)
        assert said.lower().startswith({"en": "the stand-in", "hu": "a helyettesítő", "el": "ο αναπληρωτής",
                                        "uk": "замінник"}[lang]), said


# --- the seat's language wherever the host knows it ------------------------------------------

def test_a_seats_template_is_in_the_language_the_host_registered_for_it(tmp_path: Path) -> None:
    """P4's first template for red, registered as Hungarian, is in Hungarian unless --lang
    asks otherwise; green, registered as nothing, reads English."""
    from clitools import ok

    ok("new", "g", "--players", "red,green", "--seat-lang", "red=hu", "--games", tmp_path)
    assert "1. forduló" in ok("template", "g", "--player", "red", "--games", tmp_path)
    assert "Round 1 of 2" in ok("template", "g", "--player", "red", "--games", tmp_path, "--lang", "en")
    assert "Round 1 of 2" in ok("template", "g", "--player", "green", "--games", tmp_path)


@pytest.mark.parametrize("lang", ["en", "el", "uk"])
def test_each_thing_the_stand_in_did_is_told_once(tmp_path: Path, lang: str) -> None:
    """R8.2-R8.3: the setup is played, then red misses turn 1's deadline; the history tells the
    stand-in's placement once (as the stand-in's, not again as red's), and the plague's move once
    (with the rats it spread), in each language."""
    from clitools import ok
    from deadlinetools import at, move, new_game

    from pbem.host.games import load_game
    from pbem.rules import Phase
    from pbem.views.narrate import entry_lines

    game = new_game(tmp_path)
    hour = 0
    while game.state is not None and game.state.phase is Phase.SETUP:
        hour += 1
        game = move(tmp_path, game, at(hour))
    assert game.to_move == "red"
    ok("tick", "--now", at(hour + 73), "--games", tmp_path)
    game = load_game(tmp_path / "g")
    told = entry_lines(game, game.entries[-1], lang)
    placed = {"en": r"places \d+ cubes? in", "el": r"τοποθετεί \d+ κύβ", "uk": r"розміщує \d+ кубик"}[lang]
    plague = {"en": r"plague (moves|to)", "el": r"πανούκλα|πιόνι της πανούκλας", "uk": r"чум"}[lang]
    assert len([line for line in told if re.search(placed, line)]) == 1, told
    assert len([line for line in told if re.search(plague, line)]) == 1, told
