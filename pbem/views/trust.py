"""What every verdict and public output says about a game's fairness: the trust statement,
whose nonces made the seed (P4), the game's notices (P3, P7), the audit's verdict, where the
opening stands, and the record of timeouts and stand-ins (R8), each a :class:`pbem.i18n.Msg`
said in the reader's ``lang`` (English as it has always been written).

Split from :mod:`pbem.views.text`, which still offers every name here.
"""

from __future__ import annotations

import re

from pbem.errors import PbemError, StateError
from pbem.i18n import Msg, translator
from pbem.log.game import Game, Opening
from pbem.log.records import Edition
from pbem.referee.seats import record_lines as seats_record_lines

TRUST = Msg(
    "trust (P1): the host sees every face and must hold no seat; the protocol guarantees that nobody "
    "changed the rat order, rewrote this history unnoticed (keep your last log: 'pbem verify NEW --extends OLD') "
    "or learned a face through pbem; that nobody chose the rat order holds only if some player's nonce was "
    "that player's own and could not be guessed: a secret number rests on the 80 random bits of the code its "
    "player kept (words alone can be guessed from this log), and on the page or program that made that code, so "
    "check yours against the words and code or the file you kept ('pbem verify LOG --words SEAT', "
    "docs/fairplay.md)"
)

TRUST_MARK = Msg("trust (P1): nobody, the host included, chose the rat order; said in full in the invitation, "
                 "the end mail and 'pbem show'")
"""The one-line mark every other mail carries instead of :data:`TRUST` and the notices' paragraphs."""


PROTOCOL_DOC = "docs/protocol.md"


def seed_sources(game: Game) -> tuple[list[str], list[str], list[str]]:
    """P4: the seats whose player's nonce went into the seed, the waived seats, and the bot
    seats (whose nonce the host made), each in seat order."""
    waived = [p for p in game.players if p in game.waived]
    bots = [p for p in game.players if p in game.bots and p not in game.waived]
    players = [p for p in game.players if p not in game.waived and p not in game.bots and game.nonces.get(p)]
    return players, waived, bots


def host_alone(game: Game) -> bool:
    """P4: the game started and no player's nonce went into its seed: the host could choose the deal."""
    return game.started and not seed_sources(game)[0]


def seed_line(game: Game, lang: str = "en") -> str | None:
    """Whose entropy made the seed (P4), once the game has started; None before."""
    if not game.started:
        return None
    said = translator(lang)
    players, waived, bots = seed_sources(game)
    others = "".join([said.say(Msg("; waived (no nonce): {seats}", seats=", ".join(waived))) if waived else "",
                      said.say(Msg("; made by the host (bot seats): {seats}", seats=", ".join(bots))) if bots else ""])
    if not players:
        return said.say(Msg("seed (P4): the seed comes from the host's secret alone{others}", others=others))
    return said.say(Msg("seed (P4): the seed comes from the host's secret and the nonces of {seats}{others}",
                        seats=", ".join(players), others=others))


HOST_DEAL = Msg(
    "verdict: HOST'S DEAL. No player's nonce went into the seed, so the host alone could "
    "choose the deal (P4; how to check: {doc}).", doc=PROTOCOL_DOC,
)


def audit_verdict(err: PbemError | None, game: Game | None = None, lang: str = "en") -> str:
    """The verdict line of `pbem audit` (tools/audit_min.py prints the same, word for word);
    a verified game whose seed took no player's nonce is never FAIR (P4).  In another
    language the verdict's word stays (FAIR, HOST'S DEAL, NOT YET, REFUSED: what a script
    reads) and the sentence after it is translated."""
    said = translator(lang)
    if err is None and game is not None and host_alone(game):
        return said.say(HOST_DEAL)
    if err is None:
        return said.say(Msg("verdict: FAIR. The rat order was fixed at the start and never touched "
                            "(how to check: {doc}).", doc=PROTOCOL_DOC))
    if isinstance(err, StateError):
        return said.say(Msg("verdict: NOT YET. The secret is revealed when the game is over "
                            "(P6; how to check: {doc}).", doc=PROTOCOL_DOC))
    found = re.match(r"entry (\d+):", err.message)
    if found:
        return said.say(Msg("verdict: REFUSED. The log does not verify at entry {seq} ({rule}; how to check: {doc}).",
                            seq=found.group(1), rule=err.rule, doc=PROTOCOL_DOC))
    return said.say(Msg("verdict: REFUSED. The log does not verify as a whole ({rule}; how to check: {doc}).",
                        rule=err.rule, doc=PROTOCOL_DOC))


