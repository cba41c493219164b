"""Open games: strangers take a seat, leave it, or watch a game, each confirmed from their address.

A game made with ``pbem new --open N`` keeps N seats without an address (host.yaml's
``open_seats``); while any is empty the game waits for players: no move is taken, no
invitation mailed (:func:`pbem.host.games.apply_move`, :mod:`pbem.mail.invite`).  A mail
``join GAME`` (``leave``, ``watch``, ``unwatch``) changes nothing at once: the host holds
the wish under a one-time code of 16 base32 characters (80 random bits) in its private
files (``private/+lobby-pending.json``, mode 0600) and mails the code to the address the
mail came from, as it mails a key's code (:mod:`pbem.host.keyconfirm`).  Only a
``confirm CODE`` from that very address, within :data:`CODE_HOURS` hours, makes the
change, once.  So a forged From gets nothing: the code
goes to the real owner of the address, and a guessed code (one in 2**80) is refused.  When
the last open seat is taken, the game is full and the opening (P4) begins at once: the
mail host's invitations go out (:mod:`pbem.mail.invite`).
"""

from __future__ import annotations

import base64
import hmac
import json
import secrets
from enum import StrEnum
from pathlib import Path
from typing import Any

from pbem.errors import SenderError, StateError, UnknownError
from pbem.files import read_limited, write_atomic
from pbem.host.gamesets import open_folders
from pbem.host.index import settled
from pbem.host.private import PRIVATE_DIR
from pbem.host.settings import SETTINGS_NAME, Settings, load_settings, normal_address, save_settings
from pbem.i18n import Msg
from pbem.log.clock import now, seconds
from pbem.log.logfile import LOG_NAME, locked
from pbem.record import Record

PENDING_NAME = "+lobby-pending.json"  # '+' is in no player's name: no seat's private file
PENDING_LIMIT = 1024 * 1024
HELD_PER_KIND = 16  # wishes of one kind (join, leave, watch, unwatch) held a game at most; no more is held
CODE_HOURS = 24  # a code's life


class WishKind(StrEnum):
    """What a stranger or a player may ask of an open game by mail, each confirmed by a code."""

    JOIN = "join"  # take an open seat
    LEAVE = "leave"  # give a seat taken by mail up, before the opening (P4)
    WATCH = "watch"  # get a daily summary of the game's public reports
    UNWATCH = "unwatch"  # stop getting it


class Wish(Record):
    """A change asked by mail and held under a code: what, for which game and address, in
    which language the asker reads (the seat's, once seated)."""

    kind: WishKind
    game: str
    address: str
    lang: str
    code: str


def _file(path: Path) -> Path:
    return path / PRIVATE_DIR / PENDING_NAME


def _load(path: Path) -> dict[str, Any]:
    file = _file(path)
    if not file.is_file():
        return {}
    try:
        loaded = json.loads(read_limited(file, PENDING_LIMIT, Msg("held lobby codes")))
    except ValueError:
        loaded = None
    if not isinstance(loaded, dict):
        raise StateError(Msg("the host's held lobby codes ({file}) are damaged; delete the file (the players "
                             "then ask again); nothing was changed", file=str(file)), "P1")
    return loaded


def _save(path: Path, pending: dict[str, Any]) -> None:
    (path / PRIVATE_DIR).mkdir(mode=0o700, exist_ok=True)
    write_atomic(_file(path), json.dumps(pending, sort_keys=True, indent=1).encode())


def open_games(games: Path) -> list[tuple[Path, Settings]]:
    """Every game waiting for players: its folder and its settings, by name."""
    out = []
    found = open_folders(games)  # the host's index: the games with a seat open, where it is kept
    for child in (sorted(games.iterdir()) if found is None else found) if games.is_dir() else []:
        if (child / SETTINGS_NAME).is_file() and (child / LOG_NAME).is_file():
            settings = load_settings(child)
            if settings.waiting():
                out.append((child, settings))
    return out


