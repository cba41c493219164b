"""Press: the players' table talk by mail, kept in the game's folder in order.

``press.log`` in the game's folder (the host's own, mode 0600: it holds private press) is
only ever appended to, one JSON object a line: its number, the host's clock (``at``), the
sender seat, whom it is for (``all``, or the seats named) and the text.  Press to all is
public (the viewer page shows it, observers read it); press to seats is theirs and the
sender's alone.  Press is no move: it is not in the log, and no rule reads it.  The host
chose at ``pbem new --press`` whether there is press (``on``), press to all only
(``public``), or none (``off``).
"""

from __future__ import annotations

import json
import os
import unicodedata
from pathlib import Path

from pbem.errors import FormatError, StateError, UnknownError
from pbem.files import read_limited, sync_folder
from pbem.host.settings import load_settings
from pbem.i18n import Msg
from pbem.log.clock import now, seconds
from pbem.log.logfile import locked
from pbem.record import Record

PRESS_NAME = "press.log"
PRESS_LIMIT = 32 * 1024 * 1024
TEXT_LIMIT = 2000  # characters a message
PER_HOUR = 12  # press messages a seat may send in any hour
ALL = "all"


class Press(Record):
    """One message: its number (1, 2, ...), when the host took it, its sender seat, its
    readers (``("all",)``, or the seats named) and its text."""

    n: int
    at: str
    sender: str
    to: tuple[str, ...]
    text: str

    @property
    def public(self) -> bool:
        return self.to == (ALL,)

    def for_seat(self, seat: str) -> bool:
        """Whether ``seat`` may read it: press to all, to the seat, or the seat's own."""
        return self.public or seat in self.to or seat == self.sender


def read_press(path: Path) -> list[Press]:
    """Every message of the game, in order (a last line cut short is not read)."""
    file = path / PRESS_NAME
    if not file.is_file():
        return []
    out = []
    for line in read_limited(file, PRESS_LIMIT, Msg("the press")).decode("utf-8", "replace").split("\n")[:-1]:
        try:
            data = json.loads(line)
            out.append(Press(int(data["n"]), str(data["at"]), str(data["from"]), tuple(data["to"]), str(data["text"])))
        except (ValueError, KeyError, TypeError):
            continue  # a line the disk cut short, ended by the next append
    return out


def public_press(path: Path) -> list[Press]:
    """The press every reader may see: to all."""
    return [p for p in read_press(path) if p.public]


def clean(text: str) -> str:
    """The message as kept: printable text and line breaks, no trailing blanks, at most
    :data:`TEXT_LIMIT` characters (else refused)."""
    lines = ["".join(ch for ch in line if ch == "\t" or unicodedata.category(ch)[0] != "C").rstrip()
             for line in text.replace("\r\n", "\n").split("\n")]
    out = "\n".join(lines).strip("\n")
    if not out.strip():
        raise FormatError(Msg("the press has no text: the message's text is what is relayed; nothing was sent"),
                          "P2")
    if len(out) > TEXT_LIMIT:
        raise FormatError(Msg.plural("the press is {n} character long, and a message may be {limit} at most; "
                                     "nothing was sent", "the press is {n} characters long, and a message may be "
                                     "{limit} at most; nothing was sent", len(out), limit=TEXT_LIMIT), "P2")
    return out


def add(path: Path, players: tuple[str, ...], sender: str, to: tuple[str, ...], text: str) -> Press:
    """One message from the seat ``sender`` to ``to`` (``("all",)`` or seats), checked against
    the host's press setting, then appended and synced under the game's lock."""
    mode = load_settings(path).press
    if mode == "off":
        raise StateError(Msg("the host turned press off in game {game}: no message is relayed; nothing was "
                             "sent", game=path.name), "P1")
    if to != (ALL,):
        if mode == "public":
            raise StateError(Msg("press in game {game} is public only: send 'press all'; nothing was sent",
                                 game=path.name), "P1")
        strangers = [seat for seat in to if seat not in players or seat == sender]
        if strangers:
            raise UnknownError(Msg("press {seats}: {seat} is not another seat of game {game} ({players}); "
                                   "nothing was sent", seats=",".join(to), seat=strangers[0], game=path.name,
                                   players=", ".join(players)), "P1")
    body = clean(text)
    with locked(path):
        known = read_press(path)
        moment = now()
        recent = [p for p in known if p.sender == sender and 0 <= seconds(moment) - seconds(p.at) < 3600]
        if len(recent) >= PER_HOUR:
            raise StateError(Msg.plural("{seat} has sent {n} press message in the last hour, the most a seat may; "
                                        "nothing was sent", "{seat} has sent {n} press messages in the last hour, "
                                        "the most a seat may; nothing was sent", PER_HOUR, seat=sender), "P1")
        press = Press((known[-1].n if known else 0) + 1, moment, sender, to, body)
        _append(path, press)
    return press


def _append(path: Path, press: Press) -> None:
    """One line appended and synced; a line the disk cut short is ended first, never read."""
    file = path / PRESS_NAME
    made = not file.exists()
    line = json.dumps({"n": press.n, "at": press.at, "from": press.sender, "to": list(press.to),
                       "text": press.text}, ensure_ascii=False, sort_keys=True)
    fd = os.open(file, os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW, 0o600)
    try:
        os.fchmod(fd, 0o600)
        size = os.fstat(fd).st_size
        cut = size > 0 and os.pread(fd, 1, size - 1) != b"\n"
        os.write(fd, (b"\n" if cut else b"") + line.encode("utf-8") + b"\n")
        os.fsync(fd)
    finally:
        os.close(fd)
    if made:
        sync_folder(path)
