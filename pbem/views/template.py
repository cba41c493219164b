"""Move files as templates: the header filled in, every legal choice as a comment (P7).

Built from the public state (and, for the opening, the public log); never from a face.
"""

from __future__ import annotations

from typing import Any

from pbem.log.game import Game, Opening
from pbem.log.moves import after_of
from pbem.log.records import Entry
from pbem.log.yamlio import dump_yaml
from pbem.referee.deadlines import phrase, rule_text
from pbem.referee.seats import SEAT_RECORDS
from pbem.referee.seatview import SeatView
from pbem.rules import Phase
from pbem.views import turnplan
from pbem.views.narrate import entry_lines
from pbem.views.text import next_step, notices, opening_line


def template(view: SeatView) -> str:
    """A move file for the view's seat: header filled in, legal choices as comments (P7).

    Built from the seat's view (a template never needs a face: the choices are public)."""
    game, player = view.game, view.seat
    state = game.state
    head: dict[str, Any] = {"game": game.game_id, "player": player}
    if state is None:
        return _opening_template(game, player)
    head.update({"kind": "move", "after": after_of(game)})
    lines = [f"# {n}" for n in notices(game)] + _standin_news(game) + [f"# {next_step(state)}"]
    due = phrase(game)
    if due is not None:
        mine = "; after it the stand-in rule (R8.3) plays your turn" if due.startswith(f"{player} ") else ""
        lines.append(f"# Deadline (R8.1): {due}{mine}.")
    options: list[str] = []
    if state.to_move != player:
        lines.append(f"# Note: it is {state.to_move}'s turn, not {player}'s: this move would be refused.")
    else:
        lines.append("# Uncomment the lines you choose, in the order you play them (the order below),")
        lines.append("# then check the file ('pbem check --log LOG FILE') and mail it. One file holds a")
        lines.append("# whole turn; only a Witch's look needs a second file, to see the face first.")
        options.extend(turnplan.lines(game.board.name_of, state, player))
        if state.phase is Phase.FINAL:
            options.append("  - {action: end}   # finish your part of the final round (R6.2)")
    return "\n".join(lines) + "\n" + dump_yaml(head) + "actions:\n" + "".join(o + "\n" for o in options)


def resign_template(view: SeatView) -> str:
    """The move file that resigns the view's seat (R8.4), answering the log's last entry (P7)."""
    game, player = view.game, view.seat
    head = {"game": game.game_id, "player": player, "kind": "resign", "after": after_of(game)}
    return "".join(f"# {n}\n" for n in notices(game)) + (
        f"# {player} resigns (R8.4): from the entry that records this, the stand-in rule (R8.3)\n"
        "# plays the seat at once, turn after turn; its cubes stay and count. The host may hand\n"
        "# the seat to a new player ('pbem replace'). Sign it if you registered a key, and mail it.\n"
    ) + dump_yaml(head)


def _standin_news(game: Game) -> list[str]:
    """The timeouts, stand-in turns, resignations and new players since the last
    player's move, as comment lines: what the stand-in did (R8.2-R8.4)."""
    recent: list[Entry] = []
    for entry in reversed(game.entries):
        if not isinstance(entry, SEAT_RECORDS):
            break
        recent.insert(0, entry)
    return [f"# {line}" for entry in recent for line in entry_lines(game, entry)]


def _opening_template(game: Game, player: str) -> str:
    """P4's two rounds: what ``player`` sends now, with how to make it."""
    opening = game.opening
    notes = "".join(f"# {n}\n" for n in notices(game))
    rule = rule_text(game)
    if rule is not None:
        notes += f"# {rule}. No deadline runs during the opening (P4).\n"
    where = f"--games DIR --player {player}"
    if opening is Opening.COMMIT and player not in game.commits and player not in game.waived:
        head = {"game": game.game_id, "player": player, "kind": "commit",
                "after": after_of(game, opening=True), "nonce_commitment": ""}
        return notes + (
            "# Round 1 of 2 (P4): commit to a nonce of your own, so that nobody, the host\n"
            "# included, can steer the shuffle. Easiest: let pbem write this file for you:\n"
            f"#     pbem nonce {game.game_id} {where} --out commit.yaml\n"
            "# It keeps the nonce in a private file and fills in nonce_commitment below\n"
            "# (H('pbem-rattus/v1/nonce' || nonce) as 64 hex digits). Mail the result.\n"
        ) + dump_yaml(head)
    if opening is Opening.REVEAL and player in game.commits and player not in game.nonces:
        head = {"game": game.game_id, "player": player, "kind": "nonce",
                "after": after_of(game, opening=True), "nonce": ""}
        return notes + (
            "# Round 2 of 2 (P4): every seat has committed; now reveal the nonce you committed to.\n"
            f"#     pbem nonce {game.game_id} {where} --reveal --out nonce.yaml\n"
            "# writes this file from the nonce pbem kept for you. Mail the result.\n"
        ) + dump_yaml(head)
    return notes + f"# Nothing to send now for {player}: {opening_line(game)}.\n"
