"""The end mail's page (``GAME-SEQ-audit.html``): the final scores and the audit in the browser.

The viewer (`pbem html`) draws every entry and is over a megabyte; the end mail carries this small
page instead, packed (:mod:`pbem.views.packed`: its script and body gzipped), beside the log (no
board: the mail stays small, the players saw the board in their last mails): what the game ended
with, and :mod:`pbem.views.auditpage`'s section, which checks the very log the page carries (a long
game's page carries none) or the attached ``log.yaml.gz``, chosen from the disk
with the browser alone (PROTOCOL P3-P6).  Its words are public facts of the log (P10).
"""

from __future__ import annotations

from pbem.i18n import Msg, translator
from pbem.log.game import Game
from pbem.views.auditpage import AUDIT_STYLE, NEEDS_SCRIPT, audit_script, audit_section
from pbem.views.markup import Markup, render
from pbem.views.packed import packed_page
from pbem.views.text import result_lines


def end_page(game: Game, log_text: str | None, lang: str = "en") -> str:
    """The page, in ``lang``, for a finished game and its log's text (None: the page carries no copy
    of the log and asks for the file its mail attaches)."""
    assert game.state is not None  # a game with a revealed secret has started and ended
    say = translator(lang).say
    title = say(Msg("Rattus game {game}: the end", game=game.game_id))
    scores = game.state.scores()
    lines = [say(Msg("Final scores: {scores}.", scores=", ".join(f"{p} {scores[p]}" for p in game.players))),
             *result_lines(game.state, lang=lang)]
    listed = Markup("".join(render("<li>{line}</li>\n", line=line) for line in lines))
    body = render(END, title=title, lines=listed, section=audit_section(log_text, lang))
    plain = render(PLAIN, title=title, lines=listed, needs=say(NEEDS_SCRIPT))
    return packed_page(title, lang, AUDIT_STYLE + END_STYLE, plain, body, audit_script())


PLAIN = """<noscript><h1>{title}</h1><ul id="final">
{lines}</ul><p class="needs-script">{needs}</p></noscript>"""
"""What the page shows where its script does not run: the end, and how to check the log without it."""


END_STYLE = """
body { font-family: DejaVu Sans, Liberation Sans, Arial, sans-serif; margin: 12px; background: #f4f1ea;
       font-size: 16px; }
h1 { font-size: 20px; margin: 0 0 8px 0; }
#final { font-size: 18px; padding-left: 24px; }
#final li { margin-bottom: 6px; }
"""

END = """<main id="end">
<h1>{title}</h1>
<ul id="final">
{lines}</ul>
{section}</main>
"""
