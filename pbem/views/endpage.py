"""The end mail's page (``GAME-SEQ-audit.html``): the final scores and the audit in the browser.

The viewer (`pbem html`) draws every entry and is over a megabyte; the end mail carries this small
page instead, beside the log (no board: the mail stays small, the players saw the board in their last
mails): what the game ended with, and :mod:`pbem.views.auditpage`'s section,
which checks the very log the page carries (or the attached ``log.yaml``, chosen from the disk)
with the browser alone (PROTOCOL P3-P6).  Its words are public facts of the log (P10).
"""

from __future__ import annotations

from pbem.i18n import Msg, translator
from pbem.log.game import Game
from pbem.views.auditpage import AUDIT_STYLE, audit_script, audit_section
from pbem.views.html import page_head
from pbem.views.markup import Markup, render
from pbem.views.text import result_lines


def end_page(game: Game, log_text: str, lang: str = "en") -> str:
    """The page, in ``lang``, for a finished game and its log's text."""
    assert game.state is not None  # a game with a revealed secret has started and ended
    say = translator(lang).say
    title = say(Msg("Rattus game {game}: the end", game=game.game_id))
    scores = game.state.scores()
    lines = [say(Msg("Final scores: {scores}.", scores=", ".join(f"{p} {scores[p]}" for p in game.players))),
             *result_lines(game.state, lang=lang)]
    body = render(END, title=title, lines=Markup("".join(render("<li>{line}</li>\n", line=line) for line in lines)),
                  section=audit_section(log_text, lang))
    return page_head(title, audit_script(), AUDIT_STYLE + END_STYLE, lang) + body


END_STYLE = """
body { font-family: DejaVu Sans, Liberation Sans, Arial, sans-serif; margin: 12px; background: #f4f1ea;
       font-size: 16px; }
h1 { font-size: 20px; margin: 0 0 8px 0; }
#final { font-size: 18px; padding-left: 24px; }
#final li { margin-bottom: 6px; }
"""

END = """<body>
<main id="end">
<h1>{title}</h1>
<ul id="final">
{lines}</ul>
{section}</main>
</body>
</html>
"""
