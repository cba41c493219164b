"""The lobby by mail: open games joined, left and watched; where it is the sender's turn.

Anyone may write to the host (not only its registered players) with a message whose
subject (less ``Re:`` and a ``[rattus GAME]`` tag) or first line is one of:

* ``join GAME`` (or ``join`` alone: the first open game; ``join GAME LANG`` to read
  Hungarian, Greek or Ukrainian), ``leave GAME`` (before the opening begins), ``watch GAME``
  (``watch GAME LANG``), ``unwatch GAME``: each held under a one-time code mailed to the
  sender's address (:mod:`pbem.host.lobby`), done by ``confirm CODE`` from that address;
* ``games``: the open games, and every game the sender plays or watches, with whose turn
  it is and its deadline, in one mail;
* ``press all`` / ``press SEAT`` (:mod:`pbem.mail.press`).

Every answer goes to the sender's address only, at most :data:`pbem.mail.ratelimit.PER_HOUR`
an hour, and says nothing a seat's view holds that the public does not (P10).
"""

from __future__ import annotations

import re
from enum import StrEnum
from functools import cache
from pathlib import Path

from pbem.errors import FormatError, PbemError, UnknownError
from pbem.host import lobby
from pbem.host.games import game_dir, load_game
from pbem.host.keyconfirm import code_in
from pbem.host.lobby import WishKind
from pbem.host.settings import SETTINGS_NAME, load_settings
from pbem.i18n import LANGS, N_, Msg, fold, translator
from pbem.log.game import Game, Opening
from pbem.log.logfile import LOG_NAME
from pbem.mail.bodytext import body_text
from pbem.mail.commands import Answer, language_of, seats_of
from pbem.mail.digest import left_press
from pbem.mail.headers import Mail
from pbem.mail.outgoing import tag
from pbem.record import Record
from pbem.referee.deadlines import duration_text, phrase, when_text

_TAG = re.compile(r"\[(?:rattus|pbem)\s+([a-z0-9][a-z0-9_-]{0,63})\]", re.IGNORECASE)
_LINE = re.compile(r"^(join|leave|games|watch|unwatch|press)(?:\s+([a-z0-9][a-z0-9_,-]{0,199}))?"
                   r"(?:\s+([a-z]{2}))?\s*[?!.]?\s*\Z", re.IGNORECASE)  # 'games?' asks too
_SCREEN = re.compile(r"^(?:join|leave|games|watch|unwatch|press|confirm)\b", re.IGNORECASE)
HELP = N_("Open games by mail: 'games' lists them (and your own games, with whose turn it is); 'join GAME' "
          "takes a seat, 'leave GAME' gives it up before the opening, 'watch GAME' and 'unwatch GAME' follow a "
          "game's public reports; each is confirmed by a code mailed to your address. Players send 'press all' "
          "or 'press SEAT', the message's text being the press.")
SUBJECTS = {  # a subject in the asker's language; the English ones are what they always were
    "confirm join": N_("confirm join"), "confirm leave": N_("confirm leave"), "confirm watch": N_("confirm watch"),
    "confirm unwatch": N_("confirm unwatch"), "join": N_("join: ok"), "leave": N_("leave: ok"),
    "watch": N_("watch: ok"), "unwatch": N_("unwatch: ok"),
}
DONE = {
    WishKind.LEAVE: N_("You left game {game}; your seat is open again."),
    WishKind.WATCH: N_(
        "You watch game {game}: at most once a day you get a summary of its public reports and its press "
        "to all. 'unwatch {game}' stops it."),
    WishKind.UNWATCH: N_("You no longer watch game {game}."),
}
UNSAID = N_("If you did not ask for it, do not reply: nothing changes.")


class Asking(StrEnum):
    """The lobby's words that are no wish: a list of the games, and press."""

    GAMES = "games"  # the open games, and the sender's own
    PRESS = "press"  # a player's press (pbem.mail.press)


def _word(word: str) -> WishKind | Asking:
    return WishKind(word) if word in WishKind.__members__.values() else Asking(word)


class Lobby(Record):
    """A lobby command: its word, its game (named, or the subject's tag), its argument (a
    language, or press's seats), and the text after it (press's message)."""

    word: WishKind | Asking
    game: str | None
    arg: str | None
    text: str


def screened(subject: str) -> bool:
    """Whether a stranger's message may be read at all: its subject (less ``Re:`` and a tag)
    starts with a lobby word or ``confirm`` (every other message of an address no game knows
    is quarantined unread, :class:`pbem.mail.host.MailHost`)."""
    bare = _bare(subject)[0]
    return bool(_SCREEN.match(bare)) or any(asked in fold(bare) for asked in _confirm_subjects())


@cache
def _confirm_subjects() -> frozenset[str]:
    """The subjects of the mails that carry a code, in every language (folded): a stranger's reply to one
    is read, whatever its mail program put before it."""
    return frozenset(fold(translator(lang).gettext(SUBJECTS[f"confirm {word}"])) for lang in LANGS
                     for word in ("join", "leave", "watch", "unwatch"))


