"""`pbem html`: one self-contained page to step through a game, entry by entry.

Each entry's board is drawn (:mod:`pbem.views.svg`) from the game as the public log's
replay has it after that entry (:func:`pbem.views.timeline.steps`), with the entry's
narration (:mod:`pbem.views.narrate`) and, once the secret is revealed, the audit's
verdict (P6).  The page loads nothing: the drawings and a few lines of script
are inline, and its Content-Security-Policy forbids any fetch.  The whole board fits the
screen's width, its words 10 pixels and more, and zooms (:mod:`pbem.views.viewerpage`).  It honours a
``#entry=N`` fragment, so a link (or a test) can open it at entry N.

Each entry's drawings are lists of indexes into one table of the distinct lines of all
of them (:func:`drawing` joins them as the page's script does): an entry changes a region
or two, so the page holds each region's pieces and each panel section once.
Nothing from the log reaches the page as markup: the title is escaped,
every entry's drawing, narration and verdict travel in one JSON data block whose
``<``, ``>`` and ``&`` are ``\\u`` escapes (and U+2028/2029, with all non-ASCII),
and the script puts the words in with ``textContent``.  The policy admits no
``unsafe-inline``: the one script and the one style are admitted by their SHA-256
hashes, computed when the page is made, and there is no inline event handler.
"""

from __future__ import annotations

import base64
import hashlib
import json
from typing import Any

from pbem.errors import PbemError
from pbem.i18n import Msg, Names, error_text, translator
from pbem.log.game import Game
from pbem.log.records import Entry, Reveal
from pbem.referee.audit import audit
from pbem.rules import State
from pbem.views.auditpage import AUDIT_STYLE, audit_script, audit_section
from pbem.views.markup import Markup, render
from pbem.views.narrate import entry_lines, status_line
from pbem.views.svg import board_svg, panel_svg
from pbem.views.text import result_lines
from pbem.views.timeline import steps
from pbem.views.trust import audit_verdict, host_alone, seed_line  # `pbem audit`'s words
from pbem.views.viewerpage import SCRIPT, STYLE

__all__ = ["SCRIPT", "STYLE", "drawing", "game_page", "viewer_and_game"]


def csp_hash(source: str) -> str:
    """A CSP source for one inline script or style: ``'sha256-...'`` of its exact text."""
    return "'sha256-" + base64.b64encode(hashlib.sha256(source.encode("utf-8")).digest()).decode("ascii") + "'"


def policy(script: str, style: str, *before: str) -> str:
    """The page's Content-Security-Policy: nothing fetched, only this script (and the scripts
    ``before`` it: a packed page's loader, :mod:`pbem.views.packed`) and this style run."""
    scripts = " ".join(csp_hash(source) for source in (*before, script))
    return (f"default-src 'none'; script-src {scripts}; style-src {csp_hash(style)}; "
            "img-src data:; base-uri 'none'; form-action 'none'")


HEAD_BLOCK = """<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="{policy}">
<script>{script}</script>
"""
"""The part of a page's head that decides what runs, the same in every language: from the line
``<head>`` to the line ``</script>`` (the policy first, then the one script)."""

HEAD = """<!DOCTYPE html>
<html lang="{lang}" data-csp-violations="0">
{head}<title>{title}</title>
<style>{style}</style>
</head>
"""


def head_block(script: str, style: str) -> Markup:
    """:data:`HEAD_BLOCK` for ``script`` and ``style``: what a page's fingerprint is taken over."""
    return render(HEAD_BLOCK, policy=Markup(policy(script, style)), script=Markup(script))


def page_head(title: str, script: str, style: str, lang: str = "en") -> Markup:
    """A page's doctype and head: its language (``<html lang>``), a phone's viewport, the CSP
    admitting exactly ``script`` and ``style`` (by hash), both inline; ``title`` is text."""
    return render(HEAD, lang=lang, head=head_block(script, style), title=title, style=Markup(style))


