"""The composer page's one script and one style (:mod:`pbem.views.compose`), admitted by their hashes.

The script knows no rule of Rattus and no language (every word it shows comes with the
page's data, :func:`pbem.views.compose.script_words`): it walks the tree of choices the page carries
(:mod:`pbem.views.composetree`), writes the chosen lines in the notation, and for the
opening (P4) makes the nonce from the player's own words (:mod:`pbem.fair.words`, with
``crypto.subtle.digest``) and its commitment over the protocol's prefix and the nonce's
bytes.  It keeps no nonce in the browser: on ``file:`` every local page shares that
storage (and could read or replace it); round 2 takes the words again, the nonce or the
nonce file, and reveals only a nonce whose commitment is the seat's.
"""

STYLE = """
body { font-family: DejaVu Sans, Liberation Sans, Arial, sans-serif; margin: 8px; background: #f4f1ea;
       overflow-wrap: anywhere; }
pre { white-space: pre-wrap; }
h1 { font-size: 19px; margin: 0 0 6px 0; }
#page { display: flex; gap: 12px; align-items: flex-start; }
#left { flex: 3 1 0; min-width: 0; }
#right { flex: 2 1 0; min-width: 0; }
#board { overflow: hidden; }
#board svg { overflow: hidden; width: 100%; height: auto; border: 1px solid #999; background: #fff; display: block; }
#board .region.can rect:first-of-type { stroke: #0a6b2a; stroke-width: 7; }
#board .region.can { cursor: pointer; }
#board .region[data-changed] rect:first-of-type { stroke-dasharray: 14 6; }
#board .region.picked rect:first-of-type { fill: #bfe8c6; }
button, .button { font-size: 16px; min-height: 44px; min-width: 44px; margin: 3px 4px 3px 0; padding: 6px 10px;
         border: 1px solid #6b5330; border-radius: 6px; background: #fff; color: #222; text-decoration: none;
         display: inline-flex; align-items: center; box-sizing: border-box; max-width: 100%; }
button:disabled, .button.off { opacity: 0.4; pointer-events: none; }
#choices button { font-family: DejaVu Sans Mono, monospace; }
#move { font-family: DejaVu Sans Mono, monospace; white-space: pre-wrap; background: #fff; border: 1px solid #ccc;
        padding: 8px; margin: 6px 0; min-height: 3em; }
.note { font-size: 14px; color: #444; margin: 4px 0; }
#result { font-weight: bold; padding: 6px; border: 2px solid #2c7a2c; background: #eef8ee; }
#result:empty, #looks:empty, #status:empty { display: none; }
#nonce { font-family: DejaVu Sans Mono, monospace; word-break: break-all; background: #fff8d8; padding: 6px; }
#nonce:empty { display: none; }
input { font-size: 16px; min-height: 44px; width: 100%; box-sizing: border-box; }
#choices label { display: block; margin: 6px 0; }
#nonce-load { height: 48px; padding: 8px 0; }
#words-kept { font-family: DejaVu Sans Mono, monospace; background: #fff8d8; padding: 6px; }
@media (max-width: 700px) { #page { display: block; } }
"""

