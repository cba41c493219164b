"""Golden playthroughs (OpenSpiel's ``generate_playthrough``): every seat's view at every entry.

:func:`playthrough` replays a log entry by entry and writes, for each entry, what
it says (its narration), the public board, and then, for every seat, that seat's
view (:class:`pbem.referee.seatview.SeatView`): the faces it knows beyond the
public ones (its own Witch looks), and the template it would be handed when it is
that seat's decision.  ``examples/make_playthroughs.py`` records it beside each
example's log; ``tests/test_playthroughs.py`` replays the logs and compares every
line, so a change to the replay, the records, a view or the seat view shows as a
diff of what some seat saw at some entry.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from pbem.log.clock import pinned
from pbem.log.game import Game, Opening
from pbem.log.records import Entry
from pbem.referee.seatview import SeatView, looks_of
from pbem.views.narrate import entry_lines
from pbem.views.template import template
from pbem.views.text import board_lines, private_lines
from pbem.views.timeline import steps


def seat_lines(view: SeatView) -> list[str]:
    """One seat's view: the faces only it knows, its looks, and its template when it decides."""
    private = ", ".join(f"{token}={tid}" for token, tid in sorted(view.private.items())) or "none"
    lines = [f"## {view.seat}: {len(view.public)} faces public; known to {view.seat} alone: {private}"]
    lines += private_lines(view)
    game = view.game
    deciding = view.my_turn if game.opening is Opening.STARTED else view.seat in game.awaited
    if deciding:
        lines += ["template:", *("  " + line if line else "" for line in template(view).splitlines())]
    return lines


def playthrough(
    entries: list[Entry], hashes: list[str], private: Mapping[str, Sequence[Mapping[str, Any]]]
) -> Iterator[str]:
    """The playthrough's lines: for each entry, its narration, the board, every seat's view.

    ``private``: each seat's private file (its documents), as the host kept it.  Each view
    is the one its seat was handed when the entry was written: the reader's clock (deadlines,
    R8.1) is that entry's own ``at``, so the playthrough never depends on the day it is read."""
    for game in steps(entries, hashes):
        with pinned(game.at_of(game.last_seq)):
            lines = list(_entry(game, private))
        yield from lines


def _entry(game: Game, private: Mapping[str, Sequence[Mapping[str, Any]]]) -> Iterator[str]:
    seq = game.last_seq
    yield f"# entry {seq}"
    if seq:
        yield from ("> " + line for line in entry_lines(game, game.entries[seq]))
    yield from board_lines(game)
    for seat in game.players:
        yield from seat_lines(SeatView(game, seat, looks_of(game, seat, private.get(seat, ()))))
