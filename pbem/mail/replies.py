"""The mails after an applied move, composed from the recorded entries, as each seat asked.

What a seat is mailed is its mail mode (:data:`pbem.host.settings.MAIL_MODES`, host.yaml):

* ``turn`` (the default): one mail when it is the seat's turn (or its part of the opening),
  holding what happened since its last turn as a short narration, the board in words, its template
  and its composer page; and a mail of its own for a Witch's look that does not end in its
  turn.  Nothing else but refusals, deadline notices and the end, which every mode gets;
* ``every``: a report of every entry (the picture, the public log), the template and the
  page when it is the seat's turn;
* ``digest``: the ``turn`` mails, and at most one summary a day (:mod:`pbem.mail.digest`).

Every mail is built from the seat's own view (P10), in the seat's language; its subject
leads with what the reader must do; its text part comes first, the page, the template
file and the log as attachments no client shows inline or quotes (:mod:`pbem.mail.outgoing`).
The whole log stays one 'log' mail command away.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from email.message import EmailMessage
from functools import partial
from pathlib import Path

from pbem.host.private import seat_view
from pbem.host.settings import Settings, load_settings, normal_address
from pbem.host.step import Applied
from pbem.i18n import N_, Msg, translator
from pbem.log.game import Game
from pbem.log.logfile import LOG_NAME, gzip_log
from pbem.log.records import Away
from pbem.log.yamlio import dump_yaml
from pbem.mail.headers import Mail, attach_part, checked_address, shared_part
from pbem.mail.outgoing import (
    ACCEPTED_TEXT,
    LOG_TEXT,
    MOVE_TEXT,
    NO_PAGE_TEXT,
    NO_PAGE_WHY,
    PAGE_TEXT,
    PRIVATE_TEXT,
    REPLY_SUBJECT,
    ROUND_SUBJECTS,
    ROUND_TEXT,
    SUBJECT_LIMIT,
    TURN_SUBJECT,
    attach_page,
    compose,
    encoded_subject,
    entries_subject,
    entry_label,
    lead,
    log_name,
    log_text,
    move_text,
    octet_part,
    page_name,
    page_text,
    reply,
    round_subject,
    round_text,
    safe_header,
    set_subject,
    tag,
    turn_subject,
)
from pbem.mail.pictures import board_picture_of
from pbem.referee.seatview import SeatView
from pbem.views.mailboard import board_words
from pbem.views.narrate import look_lines
from pbem.views.orders import MOST_LINES
from pbem.views.report import report_lines
from pbem.views.sincelast import news
from pbem.views.template import template_in
from pbem.views.text import board_lines, face_text

__all__ = [  # the words and headers every mail shares, from pbem.mail.outgoing, as they always were here
    "ACCEPTED_TEXT", "LOG_TEXT", "MOVE_TEXT", "NO_PAGE_TEXT", "PAGE_TEXT", "PRIVATE_TEXT", "REPLY_SUBJECT",
    "ROUND_SUBJECTS", "ROUND_TEXT", "SUBJECT_LIMIT", "TURN_SUBJECT", "Report", "applied_mails", "attach_page",
    "board_picture", "checked_address", "compose", "composer_page", "drawn_map", "encoded_subject",
    "entries_subject", "entry_label", "log_name", "log_text", "move_text", "octet_part", "page_name", "page_text",
    "picture_of", "reply", "round_subject", "round_text", "safe_header", "set_subject", "tag", "turn_subject",
]

_log = logging.getLogger("pbem.mail.host")
Threads = list[tuple[str, Game, str]]  # (Message-ID, game, seat) of each mail carrying a seat's template
MAIL_PAGE_BYTES = 120_000  # a larger page stays out of the mail (a packed page is about 20 KB, attached as it is)
QUOTED_LINES = 58  # a 'your move' mail's text part, at most: its quote in a Reply stays within about 60 lines
NO_BOARD = N_("The board: no room for it in this mail; send 'board' for it.")
NARRATION_LINES = 4  # the fewest lines a 'your move' mail keeps for what happened since the seat's last turn
TURN_TEXT = N_("Reply with the rest of your turn, one action a line (no need to quote),\n"
               "or open the attached page ({name}): it draws the board.")


def composer_page(view: SeatView, to: str, lang: str = "en") -> tuple[bytes | None, str]:
    """The seat's composer page for its mail, in ``lang``, or None and why
    not (in ``lang``); a page the host cannot make never holds the mail back (the template is in it)."""
    from pbem.views.compose import compose_page  # start-up: only a mail to the seat to move

    try:
        page = compose_page(view, to, lang=lang).encode("utf-8")
    except Exception as err:  # a page is a help: the template still goes out (logged)
        _log.warning("no composer page for %s: %s", view.game.game_id, err)
        return None, translator(lang).gettext(NO_PAGE_WHY)
    if len(page) > MAIL_PAGE_BYTES:  # a mail a phone carries: the template is in its text
        return None, translator(lang).say(Msg(
            "this position's page ({kb} KB) would make the mail too large; write the lines from the template, "
            "or make the page with 'pbem html --compose'", kb=len(page) // 1000))
    return page, ""


def board_picture(game: Game, lang: str = "en") -> bytes | None:
    """The map as a small PNG for the report mails, its names in ``lang``; a mail without it
    beats no mail (logged)."""
    try:
        from pbem.views.svg import mail_png  # start-up: the rasterizer only where a picture is sent

        return mail_png(drawn_map(game, lang))
    except Exception as err:  # e.g. resvg-py missing or failing: the words still go out
        _log.warning("no board picture for %s: %s", game.game_id, err)
        return None


_DRAWN: list[tuple[Game, str, str, str]] = []  # the map drawn last: (its game, the game's last hash, language, drawing)


def drawn_map(game: Game, lang: str) -> str:
    """The map's drawing (``map_svg``) of this very game and entry in ``lang``, once for its picture and page."""
    from pbem.views.compose import marked_map  # start-up: only where a picture or a page is made
    if _DRAWN and _DRAWN[0][0] is game and _DRAWN[0][1:3] == (game.last_hash, lang):
        return _DRAWN[0][3]
    svg = marked_map(game, lang)
    _DRAWN[:] = [(game, game.last_hash, lang, svg)]
    return svg


