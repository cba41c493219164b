"""What a player may ask by mail: the board, the template, the log, the
history, a rule; and the language the seat reads.

A message whose subject (less ``Re:`` and a ``[rattus GAME]`` or ``[pbem GAME]`` tag) or
first line of text is one of ``board``, ``template``, ``log``, ``history`` or
``rules R3.2`` is a question, not a move.  It is answered for the sender's game, found
from the sender's registered address (host.yaml); a sender who plays several games names
one with the subject's tag, or is told which games there are.  ``language uk`` (``en``,
``hu``, ``el``, ``uk``) changes the language the sender's seat reads, in host.yaml, and is
answered in the new language.  ``mail turn``, ``mail every`` or ``mail digest`` changes
what the seat is mailed (:data:`pbem.host.settings.MAIL_MODES`); ``receipts off`` (``on``)
whether each move it sends is answered with a short receipt when recorded.  For a seat that holds a
signing key (P8) either change is held, and made only by ``language uk CODE`` (``mail every
CODE``) with the one-time code mailed to the seat's address (a forged From changes nothing).  A command that changes a
setting changes it when the message is decided (:func:`settle`); its answer is composed after.
Every answer is public but the template, which is built from the asking seat's own view only
(:func:`pbem.host.private.seat_view`, P10): no text depends on a face hidden from its reader.
"""

from __future__ import annotations

import re
from email.message import EmailMessage
from pathlib import Path

from pbem.errors import FormatError, PbemError, SignatureError, StateError, UnknownError
from pbem.host.games import load_game
from pbem.host.index import settled
from pbem.host.keyconfirm import hold_setting, take_setting
from pbem.host.private import seat_view
from pbem.host.settings import (
    MAIL_MODES,
    SETTINGS_NAME,
    load_settings,
    set_language,
    set_mail_mode,
    set_receipts,
)
from pbem.i18n import LANG_NAMES, LANGS, N_, Msg, translator
from pbem.log.game import Game
from pbem.log.logfile import LOG_NAME, gzip_log, locked
from pbem.mail import replies
from pbem.mail.bodytext import body_text
from pbem.mail.headers import Mail
from pbem.mail.outgoing import log_name, octet_part
from pbem.record import Record
from pbem.views.rulesref import lookup
from pbem.views.template import template
from pbem.views.text import board_lines
from pbem.views.timeline import history_lines, read_checked

AWAY = "away"  # the command word of an absence (R8.5), which pbem.mail.away writes as the seat's move
COMMANDS = ("board", "template", "log", "history", "rules", "language", "mail", "receipts", "standings", AWAY)
RECEIPTS = ("on", "off")  # 'receipts off': no short receipt of each move the host records
_TAG = re.compile(r"\[(?:rattus|pbem)\s+([a-z0-9][a-z0-9_-]{0,63})\]", re.IGNORECASE)
_COMMAND = re.compile(r"^(board|template|log|history|standings|rules(?:\s+(\S{1,20}))?"
                      r"|(?:language|mail|receipts)(?:\s+(\S{1,20})(?:\s+([A-Za-z2-7]{16}))?)?)\s*\Z", re.IGNORECASE)
_AWAY = re.compile(r"^away\s+(\S{1,20}(?:\s+\S{1,20})?)\s*\Z", re.IGNORECASE)  # R8.5: pbem.mail.away
HELP = N_("Mail commands: send a message whose subject (or first line) is one of 'board', 'template', "
          "'log', 'history', 'rules R3.2', 'language uk' (en, hu, el, uk), 'mail turn', 'mail every', "
          "'mail digest', 'receipts off' (or 'receipts on'), or 'away 3' (or 'away until 2026-12-10': an "
          "absence, R8.5); if you play several games, put '[rattus GAME]' in the subject.")
MAIL_WORDS = {
    "turn": N_("one mail when it is your turn, with what happened since your last turn"),
    "every": N_("a report of every entry, and your template when it is your turn"),
    "digest": N_("one mail when it is your turn, and at most one summary a day of the rest"),
}


class Command(Record):
    """A question by mail: its word, its argument (the rule of ``rules R3.2``, the language of
    ``language uk``), the subject's game tag, and the one-time code that confirms a keyed
    seat's change (``language uk CODE``, P8)."""

    word: str
    rule: str | None
    tag: str | None
    code: str | None


class Answer(Record):
    """The reply's subject and text, and its attachments: (file name, bytes, subtype)."""

    subject: str
    text: str
    files: list[tuple[str, bytes, str]]


