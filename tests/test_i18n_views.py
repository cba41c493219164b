"""The text views in the reader's language (Hungarian, Greek, Ukrainian).

The board and its notices, every entry told (moves and their events, the opening, the start,
timeouts, stand-in turns, resignations, a seat handed on, the reveal), reports, the history,
the status and list lines, deadlines (weekday and month names too), a seat's own Witch
looks, the trust statement, whose nonces made the seed, and the audit's verdicts: each is
said whole in the reader's language, and holds no English sentence (tests/english.py), on
the real games of examples/ and on games made here. English stays what it was, word for word.

A verdict's word (FAIR, NOT YET, REFUSED, HOST'S DEAL) stays as scripts read it, with its
sentence translated after it. Still English, and not from these views: the audit's own
findings (pbem/referee/audit.py), which `pbem audit` and `pbem verify` print as "ok: ...".
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from boards import TWO, board
from clitools import cli, ok
from english import english_lines

from pbem.errors import StateError, TamperError
from pbem.host.private import seat_view
from pbem.i18n import say
from pbem.log.logfile import LOG_NAME, read_log
from pbem.referee import deadlines
from pbem.referee.audit import audit
from pbem.referee.replay import replay
from pbem.referee.seats import record_lines as seats_record_lines
from pbem.rules import Phase
from pbem.rules.data import face_words as data_face_words
from pbem.views import text, trust
from pbem.views.narrate import entry_lines, status_line
from pbem.views.report import report_lines
from pbem.views.timeline import game_at, history_lines, steps, summarize

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted(p.parent.name for p in (ROOT / "examples").glob("*/log.yaml"))
OTHERS = ("hu", "el", "uk")
VERDICT_WORDS = ("HOST'S DEAL", "NOT YET", "REFUSED", "FAIR")
"""The verdicts' fixed words (what tools/audit_min.py and scripts read), kept in every language."""


def english(lines: list[str] | str) -> list[str]:
    """The lines that read as English once the verdicts' fixed words are set aside."""
    body = lines if isinstance(lines, str) else "\n".join(lines)
    for word in VERDICT_WORDS:
        body = body.replace(word, "")
    return english_lines(body)


def example(name: str) -> tuple[list[Any], list[str]]:
    return read_log(ROOT / "examples" / name / LOG_NAME)


def told(name: str, lang: str) -> list[str]:
    """Everything the text views say of a whole example game, entry by entry: the history,
    then at every entry the board, the report of that entry and the status line."""
    entries, hashes = example(name)
    lines = history_lines(entries, hashes, lang)
    for game in steps(entries, hashes):
        lines += text.board_lines(game, lang=lang)
        lines += report_lines(game, [game.entries[-1]], lang=lang)
        lines.append(status_line(game, lang))
    return lines


# --- whole games, in each language -----------------------------------------------------------

@pytest.mark.parametrize("lang", OTHERS)
@pytest.mark.parametrize("name", EXAMPLES)
def test_a_whole_game_told_in_another_language_holds_no_english_sentence(name: str, lang: str) -> None:
    lines = told(name, lang)
    assert english(lines) == []
    english_text = "\n".join(told(name, "en"))
    assert english(english_text), "the finder sees the English of the same game"
    said = "\n".join(lines)
    region = {"hu": "Anglia", "el": "Αγγλία", "uk": "Англія"}[lang]
    card = {"hu": "Boszorkány", "el": "Μάγισσα", "uk": "Відьма"}[lang]
    assert region in said and card in said  # the names its players know


def test_every_kind_of_entry_and_event_is_in_the_examples_told_above() -> None:
    kinds, events = set(), set()
    for name in EXAMPLES:
        entries, _ = example(name)
        kinds |= {type(e).__name__ for e in entries}
        events |= {x.kind for e in entries for x in e.outcome}
    assert {"Create", "Commit", "Nonce", "Start", "Played", "Timeout", "Resign", "Standin", "Replace",
            "Reveal"} <= kinds
    assert {"cubes_placed", "card_taken", "cubes_moved", "cube_to_palace", "rat_moved", "token_looked",
            "tokens_swapped", "plague_moved", "rat_drawn", "knight_cubes", "token_flipped", "cube_removed",
            "game_ending", "game_over"} <= events


@pytest.mark.parametrize("lang", OTHERS)
def test_a_stand_in_turn_and_a_deadline_in_another_language(lang: str) -> None:
    entries, hashes = example("playthrough-seats")
    game = game_at(entries, hashes, 45)  # a deadline runs; a timeout, a resignation, a seat handed on
    board = text.board_lines(game, lang=lang)
    assert english(board) == []
    week = {"hu": "hétfő", "el": "Δευ", "uk": "пн"}[lang]
    month = {"hu": "nov.", "el": "Νοε", "uk": "лист."}[lang]
    assert any(week in line and month in line for line in board)
    standin = [line for e in entries for line in entry_lines(game, e, lang) if "R8.3" in line]
    assert standin and english(standin) == []
    if lang == "el":  # Greek's own separator between the stand-in's actions (";" is its question mark)
        assert any("·" in line for line in standin) and not any("; " in line for line in standin)


