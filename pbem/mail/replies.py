"""Composing the mail host's replies: safe headers, and the mails after an applied move.

Every reply comes from the host's configured address, never from an incoming
header; every address is checked to be a plain ``local@domain`` and every
header value is printable text of bounded length.  After an applied move each
player gets one mail: the mover's result, the public report
and log, the board's picture, the next template, and that player's own private
reveal only.
"""

from __future__ import annotations

import logging
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from email.message import EmailMessage
from email.utils import formatdate
from pathlib import Path

from pbem.errors import FormatError
from pbem.host.private import seat_view
from pbem.host.settings import load_settings, normal_address
from pbem.host.step import Applied
from pbem.i18n import N_, Msg, translator
from pbem.log.game import Game
from pbem.log.logfile import LOG_NAME, gzip_log
from pbem.log.records import Entry, Reveal, Standin, Start, Timeout
from pbem.log.yamlio import dump_yaml
from pbem.mail.accept import public_text
from pbem.mail.headers import MSGID_RE, UTF8, Mail, attach_part, shared_part
from pbem.mail.pictures import board_picture_of
from pbem.referee.seatview import SeatView
from pbem.views.narrate import look_lines
from pbem.views.report import report_lines
from pbem.views.template import template
from pbem.views.text import board_lines

_log = logging.getLogger("pbem.mail.host")

SUBJECT_LIMIT = 160
_ADDRESS_RE = re.compile(r"^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?\Z")
ROUND_SUBJECTS = {
    "commit": N_("round 1 of 2: commit to a nonce"),
    "reveal": N_("round 2 of 2: reveal your nonce"),
    "started": N_("the game has started"),
}
ROUND_TEXT = N_("Your part of the opening (P4): reply with the line the template\n"
                "below asks for ('pbem nonce' can write it for you).")
MOVE_TEXT = N_("It is your move. Reply with the rest of your turn, one action a\n"
               "line, as the template below shows (also attached as a .txt file).\n"
               "Sign it if you registered a key ('pbem sign').")
PAGE_TEXT = N_("Or open the attached page ({name}) in a browser, on a\n"
               "phone too: click your turn, then Send (it writes the lines).")
NO_PAGE_TEXT = N_("No page is attached: {why}.")
LOG_TEXT = N_("The public log is attached, compressed ({name}); anyone can\n"
              "check it with 'pbem verify {name}' (keep it: 'pbem verify NEW\n"
              "--extends OLD' shows the host never rewrote it).")
ACCEPTED_TEXT = N_("Your move was accepted.")
PRIVATE_TEXT = N_("For your eyes only (attached): what your Witch saw, with the salt to check "
                  "it against the commitment in the start entry (P6). Do not forward this message.")
REPLY_SUBJECT = N_("your move")  # a reply's subject when the player's message had none
NO_PAGE_WHY = N_("the host could not make it this time; write the lines from the template")


def tag(game_id: str) -> str:
    """A subject's game tag, ``[pbem GAME]``: never translated (a mail client threads on it)."""
    return f"[pbem {game_id}]"


def round_subject(opening: str, lang: str = "en") -> str:
    """The subject of an opening round's invitation, in ``lang`` (:data:`ROUND_SUBJECTS`)."""
    return translator(lang).gettext(ROUND_SUBJECTS[opening])


def round_text(lang: str = "en") -> str:
    return translator(lang).gettext(ROUND_TEXT)


def move_text(lang: str = "en") -> str:
    return translator(lang).gettext(MOVE_TEXT)


def log_text(game: Game, lang: str = "en") -> str:
    """:data:`LOG_TEXT` for the game's log attachment (its file name kept as it is)."""
    return translator(lang).say(Msg(LOG_TEXT, name=log_name(game)))