def script_data(data: Any) -> str:
    """JSON safe inside a ``<script type="application/json">`` block: no ``<``, ``>`` or ``&``
    (so no ``</script>`` or ``<!--``), and only ASCII (so no U+2028/2029)."""
    blob = json.dumps(data, ensure_ascii=True, separators=(",", ":"))
    return blob.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def changed_between(before: State | None, now: State | None) -> list[str]:
    """The regions whose cubes or rats differ between two states (an entry's changes)."""
    if before is None or now is None:
        return []
    return [r for r in now.regions if now.rats[r] != before.rats.get(r) or now.cubes[r] != before.cubes.get(r)]


def _verdict(game: Any, reveal_seq: int, lang: str = "en") -> dict[str, Any]:
    """P6: the audit of a revealed game, as the page shows it from the reveal entry on."""
    say = translator(lang).say
    try:
        findings = audit(game)
    except PbemError as err:
        return {"from": reveal_seq, "fair": False,
                "lines": [say(audit_verdict(err, lang=lang)), error_text(err, lang)]}
    seed = seed_line(game, lang=lang)  # whose entropy made the seed (P4): every verdict says it
    return {"from": reveal_seq, "fair": not host_alone(game),  # P4: a seed of the host's alone is never fair
            "lines": [say(Msg("ok: {finding}", finding=f)) for f in findings] + ([say(seed)] if seed else [])
            + [say(audit_verdict(None, game, lang=lang))]}


def _frame_lines(game: Any, entry: Entry, changed: list[str], lang: str) -> list[str]:
    """One entry's words on the page: its narration, where the game stands, the result, the changes."""
    say = translator(lang).say
    lines = [say(line) for line in entry_lines(game, entry, lang=lang)]
    lines.append(say(Msg("now: {status}", status=status_line(game, lang=lang))))
    lines.extend(say(line) for line in result_lines(game.state, lang=lang))
    if changed:
        lines.append(say(Msg("changed: {regions} (dashed on the board)", regions=Names.regions(changed))))
    return lines


def _words(lang: str) -> dict[str, str]:
    """The words the page's script writes, in ``lang`` (the script itself knows no language)."""
    return {"where": translator(lang).say(Msg("entry {i} of {last}  ({at})", i="{i}", last="{last}", at="{at}"))}


def _lines(parts: dict[str, int], drawing_text: str) -> list[int]:
    """A drawing as indexes into the page's table of distinct lines (``parts``, filled as it
    goes): an entry's drawing is mostly the one before's (each region's pieces, each card row
    are a line of their own, :mod:`pbem.views.svg`), so a game's page holds each once."""
    return [parts.setdefault(line, len(parts)) for line in drawing_text.split("\n")]


def drawing(data: dict[str, Any], lines: list[int]) -> str:
    """A frame's drawing (its ``svg`` or its ``panel``) from the page's data, as the page's script
    puts it together: the lines the indexes name, in order."""
    return "\n".join(data["parts"][k] for k in lines)


def press_block(press: list[tuple[str, str, str]], lang: str = "en") -> Markup:
    """The game's public press (at, sender seat, text), in order, each value escaped; nothing without any."""
    if not press:
        return Markup("")
    items = Markup("").join(render("<li><b>{sender}</b> <small>{at}</small><pre>{text}</pre></li>", sender=sender,
                                   at=at, text=text) for at, sender, text in press)
    return render('<section id="press"><h2>{head}</h2><ol>{items}</ol></section>',
                  head=translator(lang).say(Msg("Press to all")), items=items)


def game_page(entries: list[Entry], hashes: list[str], lang: str = "en",
              log_text: str | None = None, press: list[tuple[str, str, str]] | None = None) -> tuple[str, int]:
    """The page and its number of entries, in ``lang``, with the game's public press (at,
    sender, text) below the board; a log that does not replay is refused (P7).  With
    ``log_text`` (the log file's own text), the page checks it in the browser too
    (:mod:`pbem.views.auditpage`: the reader need not take the host's word, P3-P6)."""
    page, count, _game = viewer_and_game(entries, hashes, lang, log_text, press)
    return page, count


