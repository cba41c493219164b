"""Issue 19: a turn from any mail client, in the notation (R7.3, R7.5).

Each client shape a player's mail takes (plain text, a reply under the quoted report, a
``.txt`` attachment, CRLF, format=flowed, ISO-8859-2, hard-wrapped at 72 columns) is read as the same move; every
damaged paste (a wrapped line, a half-pasted turn, a cut word) is refused whole and
leaves every file as it was; and a whole 3-player game is played by mail with nothing
but the notation, the opening included."""

from __future__ import annotations

import mailbox
import random
import textwrap
from collections.abc import Callable
from email.message import EmailMessage
from email.utils import make_msgid
from pathlib import Path
from typing import Any

import pytest
from clitools import ok, snapshot
from test_mail import HOST, attachment, replies, to_of

from pbem.bots.randombot import bot_actions
from pbem.fair.protocol import nonce_commitment
from pbem.host.games import load_game
from pbem.log.logfile import LOG_NAME
from pbem.log.notation import action_line
from pbem.rules import Phase

ADDRESSES = {"red": "red@example.org", "green": "green@example.net", "blue": "blue@example.com"}
NONCES = {p: bytes([i + 7]) * 32 for i, p in enumerate(ADDRESSES)}


@pytest.fixture(autouse=True)
def no_picture(monkeypatch: pytest.MonkeyPatch) -> None:
    """No picture and no page (tests/test_compose_mail.py plays from the pages): the words only."""
    monkeypatch.setattr("pbem.mail.replies.board_picture", lambda game, lang="en": None)
    monkeypatch.setattr("pbem.mail.replies.composer_page", lambda view, to, lang="en": (None, "not in this test"))


class Table:
    """A 3-player game hosted by mail; each player only reads the host's mails and writes
    notation lines (no YAML, no pbem on their side)."""

    def __init__(self, tmp: Path) -> None:
        self.games, self.inbox, self.outbox = tmp / "games", tmp / "inbox", tmp / "outbox"
        mailbox.Maildir(str(self.inbox), create=True)
        self.latest: dict[str, EmailMessage] = {}  # the newest mail with a template, per player
        args: list[str | Path] = ["new", "g", "--players", ",".join(ADDRESSES), "--first", "red",
                                  "--games", self.games, "--mail", "every"]
        ok(*args, *(f"--email={p}={a}" for p, a in ADDRESSES.items()))
        self.run()

    def run(self) -> str:
        out = ok("mail", "--inbox", self.inbox, "--outbox", self.outbox, "--games", self.games, "--from", HOST)
        self.sent = replies(self.outbox)  # this run's mails; read once, then the outbox is emptied
        mailbox.Maildir(str(self.outbox)).clear()
        for msg in self.sent:
            player = next(p for p, a in ADDRESSES.items() if a == to_of(msg))
            if attachment(msg, f"-{player}.txt") is not None:
                self.latest[player] = msg
        return out

    def last_mail_to(self, player: str) -> EmailMessage:
        assert player in self.latest, f"no template mailed to {player}"
        return self.latest[player]

    def send(self, player: str, message: EmailMessage | bytes) -> str:
        data = message if isinstance(message, bytes) else bytes(message)
        mailbox.Maildir(str(self.inbox)).add(data)
        return self.run()


def message(player: str, body: str, charset: str = "utf-8") -> EmailMessage:
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = ADDRESSES[player], HOST, "Re: [pbem g] your move"
    msg["Message-ID"] = make_msgid(domain="example.org")
    msg.set_content(body, charset=charset)
    return msg


def template_of(msg: EmailMessage, player: str) -> str:
    data = attachment(msg, f"-{player}.txt")
    assert data is not None
    return data.decode()


def header(template: str) -> list[str]:
    return [line for line in template.splitlines() if line.startswith(("game ", "after "))]


# --- the client shapes -------------------------------------------------------------------

def plain(t: Table, player: str, lines: list[str]) -> EmailMessage:
    return message(player, "Hi,\n\n" + "\n".join(header(template_of(t.last_mail_to(player), player)) + lines)
                   + "\n\nCheers\n-- \nsent from my phone\n")


def quoted_reply(t: Table, player: str, lines: list[str]) -> EmailMessage:
    """Only the actions, written above the quoted report: the header comes from the quote."""
    report = t.last_mail_to(player).get_body(("plain",))
    assert isinstance(report, EmailMessage)
    quoted = "\n".join("> " + line if line else ">" for line in report.get_content().splitlines())
    return message(player, "\n".join(lines) + "\n\nOn Tue, 1 Dec 2026, the host wrote:\n" + quoted + "\n")


