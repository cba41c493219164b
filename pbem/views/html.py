"""`pbem html`: one self-contained page to step through a game, entry by entry.

Each entry's board is drawn (:mod:`pbem.views.svg`) from the game as the public log's
replay has it after that entry (:func:`pbem.views.timeline.steps`), with the entry's
narration (:mod:`pbem.views.narrate`) and, once the secret is revealed, the audit's
verdict (P6).  The page loads nothing: the drawings and a few lines of script
are inline, and its Content-Security-Policy forbids any fetch.  The board keeps its
size (its smallest words are 12 pixels): on a narrower screen it scrolls sideways in its box.  It honours a
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
from pbem.views.text import audit_verdict, host_alone, result_lines, seed_line  # `pbem audit`'s words
from pbem.views.timeline import steps


def csp_hash(source: str) -> str:
    """A CSP source for one inline script or style: ``'sha256-...'`` of its exact text."""
    return "'sha256-" + base64.b64encode(hashlib.sha256(source.encode("utf-8")).digest()).decode("ascii") + "'"


def policy(script: str, style: str) -> str:
    """The page's Content-Security-Policy: nothing fetched, only this script and this style run."""
    return (f"default-src 'none'; script-src {csp_hash(script)}; style-src {csp_hash(style)}; "
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


STYLE = """
body { font-family: DejaVu Sans, Liberation Sans, Arial, sans-serif; margin: 12px; background: #f4f1ea;
       font-size: 16px; }
h1 { font-size: 20px; margin: 0 0 8px 0; }
#controls { display: flex; flex-wrap: wrap; align-items: center; gap: 4px; background: #f4f1ea; }
#controls button { font-size: 16px; min-width: 44px; min-height: 44px; }
#where { margin-left: 8px; font-weight: bold; }
#frame { display: grid; grid-template-columns: 100%; grid-template-areas: "map" "words" "panel"; gap: 8px; }
#map { grid-area: map; min-width: 0; overflow-x: auto; } #panel { grid-area: panel; min-width: 0; }
#words { grid-area: words; }
#map svg, #panel svg { width: 100%; height: auto; border: 1px solid #999; background: #fff; }
#map svg { width: 1000px; max-width: none; } #map.fit svg { width: 100%; } #panel svg { max-width: 420px; }
@media (min-width: 1340px) {
  #frame { grid-template-columns: 1000px 300px; grid-template-areas: "map panel" "words words"; }
  #panel svg { max-width: none; }
}
#narration { font-family: DejaVu Sans Mono, monospace; font-size: 14px; white-space: pre-wrap; background: #fff;
             border: 1px solid #ccc; padding: 8px; margin: 8px 0; }
#verdict { padding: 8px; border: 2px solid #2c7a2c; background: #eef8ee; }
#verdict p { margin: 0 0 10px 0; } #verdict p:last-child { margin-bottom: 0; }
#verdict.refused { border-color: #b00000; background: #fbeaea; }
#verdict:empty { display: none; }
#map .region[data-changed] > rect:first-of-type { stroke-dasharray: 14 6; stroke-width: 6; }
#zoom, #swipe { display: none; }
html, body { overscroll-behavior-x: none; }
#view { touch-action: pan-y pinch-zoom; } #map { touch-action: auto; }
@media (max-width: 700px) {
  body { margin: 6px; }
  #controls { position: sticky; top: 0; z-index: 1; padding: 4px 0; }
  #zoom { display: inline-block; }
  #swipe { display: block; font-size: 14px; color: #444; margin: 4px 0; }
}
"""
"""The map is drawn at its own size, its smallest words 12 px, beside the panel on a screen wide
enough for both, else above the entry's words and the panel; on a phone (390 px) in a box that
scrolls sideways (``whole map`` fits it to the screen, on the reader's choice), and the panel
is its own drawing under the entry's words, as wide as the screen: no word under 12 px."""


SCRIPT = """
(function () {
  var root = document.documentElement, violations = 0;
  document.addEventListener('securitypolicyviolation', function () {
    violations += 1;
    root.setAttribute('data-csp-violations', String(violations));
  });
  document.addEventListener('DOMContentLoaded', main);
  function main() {
    var view = document.getElementById('view'), map = document.getElementById('map');
    var data = JSON.parse(document.getElementById('pbem-data').textContent), W = data.words;
    var n = data.entries.length, shown = -1;
    document.getElementById('needs-script').hidden = true;
    function wanted() {
      var m = /entry=(\\d+)/.exec(location.hash);
      var i = m ? parseInt(m[1], 10) : n - 1;
      return Math.max(0, Math.min(n - 1, i));
    }
    function drawing(lines) {  // pbem.views.html.drawing: a drawing's lines from the page's table
      return lines.map(function (k) { return data.parts[k]; }).join('\\n');
    }
    function show(i) {
      i = Math.max(0, Math.min(n - 1, i));
      var e = data.entries[i];
      shown = i;
      map.innerHTML = drawing(e.svg);
      document.getElementById('panel').innerHTML = drawing(e.panel);
      document.getElementById('narration').textContent = e.lines.join('\\n');
      document.getElementById('where').textContent = W.where.replace('{i}', String(i))
        .replace('{last}', String(n - 1)).replace('{at}', e.at);
      var v = document.getElementById('verdict');
      var verdict = (data.verdict && i >= data.verdict.from) ? data.verdict : null;
      v.textContent = '';
      (verdict ? verdict.lines : []).forEach(function (line) {  // each line its own paragraph
        var p = document.createElement('p'); p.textContent = line; v.appendChild(p);
      });
      v.className = verdict && !verdict.fair ? 'refused' : '';
      view.setAttribute('data-entry', String(i));
      var changed = map.querySelector('.region[data-changed] rect');
      if (changed && map.scrollWidth > map.clientWidth) {  // a phone: the entry's first change in sight
        map.scrollLeft = changed.getBBox().x * map.scrollWidth / 1000 - 24;
      }
      if (location.hash !== '#entry=' + i) { history.replaceState(null, '', '#entry=' + i); }
    }
    document.getElementById('first').onclick = function () { show(0); };
    document.getElementById('prev').onclick = function () { show(shown - 1); };
    document.getElementById('next').onclick = function () { show(shown + 1); };
    document.getElementById('last').onclick = function () { show(n - 1); };
    var zoom = document.getElementById('zoom');
    zoom.onclick = function () {  // its two words are its own: data-fit, data-zoom
      var fit = map.classList.toggle('fit');
      zoom.textContent = zoom.getAttribute(fit ? 'data-zoom' : 'data-fit');
    };
    document.addEventListener('keydown', function (ev) {
      if (ev.key === 'ArrowLeft') { show(shown - 1); }
      else if (ev.key === 'ArrowRight') { show(shown + 1); }
      else if (ev.key === 'Home') { show(0); }
      else if (ev.key === 'End') { show(n - 1); }
      else { return; }
      ev.preventDefault();
    });
    var start = null;  // a swipe: to the left the next entry, to the right the one before
    view.addEventListener('touchstart', function (ev) {
      var panning = map.contains(ev.target) && map.scrollWidth > map.clientWidth;  // the map scrolls, not the game
      start = ev.touches.length === 1 && !panning ? {x: ev.touches[0].clientX, y: ev.touches[0].clientY} : null;
    }, {passive: true});
    view.addEventListener('touchend', function (ev) {
      if (!start) { return; }
      var t = ev.changedTouches[0], dx = t.clientX - start.x, dy = t.clientY - start.y;
      start = null;
      if (Math.abs(dx) > 50 && Math.abs(dx) > 2 * Math.abs(dy)) { show(shown + (dx < 0 ? 1 : -1)); }
    }, {passive: true});
    window.addEventListener('hashchange', function () { if (wanted() !== shown) { show(wanted()); } });
    show(wanted());
  }
})();
"""



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
        ("fit", Msg("whole map")), ("zoom", Msg("larger map")), ("map_label", Msg("the board")),
        ("swipe", Msg("Swipe left or right on the words to step through the game.")),
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
<button id="zoom" data-fit="{fit}" data-zoom="{zoom}">{fit}</button>
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
