"""The composer page's script and one style (:mod:`pbem.views.compose`), admitted by their hashes.

The script is plain files shipped beside this module (package data, no build step), in one of
two sets.  A turn's page packs ``rules.js``, the rules the page computes its choices with (the
legal next actions of the seat's public state and the state after each,
:mod:`pbem.views.seatstate`; held to pbem's Python rules by tests/test_rulesjs.py), and
``compose.js``, the page itself; the opening's page packs ``secret.js``, the secret number,
``opening.js``, the opening's part of the page, and ``compose.js``.  A turn's page is what every
"your move" mail carries, so it carries nothing of the opening's.  The script knows no language (every
word it shows comes with the page's data, :func:`pbem.views.compose.script_words`): a turn is
tapped on the board it redraws after every choice, and the move is written in the notation; for
the opening (P4) it makes the secret number from the player's own words and a code of 80
random bits (``secret.js``: :mod:`pbem.fair.words`' scrypt over WebCrypto, and the words'
estimate, :mod:`pbem.fair.strength`) and its commitment over the protocol's prefix and the
nonce's bytes.  It keeps no nonce in the browser: on ``file:`` every local page shares that storage (and could
read or replace it); round 2 takes the words and the code again, the nonce or the nonce file, and reveals
only a nonce whose commitment is the seat's.
"""

from importlib import resources

from pbem.views.seatstate import deck_js

_WORD = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_$")
_BEFORE_REGEX = frozenset("(,=:[!&|?{};+-*%<>~^")


def _quoted(line: str, i: int) -> int:
    """The end (exclusive) of the string or regular expression literal opening at ``line[i]``."""
    close, j, klass = line[i], i + 1, False
    while j < len(line) and (klass or line[j] != close):
        if line[j] == "\\":
            j += 1
        elif close == "/" and line[j] in "[]":
            klass = line[j] == "["
        j += 1
    return j + 1


def squeeze(line: str) -> str:
    """One line of code without the spaces that separate nothing: kept inside strings and regular
    expressions, between two word characters, and between two signs that would join (``+ +``)."""
    out: list[str] = []
    i = 0
    while i < len(line):
        c = line[i]
        last = out[-1][-1:] if out else ""
        regex = c == "/" and line[i + 1:i + 2] not in ("/", "*") and (
            not last or last in _BEFORE_REGEX or "".join(out).endswith("return"))
        if c in "'\"" or regex:
            end = _quoted(line, i)
            out.append(line[i:end])
            i = end
        elif c == " ":
            j = len(line) - len(line[i:].lstrip(" "))
            after = line[j:j + 1]
            if (last in _WORD and after in _WORD and after) or (last == after and last in ("+", "-")):
                out.append(" ")
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def _shipped(name: str) -> str:
    """A script shipped beside this module, without its comments and the spaces that separate
    nothing (:func:`squeeze`): the page travels in every "your move" mail.  A comment is a line
    of its own, or follows two spaces and ``//``."""
    out = []
    for line in resources.files("pbem.views").joinpath(name).read_text(encoding="utf-8").split("\n"):
        code = line.strip()
        if code.startswith("//"):
            continue
        cut = code.find("  //")
        code = squeeze(code[:cut].rstrip() if cut >= 0 else code)
        if code:
            out.append(code)
    return "".join(_joined(out)) + "\n"


def _joined(lines: list[str]) -> list[str]:
    """The lines run together where a line break changes nothing: after ``{``, ``;`` or ``,`` (a
    statement's end is written, never left to the line break), and before ``}``."""
    out: list[str] = []
    for i, line in enumerate(lines):
        nxt = lines[i + 1] if i + 1 < len(lines) else ""
        out.append(line if line[-1] in "{;," or nxt.startswith("}") else line + "\n")
    return out


def _squeezed_style(style: str) -> str:
    """The style without its indentation and the spaces around its marks, a rule a line (a mail
    carries the page's lines as they are: none may be long)."""
    out = " ".join(line.strip() for line in style.strip().split("\n"))
    for mark in ("{", "}", ":", ";", ","):
        out = out.replace(f" {mark}", mark).replace(f"{mark} ", mark)
    return "\n" + out.replace("}", "}\n")