def command_of(mail: Mail) -> Command | None:
    """The question a message asks, if its subject or first line of text is a command."""
    subject = mail.subject.strip()
    while subject.lower().startswith(("re:", "aw:", "fwd:")):
        subject = subject.split(":", 1)[1].strip()
    tag_match = _TAG.search(subject)
    tag = tag_match.group(1).lower() if tag_match else None
    bare = _TAG.sub(" ", subject).strip()
    text = body_text(mail.message) or ""
    first = next((line.strip() for line in text.splitlines() if line.strip()), "")
    for candidate in (bare, first):
        away = _AWAY.match(candidate)
        if away is not None:  # R8.5: an absence, written for the seat by pbem.mail.away
            return Command(AWAY, away.group(1), tag, None)
        found = _COMMAND.match(candidate)
        if found is not None:
            word = found.group(1).split()[0].lower()
            rule = found.group(2) or found.group(3)
            if word == "rules" and rule is None:
                raise FormatError(Msg("'rules' needs the rule's number, e.g. 'rules R3.2'. {help}",
                                      help=Msg(HELP)), "R7.3")
            if word == "language" and (rule is None or rule.lower() not in LANGS):
                raise FormatError(Msg("'language' needs one of {choices} (English, Hungarian, Greek, "
                                      "Ukrainian), e.g. 'language uk'. {help}", choices=", ".join(LANGS),
                                      help=Msg(HELP)), "P1")
            if word == "mail" and (rule is None or rule.lower() not in MAIL_MODES):
                raise FormatError(Msg("'mail' needs one of {choices}, e.g. 'mail every'. {help}",
                                      choices=", ".join(MAIL_MODES), help=Msg(HELP)), "P1")
            if word == "receipts" and (rule is None or rule.lower() not in RECEIPTS):
                raise FormatError(Msg("'receipts' needs 'on' or 'off', e.g. 'receipts off'. {help}",
                                      help=Msg(HELP)), "P1")
            if word in ("language", "mail", "receipts") and rule is not None:
                rule = rule.lower()
            return Command(word, rule, tag, found.group(4).upper() if found.group(4) else None)
    return None


def seats_of(games: Path, address: str, tag: str | None = None) -> list[tuple[Path, str]]:
    """Every (game folder, seat) the registered ``address`` plays; only in the game ``tag``
    names, if it names one."""
    seats: list[tuple[Path, str]] = []
    if games.is_dir():
        for child in sorted(games.iterdir()):
            if tag is not None and child.name != tag:
                continue  # the subject names the game: no other game's host.yaml is read
            if (child / SETTINGS_NAME).is_file() and (child / LOG_NAME).is_file():
                seats += [(child, player) for player in load_settings(child).players_of(address)]
    return seats


def sender_seat(games: Path, address: str, tag: str | None) -> tuple[Path, str]:
    """The game folder and the seat of the sender's registered ``address``: the only game it
    plays, or the game the subject's tag names."""
    seats = seats_of(games, address, tag)
    if not seats:
        if tag is not None:
            raise UnknownError(Msg("{address} plays no game on this host in game {game}; nothing to answer",
                                   address=address, game=repr(tag)), "P1")
        raise UnknownError(Msg("{address} plays no game on this host; nothing to answer", address=address), "P1")
    if len(seats) > 1:
        names = ", ".join(sorted({f"{path.name} ({player})" for path, player in seats}))
        raise FormatError(Msg("{address} plays several games here: {games}; put '[rattus GAME]' in the "
                              "subject to say which one", address=address, games=names), "P1")
    return seats[0]


