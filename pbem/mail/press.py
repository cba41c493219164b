"""Press by mail: ``press all`` or ``press SEAT`` (``press blue,green``), the message's text the press.

Only a seat of the game sends press (a sender who plays several games names one with
``[rattus GAME]`` in the subject); it is kept first (:mod:`pbem.host.press`), then relayed
to the seats it names (``all``: every other seat), each in its mail mode: at once to a
``turn`` or ``every`` seat, in the daily summary of a ``digest`` seat
(:mod:`pbem.mail.digest`).  Observers read press to all in their summary, never press to
a seat.  A relayed mail's subject is itself a press command (``[rattus g] press red``), so
that a plain Reply answers the sender alone, or everyone for press to all.
"""

from __future__ import annotations

from pathlib import Path

from pbem.errors import FormatError, UnknownError
from pbem.host import press as kept
from pbem.host.games import load_game
from pbem.host.settings import load_settings
from pbem.i18n import Msg, translator
from pbem.mail.commands import Answer, seats_of, sender_seat
from pbem.mail.lobby import Lobby
from pbem.mail.outgoing import tag
from pbem.referee.deadlines import when_text


class Relayed(Answer):
    """A press command's answer to its sender, and the mails relayed: (address, subject, text)."""

    relays: tuple[tuple[str, str, str], ...]


def press_answer(games: Path, address: str, asked: Lobby) -> Relayed:
    """The press kept, then relayed (see the module); refused, with nothing kept or sent, from
    an address that holds no seat, to a seat that is not another seat of the game, or where
    the host turned press off (or allows press to all only)."""
    if not seats_of(games, address, asked.game):
        if asked.game is not None:
            raise UnknownError(Msg("{address} holds no seat of game {game}: only a game's players send press, "
                                   "and only they read it (observers read press to all in their summary); nothing "
                                   "was sent", address=address, game=repr(asked.game)), "P1")
        raise UnknownError(Msg("{address} holds no seat of any game on this host: only a game's players send "
                               "press; nothing was sent", address=address), "P1")
    path, seat = sender_seat(games, address, asked.game)
    if asked.arg is None:
        raise FormatError(Msg("'press' needs 'all' or the seats it is for, e.g. 'press all' or 'press blue'; the "
                              "message's text is the press; nothing was sent"), "P1")
    game = load_game(path)
    to = (kept.ALL,) if asked.arg == kept.ALL else tuple(s for s in asked.arg.split(",") if s)
    press = kept.add(path, game.players, seat, to, asked.text)
    settings = load_settings(path)
    readers = [s for s in game.players if s != seat and (press.public or s in press.to)]
    relays = []
    for reader in readers:
        if reader not in settings.emails or settings.mail_mode(reader) == "digest":
            continue  # a bot seat reads no mail; a digest seat reads it in its summary
        said = translator(settings.language(reader))
        head = (Msg("Press from {sender} to every seat of game {game}, {when}:", sender=seat, game=game.game_id,
                    when=when_text(press.at, settings.language(reader))) if press.public else
                Msg("Press from {sender} to you alone, in game {game}, {when}:", sender=seat, game=game.game_id,
                    when=when_text(press.at, settings.language(reader))))
        foot = (Msg("A plain Reply goes to every seat.") if press.public
                else Msg("A plain Reply goes to {sender} alone.", sender=seat))
        subject = f"{tag(game.game_id)} press {kept.ALL if press.public else seat}"
        relays.append((settings.emails[reader], subject,
                       said.say(head) + "\n\n" + press.text + "\n\n-- \n" + said.say(foot) + "\n"))
    said = translator(settings.language(seat))
    text = said.say(Msg("Your press (number {number} of game {game}) is kept and goes to {seats}; a seat that chose "
                        "one summary a day reads it there.", number=press.n, game=game.game_id,
                        seats=", ".join(readers) or "-"))
    # The answer goes to the seat's own address, with the text kept: a From forged in the seat's
    # name cannot be checked on the way in (press is not signed), but the seat reads what was
    # sent in its name and can say so at once.
    own = said.say(Msg("If you did not send it, someone wrote in your name: tell the other seats and the host."))
    return Relayed("", text + "\n\n" + press.text + "\n\n-- \n" + own + "\n", [], tuple(relays))
