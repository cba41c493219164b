"""P8: a key registered by mail is confirmed from the seat's address.

A nonce commitment that carries a ``key`` (``pbem sign --register``) would hand the seat
to whoever signed it: a From header is easy to forge, so a mail claiming to be blue's,
with another player's key, would make that player blue.  So such a commitment is never
recorded as it arrives.  The referee judges it first (a refused commitment is refused at
once, and nothing is held), then the host **holds** it in its private files
(``private/+keys-pending.json``, mode 0600, never in the public log) under a one-time
code of 16 base32 characters (80 random bits), and mails the code to the address it has
for that seat (``host.yaml``), not to the sender, naming the seat and the key (its
fingerprint, and the whole key) in the seat's language.  Only a mail from that address
carrying ``confirm CODE SIGNATURE`` (subject or text), the signature made **with the key
being registered** over ``pbem-rattus/v2 key confirmation CODE`` (``pbem confirm CODE
--key KEY`` writes the line), records the held commitment with its key (:func:`confirm`);
the code is used once.  So the code of a forged registration confirms nothing: its player
cannot sign with the forger's key, and a confirmation signed with another key drops it.
A commitment that registers no key is recorded as it arrives, as before.  Outside mail,
the host at the keyboard records one with ``pbem apply FILE --confirm-key`` (saying it
confirmed the key with the seat's player), and a key given at ``pbem new --key`` needs no
confirmation.
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
from pbem.fair.keys import confirm_message, fingerprint, verify
from pbem.files import read_limited, write_atomic
from pbem.host.games import apply_move, game_dir, load_game
from pbem.host.private import PRIVATE_DIR
from pbem.host.settings import SETTINGS_NAME, load_settings, normal_address
from pbem.host.step import Applied
from pbem.i18n import Msg, translator
from pbem.log.logfile import LOG_NAME, locked
from pbem.log.moves import parse_move
from pbem.log.records import CommitMove
from pbem.log.records.sent import MoveFile
from pbem.record import Record
from pbem.referee.admit import judge

PENDING_NAME = "+keys-pending.json"  # '+' is in no player's name: no seat's private file
PENDING_LIMIT = 1024 * 1024
PER_SEAT = 4  # held commitments kept per seat: the oldest goes first
CODE_RE = re.compile(r"\bconfirm[ \t:]+([A-Za-z2-7]{16})\b(?:\s+([A-Za-z0-9+/]{86}==)(?![A-Za-z0-9+/=]))?",
                     re.IGNORECASE)


class Held(Record):
    """A commitment held until its key is confirmed: the code went to ``to``, the seat's address;
    ``key`` is the key the commitment registers."""

    game: str
    seat: str
    code: str
    to: str
    key: str


class Confirmation(Record):
    """A ``confirm CODE SIGNATURE`` line: the one-time code, and the signature of
    :func:`pbem.fair.keys.confirm_message` by the key being registered (None: not signed)."""

    code: str
    signature: str | None


def registers_key(move: MoveFile) -> TypeGuard[CommitMove]:
    """P8: a nonce commitment that registers a key (the only move that can)."""
    return isinstance(move, CommitMove) and move.key is not None


def code_in(subject: str, body: str | None) -> Confirmation | None:
    """The ``confirm CODE SIGNATURE`` line of a message's subject or text (its signature may
    stand on the next line: a mail client breaks a long line at a space)."""
    found = CODE_RE.search(subject) or CODE_RE.search(body or "")
    return Confirmation(found.group(1).upper(), found.group(2)) if found else None


def _pending_path(path: Path, name: str = PENDING_NAME) -> Path:
    return path / PRIVATE_DIR / name


def _load(path: Path, name: str = PENDING_NAME) -> dict[str, Any]:
    file = _pending_path(path, name)
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


def _save(path: Path, pending: dict[str, Any], name: str = PENDING_NAME) -> None:
    (path / PRIVATE_DIR).mkdir(mode=0o700, exist_ok=True)
    write_atomic(_pending_path(path, name), json.dumps(pending, sort_keys=True, indent=1).encode())


# --- a keyed seat's settings, changed by mail only once confirmed -------------------------

SETTINGS_PENDING = "+settings-pending.json"  # a keyed seat's asked change, under a one-time code


def hold_setting(path: Path, seat: str, change: dict[str, str]) -> str:
    """P8: a change of a keyed seat's settings asked by mail (``{"language": "el"}``), held
    under a new one-time code that only the seat's address receives; one held a seat (the
    latest).  A forged From gets nothing changed: the code goes to the seat's own address."""
    with locked(path):
        pending = _load(path, SETTINGS_PENDING)
        for old in [c for c, held in pending.items() if held["seat"] == seat]:
            del pending[old]
        code = base64.b32encode(secrets.token_bytes(10)).decode("ascii")
        pending[code] = {"seat": seat, "change": change}
        _save(path, pending, SETTINGS_PENDING)
    return code


