"""In the reader's language: what a player writes a move from and what is said about a move file: the
template in Hungarian, Greek and Ukrainian (its comments and menu translated, the notation's
keywords and forms as they are, the shipped regions and cards by the names the notation reads
back), and the refusals of a text or YAML move, of a signature, of a resignation or a new
player, said in each language with no English sentence left; the English stays as it was."""

from __future__ import annotations

import dataclasses
import random
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from clitools import cli, ok
from english import english_lines
from ordertools import Reader, a_turn, games, live, positions  # noqa: F401 (games: a fixture)
from signingtools import commit_file, new_signed_game

from pbem.errors import FormatError, PbemError, RulesError, SignatureError, StaleError, StateError, UnknownError
from pbem.host.create import NewGame, create
from pbem.i18n import error_text, translator
from pbem.log import notation_write
from pbem.log.game import Game
from pbem.log.moves import after_of, parse_move
from pbem.log.records import ResignMove
from pbem.referee import admit as referee
from pbem.referee.seats import check_replace, check_resign, record_lines
from pbem.referee.seatview import SeatView
from pbem.sim.demo import open_game
from pbem.views import orders
from pbem.views.template import resign_template, template

LANGS = ("hu", "el", "uk")
COMMANDS = ("pbem rules notation", "pbem nonce", "--games DIR", "pbem sign", "pbem keygen", "merchant FROM TO N")
"""What a player types, in any language: the only English a translated text may hold (the
commands, and the notation's forms: ``merchant FROM TO N`` is the notation's own, as 'pbem
rules notation' shows it in every language)."""



# --- a translated template, read as its player reads it ----------------------------------------

@pytest.mark.parametrize("lang", LANGS)
def test_a_translated_template_is_short_holds_no_english_and_its_lines_are_accepted(
        games: dict[int, Game], lang: str) -> None:
    """tests/test_orders.py's 300 positions, in each language: every line under 40 characters,
    at most 45 lines, no English sentence, the shipped names in the language (a long menu too:
    it is told in short, never switched to the ids), and a turn made only of the template's lines, in its order,
    accepted whole (or up to a Witch's look)."""
    rng = random.Random(22)
    reader = Reader(lang)
    said = translator(lang)
    accepted = localized = 0
    seen: set[str] = set()
    for size, state in positions(300, 19):
        game = dataclasses.replace(games[size], state=state)
        player = state.to_move
        text = template(SeatView(game, player), lang=lang)
        lines = text.splitlines()
        assert all(len(x) < 40 for x in lines), [x for x in lines if len(x) >= 40]
        assert len(lines) <= 45, text
        assert english_lines(text, COMMANDS) == [], text
        assert live(text)[:2] == notation_write.header_lines("g", player, game.last_seq, after_of(game)["hash"])
        localized += any(said.pgettext("region", r) in text for r in state.regions)
        shown = set(re.findall(r"[\w-]+", "\n".join(line for line in lines if line.startswith("#"))))
        assert not shown & (set(state.regions) | {"peasant", "witch"}), text  # never the ids, however long
        chosen, stop = a_turn(text, state, rng, reader)
        move = parse_move(("\n".join(live(text) + chosen) + "\n").encode())
        try:
            verdict = referee.judge(game, move)
        except RulesError as err:
            raise AssertionError(f"{chosen}\n{text}\n{err}") from None
        assert verdict.complete != stop, (chosen, text)
        accepted += 1
        seen |= {line.split()[0] + (" via" if line.startswith("plague") and len(line.split()) == 3 else "")
                 for line in chosen}
    print(f"{lang}: {accepted} of 300 accepted, {localized} with the regions' names in {lang}; {sorted(seen)}")
    assert accepted == 300 and localized >= 200  # the rest name no region (a flip order, the final round)
    assert seen >= {"look", "swap", "take", "place", "king", "plague", "plague via", "spread", "knight",
                    "flip", "end"}, seen


def test_the_english_template_is_what_it_was(games: dict[int, Game]) -> None:
    """lang='en' is the default's text, byte for byte (the golden playthroughs hold the rest)."""
    for size, state in positions(40, 7):
        view = SeatView(dataclasses.replace(games[size], state=state), state.to_move)
        assert template(view, lang="en") == template(view)
        assert "# Write the rest below, one action\n# a line (R7.5; pbem rules notation).\n" in template(view)


