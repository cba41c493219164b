// The composer page's script (pbem.views.compose): the opening's nonce (P4) and a turn tapped on
// the board.  It knows no language (every word comes with the page's data) and no rule but the
// rules module inlined before it (pbem/views/rules.js); pbem's Python rules judge the move.
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
    var regions = D.map ? drawMap(D) : {};
    if (D.opening) { opening(D, finish, header); } else if (D.state && D.mine) { turn(D, regions, finish); }
    else {
      if (D.state) { pieces(D, D.state, D.state, regions, {}, {}, null); }
      $('step').textContent = D.waiting; finish([], false);
    }
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
  // A turn, tapped on the board: the rules module (Rattus, pbem/views/rules.js) lists the legal
  // next actions of the seat's public state; each tap narrows them (a card, a region, a rat, a
  // count) until one is left, which is applied to the drawn board at once.  A step with one
  // choice is taken for the player; the move text is the notation (pbem.log.notation).
  var BIG = 33;  // SVG units: 12 CSS px and more when the 1000-unit map is 372 px wide (a phone)
  var SVGNS = 'http://www.w3.org/2000/svg', DIRECT = ['place', 'move_plague', 'spread'];
  function svgEl(parent, tag, attrs, text) {
    var el = document.createElementNS(SVGNS, tag);
    Object.keys(attrs).forEach(function (k) { el.setAttribute(k, String(attrs[k])); });
    if (text !== undefined) { el.textContent = text; }
    parent.appendChild(el); return el;
  }
  function ink(colour) {  // black or white, whichever reads on the colour (pbem.views.svg._ink)
    var v = [1, 3, 5].map(function (i) { return parseInt(colour.substr(i, 2), 16); });
    return 0.299 * v[0] + 0.587 * v[1] + 0.114 * v[2] > 150 ? '#000' : '#fff';
  }
  function partsOf(a) {  // what a tap picks, in order
    var p = a.path;
    switch (a.action) {
      case 'take_card': return [['card', a.card]];
      case 'place': return [['region', a.region], ['count', a.count]];
      case 'king': case 'spread': return [['region', a.region]];
      case 'merchant': return [['region', a.source], ['region', a.target], ['count', a.count]];
      case 'monk': return [['token', a.token], ['region', a.target]];
      case 'witch_look': return [['token', a.token]];
      case 'move_plague': case 'knight_move': return [['region', p[p.length - 1]], ['via', p.length > 1 ? p[0] : '']];
      default: return [];
    }
  }
  function turn(D, regions, finish) {
    var me = D.seat, S0 = D.state;
    var st = {S: S0, lines: [], flips: [], knight: false, done: false, stopped: false, kind: null, picked: [],
              region: null}, past = [];
    Object.keys(regions).forEach(function (r) {
      regions[r].addEventListener('click', function () { tapRegion(r); });
    });
    function outbreak() {
      return !st.done && st.S.phase === 'turn' && st.S.turn.stage === 'outbreak' && Rattus.mover(st.S) === me;
    }
    function candidates() {
      if (st.done || outbreak()) { return []; }
      return Rattus.legal(st.S).filter(function (a) {
        if (st.kind ? a.action !== st.kind : DIRECT.indexOf(a.action) < 0) { return false; }
        var parts = partsOf(a);
        return st.picked.every(function (v, i) { return parts[i] && parts[i][1] === v; });
      });
    }
    function play(a) {  // one legal action: drawn at once, then the steps with one choice
      st.lines.push(Rattus.line(a));
      var before = st.S;
      st.S = Rattus.apply(st.S, a); st.kind = null; st.picked = []; st.region = null;
      if (a.action === 'witch_look') { st.done = true; st.stopped = true; st.S = st.S || before; return; }
      if (st.S === null || before.phase === 'setup' || Rattus.mover(st.S) !== me) {
        st.done = true; st.S = st.S || before; return;
      }
      var all = outbreak() ? [] : Rattus.legal(st.S);
      if (all.length === 1 && all[0].action !== 'witch_look') { play(all[0]); }
    }
    function tap(fn) { past.push(JSON.stringify(st)); fn(); settle(); render(); }
    function settle() {  // one candidate left: it is the player's choice
      var c = candidates();
      if ((st.kind || st.picked.length) && c.length === 1) { play(c[0]); }
    }
    function pick(value) { tap(function () { st.picked.push(value); }); }
    function tapRegion(r) {
      var g = regions[r];
      if (!g || !g.classList.contains('can')) { return; }
      var next = nextPart(candidates());
      if (next.type === 'token') {  // the region's rats: one is picked, several are listed
        var rats = next.values.filter(function (t) { return st.S.rats[r].indexOf(t) >= 0; });
        if (rats.length === 1) { pick(rats[0]); } else { tap(function () { st.region = r; }); }
        return;
      }
      if (outbreak()) { return; }
      pick(r);
    }
    function nextPart(c) {
      var k = st.picked.length, type = null, values = [];
      c.forEach(function (a) {
        var part = partsOf(a)[k];
        if (!part) { return; }
        type = part[0];
        if (values.indexOf(part[1]) < 0) { values.push(part[1]); }
      });
      return {type: type, values: values};
    }
    function written() {
      var out = st.lines.slice();
      if (st.knight) { out.push('knight cubes'); }
      if (st.flips.length) { out.push('flip ' + st.flips.join(' ')); }
      return out;
    }
    function button(label, onclick, cls) {
      var b = document.createElement('button');
      b.textContent = label; b.onclick = onclick; if (cls) { b.className = cls; }
      $('choices').appendChild(b); return b;
    }
    function ratLabel(t) { return D.looks[t] ? W.rat + ' ' + t + ': ' + D.looks[t] : W.rat + ' ' + t; }
    function render() {
      var c = candidates(), next = nextPart(c), canRegions = {}, canRats = {};
      $('choices').textContent = '';
      $('undo').disabled = past.length === 0;
      if (outbreak()) {
        var legal = Rattus.legal(st.S);
        if (!st.knight && !st.flips.length && legal.some(function (a) { return a.action === 'knight_cubes'; })) {
          button(W.kinds.knight_cubes, function () { tap(function () { st.knight = true; }); });
        }
        st.S.rats[st.S.plague].forEach(function (t) {
          if (st.flips.indexOf(t) >= 0) { return; }
          canRats[t] = true; canRegions[st.S.plague] = true;
          button(W.flip + ': ' + ratLabel(t), function () { tap(function () { st.flips.push(t); }); });
        });
        $('step').textContent = W.outbreak;
      } else if (st.done) {
        $('step').textContent = st.stopped ? W.stopped : W.complete;
      } else {
        if (!st.kind && !st.picked.length) { top(); }
        if (next.type === 'region') { next.values.forEach(function (r) { canRegions[r] = true; }); }
        if (next.type === 'token') {
          next.values.forEach(function (t) {
            canRats[t] = true;
            var r = Rattus.regionOf(st.S, t);
            if (st.region === null) { canRegions[r] = true; }
            if (st.region === r) { button(ratLabel(t), function () { pick(t); }); }
          });
        }
        if (next.type === 'count') {
          next.values.forEach(function (n) { button(W.cubes[n] || String(n), function () { pick(n); }); });
        }
        if (next.type === 'via') {
          next.values.forEach(function (r) { button(r ? D.via[r] : W.direct, function () { pick(r); }); });
        }
        $('step').textContent = prompt(next);
        if (st.kind || st.picked.length) { button(W.cancel, function () { tap(function () {
          st.kind = null; st.picked = []; st.region = null; }); }, 'cancel'); }
      }
      draw(canRegions, canRats);
      finish(written(), st.done || outbreak());
    }
    function prompt(next) {
      var kind = st.kind || (st.picked.length ? 'picked' : 'top'), P = W.prompts;
      if (next.type === 'count') { return P.count; }
      if (next.type === 'via') { return P.via; }
      if (kind === 'top') {
        var has = function (k) { return Rattus.legal(st.S).some(function (a) { return a.action === k; }); };
        return st.S.phase === 'final' ? P.final : st.S.phase === 'setup' ? P.setup : has('spread') ? P.spread
          : has('place') ? P.place : P.plague;
      }
      if (kind === 'merchant') { return st.picked.length ? P.merchant_to : P.merchant_from; }
      if (kind === 'monk') { return st.picked.length ? P.monk_to : P.monk_rat; }
      return P[kind] || '';
    }
    function top() {  // the cards and the abilities: one button each, in words
      var seen = {};
      Rattus.legal(st.S).forEach(function (a) {
        if (a.action === 'take_card') {
          button(W.take[a.card], function () { tap(function () { play(a); }); }, 'card');
        } else if (DIRECT.indexOf(a.action) < 0 && !seen[a.action]) {
          seen[a.action] = true;
          if (a.action === 'witch_swap' || a.action === 'end') {
            button(W.kinds[a.action], function () { tap(function () { play(a); }); });
          } else {
            button(W.kinds[a.action], function () { tap(function () { st.kind = a.action; }); });
          }
        }
      });
    }
    function draw(canRegions, canRats) {
      pieces(D, st.S, S0, regions, canRegions, canRats, function (t) {
        if (outbreak()) { tap(function () { st.flips.push(t); }); } else { pick(t); }
      }, st.picked.concat(st.region ? [st.region] : []));
    }
    $('undo').onclick = function () { if (past.length) { st = JSON.parse(past.pop()); render(); } };
    var first = Rattus.legal(S0);
    if (!outbreak() && first.length === 1 && first[0].action !== 'witch_look') { play(first[0]); }
    render();
  }
  function drawMap(D) {  // the map as pbem.views.svg.map_svg draws it, with the same data- attributes
    var M = D.map, W0 = 1000, H0 = 780, BW = 190, BH = 136, at = {}, used = {}, regions = {};
    var svg = svgEl($('board'), 'svg', {xmlns: SVGNS, width: W0, height: H0, viewBox: '0 0 ' + W0 + ' ' + H0,
      'font-family': 'DejaVu Sans, Liberation Sans, Arial, Helvetica, sans-serif', 'class': 'pbem-board',
      'data-game': D.game, 'data-seq': D.after.seq});
    svgEl(svg, 'title', {}, M.title);
    var marker = svgEl(svgEl(svg, 'defs', {}), 'marker', {id: 'arrowhead', viewBox: '0 0 10 10', refX: 9, refY: 5,
      markerWidth: 7, markerHeight: 7, orient: 'auto-start-reverse'});
    svgEl(marker, 'path', {d: 'M0,0 L10,5 L0,10 z', fill: '#2b5d80'});
    svgEl(svg, 'rect', {x: 0, y: 0, width: W0, height: H0, fill: '#bcd7ea'});
    M.regions.forEach(function (r) { at[r[0]] = [r[3], r[4]]; used[r[0]] = r[5]; });
    function edge(a, b) {  // where the line from a towards b leaves a's box
      var dx = b[0] - a[0], dy = b[1] - a[1];
      var t = Math.min(dx ? (BW / 2 + 8) / Math.abs(dx) : 1e9, dy ? (BH / 2 + 8) / Math.abs(dy) : 1e9);
      return [Math.round(a[0] + t * dx), Math.round(a[1] + t * dy)];
    }
    M.links.forEach(function (l) {
      var a = at[l[0]], b = at[l[1]], o = used[l[0]] && used[l[1]] ? 1 : 0.25;
      var attrs = {'class': 'link', 'data-link': l[0] + ' ' + l[1], 'data-kind': l[2], opacity: o};
      if (l[2] === 'arrow') {
        var p = edge(a, b), q = edge(b, a);
        svgEl(svg, 'line', Object.assign(attrs, {x1: p[0], y1: p[1], x2: q[0], y2: q[1], stroke: '#2b5d80',
          'stroke-width': 3, 'stroke-dasharray': '9 6', 'marker-start': 'url(#arrowhead)',
          'marker-end': 'url(#arrowhead)'}));
      } else {
        svgEl(svg, 'line', Object.assign(attrs, {x1: a[0], y1: a[1], x2: b[0], y2: b[1], stroke: '#7a5c2e',
          'stroke-width': 10}));
      }
    });
    M.regions.forEach(function (r) {
      var g = svgEl(svg, 'g', {'class': 'region', 'data-region': r[0], 'data-name': r[1],
                               'data-in-play': r[5] ? 'true' : 'false'});
      if (r[6]) { g.setAttribute('data-changed', 'true'); }
      var x0 = r[3] - BW / 2, y0 = r[4] - BH / 2;
      svgEl(g, 'rect', {x: x0, y: y0, width: BW, height: BH, rx: 14, fill: r[2], stroke: '#6b5330', 'stroke-width': 2});
      var label = svgEl(g, 'text', {x: x0 + 8, y: y0 + 30, 'font-size': BIG, 'font-weight': 'bold', fill: '#3a2a10'},
                        r[1]);
      if (r[1].length > 7) { label.setAttribute('textLength', Math.min(146, r[1].length * 19)); }
      label.setAttribute('lengthAdjust', 'spacingAndGlyphs');
      regions[r[0]] = g;
    });
    return regions;
  }
  function pieces(D, S, S0, regions, canRegions, canRats, onRat, picked) {  // the board of S, as svg.py draws it
    Object.keys(regions).forEach(function (r) {
      var g = regions[r];
      g.classList.toggle('can', !!canRegions[r]);
      g.classList.toggle('picked', !!picked && picked.indexOf(r) >= 0);
      if (!S.rats[r]) { return; }
      Array.prototype.slice.call(g.querySelectorAll('.rat, .cubes, .plague')).forEach(function (el) {
        g.removeChild(el);
      });
      var box = g.querySelector('rect'), x0 = +box.getAttribute('x'), y0 = +box.getAttribute('y');
      var w = +box.getAttribute('width'), h = +box.getAttribute('height');
      var moved = JSON.stringify([S.rats[r], S.cubes[r], S.plague === r]) !==
        JSON.stringify([S0.rats[r], S0.cubes[r], S0.plague === r]);
      g.classList.toggle('moved', moved);
      box.setAttribute('stroke', S.plague === r ? '#b00000' : '#6b5330');
      box.setAttribute('stroke-width', S.plague === r ? 5 : 2);
      S.rats[r].forEach(function (t, i) {
        var rx = x0 + 6 + (i % 3) * 60, ry = y0 + 40;
        var rat = svgEl(g, 'g', {'class': 'rat' + (canRats[t] ? ' can' : '') + (D.looks[t] ? ' seen' : ''),
                                 'data-token': t});
        svgEl(rat, 'rect', {x: rx, y: ry, width: 58, height: 42, rx: 14, fill: '#4a3b32'});
        svgEl(rat, 'text', {x: rx + 29, y: ry + 32, 'font-size': BIG, fill: '#fff', 'text-anchor': 'middle',
                            textLength: 50, lengthAdjust: 'spacingAndGlyphs'}, t);
        rat.addEventListener('click', function (e) {
          if (!canRats[t] || !onRat) { return; }
          e.stopPropagation(); onRat(t);
        });
      });
      Object.keys(S.cubes[r]).sort().forEach(function (p, i) {
        var bx = x0 + 6 + i * 46, by = y0 + h - 46, n = S.cubes[r][p], colour = D.colours[p] || '#888888';
        var pile = svgEl(g, 'g', {'class': 'cubes', 'data-player': p, 'data-count': n});
        svgEl(pile, 'rect', {x: bx, y: by, width: 42, height: 42, rx: 4, fill: colour, stroke: '#222'});
        svgEl(pile, 'text', {x: bx + 21, y: by + 32, 'font-size': BIG, 'font-weight': 'bold', 'text-anchor': 'middle',
                             fill: ink(colour)}, String(n));
      });
      if (S.plague === r) {
        var px = x0 + w - 30, py = y0 + 3, piece = svgEl(g, 'g', {'class': 'plague', 'data-region': r});
        svgEl(piece, 'circle', {cx: px + 12, cy: py + 8, r: 8, fill: '#111'});
        svgEl(piece, 'path', {d: 'M' + px + ',' + (py + 34) + ' L' + (px + 5) + ',' + (py + 14) + ' L' + (px + 19) +
                              ',' + (py + 14) + ' L' + (px + 24) + ',' + (py + 34) + ' z', fill: '#111'});
      }
    });
    scoreboard(D, S);
  }
  function scoreboard(D, S) {  // R6.5: cubes on the board, the palace included; the cards' holders
    var box = $('scores'), scores = Rattus.scores(S);
    box.textContent = '';
    S.players.forEach(function (p) {
      var chip = document.createElement('span');
      chip.className = 'score' + (p === D.seat ? ' me' : '');
      chip.setAttribute('data-player', p); chip.setAttribute('data-score', scores[p]);
      chip.setAttribute('data-palace', S.palace[p]); chip.setAttribute('data-supply', S.supply[p]);
      var sw = document.createElement('b'); sw.className = 'swatch'; sw.style.backgroundColor = D.colours[p];
      chip.appendChild(sw);
      chip.appendChild(document.createTextNode(W.score.replace('{player}', p).replace('{score}', scores[p])
        .replace('{palace}', S.palace[p]).replace('{supply}', S.supply[p])));
      box.appendChild(chip);
    });
    var cards = $('cards');
    cards.textContent = '';
    S.classes.forEach(function (c) {
      var el = document.createElement('span');
      el.className = 'held'; el.setAttribute('data-card', c); el.setAttribute('data-holder', S.cards[c] || '');
      el.textContent = D.names.cards[c] + ': ' + (S.cards[c] || W.nobody);
      cards.appendChild(el);
    });
  }
})();
