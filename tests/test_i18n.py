"""Players in their own language (Hungarian, Greek, Ukrainian and English).

The catalogs are complete and compiled from their sources; every refusal of the rules is
said whole in each language, with its rule's number; a move may name regions and cards
in any of them and the log records the same ids; a seat's language is the host's
setting, changed by the host or by the player's own mail; English reads no catalog.
"""

from __future__ import annotations

import fnmatch
import gettext
import re
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
import yaml
from clitools import cli, ok, snapshot
from mailtools import started  # noqa: F401 (a fixture)
from ruletesttools import refusals_of_the_rule_tests

from pbem.errors import PbemError
from pbem.i18n import LANGS, LOCALE_DIR, Msg, Name, error_text, fold, mo_path, say, translator
from pbem.i18n.names import aliases, canonical
from pbem.i18n import SHIPPED
from pbem.log.notation import parse
from pbem.rules import RuleError
from pbem.rules.data import CLASSES

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import make_catalogs  # noqa: E402 (the tool, from tools/)

OTHERS = ("hu", "el", "uk")
PLACEHOLDER = re.compile(r"\{(\w*)\}")


def placeholders(text: str) -> set[str]:
    return set(PLACEHOLDER.findall(text))


# --- the catalogs -------------------------------------------------------------------------

def catalog(lang: str) -> list[make_catalogs.Entry]:
    return make_catalogs.read_po(make_catalogs.po_path(lang).read_text(encoding="utf-8"))


@pytest.mark.parametrize("lang", OTHERS)
def test_the_shipped_mo_is_a_fresh_compile_of_its_po(lang: str) -> None:
    assert mo_path(lang).read_bytes() == make_catalogs.compiled(lang)


def test_the_template_holds_every_message_of_pbem_and_nothing_else() -> None:
    assert make_catalogs.POT.read_text(encoding="utf-8") == make_catalogs.write_po(make_catalogs.extract(), None, [])


@pytest.mark.parametrize("lang", OTHERS)
def test_every_message_has_a_translation_keeping_its_placeholders(lang: str) -> None:
    messages = make_catalogs.extract()
    entries = {(e.context, e.msgid): e for e in catalog(lang) if e.msgid}
    forms = {"hu": 2, "el": 2, "uk": 3}[lang]
    assert len(messages) > 90
    for m in messages:
        entry = entries.get((m.context, m.msgid))
        assert entry is not None, f"{lang}: no entry for {m.msgid!r}"
        assert not entry.fuzzy, f"{lang}: fuzzy: {m.msgid!r}"
        assert entry.strings and all(s.strip() for s in entry.strings), f"{lang}: untranslated: {m.msgid!r}"
        assert len(entry.strings) == (forms if m.plural is not None else 1), m.msgid
        for said in entry.strings:
            assert placeholders(said) == placeholders(m.msgid) | placeholders(m.plural or ""), (lang, m.msgid, said)


@pytest.mark.parametrize("lang", OTHERS)
def test_every_translation_was_approved_by_a_native_reader_for_its_english(lang: str) -> None:
    """A new or changed English message, or a translation changed after its reader approved it,
    cannot ship unread (docs/translating.md: read it, then `make_catalogs.py approve`)."""
    unread = [f"{e.msgid!r}: {reason}" for e, reason in make_catalogs.pending(lang)]
    assert not unread, f"{lang}: {len(unread)} translations need a native reader:\n" + "\n".join(unread[:40])


