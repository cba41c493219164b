"""A short receipt of a recorded move: the mover hears in the same host run that its move (or
its absence, R8.5) is in the log, instead of days later with its next turn.

The receipt is a plain-text reply to the mover's own message, with no attachment and at most
:data:`RECEIPT_BYTES` bytes whole: the entry it became, what it did and what the host's step
added after it (the public narration every seat reads, P10), and whose turn it is now.  It is
sent by default to a seat that gets no other mail in that run (a ``turn`` or ``digest`` seat
whose turn has passed); an ``every`` seat's report of the entry says the same.  A player turns
it off by mail with ``receipts off`` (:mod:`pbem.mail.commands`).
"""

from __future__ import annotations

from email.message import EmailMessage

from pbem.host.step import Applied
from pbem.i18n import N_, Msg, translator
from pbem.log.records import Away
from pbem.mail.outgoing import lead, tag
from pbem.views.narrate import entry_lines, status_line

RECEIPT_BYTES = 3000  # the whole mail, headers included: a receipt is read at a glance
RECEIPT_FOOT = N_("Nothing to do now: this is a receipt. Send 'receipts off' to stop them.")


def receipt(applied: Applied, player: str, lang: str, room: int = 12) -> tuple[str, str]:
    """The subject and text of ``player``'s receipt for ``applied``, in ``lang``: at most
    ``room`` lines of what the entries did."""
    said = translator(lang)
    game, first = applied.game, applied.entries[0]
    what = (Msg("Your absence was recorded as entry {seq}.", seq=first.seq) if isinstance(first, Away)
            else Msg("Your move was recorded as entry {seq}.", seq=first.seq))
    done = [line for entry in applied.entries for line in entry_lines(game, entry, lang)]
    if len(done) > room:
        more = len(done) - max(room - 1, 0)
        done = [*done[:max(room - 1, 0)], said.say(Msg.plural(
            "... and {n} line more: send 'history' for the whole game",
            "... and {n} lines more: send 'history' for the whole game", more))]
    subject = lead(f"{tag(game.game_id)} " + said.say(
        Msg("absence recorded as entry {seq}: nothing to do", seq=first.seq) if isinstance(first, Away)
        else Msg("recorded as entry {seq}: nothing to do", seq=first.seq)))
    text = [said.say(what), "", *done, "", said.say(Msg("Now: {status}", status=status_line(game, lang))), "",
            said.gettext(RECEIPT_FOOT)]
    return subject, "\n".join(text) + "\n"


def fits(msg: EmailMessage) -> bool:
    """Whether the receipt is within :data:`RECEIPT_BYTES`, as sent."""
    return len(bytes(msg)) <= RECEIPT_BYTES
