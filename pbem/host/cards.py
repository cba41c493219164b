"""One game's public card: what the site and the standings need of it, from its public log alone.

A card says where the game stands (`pbem list`'s status, who it waits for and since when),
and, once it is over, its places (for the standings) and the audit's verdict (P6, as `pbem
audit` says it: FAIR, HOST'S DEAL, NOT YET, REFUSED).  It is made from the log's bytes and
nothing else: no secret before its reveal, no private file, no address (P10), so two games
whose logs are the same byte for byte have the same card whatever their hidden faces.

``card.cache`` beside the log keeps the card, sealed by the host (:mod:`pbem.host.caches`)
with the size and SHA-256 of the log bytes and the language it was said in; a card whose log
has changed, or that fails the seal, is made again from the log.
"""

from __future__ import annotations

import hashlib
import json
from enum import StrEnum
from pathlib import Path
from typing import Any

from pbem.errors import PbemError, StateError
from pbem.files import read_limited
from pbem.host.caches import read_sealed, write_sealed
from pbem.i18n import Msg, error_text
from pbem.log.logfile import LOG_NAME, log_records
from pbem.log.yamlio import LOG_LIMIT
from pbem.record import Record
from pbem.referee.audit import audit
from pbem.views.standings import places
from pbem.views.timeline import GameStatus, checked, summarize
from pbem.views.trust import audit_verdict, host_alone

CARD_NAME = "card.cache"
CARD_LIMIT = 64 * 1024


class AuditVerdict(StrEnum):
    """The audit's verdict on a game (P6), as `pbem audit` says it; NONE while it is in play."""

    NONE = "none"
    FAIR = "fair"
    HOST = "host"  # HOST'S DEAL: no player's nonce is in the seed (P4)
    NOT_YET = "not-yet"  # over, the secret not revealed yet
    REFUSED = "refused"  # the log does not verify


class Card(Record):
    """One game, as the public may see it."""

    game_id: str
    status: str  # a GameStatus, or "" for a log that cannot even be read
    players: tuple[str, ...]
    waiting: tuple[str, ...]  # the seats the game waits for
    since_at: str  # since when it waits as it waits now
    last_seq: int
    last_at: str
    labels: tuple[str, ...]  # TEST GAME, BOT SEATS, HOST'S DEAL, CUSTOM GAME (`pbem list`'s marks)
    verdict: str  # an AuditVerdict
    verdict_line: str  # its sentence, in the card's language
    reason: str  # why it does not verify, in the card's language ("" when it does)
    places: tuple[str, ...]  # first place to last, once over
    scores: tuple[int, ...]  # the cubes on the board of each of places (R6.5), in the same order


def card_of(folder: Path, lang: str = "en") -> Card:
    """The card of the game in ``folder`` (from ``card.cache`` while the log is unchanged)."""
    return card_from(folder, read_limited(folder / LOG_NAME, LOG_LIMIT, Msg("log")), lang)


def card_from(folder: Path, data: bytes, lang: str = "en") -> Card:
    """:func:`card_of` of the log's bytes ``data``, read by the caller."""
    digest = hashlib.sha256(data).hexdigest()
    payload = read_sealed(folder, CARD_NAME, CARD_LIMIT)
    if payload is not None:
        try:
            got = json.loads(payload)
            if got["sha256"] == digest and got["size"] == len(data) and got["lang"] == lang and (
                    got["card"]["game_id"] == folder.name):  # not a card copied with its folder under another name
                return _from_json(got["card"])
        except (ValueError, TypeError, KeyError):  # sealed by this host, so never; but never an error
            pass
    card = made(folder.name, data, lang)
    fields = {"sha256": digest, "size": len(data), "lang": lang, "card": _to_json(card)}
    write_sealed(folder, CARD_NAME, json.dumps(fields).encode())
    return card


def made(game_id: str, data: bytes, lang: str = "en") -> Card:
    """The card of a log's bytes: read, replayed and (once revealed) audited as `pbem verify` does."""
    try:
        entries, hashes = log_records(data)
    except PbemError as err:
        return refused(game_id, err, lang)
    failed: PbemError | None = None
    try:
        checked(entries, hashes)
    except PbemError as err:
        failed = err
    try:
        summary = summarize(entries, hashes)
    except PbemError as err:  # a move the rules refuse: P7
        return refused(game_id, err, lang)
    game = summary.game
    verdict, line, reason = _verdict(game, failed, lang)
    ranked: tuple[str, ...] = places(game.state) if game.over and game.state is not None else ()
    scores = game.state.scores() if game.state is not None else {}
    return Card(game_id, summary.status.value, tuple(game.players), tuple(summary.waiting), summary.since_at,
                game.last_seq, entries[-1].at, tuple(summary.labels), verdict.value, line, reason, ranked,
                tuple(scores[p] for p in ranked))


def refused(game_id: str, err: PbemError, lang: str = "en") -> Card:
    """The card of a log that cannot be read or replayed: nothing but why (P7)."""
    return Card(game_id, "", (), (), "", -1, "", (), AuditVerdict.REFUSED.value, audit_verdict(err, lang=lang),
                error_text(err, lang), (), ())


def _verdict(game: Any, failed: PbemError | None, lang: str) -> tuple[AuditVerdict, str, str]:
    if failed is not None:
        return AuditVerdict.REFUSED, audit_verdict(failed, lang=lang), error_text(failed, lang)
    if game.secret is not None:
        audit(game)  # checked() has run it: it passes
        return (AuditVerdict.HOST if host_alone(game) else AuditVerdict.FAIR), audit_verdict(None, game, lang), ""
    if game.over:
        return AuditVerdict.NOT_YET, audit_verdict(StateError(""), lang=lang), ""
    return AuditVerdict.NONE, "", ""


def _to_json(card: Card) -> dict[str, Any]:
    return {name: list(value) if isinstance(value, tuple) else value
            for name, value in zip(Card._fields, card._values(), strict=True)}


def _from_json(data: dict[str, Any]) -> Card:
    values: list[Any] = [tuple(data[name]) if isinstance(data[name], list) else data[name] for name in Card._fields]
    return Card(*values)


def is_status(card: Card, *statuses: GameStatus) -> bool:
    return card.status in {s.value for s in statuses}
