"""The composer page's one script and one style (:mod:`pbem.views.compose`), admitted by their hashes.

The script knows no rule of Rattus and no language (every word it shows comes with the
page's data, :func:`pbem.views.compose.script_words`): it walks the tree of choices the page carries
(:mod:`pbem.views.composetree`), writes the chosen lines in the notation, and for the
opening (P4) makes a nonce with ``crypto.getRandomValues`` and its commitment with
``crypto.subtle.digest`` over the protocol's prefix and the nonce's bytes.
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
  function opening(D, finish, header) {
    var key = 'pbem-nonce/' + D.game + '/' + D.seat;
    var box = $('choices');
    $('keep').hidden = false;
    function showNonce(nonceHex) {
      $('nonce').textContent = 'nonce ' + nonceHex;
      var a = $('nonce-file');
      a.href = 'data:text/plain;charset=utf-8,' + encodeURIComponent(
        header.concat(['nonce ' + nonceHex]).join('\n') + '\n');
      a.download = D.game + '-' + D.seat + '-nonce.txt'; a.className = 'button';
    }
    if (D.opening === 'commit') {
      box.appendChild(button(W.make, function () {
        var nonce = hex(crypto.getRandomValues(new Uint8Array(32)));
        try { localStorage.setItem(key, nonce); } catch (e) { /* kept by the download only */ }
        window.pbemCommitment(nonce).then(function (c) { showNonce(nonce); finish(['commit ' + c], true); });
        box.textContent = '';
      }, 'make'));
      finish([], false);
      return;
    }
    var kept = null;
    try { kept = localStorage.getItem(key); } catch (e) { kept = null; }
    function reveal(nonce) {
      window.pbemCommitment(nonce).then(function (c) {
        if (D.committed && c !== D.committed) {
          $('status').textContent = W.mismatch; return;
        }
        showNonce(nonce); finish(['nonce ' + nonce], true);
      });
    }
    var input = document.createElement('input');
    input.id = 'nonce-in'; input.placeholder = W.placeholder;
    box.appendChild(input);
    box.appendChild(button(W.use, function () {
      var v = input.value.trim().toLowerCase().replace(/^nonce\s+/, '');
      if (/^[0-9a-f]{64}$/.test(v)) { reveal(v); } else { $('status').textContent = W.hex; }
    }));
    if (kept) { reveal(kept); } else { finish([], false); }
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
