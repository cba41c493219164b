"""A mail client as a player sees it (mutt's defaults), and a player who reads only that.

:func:`shown` renders a mail as default mutt shows it in its pager: every part it can show
(any ``text/*`` part, attachment or not), each after its ``[-- Attachment #N --]`` lines,
and for any other part only those lines and mutt's "unsupported" note.  :func:`quoted`
is what mutt's Reply (``include = yes``) puts under the cursor: the shown text, each line
behind ``> ``.  :class:`MailPlayer` plays a seat from its mails alone: the log attached to
the public log (as the 'log' mail command sends it: a "your move" mail of the default mode
carries none, a person reads the template instead), a legal move for it,
and a reply written as a person would: the move typed above the quoted mail, the move
file attached, or the bare lines with no quote at all.
"""

from __future__ import annotations

import gzip
import mailbox
import random
from collections.abc import Callable
from email import message_from_bytes, policy
from email.message import EmailMessage
from email.utils import make_msgid, parseaddr
from pathlib import Path

from click.testing import CliRunner

from pbem.bots.randombot import bot_actions
from pbem.cli import main
from pbem.fair.protocol import nonce_commitment
from pbem.log.game import Game
from pbem.log.logfile import parse_log
from pbem.log.notation_write import action_line
from pbem.log.records import Played
from pbem.log.yamlio import load_stream
from pbem.referee.replay import replay
from pbem.rules.events import TokenLooked

HOST = "rattus@host.example"


def leaves(msg: EmailMessage) -> list[EmailMessage]:
    return [part for part in msg.walk() if not part.is_multipart()]


def shown(msg: EmailMessage) -> str:
    """The mail as mutt's pager shows it (see the module)."""
    out: list[str] = []
    for number, part in enumerate(leaves(msg), 1):
        kind = part.get_content_type()
        size = len(part.get_payload(decode=True) or b"")
        if number > 1:
            name = part.get_filename() or ""
            out += [f"[-- Attachment #{number}{': ' + name if name else ''} --]",
                    f"[-- Type: {kind}, Encoding: {part.get('Content-Transfer-Encoding', '7bit')}, "
                    f"Size: {max(1, size // 1024)}K --]", ""]
        if part.get_content_maintype() == "text":
            out += part.get_content().rstrip("\n").split("\n")
        else:
            out.append(f"[-- {kind} is unsupported (use 'v' to view this part) --]")
        out.append("")
    return "\n".join(out)


def quoted(msg: EmailMessage) -> list[str]:
    """What mutt's Reply (``include = yes``, ``include_onlyfirst = no``) quotes of ``msg``: its
    attribution line, then every ``text/*`` part it can show, attachment or not, each line
    behind ``> `` (the pager's ``[-- Attachment --]`` lines are not part of a reply)."""
    lines = [line for part in leaves(msg) if part.get_content_maintype() == "text"
             for line in part.get_content().rstrip("\n").split("\n")]
    return ["On Thu, Dec 03, 2026, the host wrote:", *(f"> {line}".rstrip() for line in lines)]


def log_of(msg: EmailMessage) -> bytes | None:
    for part in leaves(msg):
        if (part.get_filename() or "").endswith("log.yaml.gz"):
            data = part.get_payload(decode=True)
            return gzip.decompress(data) if isinstance(data, bytes) else None
    return None


def read_game(log: bytes) -> Game:
    return replay(*parse_log(load_stream(log.decode(), "log")))


def reply(msg: EmailMessage, sender: str, lines: list[str], how: str) -> bytes:
    """A reply to the host's ``msg``: ``quote`` (the lines above mutt's quote), ``bare`` (the
    lines alone, no quote), ``file`` (a move file attached, the text saying so)."""
    out = EmailMessage()
    out["From"], out["To"] = sender, HOST
    out["Subject"] = "Re: " + str(msg["Subject"])
    out["Message-ID"] = make_msgid(domain=sender.split("@")[1])
    out["In-Reply-To"] = str(msg["Message-ID"])
    out["References"] = " ".join([*str(msg["References"] or "").split(), str(msg["Message-ID"])])  # as mutt does
    if how == "file":
        out.set_content("My move is attached.\n")
        out.add_attachment(("\n".join(lines) + "\n").encode(), maintype="text", subtype="plain", filename="move.txt")
    elif how == "quote":
        out.set_content("\n".join([*lines, "", *quoted(msg)]) + "\n")
    else:
        out.set_content("\n".join(lines) + "\n")
    return bytes(out)


class MailPlayer:
    """One seat played from its own mails only (see the module)."""

    def __init__(self, seat: str, address: str, seed: int, public: Callable[[EmailMessage], bytes]) -> None:
        self.seat, self.address, self.public = seat, address, public
        self.rng = random.Random(seed)
        self.got: list[EmailMessage] = []

    def move_lines(self, msg: EmailMessage) -> list[str]:
        """A legal rest of its turn (the random bot's), from the public game: the log the mail
        carries (``every`` mode), else the public log as the 'log' mail command would send it."""
        game = read_game(log_of(msg) or self.public(msg))
        assert game.state is not None and game.state.to_move == self.seat, (self.seat, msg["Subject"])
        return [action_line(a) for a in bot_actions(game.state, self.rng)]


def asks(msg: EmailMessage) -> str | None:
    """What the host's mail asks its reader to send (English subjects): a move, a round, or nothing."""
    subject = str(msg["Subject"])
    for word in ("your move", "round 1 of 2", "round 2 of 2"):  # a refusal's "Re: ..." asks too
        if word in subject[:SHOWN]:
            return word
    return None


SHOWN = 40  # the characters of a subject an inbox list or a phone shows