def notice_msgs(game: Game) -> list[Msg]:
    """What every public output of this game must say about it (P3, P7), as sentences."""
    out = []
    if game.test_game:
        out.append(Msg("TEST GAME: its secret was supplied, not made by the OS (P7); whoever knows it "
                       "knows every face, so it proves nothing about fair play"))
    if game.bots:
        seats = ", ".join(f"{p} ({level})" for p, level in sorted(game.bots.items()))
        out.append(Msg("BOT SEATS: {seats} played by the host's bots. A bot sees only its seat's view "
                       "(the log and its own Witch looks), but the host holds its seat and made its "
                       "nonce (P4): the rule that the host holds no seat does not hold for this game",
                       seats=seats))
    if host_alone(game):
        out.append(Msg("HOST'S DEAL: no player's nonce went into the seed (every seat waived or a bot "
                       "seat, P4): the host alone could choose the deal, so the guarantee that nobody "
                       "chose the rat order does not hold for this game"))
    if game.edition is not Edition.STANDARD:
        out.append(Msg("CUSTOM GAME: its map or rat tokens are not pbem's standard data "
                       "(P3, data_hash {hash})", hash=game.data_hash[:16]))
    return out


def notices(game: Game, lang: str = "en") -> list[str]:
    """What every public output of this game must say about it (P3, P7)."""
    said = translator(lang)
    return [said.say(m) for m in notice_msgs(game)]


def trust_lines(game: Game, lang: str = "en", checked: list[str] | None = None) -> list[str]:
    """The trust model in one line, whose entropy made the seed, then the game's notices:
    every verdict ends with these.  ``checked``: given by a reader that checks nonces (`pbem
    verify`, `audit`), the seats whose nonce it checked against what their player kept."""
    seed = seed_line(game, lang)
    checks = [checked_line(game, checked, lang)] if checked is not None else []
    return [translator(lang).say(TRUST), *([seed] if seed else []), *checks, *notices(game, lang)]


def checked_line(game: Game, checked: list[str], lang: str = "en") -> str:
    """Whose nonce this reader checked against what its player kept (P4), and what the others
    rest on: never "nobody chose" where no player's check stands behind it."""
    said = translator(lang)
    others = [p for p in game.players if p not in checked and p not in game.waived and p not in game.bots]
    if not checked:
        return said.say(Msg("nonces (P4): none checked here; each rests on the page or program that made it "
                            "until its player checks it against the words and code or the file they kept ('pbem "
                            "verify LOG --words SEAT' or '--nonce FILE', docs/fairplay.md)"))
    line = Msg("nonces (P4): checked here against what their player kept: {seats}; the host could not choose "
               "the rat order without knowing these nonces before its secret was fixed", seats=", ".join(checked))
    if not others:
        return said.say(line)
    return said.say(Msg("{checked}; not checked here: {seats} (each player checks their own)", checked=line,
                        seats=", ".join(others)))


def short_notice_msgs(game: Game) -> list[Msg]:
    """The game's notices (:func:`notice_msgs`) in a few words each, for a mail that does not say
    them in full (a template, a report mail)."""
    short: list[Msg] = []
    if game.test_game:
        short.append(Msg("TEST GAME (P7): it proves nothing."))
    if game.bots:
        short.append(Msg("BOT SEATS: {seats}, the host's bots (P4).", seats=", ".join(sorted(game.bots))))
    if host_alone(game):
        short.append(Msg("HOST'S DEAL: no player's nonce is in the seed (P4)."))
    if game.edition != "standard":
        short.append(Msg("CUSTOM GAME: not pbem's standard data (P3)."))
    return short


def mark_lines(game: Game, lang: str = "en") -> list[str]:
    """:func:`trust_lines` as one line each: the trust mark, the seed's line, the short notices."""
    said = translator(lang)
    seed = seed_line(game, lang)
    return [said.say(TRUST_MARK), *([seed] if seed else []), *(said.say(m) for m in short_notice_msgs(game))]


def opening_line(game: Game, lang: str = "en") -> str:
    """Where the opening stands (P4), in a sentence."""
    said = translator(lang)
    opening = game.opening
    if opening is Opening.ABANDONED:
        return said.say(Msg("abandoned by the host before the start (P4)"))
    waiting = ", ".join(game.awaited)
    waived = said.say(Msg("; waived: {seats}", seats=", ".join(sorted(game.waived)))) if game.waived else ""
    if opening is Opening.COMMIT:
        return said.say(Msg("not started: waiting for the fingerprints of the secret numbers of {seats}{waived} (P4, "
                            "round 1 of 2)", seats=waiting, waived=waived))
    return said.say(Msg("not started: waiting for {seats} to send their secret numbers{waived} (P4, round 2 of 2)",
                        seats=waiting, waived=waived))


def record_msgs(game: Game) -> list[Msg]:
    """Every timeout, stand-in turn, resignation and change of hands, with its time: the
    sentences of :func:`pbem.referee.seats.record_lines`, their only source."""
    return seats_record_lines(game)


def record_lines(game: Game, lang: str = "en") -> list[str]:
    """:func:`record_msgs` said in ``lang``."""
    said = translator(lang)
    return [said.say(m) for m in record_msgs(game)]