# --- English stays what it was ---------------------------------------------------------------

@pytest.mark.parametrize("name", EXAMPLES)
def test_english_is_unchanged_and_the_default(name: str) -> None:
    entries, hashes = example(name)
    assert history_lines(entries, hashes, "en") == history_lines(entries, hashes)
    game = replay(entries, hashes)
    assert trust.record_lines(game) == seats_record_lines(game)  # the same sentences, word for word
    for token in game.catalogue.tokens:
        assert text.face_words(token) == data_face_words(token)


def test_english_dates_durations_and_phrases_are_as_before() -> None:
    assert deadlines.when_text("2026-12-02T09:15:00Z") == "Wed 2 Dec 09:15 UTC"
    assert [deadlines.duration_text(s) for s in (3 * 86400, 36 * 3600, 90 * 60, 0)] == ["3d", "1d12h", "1h30m", "0m"]
    entries, hashes = example("playthrough-seats")
    game = game_at(entries, hashes, 45)
    assert deadlines.phrase(game, at="2026-11-30T16:16:00Z") == "green to move, due Mon 30 Nov 17:16 UTC, in 1 hour"
    assert deadlines.phrase(game, at="2026-11-30T20:16:00Z") == (
        "green to move, due Mon 30 Nov 17:16 UTC, 3 hours overdue: the host may record a timeout (R8.2)")
    assert deadlines.rule_text(game) == ("deadline: 1h a turn from the entry that makes it the player's turn; "
                                         "then the stand-in rule plays it (R8.1-R8.3)")


def test_english_verdicts_are_as_before() -> None:
    game = replay(*example("rattus-3p"))
    assert trust.audit_verdict(None, game) == (
        "verdict: FAIR. The rat order was fixed at the start and never touched (how to check: docs/protocol.md).")
    assert trust.audit_verdict(StateError("x", "P6")) == (
        "verdict: NOT YET. The secret is revealed when the game is over (P6; how to check: docs/protocol.md).")
    assert trust.audit_verdict(TamperError("entry 5: bad", "P7")) == (
        "verdict: REFUSED. The log does not verify at entry 5 (P7; how to check: docs/protocol.md).")
    assert trust.audit_verdict(TamperError("bad", "P7")) == (
        "verdict: REFUSED. The log does not verify as a whole (P7; how to check: docs/protocol.md).")


# --- deadlines -------------------------------------------------------------------------------

DATES = {
    "hu": "dec. 2., szerda 09:15 UTC",
    "el": "Τετ 2 Δεκ 09:15 UTC",
    "uk": "ср, 2 груд. 09:15 UTC",  # noqa: RUF001 (Ukrainian, not Latin look-alikes)
}
DURATIONS = {
    "hu": ["3 nap", "1 nap 12 óra", "1 óra 30 perc"],
    "el": ["3 ημέρες", "1 ημέρα 12 ώρες", "1 ώρα 30 λεπτά"],
    "uk": ["3 дні", "1 день 12 годин", "1 годину 30 хвилин"],
}


@pytest.mark.parametrize("lang", OTHERS)
def test_dates_and_durations_in_another_language(lang: str) -> None:
    assert deadlines.when_text("2026-12-02T09:15:00Z", lang) == DATES[lang]
    assert [deadlines.duration_text(s, lang) for s in (3 * 86400, 36 * 3600, 90 * 60)] == DURATIONS[lang]
    entries, hashes = example("playthrough-seats")
    game = game_at(entries, hashes, 45)
    phrases = [deadlines.phrase(game, at=at, lang=lang) for at in
               ("2026-11-30T17:15:00Z", "2026-11-30T16:16:00Z", "2026-11-30T20:16:00Z", "2026-12-03T20:16:00Z")]
    rule = deadlines.rule_text(game, lang)
    assert None not in phrases and rule is not None
    assert english([*map(str, phrases), rule]) == []
    assert all("green" in p for p in map(str, phrases))


# --- one seat's own view ---------------------------------------------------------------------

@pytest.mark.parametrize("lang", OTHERS)
def test_a_seats_own_witch_looks_in_another_language(lang: str) -> None:
    path = ROOT / "examples" / "playthrough-seats"
    entries, hashes = read_log(path / LOG_NAME)
    game = game_at(entries, hashes, len(entries) - 1)
    view = seat_view(path, game, "red")
    assert view.looks
    mine = text.private_lines(view, lang)
    assert len(mine) == len(view.looks) and english(mine) == []
    threshold = {"hu": "határérték", "el": "τιμή ορίου", "uk": "порогове значення"}[lang]  # the rulebooks'
    assert all(threshold in line and look.token_id in line for line, look in zip(mine, view.looks, strict=True))
    assert text.private_lines(view) == text.private_lines(view, "en")
    shown = cli("show", path / LOG_NAME, "--as", "red", "--lang", lang).stdout
    assert english(shown) == [] and mine[0] in shown