class MailTable:
    """One game by mail through ``pbem mail`` (a Maildir in, a Maildir out), its seats played
    by :class:`MailPlayer` from their own mails alone; every mail the host sends is kept."""

    def __init__(self, folder: Path, seats: dict[str, str], mode: str = "turn", seed: int = 1,
                 langs: dict[str, str] | None = None, options: tuple[str, ...] = (),
                 secret: bytes | None = None) -> None:
        self.games, self.inbox, self.outbox = folder / "games", folder / "inbox", folder / "outbox"
        mailbox.Maildir(str(self.inbox), create=True)
        self.logs: dict[str, bytes] = {}  # each mail's public log as it stood when it was sent
        self.players = {s: MailPlayer(s, a, seed * 100 + i, lambda msg: self.logs[str(msg["Message-ID"])])
                        for i, (s, a) in enumerate(seats.items())}
        self.nonces = {s: bytes([i + 1]) * 32 for i, s in enumerate(seats)}
        self.sent: list[tuple[str, EmailMessage, bool]] = []  # (seat, mail, sent once the game had started)
        self.styles = {s: 0 for s in seats}
        self.langs = dict(langs or {})
        self.others: list[EmailMessage] = []  # mails to an address no seat holds (an observer's, a stranger's)
        first = next(iter(seats))
        supplied: list[str | Path] = []  # a supplied secret: the same deal every run (a test game, P7)
        if secret is not None:
            (folder / "secret.hex").write_text(secret.hex())
            supplied = ["--secret-file", folder / "secret.hex"]
        pbem("new", "g", "--players", ",".join(seats), "--first", first, "--games", self.games, "--mail", mode,
             *supplied,
             *(f"--seat-email={s}={a}" for s, a in seats.items()),
             *(f"--seat-lang={s}={lang}" for s, lang in (langs or {}).items()), *options)

    def through_the_opening(self) -> MailTable:
        """The opening played by mail (P4): each seat the opening awaits answers its round's mail
        with a quoting Reply, until the game has started and the first 'your move' is out."""
        new = self.run()
        for _ in range(4):
            answered: set[str] = set()
            for seat, msg in new:  # any language; a summary is no round's mail
                if seat in self.game().awaited and seat not in answered and "summary" not in str(msg["Subject"]):
                    self.answer(seat, msg, "quote")
                    answered.add(seat)
            new = self.run()
            if self.game().started:
                return self
        raise AssertionError("the opening by mail did not start the game")

    def run(self, *extra: str) -> list[tuple[str, EmailMessage]]:
        """One ``pbem mail`` run (``extra``: its options, e.g. ``--now``); the mails it sent, each to its seat."""
        pbem("mail", "--inbox", self.inbox, "--outbox", self.outbox, "--games", self.games, "--from", HOST, *extra)
        started = self.game().started
        log = (self.games / "g" / "log.yaml").read_bytes()
        box = mailbox.Maildir(str(self.outbox))
        seat_of = {p.address: s for s, p in self.players.items()}
        new = []
        for key in sorted(box.iterkeys()):
            msg = message_from_bytes(box.get_bytes(key), policy=policy.default)
            assert isinstance(msg, EmailMessage)
            seat = seat_of.get(parseaddr(str(msg["To"]))[1])
            if seat is None:
                self.others.append(msg)
                continue
            self.players[seat].got.append(msg)
            self.logs[str(msg["Message-ID"])] = log
            self.sent.append((seat, msg, started))
            new.append((seat, msg))
        box.clear()
        return new

    def game(self) -> Game:
        return read_game((self.games / "g" / "log.yaml").read_bytes())

    def answer(self, seat: str, msg: EmailMessage, how: str | None = None) -> None:
        """The seat's reply to the host's ``msg``, as its player writes it (the styles in turn)."""
        player, game = self.players[seat], self.game()
        wants = asks(msg) or ("move" if game.state is not None else  # a subject in another language
                              "round 1 of 2" if game.opening.value == "commit" else "round 2 of 2")
        if wants == "round 1 of 2":
            lines = [f"commit {nonce_commitment(self.nonces[seat])}"]
        elif wants == "round 2 of 2":
            lines = [f"nonce {self.nonces[seat].hex()}"]
        else:
            lines = player.move_lines(msg)
        if how is None:
            how = STYLES[self.styles[seat] % len(STYLES)]
            self.styles[seat] += 1
        mailbox.Maildir(str(self.inbox)).add(reply(msg, player.address, lines, how))

    def play(self, limit: int = 2000, new: list[tuple[str, EmailMessage]] | None = None) -> None:
        """The whole game: each seat answers every mail that asks it for something (``new``: those
        of runs already made), until none does."""
        new = self.run() if new is None else new
        for _ in range(limit):
            asked = [(seat, msg) for seat, msg in new if asks(msg) is not None]
            if not asked:
                return
            for seat, msg in asked:
                self.answer(seat, msg)
            new = self.run()
        raise AssertionError("the game by mail did not end")


STYLES = ("quote", "bare", "file")


def own_turns(game: Game, seat: str) -> int:
    """The seat's parts of the game: each move of its own but those that go on after its Witch's
    look (R5.6, R7.5: a look ends a move file, and the same turn goes on in the next)."""
    turns, looked = 0, False
    for entry in game.entries:
        if isinstance(entry, Played) and entry.player == seat and not looked:
            turns += 1
        looked = isinstance(entry, Played) and entry.player == seat and any(
            isinstance(e, TokenLooked) for e in entry.events())
    return turns


def looks(game: Game, seat: str) -> int:
    """The seat's moves that end with its Witch's look: each asks for one mail more."""
    return sum(1 for e in game.entries if isinstance(e, Played) and e.player == seat
               and any(isinstance(x, TokenLooked) for x in e.events()))


def pbem(*args: str | Path) -> str:
    result = CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output
