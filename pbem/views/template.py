"""Templates: a move file with its header filled in and every legal choice (P7, R7.5).

Built from the public state (and, for the opening, the public log); never from a face.
"""

from __future__ import annotations

from pbem.i18n import Msg, translator
from pbem.log import notation_write
from pbem.log.clock import at_of, now
from pbem.log.game import Game, Opening
from pbem.log.moves import after_of
from pbem.log.records import Entry
from pbem.referee.absence import away_now
from pbem.referee.admit import own_regions
from pbem.referee.deadlines import duration_text, phrase, rule_text, when_text
from pbem.referee.seats import SEAT_RECORDS
from pbem.referee.seatview import SeatView
from pbem.rules import Phase
from pbem.views import orders
from pbem.views.narrate import entry_lines
from pbem.views.trust import opening_line, short_notice_msgs


def template(view: SeatView, lang: str = "en") -> str:
    """The seat's template in the plain-text notation: what is left of the turn, the two
    header lines, and each legal choice once (:mod:`pbem.views.orders`), at most about 40
    short lines.  Built from the seat's view: a template never needs a face (P10)."""
    return template_in(view, lang, orders.MOST_LINES)


def template_in(view: SeatView, lang: str, most: int) -> str:
    """:func:`template` in about ``most`` lines (the choices said more briefly as needed): a
    mail that says more than the template keeps its text short."""
    game, player = view.game, view.seat
    state = game.state
    said = translator(lang)
    if state is None:
        return _opening_template(game, player, lang)
    head = (Msg("# {game}, turn {turn}: {player} to move", game=game.game_id, turn=state.turn_number,
                player=state.to_move) if state.to_move else
            Msg("# {game}, turn {turn}: nobody to move", game=game.game_id, turn=state.turn_number))
    lines = [said.say(head)]
    lines += _short_notices(game, lang) + _standin_news(game, lang)
    due = phrase(game)
    if due is not None:
        when = due.split(", due ", 1)[-1] if lang == "en" else (phrase(game, lang=lang) or due)
        lines += orders.wrap(said.say(Msg("Deadline (R8.1): due {when}.", when=when)).split(), "# ", "#   ")
    lines += _away_notice(game, player, lang)
    if state.to_move != player:
        lines += orders.wrap(said.say(Msg("It is not {player}'s turn: a move now would be refused (R3).",
                                          player=player)).split(), "# ", "# ")
        return "\n".join(lines) + "\n"
    lines += orders.wrap(said.say(Msg("Left: {what}.", what=orders.left(state, player, lang))).split(), "# ", "#   ")
    if state.phase is Phase.SETUP and not state.queue:  # the last placement: turn 1 is this seat's next go
        lines += orders.wrap(said.say(Msg("Your turn 1 comes next (R2.6): send this placement alone, or with the "
                                          "whole of turn 1 after it (R7.5).")).split(), "# ", "# ")
    write = Msg("Write the rest below, one action a line (R7.5; pbem rules notation).")
    lines += (["# Write the rest below, one action", "# a line (R7.5; pbem rules notation)."] if lang == "en"
              else orders.wrap(said.say(write).split(), "# ", "# "))
    after = after_of(game)
    lines += notation_write.header_lines(game.game_id, player, after["seq"], after["hash"])
    name = orders.shipped_names(lang, own_regions(game))
    for compact in range(7):  # in short: the Knight's paths, the Monk's rats, the Merchant's moves, cards, plague
        full = orders.menu(state, player, compact=compact, lang=lang, name=name)
        if len(lines) + len(full) <= most:
            break
    return "\n".join([*lines, *full]) + "\n"


def _standin_news(game: Game, lang: str = "en") -> list[str]:
    """The timeouts, stand-in turns, resignations and new players since the last player's
    move, wrapped short: what the stand-in did (R8.2-R8.4)."""
    recent: list[Entry] = []
    for entry in reversed(game.entries):
        if not isinstance(entry, SEAT_RECORDS):
            break
        recent.insert(0, entry)
    return [line for entry in recent for text in entry_lines(game, entry, lang=lang)
            for line in orders.wrap(text.split(), "# ", "#   ")]


def _short_notices(game: Game, lang: str = "en") -> list[str]:
    """The game's notices (:func:`pbem.views.trust.notices`) in a few words each: the report
    that carries the template says them in full."""
    said = translator(lang)
    return [line for text in short_notice_msgs(game) for line in orders.wrap(said.say(text).split(), "# ", "#   ")]