def _asked(word: str, game: str) -> Msg:
    """What a held wish's mail says: what was asked from the address, and how long its code works."""
    hours = lobby.CODE_HOURS
    if word == "join":
        return Msg.plural("Someone asked from this address to join game {game}. To take a seat, reply with the line "
                          "below within {n} hour; the code works once, and only from this address.",
                          "Someone asked from this address to join game {game}. To take a seat, reply with the line "
                          "below within {n} hours; the code works once, and only from this address.", hours, game=game)
    if word == "leave":
        return Msg.plural("Someone asked from this address to leave game {game}. To give up your seat, reply with the "
                          "line below within {n} hour; the code works once, and only from this address.",
                          "Someone asked from this address to leave game {game}. To give up your seat, reply with the "
                          "line below within {n} hours; the code works once, and only from this address.", hours,
                          game=game)
    if word == "watch":
        return Msg.plural("Someone asked from this address to watch game {game}: at most once a day, a summary of its "
                          "public reports. To start, reply with the line below within {n} hour; the code works once, "
                          "and only from this address.",
                          "Someone asked from this address to watch game {game}: at most once a day, a summary of its "
                          "public reports. To start, reply with the line below within {n} hours; the code works "
                          "once, and only from this address.", hours, game=game)
    return Msg.plural("Someone asked from this address to stop watching game {game}. To stop, reply with the line "
                      "below within {n} hour; the code works once, and only from this address.",
                      "Someone asked from this address to stop watching game {game}. To stop, reply with the line "
                      "below within {n} hours; the code works once, and only from this address.", hours, game=game)


def asks_lobby(mail: Mail) -> bool:
    """Whether a parsed message is a lobby command or a ``confirm CODE`` in its subject or on
    its text's first line: a stranger's other mail is not answered."""
    try:
        if lobby_of(mail) is not None:
            return True
    except FormatError:  # a lobby command with a wrong argument: answered with what is wrong
        return True
    return code_in(mail.subject, body_text(mail.message)) is not None


def _bare(subject: str) -> tuple[str, str | None]:
    subject = subject.strip()
    while subject.lower().startswith(("re:", "aw:", "fwd:", "fw:")):
        subject = subject.split(":", 1)[1].strip()
    found = _TAG.search(subject)
    return _TAG.sub(" ", subject).strip(), found.group(1).lower() if found else None


def lobby_of(mail: Mail) -> Lobby | None:
    """The lobby command of the message's subject or first line, if it is one."""
    bare, tagged = _bare(mail.subject)
    text = _own_text(body_text(mail.message) or "")
    lines = text.split("\n")
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    candidates = [(bare, text)]
    if first is not None:
        candidates.append((lines[first].strip(), "\n".join(lines[first + 1:])))
    for line, rest in candidates:
        found = _LINE.match(line)
        if found is None:
            continue
        word, name, arg = _word(found.group(1).lower()), found.group(2), found.group(3)
        if word is Asking.PRESS:
            return Lobby(word, tagged, (name or "").lower() or None, rest)
        if arg is not None and arg.lower() not in LANGS:
            raise FormatError(Msg("'{word} GAME LANG': the language is one of {langs}, not {lang}; nothing was "
                                  "changed", word=word, langs=", ".join(LANGS), lang=repr(arg)), "P1")
        return Lobby(word, (name or tagged or "").lower() or None, arg.lower() if arg else None, "")
    return None


def _own_text(text: str) -> str:
    """The sender's own words: no quoted line, nothing after the signature's ``-- ``."""
    out = []
    for line in text.split("\n"):
        if line.rstrip() == "--":
            break
        if not line.startswith(">"):
            out.append(line)
    return "\n".join(out)


def answer(games: Path, address: str, asked: Lobby) -> Answer:
    """The answer to a lobby command other than press (see the module); a wish is held, and
    its code goes to the sender's own address."""
    kind = asked.word
    if not isinstance(kind, WishKind):  # 'games' (press is pbem.mail.press's)
        return games_answer(games, address)
    path = _game_for(games, asked)
    lang = asked.arg or language_of(games, address, path.name)
    if kind is WishKind.UNWATCH:  # an observer reads the language it chose when it began to watch
        lang = load_settings(path).watchers.get(address, lang)
    wish = lobby.hold(path, kind, address, lang)
    said = translator(lang)
    text = (said.say(_asked(kind, wish.game)) + f"\n\n    confirm {wish.code}"
            + "\n\n" + said.say(Msg(UNSAID)) + "\n")
    return Answer(f"{tag(wish.game)} " + said.gettext(SUBJECTS[f"confirm {kind}"]), text, [])


def _game_for(games: Path, asked: Lobby) -> Path:
    """The game a lobby command names (``join`` alone: the first game with an open seat)."""
    if asked.game is None:
        if asked.word is not WishKind.JOIN:
            raise FormatError(Msg("'{word}' needs the game's name, e.g. '{word} GAME'; 'games' lists them. {help}",
                                  word=asked.word, help=Msg(HELP)), "P1")
        found = lobby.open_games(games)
        if not found:
            raise UnknownError(Msg("no game on this host has an open seat now; nothing was changed"), "P1")
        return found[0][0]
    try:
        path = game_dir(games, asked.game)
    except PbemError:
        path = None
    if path is None or not (path / LOG_NAME).is_file() or not (path / SETTINGS_NAME).is_file():
        raise UnknownError(Msg("no game {game} on this host; 'games' lists the open games; nothing was changed",
                               game=repr(asked.game)), "P1")
    return path