def entry_label(entry: Entry, lang: str = "en") -> str:
    """What an entry is, in a subject: the host's own entries by what they do (in ``lang``)."""
    said = translator(lang)
    if isinstance(entry, Start):
        return said.say(Msg("the game starts"))
    if isinstance(entry, Reveal):
        return said.say(Msg("the game is over, the secret revealed"))
    if isinstance(entry, Timeout):
        return said.say(Msg("{player} timed out", player=entry.player))
    if isinstance(entry, Standin):
        return said.say(Msg("a stand-in for {player}", player=entry.player))
    return entry.player or said.say(Msg("the host"))


def entries_subject(entries: list[Entry], lang: str = "en") -> str:
    """``entry 6: blue; entry 7: the game starts``: each entry one applied move added, named
    for who (or what) it is, so that no entry the host wrote is credited to the mover; the
    entries' numbers as they are in every language."""
    said = translator(lang)
    return "; ".join(said.say(Msg("entry {seq}: {label}", seq=e.seq, label=entry_label(e, lang))) for e in entries)


def checked_address(address: str, what: str) -> str:
    """A bare address safe for a header and an SMTP envelope, or :class:`FormatError`."""
    if not _ADDRESS_RE.match(address) or ".." in address:
        raise FormatError(Msg("{what} {address} is not a plain e-mail address (local@domain)", what=what,
                              address=repr(address)), "P1")
    return address


def safe_header(value: str, limit: int = SUBJECT_LIMIT) -> str:
    """A header value made of printable text only: controls (CR, LF...) and separators
    become spaces, runs of spaces one, and the length is capped."""
    out = "".join(" " if unicodedata.category(ch)[0] in ("C", "Z") else ch for ch in value)
    out = " ".join(out.split())
    return out if len(out) <= limit else out[: limit - 3].rstrip() + "..."


def composer_page(view: SeatView, to: str, lang: str = "en") -> tuple[bytes | None, str]:
    """The seat's composer page for its mail, in ``lang``, or None and why
    not (in ``lang``); a page the host cannot make never holds the mail back (the template is in it)."""
    from pbem.views.compose import TooLarge, compose_page  # start-up: only a mail to the seat to move

    try:
        return compose_page(view, to, lang=lang, drawn=drawn_map(view.game, lang)).encode("utf-8"), ""
    except TooLarge as err:
        return None, translator(lang).say(err.args[0])
    except Exception as err:  # a page is a help: the template still goes out (logged)
        _log.warning("no composer page for %s: %s", view.game.game_id, err)
        return None, translator(lang).gettext(NO_PAGE_WHY)


_WORD_BYTES = 39  # UTF-8 bytes in one encoded word: 52 base64 characters, 64 in all (RFC 2047: at most 75)


def encoded_subject(subject: str) -> str:
    """A non-ASCII subject as RFC 2047 encoded words, folded between them, each word holding
    its own spaces: the standard library's folding puts a space between two encoded words
    into the fold, where every reader drops it (two Greek words read as one).  The
    leading ASCII words (the ``[pbem GAME]`` tag a client threads and filters on) stay plain."""
    import base64  # lazily: only a subject in another language than English is encoded here

    cut = next(i for i, ch in enumerate(subject) if not ch.isascii())
    cut = subject.rfind(" ", 0, cut) + 1
    plain, rest = subject[:cut].rstrip(), subject[cut:]
    if len(plain) > 60:  # a long tag would overflow the header's first line: all encoded
        plain, rest = "", subject
    words, chunk = [], ""
    for ch in rest:
        if len((chunk + ch).encode("utf-8")) > _WORD_BYTES:
            words.append(chunk)
            chunk = ""
        chunk += ch
    words.append(chunk)
    encoded = ["=?utf-8?b?" + base64.b64encode(w.encode("utf-8")).decode("ascii") + "?=" for w in words]
    return "\n ".join(([plain] if plain else []) + encoded)