def viewer_and_game(entries: list[Entry], hashes: list[str], lang: str = "en", log_text: str | None = None,
                    press: list[tuple[str, str, str]] | None = None) -> tuple[str, int, Game]:
    """:func:`game_page`'s page and count, with the game as of the log's last entry (the
    replay the page was drawn from: a caller that shows the final board needs no other)."""
    say = translator(lang).say
    frames: list[dict[str, Any]] = []
    parts: dict[str, int] = {}
    game: Any = None
    reveal_seq: int | None = None
    before: State | None = None
    for game in steps(entries, hashes):
        entry = game.entries[-1]
        if isinstance(entry, Reveal):
            reveal_seq = entry.seq
        changed = changed_between(before, game.state)
        frames.append({
            "seq": game.last_seq,
            "at": entry.at,
            "svg": _lines(parts, board_svg(game, lang=lang, panel=False, changed=changed)),
            "panel": _lines(parts, panel_svg(game, lang=lang)),
            "lines": _frame_lines(game, entry, changed, lang),
        })
        before = game.state.copy() if game.state is not None else None
    data: dict[str, Any] = {"game": game.game_id, "entries": frames, "parts": list(parts),
                            "verdict": _verdict(game, reveal_seq, lang) if reveal_seq is not None else None,
                            "words": _words(lang)}
    title = say(Msg("Rattus game {game}", game=game.game_id))
    section = audit_section(log_text, lang) if log_text is not None else Markup("")
    page = page_head(title, SCRIPT + audit_script(), STYLE + AUDIT_STYLE, lang) + render(
        PAGE, title=title, blob=Markup(script_data(data)), audit=section, press=press_block(press or [], lang),
        **_page_words(lang))
    return page, len(frames), game


def _page_words(lang: str) -> dict[str, str]:
    """The page's own words: its buttons, their hints, what a phone's reader may do."""
    say = translator(lang).say
    words = {f"{key}_hint": say(text) for key, text in (
        ("first", Msg("first entry (Home)")), ("prev", Msg("previous entry (left arrow)")),
        ("next", Msg("next entry (right arrow)")), ("last", Msg("last entry (End)")))}
    words.update({key: say(text) for key, text in (
        ("first", Msg("first")), ("prev", Msg("previous")), ("next", Msg("next")), ("last", Msg("last")),
        ("fit", Msg("whole map")), ("zoom_in", Msg("larger map")),
        ("zoom_out", Msg("smaller map")), ("zoom_hint", Msg("+ and - on the keyboard; 0: the whole map")),
        ("map_label", Msg("the board")),
        ("swipe", Msg("Swipe left or right to step through the game; two fingers on the map zoom it.")),
        ("needs_script", Msg("Scripts do not run here (a mail program's preview?): save this file and open it in a "
                             "web browser to step through the game.")))})
    return words


PAGE = """<body>
<main id="view" data-entry="">
<h1>{title}</h1>
<p id="needs-script" class="needs-script">{needs_script}</p>
<div id="controls">
<button id="first" title="{first_hint}">&laquo; {first}</button>
<button id="prev" title="{prev_hint}">&lsaquo; {prev}</button>
<button id="next" title="{next_hint}">{next} &rsaquo;</button>
<button id="last" title="{last_hint}">{last} &raquo;</button>
<button id="zoom-out" title="{zoom_hint}" aria-label="{zoom_out}">&minus;<span class="w"> {zoom_out}</span></button>
<button id="zoom-in" title="{zoom_hint}" aria-label="{zoom_in}">+<span class="w"> {zoom_in}</span></button>
<button id="fit" title="{zoom_hint}">{fit}</button>
<span id="where"></span>
</div>
<p id="swipe">{swipe}</p>
<div id="frame">
<div id="map" tabindex="0" role="region" aria-label="{map_label}"></div>
<div id="words">
<div id="narration"></div>
<div id="verdict"></div>
</div>
<div id="panel"></div>
</div>
{press}
{audit}</main>
<script type="application/json" id="pbem-data">{blob}</script>
</body>
</html>
"""
"""The page's body: :func:`pbem.views.markup.render` escapes every value but the data's JSON."""
