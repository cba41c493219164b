"""The end mail's page (``GAME-SEQ-audit.html``): the final scores and the audit in the browser.

The viewer (`pbem html`) draws every entry and is over a megabyte; the end mail carries this small
page instead, packed (:mod:`pbem.views.packed`: its script and body gzipped), beside the log (no
board: the mail stays small, the players saw the board in their last mails): what the game ended
with, and :mod:`pbem.views.auditpage`'s section, which checks the very log the page carries (a long
game's page carries none) or the attached ``log.yaml.gz``, chosen from the disk
with the browser alone (PROTOCOL P3-P6).  Its words are public facts of the log (P10).

The page is the host's file, and a changed page could say FAIR of any log.  So, as the composer
page has, it has a **fingerprint**: the SHA-256 of its head from the line ``<head>`` to the line
``</script>`` (the policy admitting the loader, the page's one script and its one style by their
hashes, then the loader; the script it admits holds every word the verdict says), the same in
every page and language of one pbem version, published in docs/fairplay.md.  ``pbem fingerprint
PAGE`` checks more: the whole file is the page this pbem writes for the log it carries
(:mod:`pbem.player.auditcheck`).
"""

from __future__ import annotations

import hashlib

from pbem import __version__
from pbem.i18n import Msg, translator
from pbem.log.game import Game
from pbem.views.auditpage import AUDIT_STYLE, NEEDS_SCRIPT, audit_script, audit_section
from pbem.views.markup import Markup, render
from pbem.views.packed import head_block, packed_page
from pbem.views.text import result_lines

END_MARK = '<main id="end">'
"""The line that opens the end page's body (packed): what tells `pbem fingerprint` which page it reads."""


def fingerprint() -> str:
    """The end page's fingerprint: the SHA-256 of its head from ``<head>`` to ``</script>``."""
    return hashlib.sha256(head_block(audit_script(), STYLE).encode("utf-8")).hexdigest()


def end_page(game: Game, log_text: str | None, lang: str = "en") -> str:
    """The page, in ``lang``, for a finished game and its log's text (None: the page carries no copy
    of the log and asks for the file its mail attaches)."""
    assert game.state is not None  # a game with a revealed secret has started and ended
    say = translator(lang).say
    title = say(Msg("Rattus game {game}: the end", game=game.game_id))
    scores = game.state.scores()
    lines = [say(Msg("Final scores: {scores}.", scores=", ".join(f"{p} {scores[p]}" for p in game.players))),
             *result_lines(game.state, lang=lang)]
    listed = Markup("").join(render("<li>{line}</li>\n", line=line) for line in lines)
    body = render(END, title=title, lines=listed, section=audit_section(log_text, lang),
                  pbem=f"{__version__} {fingerprint()}", **_check_words(f"{game.game_id}-{game.last_seq}-audit.html",
                                                                        lang))
    plain = render(PLAIN, title=title, lines=listed, needs=say(NEEDS_SCRIPT))
    return packed_page(title, lang, STYLE, plain, body, audit_script())


def _check_words(name: str, lang: str) -> dict[str, str]:
    """How to check this very file, and what the check in the browser rests on."""
    say = translator(lang).say
    return {
        "claim": say(Msg("This page: pbem {version}, audit page fingerprint {print}. That is the page's own claim: "
                         "a changed page can show anything.", version=__version__, print=fingerprint())),
        "rests": say(Msg("The verdict above rests on this file being pbem's page: the host sent it, and a changed "
                         "page could say FAIR of a rewritten log. Check the file itself, once. With pbem: 'pbem "
                         "fingerprint {file}' (it rebuilds the page from the log it carries and names any line that "
                         "differs). With no program but standard tools: \"tr -d '\\r' < {file} | sed -n "
                         "'/^<head>$/,/^<\\/script>$/p' | sha256sum\" must print the fingerprint that pbem's own "
                         "docs/fairplay.md publishes for pbem {version}, not the one this page shows. That fingerprint "
                         "covers the page's security policy, which admits only pbem's script, and that script checks "
                         "the log and writes every word of the verdict; the title, the scores and these lines are the "
                         "host's words, which only 'pbem fingerprint' checks. Without either check, the log.yaml.gz "
                         "beside this page still checks alone: 'python3 tools/audit_min.py log.yaml.gz'.",
                         file=name, version=__version__)),
    }


STYLE_END = """
body { font-family: DejaVu Sans, Liberation Sans, Arial, sans-serif; margin: 12px; background: #f4f1ea;
       font-size: 16px; }
h1 { font-size: 20px; margin: 0 0 8px 0; }
#final { font-size: 18px; padding-left: 24px; }
#final li { margin-bottom: 6px; }
#audit-print { font-size: 14px; color: #333; overflow-wrap: anywhere; }
"""

STYLE = AUDIT_STYLE + STYLE_END
"""The page's one style, admitted by its hash."""

PLAIN = """<noscript><h1>{title}</h1><ul id="final">
{lines}</ul><p class="needs-script">{needs}</p></noscript>"""
"""What the page shows where its script does not run: the end, and how to check the log without it."""

END = END_MARK + """
<h1>{title}</h1>
<ul id="final">
{lines}</ul>
{section}<div id="audit-print" data-pbem="{pbem}">
<p>{claim}</p>
<p>{rests}</p>
</div>
</main>
"""
"""The page's body (packed): :func:`pbem.views.markup.render` escapes every value but the section."""