def txt_attachment(t: Table, player: str, lines: list[str]) -> EmailMessage:
    msg = message(player, "My turn is attached.\n")
    text = template_of(t.last_mail_to(player), player) + "\n".join(lines) + "\n"
    msg.add_attachment(text.encode(), maintype="text", subtype="plain", filename="turn.txt")
    return msg


def crlf(t: Table, player: str, lines: list[str]) -> bytes:
    return bytes(plain(t, player, lines)).replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")


def flowed(t: Table, player: str, lines: list[str]) -> EmailMessage:
    long = ("Here is my turn; I thought about the Monk for a long time but the plague in the "
            "east worries me more than anything else this week.")
    body = long[:60] + " \n" + long[60:] + "\n\n" + "\n".join(header(template_of(t.last_mail_to(player), player))
                                                               + lines) + "\n"
    msg = message(player, body)
    msg.set_param("format", "flowed")
    return msg


def latin2(t: Table, player: str, lines: list[str]) -> EmailMessage:
    body = "\n".join(header(template_of(t.last_mail_to(player), player)) + lines + ["note Üdv, Ödön"]) + "\n"
    return message(player, body, charset="iso-8859-2")


def wrapped72(t: Table, player: str, lines: list[str]) -> EmailMessage:
    """A client that hard-wraps every line at 72 columns, the quoted report's too (each piece
    quoted again): the prose and the report break, the move's short lines do not."""
    report = t.last_mail_to(player).get_body(("plain",))
    assert isinstance(report, EmailMessage)
    quoted = [piece for line in report.get_content().splitlines()
              for piece in (textwrap.wrap(line, 70) or [""])]
    prose = ("Here is my turn. I thought about the Monk for a long time, but the plague in the east "
             "worries me more than anything else this week, so the cubes go west.")
    body = (textwrap.fill(prose, 72) + "\n\n" + "\n".join(lines) + "\n\nOn Tue, 1 Dec 2026, the host wrote:\n"
            + "\n".join("> " + q if q else ">" for q in quoted) + "\n")
    assert max(map(len, body.splitlines())) <= 72
    return message(player, body)


SHAPES: list[Callable[[Table, str, list[str]], EmailMessage | bytes]] = [
    plain, quoted_reply, txt_attachment, crlf, flowed, latin2, wrapped72,
]


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


def turn_lines(t: Table, rng: random.Random) -> tuple[str, list[str]]:
    game = load_game(t.games / "g")
    assert game.state is not None and game.state.to_move is not None
    return game.state.to_move, [action_line(a.to_dict()) for a in bot_actions(game.state, rng)]


@pytest.mark.parametrize("shape", SHAPES, ids=lambda f: f.__name__)
def test_issue19_each_client_shape_carries_the_same_move(tmp_path: Path, shape: Callable[..., Any]) -> None:
    t = opened(tmp_path)
    player, lines = turn_lines(t, random.Random(3))
    before = load_game(t.games / "g").last_seq
    out = t.send(player, shape(t, player, lines))
    assert "applied: game g" in out, out
    game = load_game(t.games / "g")
    recorded = game.entries[before + 1].raw["move"]
    assert [action_line(a) for a in recorded["actions"]] == lines
    if shape is latin2:
        assert recorded["comment"] == "Üdv, Ödön"


DAMAGED: dict[str, Callable[[list[str]], list[str]]] = {
    "a line wrapped in two": lambda lines: [*lines[:-1], lines[-1][:-3], lines[-1][-3:]],
    "a turn pasted in half": lambda lines: lines[: max(1, len(lines) // 2)] if len(lines) > 1 else ["take monk"],
    "a word cut": lambda lines: [*lines[:-1], lines[-1][:-2]],
    "prose right after the move": lambda lines: [*lines, "thanks and see you"],
}


@pytest.mark.parametrize("damage", sorted(DAMAGED))
def test_issue19_a_damaged_paste_is_refused_whole_and_files_stay(tmp_path: Path, damage: str) -> None:
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
               and "was not applied; nothing was changed" in m.get_body(("plain",)).get_content()]  # type: ignore[union-attr]
    assert refusal, "the sender was not told"


def test_issue19_a_whole_3_player_game_by_mail_in_the_notation_only(tmp_path: Path) -> None:
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
