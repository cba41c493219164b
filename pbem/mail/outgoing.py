"""What every mail the host sends is made of: safe headers, subjects that lead with what the
reader must do, the words the mails share, and attachments that mail clients neither show
inline nor quote in a reply.

Every reply comes from the host's configured address, never from an incoming header;
every address is checked to be a plain ``local@domain`` and every header value is
printable text of bounded length.  A subject starts with the game's tag and what the
reader must do (``[rattus g] your move (turn 12)``), in the reader's language, in about 60
characters (:data:`SUBJECT_LEAD` at most): an inbox list or a phone shows the first ~40.  The page
and the template go as ``application/octet-stream`` attachments, so that default mutt,
Thunderbird and Gmail offer them as files and a Reply quotes the mail's text alone.
"""

from __future__ import annotations

import unicodedata
from email.message import EmailMessage
from email.utils import formatdate
from typing import Any

from pbem.i18n import N_, Msg, translator
from pbem.log.game import Game
from pbem.log.records import Entry, Reveal, Standin, Start, Timeout
from pbem.mail.accept import public_text
from pbem.mail.headers import MSGID_RE, Mail, checked_address

SUBJECT_LIMIT = 160
SUBJECT_LEAD = 72  # a subject's whole length at most: the tag and what to do come first, in ~60
ROUND_SUBJECTS = {
    "commit": N_("round 1 of 2: send the fingerprint of your secret number"),  # the words of the mail's text,
    "reveal": N_("round 2 of 2: send your secret number"),  # never a bare 'nonce' or 'commit' (P4)
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
TURN_SUBJECT = N_("your move (turn {turn})")
SETUP_SUBJECT = N_("your move (setup: place your cubes)")
NO_PAGE_WHY = N_("the host could not make it this time; write the lines from the template")


def tag(game_id: str) -> str:
    """A subject's game tag, ``[rattus GAME]``: never translated (a mail client threads and
    filters on it; the mail commands read it)."""
    return f"[rattus {game_id}]"


def turn_subject(game: Game, lang: str = "en") -> str:
    """``[rattus g] your move (turn 12)`` in ``lang``: what the reader must do, first; in the
    opening, the round to answer."""
    if game.state is None:
        return f"{tag(game.game_id)} {round_subject(game.opening.value, lang)}"
    said = translator(lang)
    if game.state.turn_number == 0:  # R2.5: the setup's placements come before turn 1
        return f"{tag(game.game_id)} {said.gettext(SETUP_SUBJECT)}"
    return f"{tag(game.game_id)} " + said.say(Msg(TURN_SUBJECT, turn=game.state.turn_number))


def lead(subject: str) -> str:
    """A subject cut to :data:`SUBJECT_LEAD` characters (what follows is only detail)."""
    return safe_header(subject, SUBJECT_LEAD)


def end_name(game_id: str, seq: int) -> str:
    """The end mail's page (:mod:`pbem.views.endpage`), named as every page a mail attaches: game, entry, kind."""
    return f"{game_id}-{seq}-audit.html"


def octet_part(filename: str) -> dict[str, Any]:
    """``add_attachment``'s arguments for a file that no client shows inline or quotes in a
    Reply: ``application/octet-stream``, offered as a file to save or open by its name."""
    return {"maintype": "application", "subtype": "octet-stream", "filename": filename}


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


def safe_header(value: str, limit: int = SUBJECT_LIMIT) -> str:
    """A header value made of printable text only: controls (CR, LF...) and separators
    become spaces, runs of spaces one, and the length is capped."""
    out = "".join(" " if unicodedata.category(ch)[0] in ("C", "Z") else ch for ch in value)
    out = " ".join(out.split())
    return out if len(out) <= limit else out[: limit - 3].rstrip() + "..."


_WORD_BYTES = 39  # UTF-8 bytes in one encoded word: 52 base64 characters, 64 in all (RFC 2047: at most 75)


def encoded_subject(subject: str) -> str:
    """A non-ASCII subject as RFC 2047 encoded words, folded between them, each word holding
    its own spaces: the standard library's folding puts a space between two encoded words
    into the fold, where every reader drops it (two Greek words read as one).  The
    leading ASCII words (the ``[rattus GAME]`` tag a client threads and filters on) stay plain."""
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


def page_name(game: Game, player: str) -> str:
    return f"{game.game_id}-{game.last_seq}-{player}.html"


def log_name(game: Game) -> str:
    return f"{game.game_id}-{game.last_seq}-log.yaml.gz"


def attach_page(msg: EmailMessage, game: Game, player: str, page: tuple[bytes | None, str]) -> None:
    """The composer page (:func:`composer_page`) as an attachment, where one was made."""
    if page[0] is not None:  # a file to open, never shown inline nor quoted in a Reply
        msg.add_attachment(page[0], **octet_part(page_name(game, player)), cte=plain_cte(page[0]))


def plain_cte(data: bytes) -> str:
    """``7bit`` for a file that is ASCII in lines a mail carries as they are (a packed page,
    :mod:`pbem.views.packed`: no second base64, a third smaller), else ``base64``."""
    if data.isascii() and b"\r" not in data and all(len(line) <= 990 for line in data.split(b"\n")):
        return "7bit"
    return "base64"


def page_text(game: Game, player: str, page: tuple[bytes | None, str] | None, lang: str = "en") -> str:
    """What the mail says of the composer page: open it, or why none is attached (in ``lang``)."""
    if page is None:
        return ""
    said = translator(lang)
    return "\n" + (said.say(Msg(PAGE_TEXT, name=page_name(game, player))) if page[0] is not None
                   else said.say(Msg(NO_PAGE_TEXT, why=page[1])))