def resign_template(view: SeatView, lang: str = "en") -> str:
    """The move that resigns the view's seat (R8.4), answering the log's last entry (P7)."""
    game, player = view.game, view.seat
    after = after_of(game)
    text = translator(lang).say(Msg(
        "{player} resigns (R8.4): from then on the stand-in plays the seat (R8.3); its cubes "
        "stay and count. The host may hand the seat to a new player. Sign it if you have a key.", player=player))
    return "\n".join([*_short_notices(game, lang), *orders.wrap(text.split(), "# ", "# "),
                      *notation_write.header_lines(game.game_id, player, after["seq"], after["hash"]), "resign"]) + "\n"


def _away_notice(game: Game, player: str, lang: str) -> list[str]:
    """R8.5: that the seat is away, until when, and that its next turn move ends the absence."""
    away = [a for a in away_now(game, now()) if a.player == player]
    if not away:
        return []
    text = translator(lang).say(Msg("You are away until {until} (R8.5); your next turn move ends it.",
                                    until=when_text(at_of(away[0].end), lang)))
    return orders.wrap(text.split(), "# ", "#   ")


def away_template(view: SeatView, days: int, lang: str = "en") -> str:
    """The move that declares an absence of ``days`` for the view's seat (R8.5), answering the
    log's last entry (P7)."""
    game, player = view.game, view.seat
    after = after_of(game)
    text = translator(lang).say(Msg.plural(
        "{player} is away for {n} day from when the host records this (R8.5): the seat's deadlines wait that "
        "long, and its next turn move ends the absence early, the unused days returning. Sign it if you have "
        "a key.", "{player} is away for {n} days from when the host records this (R8.5): the seat's deadlines "
        "wait that long, and its next turn move ends the absence early, the unused days returning. Sign it if "
        "you have a key.", days, player=player))
    return "\n".join([*_short_notices(game, lang), *orders.wrap(text.split(), "# ", "# "),
                      *notation_write.header_lines(game.game_id, player, after["seq"], after["hash"]),
                      f"away {days}"]) + "\n"


def _deadline_rule(game: Game, lang: str) -> str | None:
    """The game's deadline rule, and that none runs in the opening (P4), in ``lang``."""
    rule = rule_text(game)
    if rule is None or game.deadline is None:
        return None
    if lang == "en":
        return f"{rule}; none runs in the opening (P4)."
    deadline = duration_text(game.deadline, lang=lang)
    if game.reminder:
        return translator(lang).say(Msg(
            "Deadline: {deadline} a turn from the entry that makes it the player's turn, a reminder "
            "{reminder} before; then the stand-in rule plays it (R8.1-R8.3); none runs in the opening (P4).",
            deadline=deadline, reminder=duration_text(game.reminder, lang=lang)))
    return translator(lang).say(Msg(
        "Deadline: {deadline} a turn from the entry that makes it the player's turn; then the stand-in "
        "rule plays it (R8.1-R8.3); none runs in the opening (P4).", deadline=deadline))


def _opening_template(game: Game, player: str, lang: str = "en") -> str:
    """P4's two rounds: what ``player`` sends now, and how to make it."""
    opening = game.opening
    said = translator(lang)
    lines = _short_notices(game, lang)
    rule = _deadline_rule(game, lang)
    if rule is not None:
        lines += orders.wrap(rule.split(), "# ", "#   ")
    after = after_of(game, opening=True)
    head = notation_write.header_lines(game.game_id, player, after["seq"], after["hash"])
    log = f"{game.game_id}-{game.last_seq}-log.yaml.gz"  # the log as a mail attaches it (mail.replies.log_name)
    command = [f"#   pbem nonce {log}", f"#     --player {player}"]
    if opening is Opening.COMMIT and player not in game.commits and player not in game.waived:
        text = said.say(Msg("Round 1 of 2 (P4): send the fingerprint of your secret number now, and the number "
                            "itself in round 2. With pbem, from the log the mail brought (it keeps your number for "
                            "round 2):"))  # why: the round's mail says it, once
        return "\n".join([*lines, *orders.wrap(text.split(), "# ", "# "), *command[:1],
                          command[1] + " --out commit.txt", *head,
                          said.say(Msg("# commit <the fingerprint, 64 hex digits>"))]) + "\n"
    if opening is Opening.REVEAL and player in game.commits and player not in game.nonces:
        text = said.say(Msg("Round 2 of 2 (P4): every seat has sent its fingerprint; now send the secret number "
                            "it was made from. With pbem, in the folder where round 1 kept it, from the log the "
                            "mail brought:"))
        return "\n".join([*lines, *orders.wrap(text.split(), "# ", "# "), *command[:1], command[1] + " --reveal",
                          *head, said.say(Msg("# nonce <your secret number, in hex>"))]) + "\n"
    nothing = said.say(Msg("Nothing to send now for {player}: {where}.", player=player,
                           where=opening_line(game, lang=lang)))
    return "\n".join([*lines, *orders.wrap(nothing.split(), "# ", "# ")]) + "\n"