@pytest.mark.parametrize("lang", LANGS)
def test_the_opening_and_resignation_templates_are_translated(tmp_path: Path, lang: str) -> None:
    create(tmp_path, NewGame("o", ("red", "green"), secret=bytes(32), first="red", deadline=3 * 86400,
                             reminder=86400))
    from pbem.host.games import load_game

    game = load_game(tmp_path / "o")
    texts = [template(SeatView(game, "red"), lang=lang)]  # the deadline's rule, in the opening
    assert translator(lang).gettext("Deadline: {deadline} a turn from the entry that makes it the player's turn, "
                                    "a reminder {reminder} before; then the stand-in rule plays it (R8.1-R8.3); "
                                    "none runs in the opening (P4).").split("{")[0] in texts[0]
    create(tmp_path, NewGame("p", ("red", "green"), secret=bytes(32), first="red"))  # (a running deadline's
    started = open_game(tmp_path, "p", nonces={"red": bytes(16), "green": bytes([1]) * 16})  # time: deadlines.py)
    texts += [resign_template(SeatView(started, "green"), lang=lang), template(SeatView(started, "green"), lang=lang)]
    for text in texts:
        assert english_lines(text, COMMANDS) == [], text
        assert all(len(x) < 40 for x in text.splitlines()), text
    assert "# commit" in texts[0] and texts[1].rstrip().endswith("resign")
    assert isinstance(parse_move(texts[1].encode()), ResignMove)


# --- what is said about a move file -------------------------------------------------------------

HEAD = "game g red\nafter 3 0123456789abcdef\n"
DAMAGED = [
    HEAD + "place gallia 2\nplague ital\nia\n",
    HEAD + "place gallia\n2\n",
    HEAD + "place gallia 2 plague italia\n",
    "game g red\nafter 3 0123\nplace gallia 2\n",
    HEAD + "place gallia 2\ncommit " + "ab" * 32 + "\n",
    "place gallia 2\nplague italia\n",
    HEAD + "commit xyz\n",
    HEAD + "monk t99x gallia\n",
    HEAD + "place gallia zwei\n",
    HEAD + "take Ιππότης!\n",
    HEAD + "place gal/lia 2\n",
    HEAD + "plague a b c\n",
    HEAD + "knight a b c\n",
    HEAD + "flip\n",
    HEAD + "game h red\nplace gallia 2\n",
    HEAD + "sig ###\n",
    HEAD + "sig abcd\nplace gallia 2\nsig efgh\n",
    HEAD,
    HEAD + "place " + "x" * 250 + "\n",
    "game: g\nplayer: red\nkind: move\nafter: {seq: 3, hash: '0123456789abcdef'}\nactions:\n"
    "  - {action: place, region: gallia, count: 2, colour: red}\n",
    "game: g\nplayer: red\nkind: move\nafter: {seq: 3, hash: '0123456789abcdef'}\nactions:\n"
    "  - {action: fly, region: gallia}\n",
    "game: g\nplayer: red\nkind: move\nafter: {seq: 3, hash: '0123456789abcdef'}\nactions:\n"
    "  - {action: place, region: gallia, count: }\n",
    "game: g\nplayer: red\nkind: move\nactions: []\n",
    "- just\n- a list\n",
    "game: g\nplayer: red\nkind: commit\nafter: {seq: 0, hash: '0123456789abcdef'}\nnonce_commitment: ''\n",
    "game: g\nplayer: red\nkind: move\nafter: {seq: 3, hash: '0123456789abcdef'}\nactions:\n"
    + "  - {action: end}\n" * 70,
]


def refusal(text: str, what: str = "move file x.txt") -> PbemError:
    with pytest.raises(FormatError) as caught:
        parse_move(text.encode(), what)
    return caught.value


@pytest.mark.parametrize("lang", LANGS)
def test_a_move_file_that_does_not_read_is_refused_in_the_readers_language(lang: str) -> None:
    """Every refusal of a text or YAML move that does not parse or validate: its paragraph in
    each language holds no English sentence, keeps the rule's number and quotes the line."""
    for text in DAMAGED:
        for what in ("move file x.txt", "move in attachment x.txt", "move in the message text"):
            err = refusal(text, what)
            said = error_text(err, lang)
            assert english_lines(said, COMMANDS) == [], (str(err), said)
            assert f"({err.rule})" in said and said != str(err)
    assert "'ia'" in error_text(refusal(DAMAGED[0]), lang)