def hold(path: Path, kind: WishKind, address: str, lang: str) -> Wish:
    """The wish checked as it would be confirmed now (a refusal at once, with nothing held),
    then held under a new code for ``address`` (one a kind and address: the latest).

    A held wish is kept until its code is used or expires, never dropped for a newer one: a
    flood of forged joins cannot push out a real stranger's.  A game holds at most
    :data:`HELD_PER_KIND` wishes of a kind; beyond that the newest is refused, with nothing held."""
    address = normal_address(address)
    check(path, kind, address)
    with locked(path):
        moment = seconds(now())
        pending = {c: w for c, w in _load(path).items() if moment <= int(w["until"])}  # expired codes go
        for old in [c for c, w in pending.items() if w["wish"] == kind and w["address"] == address]:
            del pending[old]
        if sum(1 for w in pending.values() if w["wish"] == kind) >= HELD_PER_KIND:
            raise StateError(Msg.plural(
                "game {game} already holds {n} '{word}' request awaiting its code, the most it holds at once; none "
                "is dropped for a newer one, so ask again in a few hours (a code lasts {hours} hours); nothing was "
                "changed",
                "game {game} already holds {n} '{word}' requests awaiting their codes, the most it holds at once; "
                "none is dropped for a newer one, so ask again in a few hours (a code lasts {hours} hours); nothing "
                "was changed", HELD_PER_KIND, game=path.name, word=kind, hours=CODE_HOURS), "P1")
        code = base64.b32encode(secrets.token_bytes(10)).decode("ascii")
        pending[code] = {"wish": kind, "address": address, "lang": lang, "until": moment + CODE_HOURS * 3600}
        _save(path, pending)
    return Wish(kind, path.name, address, lang, code)


def held(games: Path, code: str) -> Path | None:
    """The game folder whose lobby holds ``code``, if any does."""
    for child in sorted(games.iterdir()) if games.is_dir() else []:
        if _file(child).is_file() and any(hmac.compare_digest(c, code.upper()) for c in _load(child)):
            return child
    return None


def confirm(path: Path, code: str, sender: str) -> Wish:
    """The held wish made, for a mail from the address the code went to, within its time;
    the code is used up whatever the outcome (see the module)."""
    sender = normal_address(sender)
    with locked(path):
        pending = _load(path)
        found = next((c for c in pending if hmac.compare_digest(c, code.upper())), None)
        if found is None:
            raise UnknownError(Msg("no join, leave or watch awaits this code (a code is used once); nothing "
                                   "was changed"), "P1")
        wish = pending[found]
        if wish["address"] != sender:
            raise SenderError(Msg("a code is confirmed only from the address it was mailed to; this message "
                                  "comes from {sender}; nothing was changed", sender=sender), "P1")
        del pending[found]
        _save(path, pending)
        if seconds(now()) > int(wish["until"]):
            raise StateError(Msg.plural("this code has expired (a code lasts {n} hour); ask again; nothing was changed",
                                        "this code has expired (a code lasts {n} hours); ask again; nothing was "
                                        "changed", CODE_HOURS), "P1")
        done = Wish(WishKind(wish["wish"]), path.name, sender, wish["lang"], found)
        _make(path, done)
    return done


def check(path: Path, kind: WishKind, address: str) -> None:
    """Whether ``kind`` may be done for ``address`` now: the refusals of the lobby, each once."""
    settings = load_settings(path)
    seats = settings.players_of(address)
    if kind is WishKind.JOIN:
        if seats:
            raise StateError(Msg("{address} already holds seat {seat} of game {game}; nothing was changed",
                                 address=address, seat=seats[0], game=path.name), "P1")
        if not settings.waiting():
            raise StateError(Msg("game {game} has no open seat: every seat is taken; 'games' lists the open "
                                 "games; nothing was changed", game=path.name), "R2")
    elif kind is WishKind.LEAVE:
        if not seats or seats[0] not in settings.open_seats:
            raise UnknownError(Msg("{address} holds no seat of game {game} that was joined by mail; nothing "
                                   "was changed", address=address, game=path.name), "P1")
        if not settings.waiting():
            raise StateError(Msg("game {game} is full and its opening (P4) has begun: a seat is left only "
                                 "before that; from now on a player resigns (R8.4) instead; nothing was changed",
                                 game=path.name), "R8.4")
    elif kind is WishKind.WATCH and address in settings.watchers:
        raise StateError(Msg("{address} already watches game {game}; nothing was changed", address=address,
                             game=path.name), "P1")
    elif kind is WishKind.UNWATCH and address not in settings.watchers:
        raise UnknownError(Msg("{address} does not watch game {game}; nothing was changed", address=address,
                               game=path.name), "P1")


def _make(path: Path, wish: Wish) -> None:
    """Under the game's lock: the change itself, checked again (the game may have filled since)."""
    check(path, wish.kind, wish.address)
    settings = load_settings(path)
    if wish.kind is WishKind.JOIN:
        seat = settings.waiting()[0]
        settings.emails[seat] = wish.address
        if wish.lang != "en":
            settings.languages[seat] = wish.lang
    elif wish.kind is WishKind.LEAVE:
        for seat in settings.players_of(wish.address):
            del settings.emails[seat]
            settings.languages.pop(seat, None)
            settings.mail_modes.pop(seat, None)
    elif wish.kind is WishKind.WATCH:
        settings.watchers[wish.address] = wish.lang
    else:
        settings.watchers.pop(wish.address, None)
    save_settings(path, settings)
    settled(path)  # the host's index: the seats still open, the addresses
