"""The audit in the player's browser: the section the viewer shows, and the end mail's page.

A player with only a mail client and a browser checks the end of a game without taking the
host's word (PROTOCOL P3-P6): the section carries the log's own text and runs
:mod:`pbem.views.auditjs` (WebCrypto, tools/audit_min.py's checks and words) on it when the page
opens, and on any copy of the log the player chooses from their disk (the ``log.yaml`` the end
mail attaches, or one kept from an earlier mail); nothing is fetched, nothing is sent.  The
verdict is said in the page's language (every language's words are in the script itself, so
that the end page's fingerprint covers them: :func:`pbem.views.endpage.fingerprint`); the
checker's own lines follow, word for word as tools/audit_min.py prints them.  Where scripts do
not run (a mail program's preview), the page says to open the file in a browser and how to check
the log without one.

:mod:`pbem.views.endpage` is the page the end mail attaches, around this section.  The log
travels in its own ``application/json`` block (gzipped: the browser unpacks it with its own
``DecompressionStream``), escaped as :func:`pbem.views.html.script_data` escapes the viewer's data.
"""

from __future__ import annotations

import base64
import gzip
import json
from functools import cache

from pbem.i18n import LANGS, N_, Msg, translator
from pbem.views.auditjs import audit_js
from pbem.views.markup import Markup, render
from pbem.views.trust import HOST_DEAL, PROTOCOL_DOC

NEEDS_SCRIPT = N_("Scripts do not run here (a mail program's preview?): save this file and open it in a web browser "
                  "to check the game; or run 'python3 tools/audit_min.py log.yaml.gz' on the attached log.")
"""Where the page's script does not run: how to check the game all the same."""

AUDIT_STYLE = """
#audit { margin: 12px 0; padding: 8px; background: #fff; border: 1px solid #ccc; font-size: 16px; }
#audit h2 { font-size: 18px; margin: 0 0 6px 0; }
#audit-verdict { font-weight: bold; padding: 6px; border: 2px solid #999; }
#audit-verdict:empty { display: none; }
#audit-verdict.fair { border-color: #2c7a2c; background: #eef8ee; }
#audit-verdict.refused, #audit-verdict.host { border-color: #b00000; background: #fbeaea; }
#audit-lines { font-family: DejaVu Sans Mono, monospace; font-size: 14px; padding-left: 24px; }
#audit-lines li { margin: 0 0 8px 0; overflow-wrap: anywhere; }
#audit-file { font-size: 16px; min-height: 44px; max-width: 100%; }
.needs-script { padding: 8px; border: 2px dashed #b00000; background: #fff8d8; }
"""

AUDIT_UI_JS = r"""
(function () {
  function start() {
    var box = document.getElementById('audit');
    if (!box || !window.pbemAudit) { return; }
    var D = JSON.parse(document.getElementById('pbem-audit').textContent);
    var W = window.pbemAuditWords[document.documentElement.lang] || window.pbemAuditWords.en;  // the script's words
    function $(id) { return document.getElementById(id); }
    $('audit-needs-script').hidden = true;
    $('audit-other').hidden = false;
    function show(result, source) {
      var v = result.verdict, line = W[v.kind];
      if (v.kind === 'refused') {
        line = (v.seq === null ? W.whole : W.refused).replace('{seq}', String(v.seq)).replace('{rule}', v.rule);
      }
      $('audit-source').textContent = source;
      $('audit-verdict').textContent = line;
      $('audit-verdict').className = v.kind;
      var test = result.lines.some(function (l) { return l.indexOf('TEST GAME:') === 0; });  // its secret was supplied
      $('audit-next').textContent = test && v.kind === 'fair' ? W.next_test : W['next_' + v.kind];
      var list = $('audit-lines');
      list.textContent = '';
      result.lines.forEach(function (text) {  // each line its own item: lines apart, never run together
        var li = document.createElement('li'); li.textContent = text; list.appendChild(li);
      });
      box.setAttribute('data-code', String(result.code));
      box.setAttribute('data-verdict', v.kind);
    }
    function unpack(b64) {  // the page's copy of the log, gzipped (a mail's size): the browser's own gunzip
      var raw = Uint8Array.from(atob(b64), function (c) { return c.charCodeAt(0); });
      var stream = new Blob([raw]).stream().pipeThrough(new DecompressionStream('gzip'));
      return new Response(stream).arrayBuffer().then(function (buffer) { return new Uint8Array(buffer); });
    }
    var latest = 0;  // only the last check asked for is shown (a file chosen while the page's own runs)
    function run(what, source) {
      var mine = ++latest;
      box.setAttribute('data-code', '');
      $('audit-source').textContent = W.checking;
      return window.pbemAudit(what).then(function (result) { if (mine === latest) { show(result, source); } },
        function (err) { if (mine === latest) { $('audit-source').textContent = W.broken + ' ' + err; } });
    }
    $('audit-file').addEventListener('change', function () {  // a long game's log.yaml.gz.001, .002...: joined
      var files = Array.prototype.slice.call(this.files || []).sort(function (a, b) {
        return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
      });
      if (!files.length) { return; }
      var name = W.file.replace('{name}', files.map(function (f) { return f.name; }).join(' + '));
      var broken = function (err) { $('audit-source').textContent = W.broken + ' ' + err; };
      Promise.all(files.map(function (f) { return new Response(f).arrayBuffer(); })).then(function (buffers) {
        var bytes = new Uint8Array(new Blob(buffers).size), at = 0;
        buffers.forEach(function (b) { bytes.set(new Uint8Array(b), at); at += b.byteLength; });
        if (bytes[0] !== 0x1f || bytes[1] !== 0x8b) { run(bytes, name); return; }  // a log.yaml, else gzipped
        var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'));
        new Response(stream).arrayBuffer().then(function (b) { run(new Uint8Array(b), name); }, broken);
      }, broken);
    });
    window.pbemAuditText = function (text, name) { return run(text, W.file.replace('{name}', name)); };
    var first = latest;
    if (!D.log_gz) { $('audit-source').textContent = W.choose; return; }  // a long game's page: the attached file
    unpack(D.log_gz).then(function (bytes) { if (latest === first) { run(bytes, W.page); } }, function (err) {
      $('audit-source').textContent = W.broken + ' ' + err;  // an old browser: the file button still serves
    });
  }
  if (document.readyState === 'loading') { document.addEventListener('DOMContentLoaded', start); } else { start(); }
})();
"""


