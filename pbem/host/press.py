"""Press: the players' table talk by mail, kept in the game's folder in order.

``press.log`` in the game's folder (the host's own, mode 0600: it holds private press) is
only ever appended to, one JSON object a line: its number, the host's clock (``at``), the
sender seat, whom it is for (``all``, or the seats named), the text, and for press to seats
the address holding each named seat when it was sent (``holders``): private press is for that
person, and a seat's next holder never reads it (:mod:`pbem.mail.digest`).  Press to all is
public (the viewer page shows it, observers read it); press to seats is theirs and the
sender's alone.  Press in the name of a seat that holds a signing key (P8) is not kept as it
arrives: it is held (``private/+press-pending.json``) under a one-time code mailed to the
seat's own address, and kept only once ``confirm CODE`` comes back from there (:func:`hold`,
:func:`take`), as a keyed seat's language is (:mod:`pbem.host.keyconfirm`).  Press is no
move: it is not in the log, and no rule reads it.  The host
chose at ``pbem new --press`` whether there is press (``on``), press to all only
(``public``), or none (``off``).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
import secrets
import unicodedata
from collections.abc import Iterator
from pathlib import Path

from pbem.errors import FormatError, SenderError, StateError, UnknownError
from pbem.files import read_limited, sync_folder, write_atomic
from pbem.host.private import PRIVATE_DIR
from pbem.host.settings import SETTINGS_NAME, load_settings, normal_address
from pbem.i18n import Msg
from pbem.log.clock import now, seconds
from pbem.log.logfile import LOG_NAME, locked
from pbem.record import Record

PRESS_NAME = "press.log"
PRESS_LIMIT = 32 * 1024 * 1024
TEXT_LIMIT = 2000  # characters a message
PER_HOUR = 12  # press messages a seat may send in any hour
ALL = "all"
PENDING_NAME = "+press-pending.json"  # '+' is in no player's name: no seat's private file
HELD_PER_SEAT = 4  # press held for confirmation a seat at most: the oldest goes first
CODE_HOURS = 24  # a held press's code lasts this long


class Press(Record):
    """One message: its number (1, 2, ...), when the host took it, its sender seat, its
    readers (``("all",)``, or the seats named) and its text."""

    n: int
    at: str
    sender: str
    to: tuple[str, ...]
    text: str
    holders: tuple[tuple[str, str], ...]  # (seat, its address when sent), for press to seats
    signed: str  # a signed press's signature, hashed (P8: each is relayed once); "" if unsigned

    def holder(self, seat: str) -> str | None:
        """The address that held ``seat`` when this press was sent to it (None: none known)."""
        return next((address for named, address in self.holders if named == seat), None)

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
            holders = tuple((str(seat), str(address)) for seat, address in data.get("holders", {}).items())
            out.append(Press(int(data["n"]), str(data["at"]), str(data["from"]), tuple(data["to"]), str(data["text"]),
                             holders, str(data.get("signed", ""))))
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


def checked(path: Path, players: tuple[str, ...], sender: str, to: tuple[str, ...], text: str) -> str:
    """The press's text as kept, once checked against the host's press setting and the seats
    it names (a refusal otherwise, with nothing kept)."""
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
    return clean(text)


def add(path: Path, players: tuple[str, ...], sender: str, to: tuple[str, ...], text: str,
        signature: str | None = None) -> Press:
    """One message from the seat ``sender`` to ``to`` (``("all",)`` or seats), checked
    (:func:`checked`), then appended and synced under the game's lock, with the address
    holding each seat it names; a signed one (P8, its ``signature`` checked by the caller)
    once only."""
    body = checked(path, players, sender, to, text)
    signed = hashlib.sha256(signature.encode("ascii")).hexdigest()[:32] if signature else ""
    emails = load_settings(path).emails
    holders = () if to == (ALL,) else tuple((s, normal_address(emails[s])) for s in to if s in emails)
    with locked(path):
        known = read_press(path)
        moment = now()
        recent = [p for p in known if p.sender == sender and 0 <= seconds(moment) - seconds(p.at) < 3600]
        if len(recent) >= PER_HOUR:
            raise StateError(Msg.plural("{seat} has sent {n} press message in the last hour, the most a seat may; "
                                        "nothing was sent", "{seat} has sent {n} press messages in the last hour, "
                                        "the most a seat may; nothing was sent", PER_HOUR, seat=sender), "P1")
        again = next((p for p in known if signed and p.signed == signed), None)
        if again is not None:
            raise StateError(Msg("this signed press was relayed before (number {number} of game {game}): a "
                                 "signature is used once; nothing was sent", number=again.n, game=path.name), "P8")
        press = Press((known[-1].n if known else 0) + 1, moment, sender, to, body, holders, signed)
        _append(path, press)
    return press


def waiting(path: Path, seat: str, address: str, after: int) -> list[Press]:
    """The press to ``seat`` sent to ``address`` while it held the seat, after number ``after``."""
    return [p for p in read_press(path)
            if p.n > after and not p.public and seat in p.to and p.holder(seat) == normal_address(address)]


# --- press in a keyed seat's name, held until confirmed from the seat's address ---------------

def _pending(path: Path) -> dict[str, dict[str, object]]:
    file = path / PRIVATE_DIR / PENDING_NAME
    if not file.is_file():
        return {}
    try:
        loaded = json.loads(read_limited(file, PRESS_LIMIT, Msg("held press")))
    except ValueError:
        loaded = None
    if not isinstance(loaded, dict):
        raise StateError(Msg("the host's held press ({file}) is damaged; delete the file (its senders then send "
                             "again); nothing was changed", file=str(file)), "P8")
    return loaded


def _save(path: Path, pending: dict[str, dict[str, object]]) -> None:
    (path / PRIVATE_DIR).mkdir(mode=0o700, exist_ok=True)
    write_atomic(path / PRIVATE_DIR / PENDING_NAME, json.dumps(pending, sort_keys=True, indent=1).encode())


def hold(path: Path, players: tuple[str, ...], sender: str, to: tuple[str, ...], text: str) -> str:
    """P8: press in the name of the keyed seat ``sender``, checked as it would be kept, then
    held under a new one-time code (80 random bits) that only the seat's address is mailed;
    at most :data:`HELD_PER_SEAT` a seat (the oldest goes), each for :data:`CODE_HOURS` hours."""
    body = checked(path, players, sender, to, text)
    with locked(path):
        moment = seconds(now())
        pending = {c: h for c, h in _pending(path).items() if moment <= int(str(h["until"]))}
        mine = sorted((c for c, h in pending.items() if h["seat"] == sender),
                      key=lambda c: int(str(pending[c]["until"])))
        for old in mine[: max(0, len(mine) - HELD_PER_SEAT + 1)]:
            del pending[old]
        code = base64.b32encode(secrets.token_bytes(10)).decode("ascii")
        pending[code] = {"seat": sender, "to": list(to), "text": body, "until": moment + CODE_HOURS * 3600}
        _save(path, pending)
    return code


def held_in(games: Path, code: str) -> Path | None:
    """The game folder that holds press under ``code``, if any does."""
    for child in _games(games):
        if (child / PRIVATE_DIR / PENDING_NAME).is_file() and any(
                hmac.compare_digest(c, code.upper()) for c in _pending(child)):
            return child
    return None


def _games(games: Path) -> Iterator[Path]:
    for child in sorted(games.iterdir()) if games.is_dir() else []:
        if (child / LOG_NAME).is_file() and (child / SETTINGS_NAME).is_file():
            yield child


def take(path: Path, code: str, sender: str) -> tuple[str, tuple[str, ...], str]:
    """The press held under ``code`` (its seat, its readers, its text), for a mail from the
    address holding that seat, within the code's time; the code is used up either way."""
    with locked(path):
        pending = _pending(path)
        found = next((c for c in pending if hmac.compare_digest(c, code.upper())), None)
        if found is None:
            raise UnknownError(Msg("no press awaits this code (a code is used once); nothing was sent"), "P8")
        held = pending[found]
        seat = str(held["seat"])
        if normal_address(load_settings(path).emails.get(seat, "")) != normal_address(sender):
            raise SenderError(Msg("press in {seat}'s name is confirmed only from {seat}'s address, where its code "
                                  "was mailed; this message comes from {sender}; nothing was sent", seat=seat,
                                  sender=sender), "P8")
        del pending[found]
        _save(path, pending)
    if seconds(now()) > int(str(held["until"])):
        raise StateError(Msg.plural("this code has expired (a held press waits {n} hour); send the press again; "
                                    "nothing was sent",
                                    "this code has expired (a held press waits {n} hours); send the press again; "
                                    "nothing was sent", CODE_HOURS), "P8")
    to = held["to"]
    return seat, tuple(str(s) for s in to) if isinstance(to, list) else (), str(held["text"])


def _append(path: Path, press: Press) -> None:
    """One line appended and synced; a line the disk cut short is ended first, never read."""
    file = path / PRESS_NAME
    made = not file.exists()
    data: dict[str, object] = {"n": press.n, "at": press.at, "from": press.sender, "to": list(press.to),
                               "text": press.text}
    if press.holders:
        data["holders"] = dict(press.holders)
    if press.signed:
        data["signed"] = press.signed
    line = json.dumps(data, ensure_ascii=False, sort_keys=True)
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
