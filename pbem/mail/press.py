"""Press by mail: ``press all`` or ``press SEAT`` (``press blue,green``), the message's text the press.

Only a seat of the game sends press (a sender who plays several games names one with
``[rattus GAME]`` in the subject); it is kept first (:mod:`pbem.host.press`), then relayed
to the seats it names (``all``: every other seat), each in its mail mode: at once to a
``turn`` or ``every`` seat, in the daily summary of a ``digest`` seat
(:mod:`pbem.mail.digest`).  Observers read press to all in their summary, never press to
a seat.

A From is easy to forge.  Press in the name of a seat that holds a signing key (P8) is
relayed at once only if its last line is ``sig SIGNATURE``, by the seat's key over the game,
the seats and the words (:func:`pbem.fair.keys.press_message`; ``pbem sign-press`` writes
it), each signature once.  Unsigned, it is held, not relayed: its one-time code goes to the
seat's own address, and only ``confirm CODE`` from there relays it (:func:`confirmed_press`),
as a keyed seat's language change is held.  Every relayed mail says on its first line whose words follow ("Press from
red (a player, not the host)"), quotes them line by line, and carries the subject
``[rattus g] press red`` whether the press was to all or to one seat: a plain Reply is
then press to its sender alone, never to every seat, so a press that imitates the host
("reply with your words") cannot make a careless Reply public.
"""

from __future__ import annotations

import re
from pathlib import Path

from pbem.errors import FormatError, SignatureError, UnknownError
from pbem.fair.keys import press_message, verify
from pbem.host import press as kept
from pbem.host.games import load_game
from pbem.host.settings import load_settings
from pbem.i18n import Msg, translator
from pbem.mail.commands import Answer, seats_of, sender_seat
from pbem.mail.lobby import Lobby
from pbem.mail.outgoing import tag
from pbem.referee.deadlines import when_text

_SIG = re.compile(r"(?:\A|\n)[ \t]*sig\s+([A-Za-z0-9+/]{86}==)\Z")


class Relayed(Answer):
    """A press command's answer to its sender, and the mails relayed: (address, subject, text)."""

    relays: tuple[tuple[str, str, str], ...]


def quoted(text: str) -> str:
    """A player's words as a relayed mail shows them: each line behind ``> ``."""
    return "\n".join("> " + line if line else ">" for line in text.split("\n"))


def press_answer(games: Path, address: str, asked: Lobby) -> Relayed | Answer:
    """The press kept, then relayed (see the module); held under a code mailed to the seat's
    own address if the seat holds a key (P8); refused, with nothing kept or sent, from an
    address that holds no seat, to a seat that is not another seat of the game, or where
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
    key = game.keys.get(seat)
    if key is None:
        return _relayed(path, kept.add(path, game.players, seat, to, asked.text), own=True)
    text, signature = _signed(asked.text)  # P8: signed with the seat's key, or held for its code
    if signature is None:
        return _held(path, seat, to, kept.hold(path, game.players, seat, to, text), text)
    if not verify(key, signature, press_message(game.game_id, seat, list(to), kept.clean(text))):
        raise SignatureError(Msg("the press is signed, but not with {seat}'s key over this game, these seats and "
                                 "these words ('pbem sign-press' signs all three); nothing was sent", seat=seat), "P8")
    return _relayed(path, kept.add(path, game.players, seat, to, text, signature), own=False)


def _signed(text: str) -> tuple[str, str | None]:
    """The press's words and the signature of its last line (``sig SIGNATURE``), if it has one."""
    found = _SIG.search(text.rstrip())
    return (text.rstrip()[: found.start()], found.group(1)) if found else (text, None)


def confirmed_press(games: Path, path: Path, code: str, sender: str) -> Relayed:
    """``confirm CODE`` of a held press, from its seat's address: kept and relayed."""
    seat, to, text = kept.take(path, code, sender)
    return _relayed(path, kept.add(path, load_game(path).players, seat, to, text), own=False)


def _held(path: Path, seat: str, to: tuple[str, ...], code: str, text: str) -> Answer:
    """The code of a keyed seat's press, to the seat's own address (the sender's, which holds
    the seat: a forged From sends it to the real player), with the text that came in its name."""
    said = translator(load_settings(path).language(seat))
    readers = Msg("every seat") if to == (kept.ALL,) else ", ".join(to)
    head = said.say(Msg.plural(
        "Press in the name of seat {seat} of game {game} arrived, for {readers}. {seat} holds a signing key (P8), so "
        "press in its name is relayed only once confirmed from its address. If you sent it, reply with the line "
        "below within {n} hour; the code works once.",
        "Press in the name of seat {seat} of game {game} arrived, for {readers}. {seat} holds a signing key (P8), so "
        "press in its name is relayed only once confirmed from its address. If you sent it, reply with the line "
        "below within {n} hours; the code works once.", kept.CODE_HOURS, seat=seat, game=path.name, readers=readers))
    warn = said.say(Msg("If you did not send it, do not reply: nothing is relayed, and someone wrote in your name."))
    body = (head + f"\n\n    confirm {code}\n\n" + said.say(Msg("The press as it arrived:")) + "\n\n"
            + quoted(kept.clean(text)) + "\n\n" + warn + "\n")
    return Answer(f"{tag(path.name)} confirm press", body, [])


def _relayed(path: Path, press: kept.Press, own: bool) -> Relayed:
    """The answer to the press's sender and the mails relayed to its readers (see the module)."""
    game = load_game(path)
    settings = load_settings(path)
    seat = press.sender
    readers = [s for s in game.players if s != seat and (press.public or s in press.to)]
    relays = []
    for reader in readers:
        if reader not in settings.emails or settings.mail_mode(reader) == "digest":
            continue  # a bot seat reads no mail; a digest seat reads it in its summary
        relays.append((settings.emails[reader], f"{tag(game.game_id)} press {seat}",
                       relayed_text(press, game.game_id, settings.language(reader))))
    said = translator(settings.language(seat))
    text = said.say(Msg("Your press (number {number} of game {game}) is kept and goes to {seats}; a seat that chose "
                        "one summary a day reads it there.", number=press.n, game=game.game_id,
                        seats=", ".join(readers) or "-"))
    # Unconfirmed press goes back to the seat's own address with the text kept: a From forged in
    # the name of a seat with no key cannot be checked on the way in, but the seat reads what
    # was sent in its name and can say so at once.
    foot = said.say(Msg("If you did not send it, someone wrote in your name: tell the other seats and the host."))
    return Relayed("", text + "\n\n" + quoted(press.text) + ("\n\n-- \n" + foot if own else "") + "\n", [],
                   tuple(relays))


def relayed_text(press: kept.Press, game: str, lang: str) -> str:
    """One relayed press as its reader's mail shows it: whose words, the words quoted, and
    where a plain Reply goes (the module)."""
    said = translator(lang)
    when = when_text(press.at, lang)
    head = (Msg("Press from {sender} (a player, not the host) to every seat of game {game}, {when}. These are "
                "{sender}'s words, relayed as they came; the host wrote none of them:", sender=press.sender,
                game=game, when=when) if press.public else
            Msg("Press from {sender} (a player, not the host) to you alone, in game {game}, {when}. These are "
                "{sender}'s words, relayed as they came; the host wrote none of them:", sender=press.sender,
                game=game, when=when))
    foot = Msg("A plain Reply goes to {sender} alone, never to every seat ('press all' writes to every seat). "
               "The host never asks for your words or your secret number by press.", sender=press.sender)
    return said.say(head) + "\n\n" + quoted(press.text) + "\n\n-- \n" + said.say(foot) + "\n"
