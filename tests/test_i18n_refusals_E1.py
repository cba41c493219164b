"""A tampered or malformed log, a refused waiver, a bad clock or duration are said
whole in each language (no English sentence left in hu, el, uk), and in English as before.

The refusals are made by real bad input: the example game's log edited as the attackers of
tests/test_tamper.py edit it, the clock and a duration given nonsense, a seat that is not in
the game."""

from __future__ import annotations

import copy
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from english import english_lines
from tampering import rechain

from pbem.errors import PbemError
from pbem.i18n import error_text
from pbem.log.clock import pinned
from pbem.log.logfile import log_records, parse_log, read_docs
from pbem.referee.admit import check_waive, parse_actions
from pbem.referee.deadlines import parse_duration
from pbem.referee.replay import replay
from pbem.referee.seatview import SeatView
from pbem.views.timeline import game_at

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "rattus-3p" / "log.yaml"
LANGS = ("hu", "el", "uk")
Entries = list[dict[str, Any]]


@pytest.fixture(scope="module")
def docs() -> Entries:
    loaded, _hashes = read_docs(EXAMPLE)
    return loaded


def refusal(make: Callable[[], object]) -> PbemError:
    with pytest.raises(PbemError) as caught:
        make()
    return caught.value


def verified(docs: Entries) -> None:
    """What `pbem verify` does with decoded entries: the chain, each entry's shape, the replay."""
    entries, hashes = parse_log(docs)
    replay(entries, hashes)


def edited(docs: Entries, edit: Callable[[Entries], object], chain: bool = True) -> Entries:
    out = copy.deepcopy(docs)
    edit(out)
    return rechain(out) if chain else out


def index_of(docs: Entries, kind: str) -> int:
    return next(i for i, e in enumerate(docs) if e["kind"] == kind)


def _set(path: tuple[Any, ...], value: Any, at: Callable[[Entries], int]) -> Callable[[Entries], None]:
    def edit(entries: Entries) -> None:
        target: Any = entries[at(entries)]
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value
    return edit


def tampered(docs: Entries) -> dict[str, Entries]:
    """One log per way of breaking it, each refused by a different sentence."""
    moves = [i for i, e in enumerate(docs) if e["kind"] == "move"]
    last = moves[-1]
    return {
        "seq moved": edited(docs, _set(("seq",), 99, lambda e: 3), chain=False),
        "prev broken": edited(docs, _set(("at",), "2026-11-30T00:00:00Z", lambda e: 2), chain=False),
        "bell in the text": edited(docs, _set(("at",), "2026\x07", lambda e: 2)),
        "unknown kind": edited(docs, _set(("kind",), "teleport", lambda e: 2)),
        "second create": edited(docs, _set(("kind",), "create", lambda e: 2)),
        "at too early": edited(docs, _set(("at",), "2000-01-01T00:00:00Z", lambda e: last)),
        "player changed": edited(docs, _set(("move", "player"), docs[last - 1]["player"]
                                            if docs[last - 1]["player"] != docs[last]["player"]
                                            else "nobody", lambda e: last)),
        "outcome changed": edited(docs, lambda e: e[last]["outcome"].reverse() if len(e[last]["outcome"]) > 1
                                  else e[last]["outcome"].append(e[last]["outcome"][0])),
        "secret changed": edited(docs, _set(("secret",), "0" * 64, lambda e: index_of(e, "reveal"))),
        "start dropped": edited(docs, lambda e: e.pop(index_of(e, "start"))),
        "second reveal": edited(docs, lambda e: e.append(copy.deepcopy(e[index_of(e, "reveal")]))),
    }


def test_a_tampered_log_is_refused_in_each_language_with_no_english(docs: Entries) -> None:
    said: set[str] = set()
    for how, log in tampered(docs).items():
        err = refusal(partial(verified, log))
        assert str(err).startswith("log does not verify ("), (how, str(err))
        said.add(err.message)
        assert error_text(err, "en") == str(err)
        for lang in LANGS:
            text = error_text(err, lang)
            assert text != str(err), (how, lang)
            assert english_lines(text) == [], (how, lang, text)
    assert len(said) == len(tampered(docs)), said  # each way of breaking the log is its own sentence


def test_an_empty_log_is_refused_in_each_language() -> None:
    err = refusal(lambda: log_records(b""))
    assert err.message == "the log is empty: it must start with the game's first entry"
    for lang in LANGS:
        assert english_lines(error_text(err, lang)) == [], (lang, error_text(err, lang))


def test_the_referees_and_the_clocks_refusals_are_said_in_each_language(docs: Entries) -> None:
    entries, hashes = parse_log(docs)
    game = replay(entries, hashes)
    seats = game.players
    errors = [
        refusal(lambda: pinned("yesterday").__enter__()),
        refusal(lambda: parse_duration("soon", "--deadline")),
        refusal(lambda: parse_duration("999d", "--deadline")),
        refusal(lambda: check_waive(game, "nobody")),
        refusal(lambda: check_waive(game, seats[0])),
        refusal(lambda: SeatView(game, "nobody")),
        refusal(lambda: parse_actions("take")),
        refusal(lambda: game_at(entries, hashes, len(entries) + 5)),
    ]
    english = [e.message for e in errors]
    assert english[0] == "--now 'yesterday' is not a time like 2026-11-30T09:15:00Z"
    assert english[1] == "--deadline 'soon': write a duration such as 72h, 3d, 1d12h or 90m"
    assert english[3] == f"'nobody' is not a player in game {game.game_id!r}"
    for err in errors:
        for lang in LANGS:
            text = error_text(err, lang)
            assert text != str(err), (lang, str(err))
            assert english_lines(text.replace("--now", "")) == [], (lang, text)  # an option's name stays