def answer(games: Path, address: str, command: Command) -> Answer:
    """The answer to ``command`` from the seat of ``address`` (see the module): only ever to
    an address registered on this host, whichever transport brought the question."""
    if command.word in ("rules", "standings"):  # public; in the language of the sender's seat, if it has one
        if not seats_of(games, address):  # a stranger's question is no reason to mail anyone
            raise UnknownError(Msg("{address} plays no game on this host, and mail commands are answered for "
                                   "its players only; nothing to answer", address=address), "P1")
        lang = language_of(games, address, command.tag)
        if command.word == "standings":  # the site's table, over the host's finished games
            from pbem.host.people import handle, people_key  # start-up: the site's code only for this question
            from pbem.host.site import standings_of  # start-up: as above
            from pbem.views.standings import table_lines  # start-up: as above

            rows = standings_of(games)
            lines = table_lines(rows, lang)
            if rows:  # named with the host's key, which exists: the asker's own name among them
                lines.append(translator(lang).say(Msg(
                    "You are {name} in the standings: a name the host's key makes from your address (the same in "
                    "every game here; no page shows an address).", name=handle(people_key(games), address))))
            text = "\n".join(lines) + "\n"
            return Answer(translator(lang).say(Msg("pbem: the standings")), text, [])
        lines = lookup(command.rule, lang)
        subject = translator(lang).say(Msg("pbem: the rules, {rule}", rule=command.rule))
        return Answer(subject, "\n".join(lines) + "\n", [])
    path, player = sender_seat(games, address, command.tag)
    if command.word == "language" and command.rule is not None:
        return _language(path, player, command.rule, command.code)
    if command.word == "mail" and command.rule is not None:
        return _mail_mode(path, player, command.rule, command.code)
    if command.word == "receipts" and command.rule is not None:
        return _receipts(path, player, command.rule, command.code)
    lang = load_settings(path).language(player)  # every answer in the seat's language
    said = translator(lang)
    game = load_game(path)
    head = replies.tag(game.game_id)
    log = path / LOG_NAME
    if command.word == "board":  # the text board and its picture, as the report mails have them
        picture = replies.picture_of(game, path, lang)  # once per entry and language
        return Answer(f"{head} " + said.say(Msg("the board after entry {seq}", seq=game.last_seq)),
                      "\n".join(board_lines(game, lang=lang)) + "\n",
                      [] if picture is None else [(f"{game.game_id}-{game.last_seq}.png", picture, "png")])
    if command.word == "log":
        entries = Msg.plural("the log, {n} entry", "the log, {n} entries", game.last_seq + 1)
        return Answer(f"{head} " + said.say(entries),  # gzipped: a long game's log stays a small mail
                      said.say(Msg("The public log is attached, gzipped; anyone can check it with 'pbem verify "
                                   "log.yaml.gz'.")) + "\n", [(log_name(game), gzip_log(log.read_bytes()), "gzip")])
    if command.word == "history":
        return Answer(f"{head} " + said.say(Msg("the history")),
                      "\n".join(history_lines(*read_checked(log), lang=lang)) + "\n", [])
    text = seat_template(path, game, player, lang)  # template: the seat's own view only (P10)
    return Answer(f"{head} " + said.say(Msg("your template, {player} (after entry {seq})", player=player,
                                            seq=game.last_seq)), text,
                  [(f"{game.game_id}-{game.last_seq}-{player}.txt", text.encode("utf-8"), "plain")])


def language_of(games: Path, address: str, tag: str | None = None) -> str:
    """The language the seat of ``address`` reads; English for an address with no one seat."""
    try:
        path, player = sender_seat(games, address, tag)
    except PbemError:
        return "en"
    return load_settings(path).language(player)


def settle(games: Path, address: str, command: Command) -> None:
    """What a command changes, changed when its message is decided: the seat's language
    (``language uk``) or what it is mailed (``mail every``), in host.yaml; other commands
    change nothing.  A seat that holds a key (P8) changes either only with the one-time
    code mailed to its address (without one, :func:`answer` holds the change)."""
    if command.rule is None or command.word not in ("language", "mail", "receipts"):
        return
    path, player = sender_seat(games, address, command.tag)
    game = load_game(path)
    if game.keys.get(player) is not None:
        if command.code is None:
            return
        if not take_setting(path, player, command.code, {command.word: command.rule}):
            raise SignatureError(Msg(
                "no change of {player}'s settings to '{change}' awaits this code (a code is used once, and "
                "only for the change it was mailed for); nothing was changed", player=player,
                change=f"{command.word} {command.rule}"), "P8")
    if command.word == "mail":
        set_mail_mode(path, game.players, player, command.rule)
        with locked(path):
            settled(path)  # the host's index: the game's readers of a daily summary
    elif command.word == "receipts":
        set_receipts(path, game.players, player, command.rule == "on")
    else:
        set_language(path, game.players, player, command.rule)


def _mail_mode(path: Path, player: str, mode: str, code: str | None = None) -> Answer:
    """What the sender's seat is mailed from now on (set by :func:`settle`), said in its language.
    A seat that holds a key (P8), asking without a code, has the change held instead."""
    if code is None and load_game(path).keys.get(player) is not None:
        return _held(path, player, "mail", mode)
    said = translator(load_settings(path).language(player))
    subject = Msg("[rattus {game}] {player} is mailed: {mode}", game=path.name, player=player, mode=mode)
    text = Msg("From now on you get {what}. Refusals, your Witch's looks, deadline notices and the end of the "
               "game always come; 'log' sends the whole log. To change it, send 'mail' and one of {choices}.",
               what=Msg(MAIL_WORDS[mode]), choices=", ".join(MAIL_MODES))
    return Answer(said.say(subject), said.say(text) + "\n", [])