def picture_of(game: Game, folder: Path, lang: str) -> bytes | None:
    """:func:`board_picture` in ``lang``, kept in the game's folder for every mail of its entry
    (pbem.mail.pictures; :func:`board_picture` looked up when called, so a test may replace it)."""
    return board_picture_of(game, folder, lambda g: board_picture(g, lang), lang)


@dataclass(frozen=True)
class Report:
    """What every player's mail after one applied move shares: public facts only (P10).
    ``lines`` and ``board`` are the English ones; :meth:`said` gives them in a seat's language."""

    applied: Applied
    lines: list[str]
    log_gz: bytes  # the public log, gzip-compressed: a report mail stays small
    board: str
    picture: bytes | None  # the English picture; :meth:`picture_in` gives a seat's
    folder: Path  # the game's folder: each player's own view (their looks) is read from it
    languages: dict[str, tuple[list[str], str]] = field(default_factory=dict, compare=False, repr=False)
    pictures: dict[str, bytes | None] = field(default_factory=dict, compare=False, repr=False)
    parts: dict[tuple[str, str], EmailMessage] = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def of(cls, applied: Applied, path: Path) -> Report:
        lines = report_lines(applied.game, applied.entries, private_hint=False)  # the notes, once
        log_gz = gzip_log((path / LOG_NAME).read_bytes())
        board = "\n".join(board_lines(applied.game, notes=False))
        picture = picture_of(applied.game, path, "en")  # one drawing for every mail of the entry
        return cls(applied, lines, log_gz, board, picture, path, {"en": (lines, board)}, {"en": picture})

    def picture_in(self, lang: str) -> bytes | None:
        """The board's picture with its names in ``lang``: one drawing per entry and language."""
        if lang not in self.pictures:
            self.pictures[lang] = picture_of(self.applied.game, self.folder, lang)
        return self.pictures[lang]

    def part(self, key: tuple[str, str], data: bytes, maintype: str, subtype: str, filename: str,
             disposition: str | None = None) -> EmailMessage:
        """The attachment ``key`` names (the picture in a language, the log), one for every mail of the entry."""
        if key not in self.parts:
            self.parts[key] = shared_part(data, maintype, subtype, filename, disposition)
        return self.parts[key]

    def said(self, lang: str) -> tuple[list[str], str]:
        """The report's lines and the text board in ``lang``, made once per language."""
        if lang not in self.languages:
            game = self.applied.game
            self.languages[lang] = (report_lines(game, self.applied.entries, private_hint=False, lang=lang),
                                    "\n".join(board_lines(game, notes=False, lang=lang)))
        return self.languages[lang]