# --- verdicts and the command line -----------------------------------------------------------

@pytest.mark.parametrize("lang", OTHERS)
def test_the_verdicts_in_another_language_keep_their_word_and_say_the_rest(lang: str) -> None:
    game = replay(*example("rattus-3p"))
    cases = {"FAIR": trust.audit_verdict(None, game, lang),
             "NOT YET": trust.audit_verdict(StateError("x", "P6"), lang=lang),
             "REFUSED": trust.audit_verdict(TamperError("entry 5: bad", "P7"), lang=lang)}
    whole = trust.audit_verdict(TamperError("bad", "P7"), lang=lang)
    for word, line in cases.items():
        assert f": {word} (" in line and "docs/protocol.md" in line
    assert "5" in cases["REFUSED"] and "P7" in whole and whole != cases["REFUSED"]
    assert english([*cases.values(), whole]) == []
    assert english(trust.trust_lines(game, lang)) == []


@pytest.mark.parametrize("lang", OTHERS)
def test_pbem_audit_verify_history_and_show_take_the_language(lang: str) -> None:
    for name in ("rattus-3p", "playthrough-seats"):
        log = ROOT / "examples" / name / LOG_NAME
        findings = {f"ok: {finding}" for finding in audit(replay(*read_log(log)))}  # referee/audit.py's, English
        for command in (("audit", log), ("verify", log), ("history", log), ("show", log)):
            result = cli(*command, "--lang", lang)  # stdout: the clock's warnings (stderr) are not these views'
            assert result.exit_code == 0, result.output
            out = [line for line in result.stdout.splitlines() if line not in findings]
            assert out and english(out) == [], command
        english_audit = cli("audit", log).stdout
        assert english_audit == cli("audit", log, "--lang", "en").stdout and "verdict: FAIR." in english_audit


# --- the opening, a host's deal, pbem list ---------------------------------------------------

def opening(games: Path, game_id: str) -> tuple[list[Any], list[str]]:
    return read_log(games / game_id / LOG_NAME)


@pytest.mark.parametrize("lang", OTHERS)
def test_the_opening_a_hosts_deal_and_the_list_line_in_another_language(tmp_path: Path, lang: str) -> None:
    games = tmp_path
    ok("new", "o1", "--players", "red,blue", "--first", "red", "--games", games, "--deadline", "3d",
       "--reminder", "1d")
    said: list[str] = []
    entries, hashes = opening(games, "o1")
    game = replay(entries, hashes)
    said += [*text.board_lines(game, lang=lang), summarize(entries, hashes).line(lang)]
    ok("waive", "o1", "--player", "red", "--games", games)
    ok("waive", "o1", "--player", "blue", "--games", games)  # every seat waived: the host alone deals
    entries, hashes = opening(games, "o1")
    game = replay(entries, hashes)
    assert trust.host_alone(game)
    said += [*history_lines(entries, hashes, lang), *text.board_lines(game, lang=lang),
             *report_lines(game, entries[-1:], lang=lang), trust.audit_verdict(None, game, lang),
             summarize(entries, hashes).line(lang)]
    assert trust.audit_verdict(None, game).startswith("verdict: HOST'S DEAL.")
    ok("new", "o2", "--players", "red,blue", "--first", "red", "--games", games)
    ok("abandon", "o2", "--games", games)
    entries, hashes = opening(games, "o2")
    said += [*history_lines(entries, hashes, lang), summarize(entries, hashes).line(lang)]
    assert english(said) == [], said
    assert summarize(entries, hashes).line(lang) != summarize(entries, hashes).line()
    assert say(trust.TRUST, lang) != str(trust.TRUST)


@pytest.mark.parametrize("lang", OTHERS)
def test_the_winner_and_a_tie_break_in_another_language(lang: str) -> None:
    state = board(plague="gallia", players=TWO, cubes={"gallia": {"red": 3}, "anglia": {"green": 3}})
    state.phase = Phase.OVER  # red and green tie on 3 cubes: the tie-break names green (R6.5)
    assert text.result_lines(state) == [
        "winner: green with 3 cubes (the palace included, R6.5)",
        "tie-break: red, green tie on 3; green would have played soonest had the game gone on (R6.5)"]
    said = text.result_lines(state, lang)
    assert len(said) == 2 and english(said) == [] and all("green" in line and "R6.5" in line for line in said)