def set_subject(msg: EmailMessage, subject: str) -> None:
    """The mail's subject (made safe, :func:`safe_header`): an ASCII one as it always was, any
    other as :func:`encoded_subject`, kept as written when the mail is put on the wire."""
    subject = safe_header(subject)
    if subject.isascii():
        if "Subject" in msg:
            msg.replace_header("Subject", subject)
        else:
            msg["Subject"] = subject
        return
    del msg["Subject"]
    msg.set_raw("Subject", encoded_subject(subject))


def compose(from_address: str, to: str, subject: str, body: str, message_id: str) -> EmailMessage:
    """A plain-text mail from the host, marked as an automatic reply."""
    msg = EmailMessage()
    msg["From"] = from_address  # the host's, never an incoming message's
    msg["To"] = checked_address(to, Msg("a reply's address"))
    set_subject(msg, subject)
    msg["Date"] = formatdate(localtime=True)
    msg["Message-ID"] = message_id
    msg["Auto-Submitted"] = "auto-replied"
    msg.set_content(public_text(body))
    return msg


def reply(from_address: str, mail: Mail, to: str, body: str, message_id: str, lang: str = "en") -> EmailMessage:
    """:func:`compose` as an answer to ``mail``: "Re:" its subject (if it has none, "your move"
    in ``lang``), threaded under its id."""
    subject = safe_header(mail.subject) or translator(lang).gettext(REPLY_SUBJECT)
    subject = subject if subject.lower().startswith("re:") else f"Re: {subject}"
    msg = compose(from_address, to, subject, body, message_id)
    if mail.message_id and MSGID_RE.match(mail.message_id):
        msg["In-Reply-To"] = mail.message_id
        msg["References"] = mail.message_id
    return msg


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


def applied_mails(
    from_address: str, mail: Mail, report: Report, emails: dict[str, str], inviting: set[str],
    message_id: Callable[[int], str], sender: str,
) -> list[EmailMessage]:
    """One mail per registered player (``message_id(0)`` answers the mover's message), and the
    result to the sender when the sender's address is not the mover's registered one."""
    game = report.applied.game
    mover = report.applied.entries[0].player or "host"
    privates = {p.stem: p for p in report.applied.private}
    out: list[EmailMessage] = []
    mover_told = False
    counter = iter(range(1, 10_000))
    pages: dict[str, tuple[bytes | None, str]] = {}
    settings = load_settings(report.folder)
    for player in game.players:
        if player not in emails:
            continue
        lang = settings.language(player)  # every mail to a seat in its language
        is_mover = normal_address(emails[player]) == sender and player == mover
        if player == game.to_move or player in inviting:  # the page shows the seat's own looks (R5.6)
            pages[player] = composer_page(seat_view(report.folder, game, player), from_address, lang)
        subject, body = _player_text(report, player, mover, is_mover, player in inviting, player in privates,
                                     pages.get(player), lang)
        if is_mover:
            mover_told = True
            msg = reply(from_address, mail, checked_address(emails[player], Msg("a player's address")), body,
                        message_id(0))
            set_subject(msg, subject)
        else:
            msg = compose(from_address, emails[player], subject, body, message_id(next(counter)))
        _attach(msg, report, player, player in inviting, privates.get(player), pages.get(player), lang)
        out.append(msg)
    if not mover_told:  # the sender's address is not the mover's registered one: in the mover's seat's language
        lang = settings.language(mover) if mover in game.players else "en"
        said = translator(lang)
        out.insert(0, reply(from_address, mail, checked_address(sender, Msg("the sender")),
                            said.gettext(ACCEPTED_TEXT) + "\n\n" + "\n".join(report.said(lang)[0]) + "\n",
                            message_id(0), lang))
    return out


def page_name(game: Game, player: str) -> str:
    return f"{game.game_id}-{game.last_seq}-{player}.html"


def log_name(game: Game) -> str:
    return f"{game.game_id}-{game.last_seq}-log.yaml.gz"


