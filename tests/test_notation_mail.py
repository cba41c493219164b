"""A turn from any mail client, in the notation (R7.3, R7.5).

Each client shape a player's mail takes (plain text, a reply under the quoted report, a
``.txt`` attachment, CRLF, format=flowed, ISO-8859-2, hard-wrapped at 72 columns) is read as the same move; every
damaged paste (a wrapped line, a half-pasted turn, a cut word) is refused whole and
leaves every file as it was; and a whole 3-player game is played by mail with nothing
but the notation, the opening included."""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from clitools import ok, snapshot
from mailtools import attachment, to_of
from mailtools import plain as plain_text
from notationtools import ADDRESSES, SHAPES, Table, latin2, plain, quoted_reply, turn_lines

from pbem.fair.protocol import nonce_commitment
from pbem.host.games import load_game
from pbem.log.logfile import LOG_NAME
from pbem.log.notation_write import action_line
from pbem.rules import Phase, action_from_dict

NONCES = {p: bytes([i + 7]) * 32 for i, p in enumerate(ADDRESSES)}


@pytest.fixture(autouse=True)
def no_picture(monkeypatch: pytest.MonkeyPatch) -> None:
    """No picture and no page (tests/test_compose_mail.py plays from the pages): the words only."""
    monkeypatch.setattr("pbem.mail.replies.board_picture", lambda game, lang="en": None)
    monkeypatch.setattr("pbem.mail.replies.composer_page", lambda view, to, lang="en": (None, "not in this test"))


# --- the client shapes -------------------------------------------------------------------


def opened(tmp_path: Path) -> Table:
    """The opening by mail, in the notation: 'commit HEX', then 'nonce HEX' (P4); the
    commitment is what the composer page computes (here, Python's)."""
    t = Table(tmp_path)
    for player in ADDRESSES:
        out = t.send(player, plain(t, player, [f"commit {nonce_commitment(NONCES[player])}"]))
        assert "applied: game g" in out, out
    for player in ADDRESSES:
        out = t.send(player, quoted_reply(t, player, [f"nonce {NONCES[player].hex()}"]))
        assert "applied: game g" in out, out
    assert load_game(t.games / "g").started
    return t


@pytest.mark.parametrize("shape", SHAPES, ids=lambda f: f.__name__)
def test_each_client_shape_carries_the_same_move(tmp_path: Path, shape: Callable[..., Any]) -> None:
    t = opened(tmp_path)
    player, lines = turn_lines(t, random.Random(3))
    before = load_game(t.games / "g").last_seq
    out = t.send(player, shape(t, player, lines))
    assert "applied: game g" in out, out
    game = load_game(t.games / "g")
    recorded = game.entries[before + 1].raw["move"]
    assert [action_line(action_from_dict(a)) for a in recorded["actions"]] == lines
    if shape is latin2:
        assert recorded["comment"] == "Üdv, Ödön"


DAMAGED: dict[str, Callable[[list[str]], list[str]]] = {
    "a line wrapped in two": lambda lines: [*lines[:-1], lines[-1][:-3], lines[-1][-3:]],
    "a turn pasted in half": lambda lines: lines[: max(1, len(lines) // 2)] if len(lines) > 1 else ["take monk"],
    "a word cut": lambda lines: [*lines[:-1], lines[-1][:-2]],
    "prose right after the move": lambda lines: [*lines, "thanks and see you"],
}


@pytest.mark.parametrize("damage", sorted(DAMAGED))
def test_a_damaged_paste_is_refused_whole_and_files_stay(tmp_path: Path, damage: str) -> None:
    t = opened(tmp_path)
    rng = random.Random(5)
    while (game := load_game(t.games / "g")).state is not None and game.state.phase is Phase.SETUP:
        player, lines = turn_lines(t, rng)  # the setup's placements (R2.5), one line each
        assert "applied: game g" in t.send(player, plain(t, player, lines))
    player, lines = turn_lines(t, rng)  # a turn: at least the cubes and the plague (R3)
    assert len(lines) >= 2, lines
    before = snapshot(t.games)
    out = t.send(player, plain(t, player, DAMAGED[damage](lines)))
    assert "applied: game g" not in out and "refused" in out, out
    after = snapshot(t.games)
    changed = {k for k in set(before) | set(after) if before.get(k) != after.get(k)}
    assert all("mail" in k or "+" in k for k in changed), changed  # only the mail host's own books
    assert load_game(t.games / "g").last_seq == len(load_game(t.games / "g").entries) - 1
    refusal = [m for m in t.sent if to_of(m) == ADDRESSES[player]
               and "was not applied; nothing was changed" in plain_text(m)]
    assert refusal, "the sender was not told"


def test_a_whole_3_player_game_by_mail_in_the_notation_only(tmp_path: Path) -> None:
    """From the opening to the audit, every player only writes notation lines, in every
    client shape by turns; the game ends and audits fair."""
    t = opened(tmp_path)
    rng = random.Random(19)
    for turn in range(400):
        game = load_game(t.games / "g")
        if game.over:
            break
        player, lines = turn_lines(t, rng)
        out = t.send(player, SHAPES[turn % len(SHAPES)](t, player, lines))
        assert "applied: game g" in out, (turn, lines, out)
    game = load_game(t.games / "g")
    assert game.over and game.secret is not None  # the host's step revealed it at the end (P6)
    assert turn > 30, turn  # a whole game, not a short cut
    assert "verdict: FAIR" in ok("audit", t.games / "g" / LOG_NAME)
    last = [m for m in t.sent if attachment(m, "log.yaml") is not None]
    assert {to_of(m) for m in last} == set(ADDRESSES.values())  # the end reaches every player