def confirmed(games: Path, path: Path, code: str, sender: str) -> Answer:
    """``confirm CODE`` of a held wish: done, and said in the asker's language."""
    waited = left_press(path, sender)  # a digest seat's untold press, for its holder if it leaves
    wish = lobby.confirm(path, code, sender)
    said = translator(wish.lang)
    if wish.kind is WishKind.JOIN:
        settings = load_settings(path)
        seat = settings.players_of(wish.address)[0]
        players = load_game(path).players
        if settings.waiting():
            text = said.say(Msg.plural(
                "You hold seat {seat} of game {game}. {filled} of {n} seat is filled; the opening (P4) begins by "
                "itself once every seat is, and its first mail comes then. Until then 'leave {game}' gives the seat "
                "up.",
                "You hold seat {seat} of game {game}. {filled} of {n} seats are filled; the opening (P4) begins by "
                "itself once every seat is, and its first mail comes then. Until then 'leave {game}' gives the seat "
                "up.", len(players), seat=seat, game=wish.game, filled=len(players) - len(settings.waiting())))
        else:
            text = said.say(Msg("You hold seat {seat} of game {game}, and every seat is now filled: the opening "
                                "(P4) begins, and its first mail follows.", seat=seat, game=wish.game))
    else:
        text = said.say(Msg(DONE[wish.kind], game=wish.game))
        if wish.kind is WishKind.LEAVE and waited:
            text += "\n\n" + said.say(Msg("The press sent to you while you held the seat, which your daily "
                                           "summary had not told yet:"))
            text += "".join(f"\n\n{p.sender} ({when_text(p.at, wish.lang)}):\n" + "\n".join(
                "> " + line for line in p.text.split("\n")) for p in waited)
    return Answer(f"{tag(wish.game)} " + said.gettext(SUBJECTS[wish.kind]), text + "\n", [])


def games_answer(games: Path, address: str) -> Answer:
    """Every open game, and every game ``address`` plays or watches with whose turn it is and
    its deadline: one mail for all (public facts only, P10)."""
    lang = language_of(games, address)
    said = translator(lang)
    lines = [said.say(Msg("Open games (send 'join GAME' to take a seat):"))]
    found = lobby.open_games(games)
    for path, settings in found:
        game = load_game(path)
        deadline = (Msg("deadline {time} a turn", time=duration_text(game.deadline, lang))
                    if game.deadline is not None else Msg("no deadline"))
        langs = sorted({settings.language(seat) for seat in settings.emails}) or [said.say(Msg("no player yet"))]
        lines.append("  " + said.say(Msg.plural(
            "{game}: {free} of {n} seat open; {deadline}; its players read {langs}; press: {press}",
            "{game}: {free} of {n} seats open; {deadline}; its players read {langs}; press: {press}",
            len(game.players), game=path.name, free=len(settings.waiting()), deadline=deadline,
            langs=", ".join(langs), press=settings.press)))
    if not found:
        lines.append("  " + said.say(Msg("none now")))
    mine = seats_of(games, address)
    watched = [child for child in sorted(games.iterdir()) if (child / SETTINGS_NAME).is_file()
               and (child / LOG_NAME).is_file() and address in load_settings(child).watchers] if games.is_dir() else []
    lines += ["", said.say(Msg("Your games:"))]
    lines += ["  " + said.say(Msg("{game} (your seat: {seat}): {state}", game=path.name, seat=seat,
                                  state=where(path, load_game(path), seat, lang))) for path, seat in mine]
    if not mine:
        lines.append("  " + said.say(Msg("none now")))
    if watched:
        lines += ["", said.say(Msg("Games you watch:"))]
        lines += [f"  {path.name}: {where(path, load_game(path), None, lang)}" for path in watched]
    return Answer(said.say(Msg("[rattus] your games and the open games")), "\n".join(lines) + "\n", [])


def where(path: Path, game: Game, seat: str | None, lang: str) -> str:
    """Where a game stands, for ``seat`` (or an observer): whose turn, and its deadline."""
    said = translator(lang)
    if load_settings(path).waiting():
        return said.say(Msg("waiting for players"))
    if game.over or game.opening is Opening.ABANDONED:
        return said.say(Msg("over"))
    if game.state is None:
        awaited = game.awaited
        if seat in awaited:
            return said.say(Msg("the opening (P4): your part is awaited"))
        return said.say(Msg("the opening (P4): awaiting {players}", players=", ".join(awaited)))
    deadline = phrase(game, lang=lang)
    if deadline is not None:
        return deadline
    if game.to_move == seat:
        return said.say(Msg("your turn"))
    return said.say(Msg("{player} to move", player=game.to_move or "-"))