@cache
def audit_script() -> str:
    """The checker, every word it writes in every language pbem speaks, and the section's few
    lines that show it: the same in every language, so that the page's fingerprint (its head:
    the policy and this script) covers every word of the verdict, not only the checks."""
    words = json.dumps({lang: audit_words(lang) for lang in LANGS}, ensure_ascii=False, separators=(",", ":"))
    for char in "<>&\u2028\u2029":  # no </script> or <!-- in the script, no line end inside a string
        words = words.replace(char, f"\\u{ord(char):04x}")
    return audit_js() + "window.pbemAuditWords = " + words + ";\n" + AUDIT_UI_JS


def audit_words(lang: str) -> dict[str, str]:
    """What the section's script writes, in ``lang``: the verdicts are `pbem audit`'s own."""
    say = translator(lang).say
    return {
        "fair": say(Msg("verdict: FAIR. The rat order was fixed at the start and never touched "
                        "(how to check: {doc}).", doc=PROTOCOL_DOC)),
        "host": say(HOST_DEAL),
        "notyet": say(Msg("verdict: NOT YET. The secret is revealed when the game is over "
                          "(P6; how to check: {doc}).", doc=PROTOCOL_DOC)),
        "refused": say(Msg("verdict: REFUSED. The log does not verify at entry {seq} ({rule}; how to check: {doc}).",
                           seq="{seq}", rule="{rule}", doc=PROTOCOL_DOC)),
        "whole": say(Msg("verdict: REFUSED. The log does not verify as a whole ({rule}; how to check: {doc}).",
                         rule="{rule}", doc=PROTOCOL_DOC)),
        "next_fair": say(Msg("Nobody, the host included, chose the order of the rats, and every rat turned face up "
                             "is the one sealed at the start.")),
        "next_test": say(Msg("But this is a test game: its secret was not made at random, so whoever knows it knew "
                             "every face; the check proves nothing about fair play.")),
        "next_host": say(Msg("No player's words went into the order of the rats: the host alone could have "
                             "chosen it. Ask the host why.")),
        "next_notyet": say(Msg("The host reveals the secret when the game is over: check again with the last "
                               "mail's log.")),
        "next_refused": say(Msg("Do not trust this game's result: keep this mail and tell the other players.")),
        "checking": say(Msg("checking…")),
        "broken": say(Msg("this browser could not run the check:")),
        "page": say(Msg("checked: the copy of the log in this page")),
        "file": say(Msg("checked: your file {name}", name="{name}")),
        "choose": say(Msg("This page carries no copy of this long game's log (the mail would be too large): choose "
                          "the attached log.yaml.gz below, or every part of it (log.yaml.gz.001 and on) at once.")),
    }


def audit_section(log_text: str | None, lang: str) -> Markup:
    """The section: its words, a place for the verdict and the checker's lines, a file chooser,
    the log's bytes, gzipped and in base64 (a mail carries the page beside the log: about 15 KB, not 70),
    in a JSON block (base64 alone: nothing to escape); ``None``: no copy of the log (a long game's page
    asks for the file its mail attaches).  The words the script writes are the script's."""
    say = translator(lang).say
    packed = (base64.b64encode(gzip.compress(log_text.encode("utf-8"), mtime=0)).decode("ascii")  # a mail's size
              if log_text is not None else "")
    blob = json.dumps({"log_gz": packed}, separators=(",", ":"))
    return render(
        SECTION, blob=Markup(blob),
        heading=say(Msg("Check the game yourself")),
        explain=say(Msg("Your browser checks the game's log on its own, with nothing the host worked out: the "
                        "host's secret against the promise sealed in the log's first entry, the order of the rats "
                        "against every player's secret words, and each rat turned face up against the face sealed "
                        "for it at the start.")),
        other=say(Msg("Check another copy of the log (the log.yaml.gz attached to the host's mail): ")),
        needs_script=say(NEEDS_SCRIPT),
        lines_label=say(Msg("The checker's lines, as tools/audit_min.py prints them:")),
    )


SECTION = """<section id="audit" data-code="" data-verdict="">
<h2>{heading}</h2>
<p>{explain}</p>
<p id="audit-needs-script" class="needs-script">{needs_script}</p>
<p id="audit-source"></p>
<p id="audit-verdict"></p>
<p id="audit-next"></p>
<p>{lines_label}</p>
<ol id="audit-lines"></ol>
<p id="audit-other" hidden><label for="audit-file">{other}</label><br>
<input type="file" id="audit-file" multiple></p>
<script type="application/json" id="pbem-audit">{blob}</script>
</section>
"""
