"""Templates: a move file with its header filled in and every legal choice (P7, R7.5).

Built from the public state (and, for the opening, the public log); never from a face.
"""

from __future__ import annotations

from pbem.log import notation
from pbem.log.game import Game, Opening
from pbem.log.moves import after_of
from pbem.log.records import Entry
from pbem.referee.deadlines import phrase, rule_text
from pbem.referee.seats import SEAT_RECORDS
from pbem.referee.seatview import SeatView
from pbem.views import orders
from pbem.views.narrate import entry_lines
from pbem.views.text import host_alone, opening_line


def template(view: SeatView, lang: str = "en") -> str:
    """The seat's template in the plain-text notation: what is left of the turn, the two
    header lines, and each legal choice once (:mod:`pbem.views.orders`), at most about 40
    short lines.  Built from the seat's view: a template never needs a face (P10)."""
    game, player = view.game, view.seat
    state = game.state
    if state is None:
        return _opening_template(game, player)
    lines = [f"# {game.game_id}, turn {state.turn_number}: {state.to_move or 'nobody'} to move"]
    lines += _short_notices(game) + _standin_news(game)
    due = phrase(game)
    if due is not None:
        lines += orders.wrap(f"Deadline (R8.1): due {due.split(', due ', 1)[-1]}.".split(), "# ", "#   ")
    if state.to_move != player:
        lines += orders.wrap(f"It is not {player}'s turn: a move now would be refused (R3).".split(), "# ", "# ")
        return "\n".join(lines) + "\n"
    lines += orders.wrap(f"Left: {orders.left(state, player)}.".split(), "# ", "#   ")
    lines += ["# Write the rest below, one action", "# a line (R7.5; pbem rules notation)."]
    after = after_of(game)
    lines += notation.header_lines(game.game_id, player, after["seq"], after["hash"])
    full = orders.menu(state, player)
    lines += full if len(lines) + len(full) <= orders.MOST_LINES else orders.menu(state, player, compact=True)
    return "\n".join(lines) + "\n"


def _standin_news(game: Game) -> list[str]:
    """The timeouts, stand-in turns, resignations and new players since the last player's
    move, wrapped short: what the stand-in did (R8.2-R8.4)."""
    recent: list[Entry] = []
    for entry in reversed(game.entries):
        if not isinstance(entry, SEAT_RECORDS):
            break
        recent.insert(0, entry)
    return [line for entry in recent for text in entry_lines(game, entry)
            for line in orders.wrap(text.split(), "# ", "#   ")]


def _short_notices(game: Game) -> list[str]:
    """The game's notices (:func:`pbem.views.text.notices`) in a few words each: the report
    that carries the template says them in full."""
    short = []
    if game.test_game:
        short.append("TEST GAME (P7): it proves nothing.")
    if game.bots:
        short.append("BOT SEATS: " + ", ".join(sorted(game.bots)) + ", the host's bots (P4).")
    if host_alone(game):
        short.append("HOST'S DEAL: no player's nonce is in the seed (P4).")
    if game.edition != "standard":
        short.append("CUSTOM GAME: not pbem's standard data (P3).")
    return [line for text in short for line in orders.wrap(text.split(), "# ", "#   ")]


def resign_template(view: SeatView, lang: str = "en") -> str:
    """The move that resigns the view's seat (R8.4), answering the log's last entry (P7)."""
    game, player = view.game, view.seat
    after = after_of(game)
    text = (f"{player} resigns (R8.4): from then on the stand-in plays the seat (R8.3); its cubes "
            "stay and count. The host may hand the seat to a new player. Sign it if you have a key.")
    return "\n".join([*_short_notices(game), *orders.wrap(text.split(), "# ", "# "),
                      *notation.header_lines(game.game_id, player, after["seq"], after["hash"]), "resign"]) + "\n"


def _opening_template(game: Game, player: str) -> str:
    """P4's two rounds: what ``player`` sends now, and how to make it."""
    opening = game.opening
    lines = _short_notices(game)
    rule = rule_text(game)
    if rule is not None:
        lines += orders.wrap(f"{rule}; none runs in the opening (P4).".split(), "# ", "#   ")
    after = after_of(game, opening=True)
    head = notation.header_lines(game.game_id, player, after["seq"], after["hash"])
    command = [f"#   pbem nonce {game.game_id} --player {player}", "#     --games DIR"]
    if opening is Opening.COMMIT and player not in game.commits and player not in game.waived:
        text = ("Round 1 of 2 (P4): commit to a secret nonce, so that nobody, the host too, can steer "
                "the deal. Easiest, with pbem installed (it keeps the nonce and writes the move):")
        return "\n".join([*lines, *orders.wrap(text.split(), "# ", "# "), *command[:1],
                          command[1] + " --out commit.txt", *head, "# commit <64 hex digits>"]) + "\n"
    if opening is Opening.REVEAL and player in game.commits and player not in game.nonces:
        text = ("Round 2 of 2 (P4): every seat has committed; now send the nonce you committed to. "
                "Easiest, with pbem installed:")
        return "\n".join([*lines, *orders.wrap(text.split(), "# ", "# "), *command[:1],
                          command[1] + " --reveal", *head, "# nonce <the nonce, in hex>"]) + "\n"
    return "\n".join([*lines, *orders.wrap(f"Nothing to send now for {player}: {opening_line(game)}.".split(),
                                            "# ", "# ")]) + "\n"