def _receipts(path: Path, player: str, value: str, code: str | None = None) -> Answer:
    """Whether the sender's seat gets a receipt of each move recorded (set by :func:`settle`),
    said in its language.  A seat that holds a key (P8), asking without a code, has it held."""
    if code is None and load_game(path).keys.get(player) is not None:
        return _held(path, player, "receipts", value)
    said = translator(load_settings(path).language(player))
    subject = Msg("[rattus {game}] receipts {value} for {player}", game=path.name, player=player, value=value)
    text = Msg(RECEIPTS_ON if value == "on" else RECEIPTS_OFF, player=player)
    return Answer(said.say(subject), said.say(text) + "\n", [])


RECEIPTS_ON = N_("From now on, {player}, the host answers each move of yours it records with a short receipt "
                 "(no attachment). Send 'receipts off' to stop them.")
RECEIPTS_OFF = N_("From now on, {player}, the host records your moves without a receipt: you hear from it when "
                  "it is your turn again. Send 'receipts on' to have them back.")


def _language(path: Path, player: str, lang: str, code: str | None = None) -> Answer:
    """The seat of the sender reads ``lang`` from now on (set by :func:`settle`); the answer is
    in it.  A seat that holds a key (P8), asking without a code, has the change held instead."""
    if code is None and load_game(path).keys.get(player) is not None:
        return _held(path, player, "language", lang)
    said = translator(lang)
    subject = Msg("[pbem {game}] {player} reads {language} from now on", game=path.name, player=player,
                  language=LANG_NAMES[lang])
    text = Msg("From now on pbem writes to you, {player}, in {language}. To change it again, send a message "
               "whose subject is 'language' and one of {choices}.", player=player, language=LANG_NAMES[lang],
               choices=", ".join(LANGS))
    return Answer(said.say(subject), said.say(text) + "\n", [])


def _held(path: Path, player: str, word: str, value: str) -> Answer:
    """P8: the change (``language``, ``mail``) held, and its code mailed to the seat's own
    address (the sender's, as registered: a forged From gets it to the real player), in the
    language the seat reads now."""
    code = hold_setting(path, player, {word: value})
    said = translator(load_settings(path).language(player))
    if word == "language":
        subject = Msg("[pbem {game}] confirm: {player} to read {language}", game=path.name, player=player,
                      language=LANG_NAMES[value])
        text = Msg("Seat {player} holds a signing key (P8), so its settings change only once confirmed from its "
                   "address. To read {language} from now on, reply with this line:", player=player,
                   language=LANG_NAMES[value])
    elif word == "receipts":
        subject = Msg("[rattus {game}] confirm: receipts {value} for {player}", game=path.name, player=player,
                      value=value)
        text = Msg("Seat {player} holds a signing key (P8), so its settings change only once confirmed from its "
                   "address. To have 'receipts {value}' from now on, reply with this line:", player=player,
                   value=value)
    else:
        subject = Msg("[rattus {game}] confirm: {player} to be mailed: {mode}", game=path.name, player=player,
                      mode=value)
        text = Msg("Seat {player} holds a signing key (P8), so its settings change only once confirmed from its "
                   "address. To get {what} from now on, reply with this line:", player=player,
                   what=Msg(MAIL_WORDS[value]))
    warn = Msg("If you did not ask for it, do not reply: nothing changes.")
    return Answer(said.say(subject), said.say(text) + f"\n\n    {word} {value} {code}\n\n" + said.say(warn) + "\n",
                  [])


def seat_template(path: Path, game: Game, player: str, lang: str = "en") -> str:
    """The seat's current template in ``lang``, from its own view; a refusal once the game is over."""
    if game.over:
        raise StateError(Msg("the game is over: no more moves, so there is no template to send"), "R6.5")
    return template(seat_view(path, game, player), lang=lang)


def attach(msg: EmailMessage, found: Answer) -> None:
    for name, data, subtype in found.files:
        if subtype == "png":
            msg.add_attachment(data, maintype="image", subtype="png", disposition="inline", filename=name)
        elif subtype == "plain":  # a template, in the text already: a file no client shows or quotes again
            msg.add_attachment(data, **octet_part(name))
        else:
            msg.add_attachment(data, maintype="application", subtype=subtype, filename=name)