class Seat:
    """One registered seat's part of an applied move's mails."""

    def __init__(self, report: Report, player: str, address: str, settings: Settings, sender: str,
                 inviting: set[str]) -> None:
        game = report.applied.game
        self.player, self.address = player, address
        self.lang = settings.language(player)  # every mail to a seat in its language
        self.mode = settings.mail_mode(player)
        mover = report.applied.entries[0].player
        self.is_mover = normal_address(address) == sender and player == mover
        self.to_move = player == game.to_move
        self.invited = player in inviting
        self.private = next((p for p in report.applied.private if p.stem == player), None)
        self.folder, self.game = report.folder, game
        self._view: SeatView | None = None
        self._template: tuple[int, str] | None = None

    def view(self) -> SeatView:
        """The seat's own view, its Witch's looks included (P10: read once, from its private file)."""
        if self._view is None:
            self._view = seat_view(self.folder, self.game, self.player)
        return self._view

    def template(self, most: int = MOST_LINES) -> str:
        """The seat's template in its language, in about ``most`` lines, made once for the text and the file."""
        if self._template is None or self._template[0] != most:
            self._template = (most, template_in(self.view(), self.lang, most))
        return self._template[1]

    def looks(self, report: Report) -> list[str]:
        """What the seat's Witch saw in this move's entries, in words, from its own view (R5.6, P10)."""
        return look_lines(self.view(), report.applied.entries[0].seq, self.lang)

    @property
    def turn(self) -> bool:
        """Whether this mail asks the seat for a move (its turn, or its part of the opening)."""
        return self.to_move or self.invited


def applied_mails(
    from_address: str, mail: Mail, report: Report, emails: dict[str, str], inviting: set[str],
    message_id: Callable[[int], str], sender: str, threads: Threads | None = None,
) -> list[EmailMessage]:
    """The mails each registered seat asked for (see the module; ``message_id(0)`` answers the
    mover's message), and the result to the sender when the sender's address is not the
    mover's registered one.  ``threads`` gets each mail that carries a seat's template."""
    game = report.applied.game
    mover = report.applied.entries[0].player or "host"
    out: list[EmailMessage] = []
    mover_told = False
    counter = iter(range(1, 10_000))
    settings = load_settings(report.folder)
    # R8.5: another seat's absence changes nothing in a turn: no second 'your move' for it
    others_away = all(isinstance(entry, Away) for entry in report.applied.entries)
    for player in game.players:
        if player not in emails:
            continue
        seat = Seat(report, player, emails[player], settings, sender, inviting)
        mover_told = mover_told or seat.is_mover
        if seat.mode == "every":
            subject, body, page = _every_text(report, seat, from_address)
        elif (seat.turn and not (others_away and not seat.is_mover)) or seat.private is not None:
            subject, body, page = _turn_text(report, seat, from_address)
        elif seat.is_mover and player not in settings.no_receipts and not game.over:
            out.append(_receipt(report, seat, partial(reply, from_address, mail, checked_address(
                seat.address, Msg("a player's address")), message_id=message_id(0))))  # text alone, no attachment
            continue
        else:
            continue  # nothing for this seat to do or see now
        if seat.is_mover:
            msg = reply(from_address, mail, checked_address(emails[player], Msg("a player's address")), body,
                        message_id(0))
            set_subject(msg, subject)
        else:
            msg = compose(from_address, emails[player], subject, body, message_id(next(counter)))
        _attach(msg, report, seat, page)
        if seat.turn and threads is not None:
            threads.append((str(msg["Message-ID"]), game, player))
        out.append(msg)
    if not mover_told:  # the sender's address is not the mover's registered one: in the mover's seat's language
        lang = settings.language(mover) if mover in game.players else "en"
        said = translator(lang)
        out.insert(0, reply(from_address, mail, checked_address(sender, Msg("the sender")),
                            said.gettext(ACCEPTED_TEXT) + "\n\n" + "\n".join(report.said(lang)[0]) + "\n",
                            message_id(0), lang))
    return out