STYLE = """
body { font-family: DejaVu Sans, Liberation Sans, Arial, sans-serif; margin: 8px; background: #f4f1ea;
       overflow-wrap: anywhere; font-size: 16px; }
pre { white-space: pre-wrap; }
h1 { font-size: 19px; margin: 0 0 6px 0; }
#page { display: flex; gap: 12px; align-items: flex-start; }
#left { flex: 3 1 0; min-width: 0; }
#right { flex: 2 1 0; min-width: 0; }
#top { background: #f4f1ea; }
#board { overflow: hidden; }
#board svg { -webkit-tap-highlight-color: transparent; width: 100%; height: auto; border: 1px solid #999;
             background: #fff; display: block; }
svg .region.can > rect:first-of-type { stroke: #0a6b2a; stroke-width: 9; }
svg .region.can { cursor: pointer; }
svg .hit:focus { outline: none; }
svg .hit:focus-visible { stroke: #1a3d8f; stroke-width: 14; }
button:focus-visible, .button:focus-visible, input:focus-visible { outline: 3px solid #1a3d8f; outline-offset: 2px; }
svg .region[data-changed] > rect:first-of-type { stroke-dasharray: 14 6; }
svg .region.moved > rect:first-of-type { fill: #fde9a9; }
svg .region.picked > rect:first-of-type { fill: #bfe8c6; }
svg .rat.opt > rect { stroke: #0a6b2a; stroke-width: 5; }
svg .rat.seen > rect { fill: #7a4f9a; }
svg .rat.picked > rect { fill: #1f6b35; stroke: #0a6b2a; stroke-width: 5; }
button, .button { font-size: 16px; min-height: 44px; min-width: 44px; margin: 3px 4px 3px 0; padding: 6px 10px;
         border: 1px solid #6b5330; border-radius: 6px; background: #fff; color: #222; text-decoration: none;
         display: inline-flex; align-items: center; box-sizing: border-box; max-width: 100%; }
button:disabled, .button.off { opacity: 0.4; pointer-events: none; }
#send { background: #1f6b35; color: #fff; font-weight: bold; }
#choices .card { background: #fff6dc; }
#choices .cancel { background: #eee; }
#step { font-weight: bold; margin: 4px 0; }
.why { font-size: 14px; margin: 2px 0; }
#scores, #cards { display: flex; flex-wrap: wrap; gap: 4px 10px; margin: 4px 0; }
.score { font-size: 14px; display: inline-flex; align-items: center; gap: 4px; }
.score.me { font-weight: bold; }
.swatch { display: inline-block; width: 14px; height: 14px; border: 1px solid #222; }
.held { font-size: 14px; color: #333; background: #fffdf6; }
#card-info, #news { background: #fff; border: 1px solid #ccc; padding: 6px; font-family: inherit; }
#move { font-family: DejaVu Sans Mono, monospace; white-space: pre-wrap; background: #fff; border: 1px solid #ccc;
        padding: 8px; margin: 6px 0; min-height: 3em; font-size: 14px; }
.note { font-size: 14px; color: #444; margin: 4px 0; }
#result { font-weight: bold; padding: 6px; border: 2px solid #2c7a2c; background: #eef8ee; }
#result:empty, #looks:empty, #news:empty, #status:empty, #scores:empty, #cards:empty, #card-info:empty {
 display: none; }
#nonce { font-family: DejaVu Sans Mono, monospace; word-break: break-all; background: #fff8d8; padding: 6px; }
#nonce:empty { display: none; }
input { font-size: 16px; min-height: 44px; width: 100%; box-sizing: border-box; }
#choices label { display: block; margin: 6px 0; }
#nonce-load { height: 48px; padding: 8px 0; }
#words-kept, #code-kept { font-family: DejaVu Sans Mono, monospace; background: #fff8d8; padding: 6px; }
.noscript { border: 2px solid #b00000; background: #fff; padding: 8px; }
[hidden] { display: none !important; }
@media (max-width: 700px) {
  #page { display: block; } #left, #right { display: contents; }
  #top { position: sticky; top: 0; z-index: 2; padding-bottom: 4px; }
  #bar { position: fixed; left: 0; right: 0; bottom: 0; z-index: 3; background: #f4f1ea; padding: 4px 8px;
         border-top: 1px solid #999; display: flex; flex-wrap: wrap; }
  main { padding-bottom: 64px; }
}
"""

STYLE = _squeezed_style(STYLE)
TURN_SCRIPT = "\n" + deck_js() + _shipped("rules.js") + _shipped("compose.js")
"""A turn's page (sent with every "your move" mail): the deck's table, the rules, the page."""
OPENING_SCRIPT = "\n" + _shipped("secret.js") + _shipped("opening.js") + _shipped("compose.js")
"""The opening's page (P4): the secret number, the opening's part, the page; no rules."""
SCRIPTS = (TURN_SCRIPT, OPENING_SCRIPT)
"""The scripts a composer page may pack: its head's policy admits both, so that one head, and one
fingerprint, is every composer page's of this version (:func:`pbem.views.compose.fingerprint`)."""