def test_the_check_names_each_translation_that_needs_a_reader(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A reader approves a catalog; then the English of one message changes, another's translation
    is replaced, a third turns fuzzy, and a new message arrives untranslated: `check` names
    exactly those four, and approving skips the fuzzy and the empty ones."""
    def po(entries: list[tuple[str, str, bool]]) -> str:
        head = ['msgid ""\nmsgstr "Language: hu\\n"\n']
        return "\n".join(head + [("#, fuzzy\n" if f else "") + f'msgid "{i}"\nmsgstr "{s}"\n' for i, s, f in entries])
    book = [("the talon", "a talon", False), ("an outbreak", "kitörés", False), ("the host", "a házigazda", False),
            ("the log", "a napló", False)]
    with mock.patch.object(make_catalogs, "LOCALE", tmp_path), mock.patch.object(make_catalogs, "LEDGERS", tmp_path):
        make_catalogs.po_path("hu").parent.mkdir(parents=True)
        make_catalogs.po_path("hu").write_text(po(book), encoding="utf-8")
        assert make_catalogs.approve("hu", "a reader", None) == 4 and make_catalogs.pending("hu") == []
        book = [("the rat talon", "a talon", False), ("an outbreak", "járvány", False),
                ("the host", "a házigazda", True), ("the log", "a napló", False), ("a new one", "", False)]
        make_catalogs.po_path("hu").write_text(po(book), encoding="utf-8")
        reasons = {e.msgid: reason for e, reason in make_catalogs.pending("hu")}
        assert reasons == {"the rat talon": "English new or changed since a reader approved a translation",
                           "an outbreak": "translation changed after a reader approved it",
                           "the host": "fuzzy", "a new one": "not translated"}
        assert make_catalogs.main(["make_catalogs.py", "pending", "hu"]) == 1
        assert "'the rat talon'" in capsys.readouterr().out
        assert make_catalogs.approve("hu", "a reader", "rat") == 1
        assert {e.msgid for e, _r in make_catalogs.pending("hu")} == {"an outbreak", "the host", "a new one"}


def test_each_catalog_has_its_languages_plural_rule() -> None:
    for lang, rule in (("hu", "nplurals=2; plural=(n != 1);"), ("el", "nplurals=2; plural=(n != 1);")):
        with mo_path(lang).open("rb") as source:  # the header pbem reads
            assert gettext.GNUTranslations(source).info()["plural-forms"] == rule
    with mo_path("uk").open("rb") as source:
        uk = gettext.GNUTranslations(source)
    plural = uk.plural  # type: ignore[attr-defined]  # GNUTranslations' own, not in its stub
    assert [plural(n) for n in (1, 2, 4, 5, 11, 12, 21, 22, 25, 101, 111)] == [0, 1, 1, 2, 2, 2, 0, 1, 2, 0, 2]


def test_the_catalogs_ship_with_the_package() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    globs = config["tool"]["setuptools"]["package-data"]["pbem.i18n"]
    shipped = [p.relative_to(LOCALE_DIR.parent).as_posix() for p in LOCALE_DIR.rglob("*") if p.is_file()]
    assert any(p.endswith(".mo") for p in shipped)
    for path in shipped:
        assert any(fnmatch.fnmatch(path, g) for g in globs), f"{path} is not package data"


def test_the_names_are_of_the_shipped_map_and_cards_and_none_names_two_things() -> None:
    board = yaml.safe_load((ROOT / "pbem" / "data" / "map.yaml").read_text(encoding="utf-8"))
    assert SHIPPED["region"] == {r["id"] for r in board["regions"]}
    assert SHIPPED["card"] == set(CLASSES)
    for kind in SHIPPED:
        seen: dict[str, str] = {}
        for lang in LANGS:
            for ident in sorted(SHIPPED[kind]):
                folded = fold(translator(lang).pgettext(kind, ident))
                assert seen.setdefault(folded, ident) == ident, f"{folded!r} names {seen[folded]} and {ident}"
    assert len(aliases("region")) > 3 * len(SHIPPED["region"])


def test_the_rulebooks_names_are_used() -> None:
    """The Greek rulebook's Γαλλία, the Hungarian one's Itália and class cards."""
    assert say(Name.region("gallia"), "el") == "Γαλλία"
    assert say(Name.region("italia"), "hu") == "Itália"
    assert say(Name.card("monk"), "hu") == "Szerzetes"
    assert say(Name.card("witch"), "el") == "Μάγισσα"
    assert say(Name.card("knight"), "uk") == "Лицар"


# --- sentences ------------------------------------------------------------------------------

def test_a_sentence_is_translated_whole_then_filled() -> None:
    inner = Msg("you already hold the {card} card", card=Name.card("monk"))
    outer = Msg("action {index} ({kind}): {reason}", index=2, kind=Name.action("take_card"), reason=inner)
    assert outer == "action 2 (take): you already hold the Monk card"
    assert say(outer, "en") == outer
    assert say(outer, "hu") == "2. akció (take: kártya elvétele): már nálad van a Szerzetes kártya"
    assert say(outer, "uk") == "дія 2 (take: взяти карту): карта «Чернець» вже у вас"


def test_the_plural_is_the_languages_own() -> None:
    def drawn(n: int) -> Msg:
        return Msg.plural(
            "action {index} (spread): only {n} rat was drawn when the plague moved, and each spread line "
            "places one drawn rat: remove this spread line",
            "action {index} (spread): only {n} rats were drawn when the plague moved, and each spread line "
            "places one drawn rat: remove this spread line", n, index=4)
    assert "only 1 rat was drawn" in drawn(1) and "only 2 rats were drawn" in drawn(2)
    assert "1 ποντίκι" in say(drawn(1), "el") and "2 ποντίκια" in say(drawn(2), "el")
    assert "1 щура" in say(drawn(1), "uk") and "2 щури" in say(drawn(2), "uk") and "5 щурів" in say(drawn(5), "uk")


def test_an_unknown_language_is_refused() -> None:
    with pytest.raises(ValueError, match="pbem speaks en, hu, el, uk"):
        translator("fr")


# --- every refusal of the rule tests, in every language (R7.3) --------------------------------

COMMON_ENGLISH = frozenset(
    ["a", "an", "the", "is", "are", "was", "were", "be", "been", "not", "no", "of", "to", "in", "on", "at", "by", "for", "from", "with", "and", "or", "but", "you", "your", "it", "its", "this", "that", "there", "their", "they", "has", "have", "had", "can", "may", "must", "only", "before", "after", "one", "two", "more", "already", "now", "turn", "move", "moves", "cube", "cubes", "rat", "rats", "card", "region", "plague", "place", "player", "game"])


def english_runs(text: str) -> list[str]:
    """Runs of three or more common English words in ``text``."""
    words = re.findall(r"[A-Za-z_']+", text)  # a notation keyword (move_plague) is one word
    runs, run = [], []
    for word in [*words, ""]:
        if word.lower() in COMMON_ENGLISH:
            run.append(word)
            continue
        if len(run) >= 3:
            runs.append(" ".join(run))
        run = []
    return runs


def test_every_refusal_of_the_rule_tests_is_said_in_every_language() -> None:
    refusals = refusals_of_the_rule_tests()
    ids = {err.words.msgid for err in refusals if isinstance(err.words, Msg)}
    assert len(ids) > 40, sorted(ids)
    for err in refusals:
        assert isinstance(err.words, Msg), f"a refusal not written as a Msg: {err.message!r}"
        english = error_text(err, "en")
        assert english == str(err)
        for lang in OTHERS:
            said = error_text(err, lang)
            assert said != english and "{" not in said, said
            assert not english_runs(said), (lang, said, english_runs(said))
            assert err.rule is not None and f"({err.rule}):" in said  # the rule's number is kept


# --- a move names regions and cards in any language --------------------------------------------

ENGLISH_MOVE = "take monk\nplace gallia 2\nmonk t07 hispania\nplague italia\nspread hispania\nspread gallia\n"
SAME_MOVE = {
    "el": "take Μοναχός\nplace Γαλλία 2\nmonk t07 ισπανια\nplague ΙΤΑΛΙΑ\nspread Ισπανία\nspread γαλλία\n",
    "hu": "take szerzetes\nplace GALLIA 2\nmonk t07 Hispánia\nplague Itália\nspread Hispania\nspread Gallia\n",
    "uk": "take Чернець\nplace Галлія 2\nmonk t07 іспанія\nplague Італія\nspread ІСПАНІЯ\nspread галлия\n",
}


@pytest.mark.parametrize("lang", OTHERS)
def test_a_move_naming_regions_and_cards_in_a_language_reads_as_the_english_one(lang: str) -> None:
    assert parse(SAME_MOVE[lang]) == parse(ENGLISH_MOVE)  # uk "галлия": Галлія as a Russian keyboard types it
    if lang == "uk":  # a word that names nothing is refused, with the nearest name
        with pytest.raises(PbemError, match="line 6.*did you mean"):
            parse(SAME_MOVE[lang].replace("галлия", "галлюя"))


def test_names_without_accents_and_in_any_case_are_the_same_id() -> None:
    for word in ("Lengyelország", "lengyelorszag", "ΠΟΛΩΝΙΑ", "Πολωνία", "польща", "polonia"):
        assert canonical(word, "region") == "polonia", word
    assert canonical("Boszorkany", "card") == "witch" and canonical("ВІДЬМА", "card") == "witch"
    assert canonical("atlantis", "region") is None


def test_a_move_named_in_greek_is_recorded_byte_identical_to_the_english_one(tmp_path: Path) -> None:
    """The same bot turn, once with the ids and once every region named in Greek capitals."""
    import random

    from hardening import bot_move, make_game

    from pbem.host.games import load_game
    from pbem.log.notation_write import write
    from pbem.log.records import move_of

    logs, texts = [], []
    for lang in ("en", "el"):
        games = tmp_path / lang
        path = make_game(games, "g", 3, seed=5, moves=6)  # past the setup (R2.5): a whole turn
        game = load_game(path)
        assert game.state is not None and game.state.phase.value == "turn"
        text = write(move_of(yaml.safe_load(bot_move(game, random.Random(8)))))
        if lang == "el":
            for ident in SHIPPED["region"]:
                text = re.sub(rf"\b{ident}\b", translator("el").pgettext("region", ident).upper(), text)
            assert not any(re.search(rf"\b{ident}\b", text) for ident in SHIPPED["region"])
        texts.append(text)
        move = games / "move.txt"
        move.write_text(text, encoding="utf-8")
        ok("apply", move, "--games", games)
        logs.append((path / "log.yaml").read_bytes())
    assert texts[0] != texts[1] and re.search("[Α-Ω]{4}", texts[1])
    assert logs[0] == logs[1]


# --- a seat's language ---------------------------------------------------------------------------

def test_new_keeps_each_seats_language_in_the_hosts_settings(tmp_path: Path) -> None:
    ok("new", "g", "--players", "red,green,blue", "--seat-lang", "red=hu", "--seat-lang", "green=el",
       "--seat-lang", "blue=uk",
       "--games", tmp_path)
    settings = yaml.safe_load((tmp_path / "g" / "host.yaml").read_text())
    assert settings["languages"] == {"blue": "uk", "green": "el", "red": "hu"}


@pytest.mark.parametrize(("given", "why"), [("pink=hu", "'pink' is not one of the players"),
                                            ("red=fr", "pbem speaks en, hu, el, uk"),
                                            ("red", "write --seat-lang PLAYER=VALUE")])
def test_new_refuses_a_seat_or_language_it_does_not_know_and_makes_nothing(
    tmp_path: Path, given: str, why: str
) -> None:
    result = cli("new", "g", "--players", "red,green", "--seat-lang", given, "--games", tmp_path)
    assert result.exit_code == 3 and why in result.stderr
    assert not (tmp_path / "g").exists()


def test_the_host_changes_a_seats_language(tmp_path: Path) -> None:
    ok("new", "g", "--players", "red,green", "--seat-lang", "red=hu", "--games", tmp_path)
    log = (tmp_path / "g" / "log.yaml").read_bytes()
    assert "before: en" in ok("lang", "g", "green", "uk", "--games", tmp_path)
    assert "before: hu" in ok("lang", "g", "red", "en", "--games", tmp_path)
    assert yaml.safe_load((tmp_path / "g" / "host.yaml").read_text())["languages"] == {"green": "uk"}
    assert (tmp_path / "g" / "log.yaml").read_bytes() == log  # the log is language-neutral
    before = snapshot(tmp_path)
    assert cli("lang", "g", "green", "de", "--games", tmp_path).exit_code == 3
    assert snapshot(tmp_path) == before


def test_a_player_changes_their_language_by_mail_and_is_answered_in_it(started: tuple[Path, Path, Path]) -> None:
    import mailbox
    from email.message import EmailMessage
    from email.utils import make_msgid

    from mailtools import ADDRESSES, HOST, replies

    games, inbox, outbox = started
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = ADDRESSES["blue"], HOST, "language el"
    msg["Message-ID"] = make_msgid(domain="example.org")
    msg.set_content("thanks\n")
    mailbox.Maildir(str(inbox)).add(bytes(msg))
    ok("mail", "--inbox", inbox, "--outbox", outbox, "--games", games, "--from", HOST)
    assert yaml.safe_load((games / "g" / "host.yaml").read_text())["languages"] == {"blue": "el"}
    (reply,) = replies(outbox)
    assert reply["To"] == ADDRESSES["blue"] and "ελληνικά" in reply["Subject"]
    body = reply.get_body(("plain",))
    assert body is not None and "Από τώρα το pbem σού γράφει" in str(body.get_content())
    mailbox.Maildir(str(outbox)).clear()
    msg.replace_header("Subject", "rules R3.2")  # a rule asked for by mail comes in the seat's language now
    msg.replace_header("Message-ID", make_msgid(domain="example.org"))
    mailbox.Maildir(str(inbox)).add(bytes(msg))
    ok("mail", "--inbox", inbox, "--outbox", outbox, "--games", games, "--from", HOST)
    (reply,) = replies(outbox)
    body = reply.get_body(("plain",))
    assert body is not None and "Φάση Β" in str(body.get_content()) and "κανόνες" in reply["Subject"]


def test_a_language_by_mail_must_be_one_pbem_speaks() -> None:
    from pbem.mail.commands import command_of

    message: Any = mock.Mock()
    with mock.patch("pbem.mail.commands.body_text", return_value=""), pytest.raises(PbemError, match="en, hu, el, uk"):
        command_of(mock.Mock(subject="language fr", message=message))
    with mock.patch("pbem.mail.commands.body_text", return_value=""):
        found = command_of(mock.Mock(subject="Re: [rattus g] LANGUAGE UK", message=message))
    assert found is not None and (found.word, found.rule, found.tag) == ("language", "uk", "g")


# --- the player's tools take --lang --------------------------------------------------------------

def test_check_says_a_refusal_in_the_players_language(tmp_path: Path) -> None:
    from hardening import make_game

    from pbem.host.games import load_game
    from pbem.log.moves import after_of

    path = make_game(tmp_path, "g", 3, seed=2, moves=6)  # past the setup: every region holds a rat
    game = load_game(path)
    assert game.state is not None
    region = next(r for r in game.state.regions if len(game.state.rats[r]) == 1)
    move = tmp_path / "move.txt"
    move.write_text(f"game g {game.to_move}\nafter {after_of(game)['seq']} {after_of(game)['hash']}\n"
                    f"place {region} 5\n", encoding="utf-8")
    english = cli("check", move, "--games", tmp_path)
    assert english.exit_code == 4 and "illegal move (R3.2): action 1 (place):" in english.stderr
    for lang, words in (("hu", "szabálytalan lépés (R3.2): 1. akció (place: kockák lerakása):"),
                        ("el", "μη επιτρεπτή κίνηση (R3.2): ενέργεια 1 (place: τοποθέτηση κύβων):"),
                        ("uk", "недозволений хід (R3.2): дія 1 (place: розміщення кубиків):")):
        said = cli("check", move, "--games", tmp_path, "--lang", lang)
        assert said.exit_code == 4 and words in said.stderr, said.stderr
        assert translator(lang).pgettext("region", region) in said.stderr


def test_show_names_the_regions_and_cards_in_the_players_language(tmp_path: Path) -> None:
    from hardening import make_game

    make_game(tmp_path, "g", 3, seed=2)
    shown = ok("show", "g", "--games", tmp_path, "--lang", "el")
    assert "Γαλλία" in shown and "Μοναχός" in shown and "gallia" not in shown.lower().replace("galli", "")
    assert ok("show", "g", "--games", tmp_path) == ok("show", "g", "--games", tmp_path, "--lang", "en")


# --- English reads no catalog --------------------------------------------------------------------

AUDITED_APPLY = """
import sys
opened = []
sys.addaudithook(lambda event, args: opened.append(str(args[0])) if event == "open" and args else None)
from pbem.cli import run
sys.argv = ["pbem", "apply", sys.argv[1], "--games", sys.argv[2]]
try:
    run()
except SystemExit as done:
    code = done.code
print("catalogs read:", [p for p in opened if p.endswith((".mo", ".po"))], "exit", code)
"""


def test_pbem_apply_in_english_reads_no_catalog(tmp_path: Path) -> None:
    from hardening import bot_move, make_game

    from pbem.host.games import load_game

    path = make_game(tmp_path, "g", 3, seed=3)
    move = tmp_path / "move.yaml"
    import random

    move.write_bytes(bot_move(load_game(path), random.Random(3)))
    done = subprocess.run([sys.executable, "-c", AUDITED_APPLY, str(move), str(tmp_path)],
                          capture_output=True, text=True, timeout=120, check=False,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "PBEM_NOW": "2026-11-30T09:00:00Z"})
    assert done.stdout.strip().endswith("catalogs read: [] exit None") or "catalogs read: [] exit 0" in done.stdout, (
        done.stdout + done.stderr)


# --- pbem rules in every language ----------------------------------------------------------------

def test_the_rules_reference_numbers_the_same_rules_in_every_language() -> None:
    from pbem.views.rulesref import rules

    english = rules("en")
    for lang in OTHERS:
        said = rules(lang)
        assert list(said) == list(english), lang
        for number, text in said.items():
            assert text != english[number] and not english_runs(text), (lang, number, english_runs(text))


def test_a_refusals_rule_is_quoted_in_the_readers_language() -> None:
    from pbem.views.rulesref import sentence

    assert sentence("R5.3", "el") == ("R5.3 Μοναχός: ένα ποντίκι μετακινείται, κλειστό, σε μια γειτονική περιοχή με "
                                      "λιγότερα από 3 ποντίκια.").removeprefix("R5.3 ")
    for lang in OTHERS:
        for number in ("R3.2", "R4.1", "R7.4", "P10"):
            quoted = sentence(number, lang)
            assert quoted is not None and quoted.endswith(".") and len(quoted) > 20, (lang, number, quoted)


@pytest.mark.parametrize(("lang", "words"), [("hu", "B fázis"), ("el", "Φάση Β"), ("uk", "Фаза B")])
def test_pbem_rules_says_a_rule_in_the_language(lang: str, words: str) -> None:
    said = ok("rules", "R3.2", "--lang", lang)
    assert said.startswith("R3.2  ") and words in said
    assert ok("rules", "R3.2") == ok("rules", "R3.2", "--lang", "en")


def test_pbem_rules_notation_keeps_the_keywords_and_explains_them_in_the_language() -> None:
    english = ok("rules", "notation").splitlines()
    for lang in OTHERS:
        said = ok("rules", "notation", "--lang", lang).splitlines()
        assert len(said) == len(english)
        for mine, theirs in zip(said, english, strict=True):
            if theirs.startswith("  ") and theirs.strip():  # a form line: the form is the same in every language
                assert mine.split()[0] == theirs.split()[0]
            elif theirs.strip():
                assert mine != theirs and not english_runs(mine), (lang, mine)


def test_what_a_turn_still_owes_is_said_in_every_language() -> None:
    """R7.5: 'you still owe...' (pbem check, the R7.5 refusal, the Witch's reply) from every
    stage a random move can stop at, said whole in each language."""
    import random

    from pbem.bots.randombot import bot_actions
    from pbem.data import default_board
    from pbem.referee.owed import owed
    from pbem.rules import play
    from pbem.sim.simulate import new_random_game

    board = default_board()
    said: dict[str, Msg] = {}
    for seed in range(40):
        state, dealt = new_random_game(3, seed)
        rng = random.Random(seed)
        for _ in range(rng.randrange(6, 30)):
            player = state.to_move
            if player is None:
                break
            actions = bot_actions(state, rng)
            for stop in range(1, len(actions)):
                try:
                    partial, _ = play(state, player, actions[:stop])
                except RuleError:
                    continue
                if partial.to_move == player:
                    still = owed(partial, player, board.name_of)
                    said.setdefault(still.msgid + str(still.n), still)
            state, _ = play(state, player, actions, dealt)
    assert len({m.msgid for m in said.values()}) >= 4, sorted({m.msgid for m in said.values()})
    for english in said.values():
        for lang in OTHERS:
            text = say(english, lang)
            assert text != english and "{" not in text and not english_runs(text), (lang, text)


def test_a_refusal_by_mail_is_in_the_language_of_the_senders_seat(started: tuple[Path, Path, Path]) -> None:
    """R7.3 by mail: blue reads Greek, mails a move out of turn, and the refusal, its rule's
    number and the rule's own first sentence come back in Greek; nothing is recorded."""
    from mailtools import ADDRESSES, HOST, deliver, eml, load_log, replies

    from pbem.log.moves import after_of
    from pbem.views.rulesref import sentence

    games, inbox, outbox = started
    ok("lang", "g", "blue", "el", "--games", games)
    log = (games / "g" / "log.yaml").read_bytes()
    move = {"game": "g", "player": "blue", "kind": "move", "after": after_of(load_log(games)),
            "actions": [{"action": "take_card", "card": "king"}]}
    deliver(inbox, eml(ADDRESSES["blue"], move))
    cli("mail", "--inbox", inbox, "--outbox", outbox, "--games", games, "--from", HOST)
    assert (games / "g" / "log.yaml").read_bytes() == log
    (reply,) = replies(outbox)
    body = reply.get_body(("plain",))
    assert body is not None
    text = str(body.get_content())
    assert text.startswith("Το μήνυμά σου δεν εφαρμόστηκε· τίποτα δεν άλλαξε.")
    assert "pbem: μη επιτρεπτή κίνηση (R3): είναι η σειρά του red, όχι του blue" in text
    assert f"Ο R3 λέει: «{sentence('R3', 'el')}»" in text


def test_a_stale_move_is_refused_in_every_language(tmp_path: Path) -> None:
    """P7: each way a move can answer the wrong entry (the log moved on, a seq changed by
    hand, another copy of the log, an entry that does not exist yet, an opening move that
    does not answer entry 0)."""
    from hardening import make_game

    from pbem.host.games import load_game
    from pbem.log.records import move_of
    from pbem.referee.admit import check_fresh

    game = load_game(make_game(tmp_path, "g", 3, seed=1, moves=5))
    last, hashes = game.last_seq, game.hashes
    cases = [("move", last - 1, hashes[last - 1]), ("move", 2, hashes[3]), ("move", 1, hashes[last]),
             ("move", last, "ab" * 8), ("move", last + 3, "cd" * 8), ("commit", 3, hashes[3])]
    said = set()
    for kind, seq, prefix in cases:  # a commitment answers entry 0 (P4)
        data = {"game": "g", "player": "red", "kind": kind, "after": {"seq": seq, "hash": prefix[:16]},
                "actions": [{"action": "end"}]}
        with pytest.raises(PbemError) as refused:
            check_fresh(game, move_of(data))
        err = refused.value
        assert isinstance(err.words, Msg) and err.rule == "P7"
        why, fix = err.words.params["why"], err.words.params["fix"]  # why it is stale, and what to do
        assert isinstance(why, Msg) and isinstance(fix, Msg)
        said.add(why.msgid)
        for lang in OTHERS:
            text = error_text(err, lang)
            assert text != str(err) and "{" not in text and not english_runs(text), (lang, text)
            assert "(P7):" in text and prefix[:16] in text
    assert len(said) == 6


def test_the_openings_refusals_are_said_in_every_language(tmp_path: Path) -> None:
    """P4, P1, R2.1: the refusals of the opening, met in the order a game meets them."""
    from pbem.host.create import NewGame, create
    from pbem.host.games import apply_move, load_game
    from pbem.log.moves import after_of
    from pbem.log.records.sent import MoveFile
    from pbem.log.records import move_of
    from pbem.player.nonces import commit_move, reveal_move
    from pbem.referee.admit import judge

    path = create(tmp_path, NewGame("op", ("red", "green", "blue"), secret=bytes(32)))
    nonce = {"red": bytes([1]) * 16, "green": bytes([2]) * 16, "blue": bytes([3]) * 16}
    refusals: list[PbemError] = []

    def move(data: dict[str, Any]) -> MoveFile:
        return move_of(data)

    def refused(data: dict[str, Any]) -> None:
        with pytest.raises(PbemError) as caught:
            judge(load_game(path), move(data))
        refusals.append(caught.value)

    def turn(player: str) -> dict[str, Any]:
        return {"game": "op", "player": player, "kind": "move", "after": after_of(load_game(path)),
                "actions": [{"action": "end"}]}

    refused(turn("red"))  # not started: the commitments are awaited
    apply_move(tmp_path, move(commit_move(load_game(path), "red", nonce["red"])))
    refused(commit_move(load_game(path), "red", bytes([9]) * 16))  # a commitment cannot change
    refused(reveal_move(load_game(path), "red", nonce["red"]))  # green and blue have not committed
    for player in ("green", "blue"):
        apply_move(tmp_path, move(commit_move(load_game(path), player, nonce[player])))
    refused(reveal_move(load_game(path), "red", bytes([7]) * 16))  # not the nonce committed to
    apply_move(tmp_path, move(reveal_move(load_game(path), "red", nonce["red"])))
    refused(turn("green"))  # not started: the reveals are awaited
    for player in ("green", "blue"):
        apply_move(tmp_path, move(reveal_move(load_game(path), player, nonce[player])))
    assert load_game(path).started
    refused(commit_move(load_game(path), "red", nonce["red"] + b"x"))  # started: no commitments
    refused({**turn("red"), "game": "other"})
    refused({**turn("red"), "player": "mauve"})
    assert len({str(err.words.msgid) for err in refusals if isinstance(err.words, Msg)}) == len(refusals) == 8
    for err in refusals:
        for lang in OTHERS:
            text = error_text(err, lang)
            assert text != str(err) and "{" not in text and not english_runs(text), (lang, text)
            assert f"({err.rule}):" in text