def _receipt(report: Report, seat: Seat, make: Callable[..., EmailMessage]) -> EmailMessage:
    """The mover's receipt (:func:`pbem.mail.receipt.receipt`), the reply ``make`` writes with its
    text, with fewer lines of what the entries did until the whole mail is within its bytes."""
    from pbem.mail.receipt import fits, receipt  # start-up: only a mover with no other mail

    for room in (12, 6, 2, 0):
        subject, body = receipt(report.applied, seat.player, seat.lang, room)
        msg = make(body=body)
        set_subject(msg, subject)
        if fits(msg):
            break
    return msg


def _turn_text(report: Report, seat: Seat, host: str) -> tuple[str, str, tuple[bytes | None, str] | None]:
    """A ``turn`` seat's one mail: its move asked for (what happened since its last turn, the
    board in words, its template, its page, which draws the board), in at most
    :data:`QUOTED_LINES` lines; after its own Witch's look (R5.6, R7.5: the same turn goes on),
    the face first, in the subject too, and no narration (nothing happened but its own move);
    or its Witch's look alone when the turn is not its own."""
    game = report.applied.game
    said = translator(seat.lang)
    if not seat.turn:
        subject = f"{tag(game.game_id)} " + said.say(Msg("private to {player}: your Witch look", player=seat.player))
        return lead(subject), "\n".join([*seat.looks(report), said.gettext(PRIVATE_TEXT)]) + "\n", None
    page = composer_page(seat.view(), host, seat.lang)  # its own looks too (P10: its view alone)
    looked = seat.looks(report) if seat.private is not None else []  # the face, in words (the seat's own view)
    head = [*looked, said.gettext(PRIVATE_TEXT)] if looked else []
    head += [said.gettext(ACCEPTED_TEXT), ""] if seat.is_mover and not looked else []
    intro = said.say(Msg(TURN_TEXT, name=page_name(game, seat.player)) if page[0] is not None
                     else Msg(NO_PAGE_TEXT, why=page[1])) if seat.to_move else round_text(seat.lang)
    tells = not looked and game.state is not None  # after a look, nothing happened but the seat's own move
    for pairs, told in ((False, NARRATION_LINES), (True, NARRATION_LINES), (True, 2), (True, 0), (None, 0)):
        board = board_words(seat.view(), seat.lang, pairs) if pairs is not None else [said.say(NO_BOARD)]
        middle = [*board, ""] if board and game.state is not None else []  # given up first: the news, then the board
        room = QUOTED_LINES - len(head) - len(middle) - len(intro.split("\n")) - 2 - (told if tells else 0)
        tail = ["", *middle, *intro.split("\n"), "", *seat.template(room).rstrip("\n").split("\n")]
        if len(head) + len(tail) + (told + 1 if tells else 0) <= QUOTED_LINES:
            break
    if tells and told:
        head += news(report.applied.game, report.applied.entries, seat.player, seat.lang,
                     QUOTED_LINES - len(head) - len(tail))
    subject = turn_subject(game, seat.lang)
    if looked:  # the face in the subject too, after what to do (the turn's number is in the template)
        look = seat.view().looks[-1]  # the newest: this move's (a look ends a move file, R7.5)
        subject = f"{tag(game.game_id)} {said.gettext(REPLY_SUBJECT)}; " + said.say(Msg(
            "your Witch saw {token}: {face}", token=look.token, face=face_text(game, look.token_id, seat.lang)))
    lines = [*head, *tail]
    text = [line for i, line in enumerate(lines) if line or (i and lines[i - 1])]  # one blank line at most
    return lead(subject), "\n".join(text).strip("\n") + "\n", page