def test_the_english_refusals_of_a_move_file_are_what_they_were() -> None:
    """The English of a few, word for word as before (tests/test_orders.py and the rest hold more)."""
    assert str(refusal(DAMAGED[0])) == (
        "malformed input (R7.3): the move file x.txt, line 5 ('ia') is not a move line: a line starts with one "
        "of after, away, commit, end, flip, game, key, king, knight, look, merchant, monk, nonce, note, place, plague, "
        "player, resign, sig, spread, swap, take (see 'pbem rules notation'); nothing was applied, the move is "
        "read whole or not at all")
    assert str(refusal(DAMAGED[5])) == (
        "malformed input (P7): the move file x.txt does not say game and player and after: start it with the lines "
        "'game GAME SEAT' and 'after SEQ HASH' from your template (or send it as a reply to the host's mail, "
        "which gives them)")
    assert str(refusal(DAMAGED[19])) == (
        "malformed input (P7): the move file x.txt: at action 1: unexpected field: Additional properties are not "
        "allowed ('colour' was unexpected) (schemas/move.json)")
    assert str(refusal(DAMAGED[4], "move file")) == (
        "malformed input (P7): the move file mixes commit and move: one move file is one kind of move (a turn, a "
        "commitment, a nonce or a resignation)")


@pytest.mark.parametrize("lang", LANGS)
def test_signature_refusals_are_said_in_the_readers_language(tmp_path: Path, games: dict[int, Game],
                                                                    lang: str) -> None:
    """P8: an unsigned and a wrongly signed move, by 'pbem check --lang', in the language."""
    for name in ("host", "red", "blue", "mallory"):
        ok("keygen", "--out", tmp_path / f"{name}.key")
    folder = new_signed_game(tmp_path)
    path = commit_file(folder, "g", "red", tmp_path)
    unsigned = cli("check", path, "--lang", lang, "--games", folder)
    ok("sign", path, "--key", tmp_path / "mallory.key")
    wrong = cli("check", path, "--lang", lang, "--games", folder)
    english = cli("check", path, "--games", folder)
    assert "does not verify" in english.stderr
    for result in (unsigned, wrong):
        assert result.exit_code == 8 and "(P8)" in result.stderr and "pbem: " in result.stderr
        assert english_lines(result.stderr, COMMANDS) == [], result.stderr
    said = translator(lang)
    refusals = [SignatureError(_sig(games[2], which), "P8") for which in ("key_for", "one_key", "signed")]
    for err in refusals:
        assert english_lines(error_text(err, lang), COMMANDS) == [], error_text(err, lang)
    assert said.gettext("signature refused") in wrong.stderr


def _sig(game: Game, which: str) -> str:
    """A signature refusal's words, made by the code that refuses (P8)."""
    from pbem.log.game import Keys
    from pbem.log.records import move_of
    from pbem.referee.signatures import check_move, check_one_key, key_for

    key = "ed25519:" + "A" * 43 + "="
    try:
        if which == "key_for":
            key_for(Keys({"red": key}), move_of({"game": "g", "player": "red", "kind": "commit",
                                                 "key": "ed25519:" + "B" * 43 + "="}), "red")
        elif which == "one_key":
            check_one_key(dataclasses.replace(game, keys=Keys({"red": key})), "green", key)
        else:
            check_move(game, move_of({"game": "g", "player": "red", "kind": "move", "signature": "abc"}))
    except SignatureError as err:
        return err.words
    raise AssertionError(which)


@pytest.mark.parametrize("lang", LANGS)
def test_resign_and_replace_refusals_and_records_are_translated(games: dict[int, Game], lang: str) -> None:
    game = games[2]
    over = dataclasses.replace(game, resigned={"red"})
    refusals: list[PbemError] = []
    checks: list[Callable[[], object]] = [lambda: check_resign(over, "red"), lambda: check_replace(game, "purple")]
    for check in checks:
        with pytest.raises((StaleError, UnknownError, StateError)) as caught:
            check()
        refusals.append(caught.value)
    for err in refusals:
        said = error_text(err, lang)
        assert english_lines(said) == [] and said != str(err), said
    for line in record_lines(game):
        assert english_lines(translator(lang).say(line)) == []
    assert orders.left(game.state, game.to_move or "", lang) != orders.left(game.state, game.to_move or "")  # type: ignore[arg-type]


@pytest.mark.parametrize("lang", LANGS)
def test_pbem_template_lang_prints_the_translated_template(tmp_path: Path, lang: str) -> None:
    games = tmp_path / "games"
    ok("new", "m", "--players", "red,green", "--first", "red", "--games", games)
    text = ok("template", "m", "--player", "red", "--lang", lang, "--games", games)
    assert text == template(SeatView(_loaded(games / "m"), "red"), lang=lang)
    assert text != ok("template", "m", "--player", "red", "--games", games)
    assert english_lines(text, COMMANDS) == [] and "game m red" in text
    resign = cli("template", "m", "--resign", "--lang", lang, "--games", games)
    assert resign.exit_code != 0 and english_lines(resign.stderr) == [], resign.stderr


def _loaded(path: Path) -> Game:
    from pbem.host.games import load_game

    return load_game(path)