SCRIPT = r"""
(function () {
  var root = document.documentElement, violations = 0;
  document.addEventListener('securitypolicyviolation', function () {
    violations += 1; root.setAttribute('data-csp-violations', String(violations));
  });
  document.addEventListener('DOMContentLoaded', main);
  function $(id) { return document.getElementById(id); }
  function hex(bytes) {
    return Array.prototype.map.call(new Uint8Array(bytes), function (b) {
      return (b < 16 ? '0' : '') + b.toString(16);
    }).join('');
  }
  function unhex(text) {
    var out = new Uint8Array(text.length / 2);
    for (var i = 0; i < out.length; i++) { out[i] = parseInt(text.substr(2 * i, 2), 16); }
    return out;
  }
  function button(label, onclick, cls) {
    var b = document.createElement('button');
    b.textContent = label; b.onclick = onclick; if (cls) { b.className = cls; }
    return b;
  }
  var W = {};  // the page's words, in its reader's language (page_data's "words")
  function main() {
    var D = JSON.parse($('pbem-data').textContent);
    W = D.words;
    var header = ['game ' + D.game + ' ' + D.seat, 'after ' + D.after.seq + ' ' + D.after.hash];
    var text = '';
    function finish(lines, complete) {
      text = header.concat(lines).join('\n') + '\n';
      $('move').textContent = text;
      $('view').setAttribute('data-complete', complete ? 'true' : 'false');
      var name = D.game + '-' + D.seat + '-' + D.after.seq + '.txt';
      var send = $('send'), dl = $('download');
      send.href = 'mailto:' + encodeURIComponent(D.to || '').replace('%40', '@') + '?subject=' +
        encodeURIComponent('[rattus ' + D.game + '] move') + '&body=' + encodeURIComponent(text);
      dl.href = 'data:text/plain;charset=utf-8,' + encodeURIComponent(text); dl.download = name;
      [send, dl].forEach(function (a) { a.className = complete ? 'button' : 'button off'; });
      $('copy').disabled = !complete;
    }
    $('copy').onclick = function () {
      var done = function () { $('copied').textContent = W.copied; };
      if (navigator.clipboard) { navigator.clipboard.writeText(text).then(done, function () {}); }
    };
    window.pbemCommitment = function (nonceHex) {
      var prefix = new TextEncoder().encode(D.prefix), nonce = unhex(nonceHex);
      var all = new Uint8Array(prefix.length + nonce.length);
      all.set(prefix, 0); all.set(nonce, prefix.length);
      return crypto.subtle.digest('SHA-256', all).then(hex);
    };
    if (D.opening) { opening(D, finish, header); } else if (D.tree) { turn(D.tree, finish); }
    else { $('step').textContent = D.waiting; finish([], false); }
  }
  function wordsOf(text) {  // pbem.fair.words.words_of: lowercased, NFC, one space between words
    return text.toLowerCase().normalize('NFC').split(/[ \t\n\r\u00a0]+/).filter(Boolean).join(' ');
  }
  function wordsNonce(D, text) {  // SHA-256(tag LF entry0 LF seat LF words): docs/fairplay.md
    var words = wordsOf(text);
    if (text.length > D.maxChars || /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/.test(words)) {
      return Promise.reject(W.control);
    }
    if (words.split(' ').length < D.minWords) { return Promise.reject(W.few); }
    var all = new TextEncoder().encode([D.wordsTag, D.entry0, D.seat, words].join('\n'));
    return crypto.subtle.digest('SHA-256', all).then(function (d) { return {nonce: hex(d), words: words}; });
  }
  function opening(D, finish, header) {
    var box = $('choices');
    $('keep').hidden = false;
    function say(text) { $('status').textContent = text; }
    function showNonce(nonceHex, words) {
      $('nonce').textContent = 'nonce ' + nonceHex;
      if (words) { $('words-kept').textContent = words; $('words-note').hidden = false; }
      var a = $('nonce-file');
      a.href = 'data:text/plain;charset=utf-8,' + encodeURIComponent(
        header.concat(['nonce ' + nonceHex]).join('\n') + '\n');
      a.download = D.game + '-' + D.seat + '-nonce.txt'; a.className = 'button';
    }
    var input = document.createElement('input');
    input.id = D.opening === 'commit' ? 'words-in' : 'nonce-in';
    input.placeholder = D.opening === 'commit' ? W.words : W.placeholder;
    ['autocapitalize', 'autocomplete', 'autocorrect', 'spellcheck'].forEach(function (a) {
      input.setAttribute(a, a === 'spellcheck' ? 'false' : 'off');
    });
    box.appendChild(input);
    if (D.opening === 'commit') {
      box.appendChild(button(W.make, function () {
        wordsNonce(D, input.value).then(function (made) {
          return window.pbemCommitment(made.nonce).then(function (c) {
            say(''); showNonce(made.nonce, made.words); finish(['commit ' + c], true); box.textContent = '';
          });
        }, say);
      }, 'make'));
      finish([], false);
      return;
    }
    function reveal(nonce, words) {  // only a nonce whose commitment is this seat's (P4)
      return window.pbemCommitment(nonce).then(function (c) {
        if (D.committed && c !== D.committed) { say(W.mismatch); return false; }
        say(''); showNonce(nonce, words); finish(['nonce ' + nonce], true); return true;
      });
    }
    function given(text) {
      var v = text.trim().toLowerCase().replace(/^nonce\s+/, '');
      if (/^[0-9a-f]{64}$/.test(v)) { reveal(v, ''); return; }
      wordsNonce(D, text).then(function (made) { reveal(made.nonce, made.words); }, say);
    }
    box.appendChild(button(W.use, function () { given(input.value); }));
    var file = document.createElement('input');
    file.type = 'file'; file.id = 'nonce-load'; file.accept = '.txt,.yaml,text/plain'; file.title = W.file;
    var label = document.createElement('label');
    label.textContent = W.file; label.appendChild(file); box.appendChild(label);
    file.onchange = function () {
      if (!file.files.length) { return; }
      var reader = new FileReader();
      reader.onload = function () {
        var m = /nonce:?[ \t]+"?([0-9a-fA-F]{64})\b/.exec(String(reader.result));
        if (m) { reveal(m[1].toLowerCase(), ''); } else { say(W.hex); }
      };
      reader.readAsText(file.files[0]);
    };
    finish([], false);
    var key = 'pbem-nonce/' + D.game + '/' + D.seat, kept = null;  // where an earlier page kept it
    try { kept = localStorage.getItem(key); } catch (e) { kept = null; }
    if (kept !== null) {  // used only if it is this seat's committed nonce; then no page can read it here
      reveal(String(kept), '').then(function (good) {
        if (!good) { say(W.changed); } else { try { localStorage.removeItem(key); } catch (e) { /* gone */ } }
      });
    }
  }
  function decode(T) {  // composetree.nodes_of: the compact nodes as objects
    T.nodes = T.nodes.map(function (a) {
      var s = T.steps[a[0]], n = [];
      if (s === 'outbreak') { return {s: s, k: !!a[1], f: a.slice(2)}; }
      for (var i = 1; i < a.length; i += 2) { n.push([a[i], a[i + 1]]); }
      return {s: s, n: n};
    });
    return T;
  }
  function turn(T, finish) {
    T = decode(T);
    var st = {cur: T.root, lines: [], flips: [], knight: false, done: false}, past = [], filter = null;
    function save() { past.push(JSON.stringify(st)); }
    function written() {
      var out = st.lines.slice();
      if (st.knight) { out.push('knight cubes'); }
      if (st.flips.length) { out.push('flip ' + st.flips.join(' ')); }
      return out;
    }
    function choose(line, child) {
      save();
      if (line !== 'skip') { st.lines.push(line); }
      if (child < 0) { st.done = true; st.stopped = child === -2; } else { st.cur = child; }
      filter = null; render();
    }
    function render() {
      var box = $('choices'), node = st.done ? null : T.nodes[st.cur], names = {};
      box.textContent = '';
      $('undo').disabled = past.length === 0;
      $('step').textContent = !st.done ? W.choose[node.s] : st.stopped ? W.stopped : W.complete;
      document.querySelectorAll('#board .region').forEach(function (g) { g.classList.remove('can', 'picked'); });
      if (node && node.s === 'outbreak') {
        if (node.k && !st.knight && !st.flips.length) {
          box.appendChild(button('knight cubes', function () { save(); st.knight = true; render(); }));
        }
        node.f.forEach(function (t) {
          if (st.flips.indexOf(t) >= 0) { return; }
          box.appendChild(button('flip ' + t, function () { save(); st.flips.push(t); render(); }));
        });
        box.appendChild(button(W.done, function () { save(); st.done = true; render(); }, 'done'));
      } else if (node) {
        node.n.forEach(function (pair) {
          var line = T.lines[pair[0]], words = line.split(' ');
          words.slice(1).forEach(function (w) { names[w] = true; });
          if (filter && words.indexOf(filter) < 0) { return; }
          var label = line === 'skip' ? W.skip[node.s] : line;
          box.appendChild(button(label, function () { choose(line, pair[1]); }));
        });
        document.querySelectorAll('#board .region').forEach(function (g) {
          var r = g.getAttribute('data-region');
          if (names[r]) { g.classList.add('can'); }
          if (filter === r) { g.classList.add('picked'); }
        });
      }
      finish(written(), st.done);
    }
    document.querySelectorAll('#board .region').forEach(function (g) {
      g.addEventListener('click', function () {
        var r = g.getAttribute('data-region');
        if (g.classList.contains('can')) { filter = filter === r ? null : r; render(); }
      });
    });
    $('undo').onclick = function () { if (past.length) { st = JSON.parse(past.pop()); filter = null; render(); } };
    render();
  }
})();
"""