def take_setting(path: Path, seat: str, code: str, change: dict[str, str]) -> bool:
    """Whether ``code`` holds exactly this change for this seat; it is used up either way."""
    with locked(path):
        pending = _load(path, SETTINGS_PENDING)
        found = next((c for c in pending if hmac.compare_digest(c, code.upper())), None)
        if found is None or pending[found]["seat"] != seat:
            return False
        held = pending.pop(found)
        _save(path, pending, SETTINGS_PENDING)
    return bool(held["change"] == change)


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
    return apply_move(games, move) if known or to is None else Held(move.game, move.player, code, to,
                                                                     str(move.key))


def _hold(path: Path, move: MoveFile, sender: str) -> str:
    """Under the game's lock: keep the commitment under a new code (at most PER_SEAT a seat)."""
    pending = _load(path)
    mine = [c for c, held in pending.items() if held["seat"] == move.player]
    for old in mine[: max(0, len(mine) - PER_SEAT + 1)]:
        del pending[old]
    code = base64.b32encode(secrets.token_bytes(10)).decode("ascii")
    pending[code] = {"seat": move.player, "move": move.to_raw(), "from": sender}
    _save(path, pending)
    return code


def confirm(games: Path, found: Confirmation, sender: str) -> Applied:
    """Record the commitment held under the code, for a mail from its seat's address whose
    line is signed with the key the commitment registers (see the module)."""
    for path in sorted(games.iterdir()) if games.is_dir() else []:
        if not (path / LOG_NAME).is_file() or not _pending_path(path).is_file():
            continue
        pending = _load(path)
        code = next((c for c in pending if hmac.compare_digest(c, found.code)), None)
        if code is None:
            continue
        held = pending[code]
        seat = held["seat"]
        address = load_settings(path).emails.get(seat) if (path / SETTINGS_NAME).is_file() else None
        if address is None or normal_address(address) != normal_address(sender):
            raise SenderError(Msg(
                "a key is confirmed only from the address the code was mailed to, {seat}'s; this "
                "message comes from {sender}; nothing was changed", seat=seat, sender=sender), "P8",
            )
        _signed_by_the_key(path, code, held, found)
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


def _signed_by_the_key(path: Path, code: str, held: dict[str, Any], found: Confirmation) -> None:
    """P8: the confirmation is signed with the key the held commitment registers.  Unsigned,
    it is refused (the code stays); signed with another key, the held commitment is not the
    confirming player's: it is dropped, and nothing is recorded."""
    key = held["move"]["key"]
    if found.signature is None:
        raise SignatureError(Msg(
            "a key is confirmed with a line signed by that very key: run 'pbem confirm {code} --key "
            "YOUR.key' and send the line it writes; nothing was changed", code=code), "P8",
        )
    if verify(key, found.signature, confirm_message(code)):
        return
    with locked(path):
        pending = _load(path)
        pending.pop(code, None)
        _save(path, pending)
    raise SignatureError(Msg(
        "the code {code} holds a commitment for {seat} that registers the key {key}..., and this "
        "confirmation is not signed with that key: that commitment is not yours, and it was dropped; "
        "nothing was changed. Confirm your own with the code of the mail that names your key",
        code=code, seat=held["seat"], key=fingerprint(key)), "P8",
    )


def confirm_text(held: Held, lang: str = "en") -> tuple[str, str]:
    """The subject and the text of the mail that carries the one-time code, in ``lang`` (the
    seat's): the seat and the key it would hold, named, so that a player who gets two such
    mails sees which is theirs; the commands themselves are the same in every language."""
    said = translator(lang)
    body = (
        said.say(Msg("Game {game}: a nonce commitment for seat {seat} arrived, and it registers a "
                     "key (P8): from then on every move of {seat} must be signed with that key.",
                     game=held.game, seat=held.seat)) + "\n\n"
        + said.say(Msg("The key it registers, fingerprint {fingerprint}:", fingerprint=fingerprint(held.key)))
        + f"\n\n    {held.key}\n\n"
        + said.say(Msg("Compare it with your public key file (the .pub file 'pbem keygen' wrote). If it is "
                       "yours, confirm it with that key: the command below writes the line to send back, "
                       "and nothing is recorded until it arrives from your address, signed with this key."))
        + f"\n\n    pbem confirm {held.code} --key YOUR.key\n\n"
        + said.say(Msg("If it is not your key, or you did not send it, do not reply: nothing is recorded, and "
                       "no key is registered for your seat.")) + "\n"
    )
    subject = said.say(Msg("pbem: confirm the key {fingerprint} for seat {seat} in game {game}",
                           fingerprint=fingerprint(held.key), seat=held.seat, game=held.game))
    return subject, body