def attach_page(msg: EmailMessage, game: Game, player: str, page: tuple[bytes | None, str]) -> None:
    """The composer page (:func:`composer_page`) as an attachment, where one was made."""
    if page[0] is not None:
        msg.add_attachment(page[0], maintype="text", subtype="html", params=UTF8, filename=page_name(game, player))


def page_text(game: Game, player: str, page: tuple[bytes | None, str] | None, lang: str = "en") -> str:
    """What the mail says of the composer page: open it, or why none is attached (in ``lang``)."""
    if page is None:
        return ""
    said = translator(lang)
    return "\n" + (said.say(Msg(PAGE_TEXT, name=page_name(game, player))) if page[0] is not None
                   else said.say(Msg(NO_PAGE_TEXT, why=page[1])))


def _player_text(
    report: Report, player: str, mover: str, is_mover: bool, invited: bool, private: bool,
    page: tuple[bytes | None, str] | None = None, lang: str = "en",
) -> tuple[str, str]:
    """One player's subject and body in ``lang``: the result, the report (its notes once), and
    what is theirs to do or see; the template inline, short lines."""
    game = report.applied.game
    said = translator(lang)
    subject = f"{tag(game.game_id)} {entries_subject(list(report.applied.entries), lang)}"
    lines, board = report.said(lang)
    parts = []
    if is_mover:
        parts.append(said.gettext(ACCEPTED_TEXT))
    parts += ["\n".join(lines), board, log_text(game, lang)]
    if player == game.to_move:
        subject += "; " + said.say(Msg("your move, {player}", player=player))
        parts.append(move_text(lang) + page_text(game, player, page, lang) + "\n\n"
                     + template(SeatView(game, player), lang=lang))
    if invited:
        subject += "; " + round_subject(game.opening.value, lang)
        parts.append(round_text(lang) + page_text(game, player, page, lang) + "\n\n"
                     + template(SeatView(game, player), lang=lang))
    if private:
        subject += "; " + said.say(Msg("private to {player}: your Witch look", player=player))
        looks = look_lines(seat_view(report.folder, game, player), report.applied.entries[0].seq, lang)
        parts.insert(int(is_mover), "\n".join([*looks, said.gettext(PRIVATE_TEXT)]))  # first: the face, in words
    return subject, "\n\n".join(parts) + "\n"


def _attach(msg: EmailMessage, report: Report, player: str, invited: bool, private: Path | None,
            page: tuple[bytes | None, str] | None = None, lang: str = "en") -> None:
    """The picture inline (or, for the seat to move, the composer page, which draws the board),
    the public log compressed, the player's templates and private reveal."""
    game = report.applied.game
    if page is not None and page[0] is not None:
        attach_page(msg, game, player, page)
    elif (picture := report.picture_in(lang)) is not None:  # inline, after the text: clients showing no SVG
        attach_part(msg, report.part(("picture", lang), picture, "image", "png",
                                     f"{game.game_id}-{game.last_seq}.png", disposition="inline"))
    attach_part(msg, report.part(("log", ""), report.log_gz, "application", "gzip", log_name(game)))
    if player == game.to_move:
        msg.add_attachment(
            template(SeatView(game, player), lang=lang).encode("utf-8"), maintype="text", subtype="plain", params=UTF8,
            filename=f"{game.game_id}-{game.last_seq}-{player}.txt",
        )
    if invited:
        msg.add_attachment(
            template(SeatView(game, player), lang=lang).encode("utf-8"), maintype="text", subtype="plain", params=UTF8,
            filename=f"{game.game_id}-{game.opening.value}-{player}.txt",
        )
    if private is not None:  # the seat's own looks, from its view (R5.6, P6)
        view = seat_view(report.folder, game, player)
        msg.add_attachment("".join("---\n" + dump_yaml(doc) for doc in view.private_docs()).encode("utf-8"),
                           maintype="application", subtype="yaml", filename=f"{game.game_id}-private-{player}.yaml")