def _every_text(report: Report, seat: Seat, host: str) -> tuple[str, str, tuple[bytes | None, str] | None]:
    """An ``every`` seat's mail of each entry: the result, the report (its notes once), and what
    is theirs to do or see; the template inline, short lines."""
    game = report.applied.game
    said = translator(seat.lang)
    page = composer_page(seat.view(), host, seat.lang) if seat.turn else None
    lines, board = report.said(seat.lang)
    parts = []
    if seat.is_mover:
        parts.append(said.gettext(ACCEPTED_TEXT))
    parts += ["\n".join(lines), board, log_text(game, seat.lang)]
    subject = f"{tag(game.game_id)} {entries_subject(list(report.applied.entries), seat.lang)}"
    if seat.to_move:
        subject = turn_subject(game, seat.lang) + "; " + entries_subject(list(report.applied.entries), seat.lang)
        parts.append(move_text(seat.lang) + page_text(game, seat.player, page, seat.lang) + "\n\n"
                     + seat.template())
    if seat.invited:
        subject = turn_subject(game, seat.lang) + "; " + entries_subject(list(report.applied.entries), seat.lang)
        parts.append(round_text(seat.lang) + page_text(game, seat.player, page, seat.lang) + "\n\n"
                     + seat.template())
    if seat.private is not None:
        subject += "; " + said.say(Msg("private to {player}: your Witch look", player=seat.player))
        parts.insert(int(seat.is_mover), "\n".join([*seat.looks(report), said.gettext(PRIVATE_TEXT)]))  # the face first
    return subject, "\n\n".join(parts) + "\n", page


def _attach(msg: EmailMessage, report: Report, seat: Seat, page: tuple[bytes | None, str] | None) -> None:
    """The page (which draws the board) for a seat asked to move, else the picture inline for an
    ``every`` seat; an ``every`` seat's public log compressed and template file; the private reveal."""
    game = report.applied.game
    if page is not None and page[0] is not None:
        attach_page(msg, game, seat.player, page)
    elif seat.mode == "every" and (picture := report.picture_in(seat.lang)) is not None:
        attach_part(msg, report.part(("picture", seat.lang), picture, "image", "png",
                                     f"{game.game_id}-{game.last_seq}.png", disposition="inline"))
    if seat.mode == "every":  # a 'turn' mail stays short: the log is one 'log' mail command away
        attach_part(msg, report.part(("log", ""), report.log_gz, "application", "gzip", log_name(game)))
    if seat.turn and seat.mode == "every":  # a 'turn' mail holds its template in its text alone
        name = (f"{game.game_id}-{game.last_seq}-{seat.player}.txt" if seat.to_move
                else f"{game.game_id}-{game.opening.value}-{seat.player}.txt")
        msg.add_attachment(seat.template().encode("utf-8"), **octet_part(name))
    if seat.private is not None:  # the seat's own looks, from its view (R5.6, P6)
        looks = "".join("---\n" + dump_yaml(doc) for doc in seat.view().private_docs())
        msg.add_attachment(looks.encode("utf-8"), maintype="application", subtype="yaml",
                           filename=f"{game.game_id}-private-{seat.player}.yaml")
