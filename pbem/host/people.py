"""Who the standings rate: the people who held the seats, under names that show no address.

A seat's name (red, green) is a colour, not a person: two open games of four strangers each
have a red.  The standings follow a seat's **holder** instead: the address host.yaml names for
the seat when the game ended, the one who played it to the end.  A holder who left an open
game before its start, or whom the host replaced (R8), is not rated for it; a seat resigned or
timed out (R8.4) is rated to the holder who let it go, as a result of their own.

A holder is shown as a **handle**, never as the address: six syllables drawn from the
HMAC-SHA256, under a key of the host's own, of the address as pbem compares addresses
(:func:`pbem.host.settings.normal_address`).  The key (``.pbem-people-key`` in the games
folder: 32 random bytes, mode 0600, made on first use, never through a link) keeps anyone
who knows an address from computing its handle; the same address has the same handle in
every game of the host, and a new key gives everyone new handles.

Only a fair game between people counts (:func:`counts`): over, its secret revealed and its
audit FAIR (so never a log that does not verify, nor a deal of the host's alone: every seat
waived or a bot, P4), not a test game (its secret was supplied, P7), no bot seat, and every
seat held by an address.  An abandoned opening has no places and never counts.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
from collections.abc import Iterable
from pathlib import Path

from pbem.errors import PbemError, StateError
from pbem.host.cards import AuditVerdict, Card
from pbem.host.settings import load_settings, normal_address
from pbem.i18n import Msg
from pbem.views.standings import Result

KEY_NAME = ".pbem-people-key"
_CONSONANTS = "bdfghjklmnprstvz"
_VOWELS = "aeiou"
NOT_RATED = ("TEST GAME", "BOT SEATS", "HOST'S DEAL")
"""A card's labels (the log's notices, as `pbem list` shows them) that keep a game out of the standings."""


def people_key(games: Path) -> bytes:
    """The host's key for handles, made on first use: the host's own 0600 file of 32 bytes."""
    path = games / KEY_NAME
    try:
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        except FileExistsError:
            pass
        else:
            try:
                os.write(fd, secrets.token_bytes(32))
                os.fsync(fd)
            finally:
                os.close(fd)
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
        try:
            st = os.fstat(fd)
            key = os.read(fd, 33)
        finally:
            os.close(fd)
    except OSError as err:
        key, why = b"", err.strerror or str(err)
    else:
        why = "" if st.st_uid == os.geteuid() and not st.st_mode & 0o077 else "not the host's own 0600 file"
    if why or len(key) != 32:
        raise StateError(Msg("the key of the players' names in the standings, {path}, cannot be used ({why}): it "
                             "must be the host's own file of 32 bytes, mode 0600; mend it, or remove it (a new key "
                             "gives every player a new name)", path=str(path), why=why or "not 32 bytes"), "P10")
    return key


def handle(key: bytes, address: str) -> str:
    """The address's handle: six syllables in three pairs (``kibo-fanu-redi``), about 38 bits."""
    number = int.from_bytes(hmac.new(key, normal_address(address).encode("utf-8"), hashlib.sha256).digest()[:8])
    syllables = []
    for _ in range(6):
        number, k = divmod(number, len(_CONSONANTS) * len(_VOWELS))
        syllables.append(_CONSONANTS[k // len(_VOWELS)] + _VOWELS[k % len(_VOWELS)])
    return "-".join("".join(syllables[k:k + 2]) for k in (0, 2, 4))


def counts(card: Card) -> bool:
    """Whether a game is a fair game between people (the module says which)."""
    return bool(card.places) and card.verdict == AuditVerdict.FAIR and not set(card.labels) & set(NOT_RATED)


def rated(games: Path, cards: Iterable[Card]) -> list[Result]:
    """The games that count, each with its holders' handles from first place to last."""
    return held(games, [(card.game_id, card.last_at, card.places) for card in cards if counts(card)])


def held(games: Path, counted: Iterable[tuple[str, str, tuple[str, ...]]]) -> list[Result]:
    """The results of games that count (each its id, when it ended and its seats from first place
    to last), with the handles of the seats' holders now (host.yaml): a game whose seats are not
    every one held by a person of their own rates nobody."""
    key: bytes | None = None
    found: list[Result] = []
    for game_id, ended_at, places in counted:
        try:
            holders = load_settings(games / game_id).emails
        except PbemError:  # settings the host must mend: nobody known to rate
            continue
        if not all(holders.get(seat) for seat in places):
            continue
        key = key or people_key(games)
        names = tuple(handle(key, holders[seat]) for seat in places)
        if len(set(names)) == len(names):  # one person in two seats is no game between people
            found.append(Result(game_id, ended_at, names))
    return found
