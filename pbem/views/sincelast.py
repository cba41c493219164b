"""What happened since a seat's last turn, told in as many lines as its mail has room for.

A "your move" mail leads with it (:mod:`pbem.mail.replies`), a resent turn mail tells the same
(:mod:`pbem.mail.resend`), and so does the composer page the mail carries
(:mod:`pbem.views.compose`): every entry after the seat's own last move, in the seat's language,
from public facts and what the seat itself saw (P10).
"""

from __future__ import annotations

from collections.abc import Sequence

from pbem.i18n import Msg, translator
from pbem.log.game import Game
from pbem.log.records import Entry, Played, Start
from pbem.views.narrate import entry_lines


def since_last_turn(game: Game, player: str) -> list[Entry]:
    """The entries after the seat's own last move (from the start, before its first)."""
    last = next((e.seq for e in reversed(game.entries) if isinstance(e, Played) and e.player == player), None)
    if last is None:
        last = next((e.seq - 1 for e in game.entries if isinstance(e, Start)), game.last_seq)
    return list(game.entries[last + 1:])


def news(game: Game, added: Sequence[Entry], player: str, lang: str, room: int) -> list[str]:
    """What happened since the seat's last turn (or, when the seat played last, the entries
    ``added`` by this move), entry by entry, in at most ``room`` lines: where they do not all fit,
    the newest entries whole (what led to the board the mail shows), and the first line says how
    many were left out and how to get them."""
    said = translator(lang)
    blocks = [entry_lines(game, entry, lang) for entry in since_last_turn(game, player) or added]
    lines = [line for block in blocks for line in block]
    if len(lines) < room:
        return [said.say(Msg("Since your last turn:")), *lines]
    kept: list[str] = []
    for block in reversed(blocks):
        if len(kept) + len(block) > room - 1:
            break
        kept = block + kept
    if not kept and room > 1:  # not even the newest entry whole: its headline and its last events (the plague's)
        kept = [blocks[-1][0], *blocks[-1][len(blocks[-1]) - room + 2:]] if room > 2 else blocks[-1][:1]
    left = len(lines) - len(kept)
    return [said.say(Msg.plural("Since your last turn ({n} line left out: send 'history' for the whole game):",
                                "Since your last turn ({n} lines left out: send 'history' for the whole game):",
                                left)), *kept]
