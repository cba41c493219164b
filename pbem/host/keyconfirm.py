"""P8: a key registered by mail is confirmed from the seat's address (issue 18 item 4).

A nonce commitment that carries a ``key`` (``pbem sign --register``) would hand the seat
to whoever signed it: a From header is easy to forge, so a mail claiming to be blue's,
with another player's key, would make that player blue.  So such a commitment is never
recorded as it arrives.  The referee judges it first (a refused commitment is refused at
once, and nothing is held), then the host **holds** it in its private files
(``private/+keys-pending.json``, mode 0600, never in the public log) under a one-time
code of 16 base32 characters (80 random bits), and mails the code to the address it has
for that seat (``host.yaml``), not to the sender.  Only a mail from that address carrying
``confirm CODE`` (subject or text) records the held commitment with its key
(:func:`confirm`); the code is used once.  A commitment that registers no key is recorded
as it arrives, as before.  Outside mail, the host at the keyboard records one with
``pbem apply FILE --confirm-key`` (saying it confirmed the key with the seat's player),
and a key given at ``pbem new --key`` needs no confirmation.
"""

from __future__ import annotations

import base64
import hmac
import json
import re
import secrets
from pathlib import Path
from typing import Any, TypeGuard

from pbem.errors import SenderError, SignatureError, StateError, UnknownError
from pbem.files import read_limited, write_atomic
from pbem.host.games import apply_move, game_dir, load_game
from pbem.host.private import PRIVATE_DIR
from pbem.host.settings import SETTINGS_NAME, load_settings, normal_address
from pbem.host.step import Applied
from pbem.i18n import Msg, translator
from pbem.log.logfile import LOG_NAME, locked
from pbem.log.moves import Move, parse_move
from pbem.log.records import CommitMove
from pbem.record import Record
from pbem.referee.admit import judge

PENDING_NAME = "+keys-pending.json"  # '+' is in no player's name: no seat's private file
PENDING_LIMIT = 1024 * 1024
PER_SEAT = 4  # held commitments kept per seat: the oldest goes first
CODE_RE = re.compile(r"\bconfirm[ \t:]+([A-Za-z2-7]{16})\b", re.IGNORECASE)


class Held(Record):
    """A commitment held until its key is confirmed: the code went to ``to``, the seat's address."""

    game: str
    seat: str
    code: str
    to: str


def registers_key(move: Move) -> TypeGuard[CommitMove]:
    """P8: a nonce commitment that registers a key (the only move that can)."""
    return isinstance(move, CommitMove) and move.key is not None


def code_in(subject: str, body: str | None) -> str | None:
    """The one-time code of a ``confirm CODE`` line in a message's subject or text."""
    found = CODE_RE.search(subject) or CODE_RE.search(body or "")
    return found.group(1).upper() if found else None


def _pending_path(path: Path) -> Path:
    return path / PRIVATE_DIR / PENDING_NAME


def _load(path: Path) -> dict[str, Any]:
    file = _pending_path(path)
    if not file.is_file():
        return {}
    try:
        loaded = json.loads(read_limited(file, PENDING_LIMIT, Msg("held key commitments")))
    except ValueError:  # not JSON, or not UTF-8: the host's own file was damaged
        loaded = None
    if not isinstance(loaded, dict):
        raise StateError(Msg("the host's held key commitments ({file}) are damaged; nothing was "
                             "changed: restore the file from a backup, or delete it (the held "
                             "commitments are then sent again by their players)", file=str(file)), "P8")
    return loaded


def _save(path: Path, pending: dict[str, Any]) -> None:
    (path / PRIVATE_DIR).mkdir(mode=0o700, exist_ok=True)
    write_atomic(_pending_path(path), json.dumps(pending, sort_keys=True, indent=1).encode())


def hold(games: Path, move: CommitMove, sender: str) -> Held | Applied:
    """Judge a key-registering commitment and hold it under a new code (see the module);
    one that names the key already registered for its seat registers nothing new: applied."""
    path = game_dir(games, move.game)
    to = load_settings(path).emails.get(move.player)
    with locked(path):
        game = load_game(path)
        judge(game, move)  # the referee's verdict first: a refused commitment is not held
        known = game.keys.get(move.player) == move.key
        if not known and to is None:
            raise SignatureError(Msg(
                "the commitment registers a key for {player}, but this host has no address for "
                "{player} to confirm it from; the key comes with 'pbem new --key', or the host "
                "records it with 'pbem apply FILE --confirm-key'; nothing was changed", player=move.player), "P8",
            )
        code = "" if known else _hold(path, move, sender)
    return apply_move(games, move) if known or to is None else Held(move.game, move.player, code, to)


def _hold(path: Path, move: Move, sender: str) -> str:
    """Under the game's lock: keep the commitment under a new code (at most PER_SEAT a seat)."""
    pending = _load(path)
    mine = [c for c, held in pending.items() if held["seat"] == move.player]
    for old in mine[: max(0, len(mine) - PER_SEAT + 1)]:
        del pending[old]
    code = base64.b32encode(secrets.token_bytes(10)).decode("ascii")
    pending[code] = {"seat": move.player, "move": move.to_raw(), "from": sender}
    _save(path, pending)
    return code


def confirm(games: Path, code: str, sender: str) -> Applied:
    """Record the commitment held under ``code``, for a mail from its seat's address."""
    for path in sorted(games.iterdir()) if games.is_dir() else []:
        if not (path / LOG_NAME).is_file() or not _pending_path(path).is_file():
            continue
        pending = _load(path)
        found = next((c for c in pending if hmac.compare_digest(c, code)), None)
        if found is None:
            continue
        held = pending[found]
        seat = held["seat"]
        address = load_settings(path).emails.get(seat) if (path / SETTINGS_NAME).is_file() else None
        if address is None or normal_address(address) != normal_address(sender):
            raise SenderError(Msg(
                "a key is confirmed only from the address the code was mailed to, {seat}'s; this "
                "message comes from {sender}; nothing was changed", seat=seat, sender=sender), "P8",
            )
        move = parse_move(json.dumps(held["move"]).encode("utf-8"), "the held commitment")
        with locked(path):  # used once, whatever the verdict: a held commitment cannot become valid
            pending = _load(path)
            for other in [c for c, h in pending.items() if h["seat"] == seat]:
                del pending[other]
            _save(path, pending)
        return apply_move(games, move, key_confirmed=True)
    raise UnknownError(Msg(
        "no key awaits this code (each code is used once; a commitment sent again gets a new "
        "one); nothing was changed"), "P8",
    )


def confirm_text(held: Held, lang: str = "en") -> tuple[str, str]:
    """The subject and the text of the mail that carries the one-time code, in ``lang`` (the
    seat's): the ``confirm CODE`` line itself is the same in every language."""
    said = translator(lang)
    body = (
        said.say(Msg("Game {game}: a nonce commitment for seat {seat} arrived, and it registers a "
                     "key (P8): from then on every move of {seat} must be signed with that key.",
                     game=held.game, seat=held.seat)) + "\n\n"
        + said.say(Msg("It is recorded only once you confirm that you sent it: reply to this message with the line"))
        + f"\n\n    confirm {held.code}\n\n"
        + said.say(Msg("If you did not send it, do not reply: nothing is recorded, and no key is registered for "
                       "your seat.")) + "\n"
    )
    subject = said.say(Msg("pbem: confirm the key for seat {seat} in game {game}", seat=held.seat, game=held.game))
    return subject, body

