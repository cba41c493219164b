// The composer page's script (pbem.views.compose): the opening's nonce (P4) and a turn tapped on
// the board.  It knows no language (every word comes with the page's data) and no rule but the
// rules module inlined before it (pbem/views/rules.js); pbem's Python rules judge the move.
(() => {
  var root = document.documentElement, violations = 0;
  document.addEventListener('securitypolicyviolation', () => {
    violations += 1; root.setAttribute('data-csp-violations', String(violations));
  });
  if (document.readyState === 'loading') { document.addEventListener('DOMContentLoaded', main); }
  function $(id) { return document.getElementById(id); }
  function button(label, onclick, cls) {
    var b = document.createElement('button');
    b.textContent = label; b.onclick = onclick; if (cls) { b.className = cls; }
    return b;
  }
  var W = {};  // the page's words, in its reader's language (page_data's "words")
  // The keyboard: after a choice made with Enter or Space, the focus goes on to the control it was
  // on if it is still there, else to the first of the next step's (a region, a choice, Send).
  var keyed = false;
  document.addEventListener('keydown', e => { if (e.key === 'Enter' || e.key === ' ') { keyed = true; } }, true);
  document.addEventListener('pointerdown', () => { keyed = false; }, true);
  function focusKey() {
    var a = document.activeElement;
    if (!a || a === document.body) { return null; }
    if (a.id) { return '#' + a.id; }
    var card = a.getAttribute('data-card'), region = a.getAttribute('data-region');
    return card ? '#cards [data-card="' + card + '"]' : region ? '#board .hit[data-region="' + region + '"]' : null;
  }
  function refocus(key) {
    if (!keyed) { return; }
    var again = key && document.querySelector(key);
    if (again && again.tabIndex >= 0 && !again.disabled && document.activeElement === again) { return; }
    var next = [key, '#board .region.can > .hit', '#choices button', '#send:not(.off)'].map(k => k && document.querySelector(k))
      .filter(el => el && el.tabIndex >= 0 && !el.disabled && el.getClientRects().length)[0];
    if (next) { next.focus({preventScroll: false}); }
  }
  function main() {
    var D = JSON.parse($('pbem-data').textContent);
    $('bar').hidden = false;  // Send, Copy and Download work with the script only
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
      [send, dl].forEach(a => {  // an unfinished move's links are off for the mouse, the keyboard and a reader
        a.className = complete ? 'button' : 'button off'; a.tabIndex = complete ? 0 : -1;
        if (complete) { a.removeAttribute('aria-disabled'); } else { a.setAttribute('aria-disabled', 'true'); }
      });
      $('copy').disabled = !complete;
    }
    $('copy').onclick = () => {
      var done = () => { $('copied').textContent = W.copied; };
      if (navigator.clipboard) { navigator.clipboard.writeText(text).then(done, () => {}); }
    };
    var regions = D.map ? drawMap(D) : {};
    if (D.opening) { Opening(D, W, finish, header, {$: $, button: button}); } else if (D.state && D.mine) { turn(D, regions, finish); }
    else {
      if (D.state) { pieces(D, D.state, D.state, regions, {}, {}, null); }
      $('step').textContent = D.waiting; finish([], false);
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
    Object.keys(attrs).forEach(k => { el.setAttribute(k, String(attrs[k])); });
    if (text !== undefined) { el.textContent = text; }
    parent.appendChild(el); return el;
  }
  var PART = {card: 'card', region: 'region', source: 'region', target: 'region', count: 'count', token: 'token'};
  function partsOf(a) {  // what a tap picks, in order: the action's fields (DECK); a path by its end, then its way
    var out = [];
    DECK.fields[a.action].forEach(f => {
      var v = a[f];
      if (f === 'path') { out.push(['region', v[v.length - 1]], ['via', v.length > 1 ? v[0] : '']); } else { out.push([PART[f], v]); }
    });
    return out;
  }
  function turn(D, regions, finish) {
    var me = D.seat, S0 = D.state;
    var st = {S: S0, lines: [], flips: [], knight: false, done: false, stopped: false, kind: null, picked: [],
              region: null}, past = [];
    Object.keys(regions).forEach(r => {  // a region is a button while it may be chosen: a tap, Enter or Space
      regions[r].addEventListener('click', () => { tapRegion(r); });
      regions[r].addEventListener('keydown', e => {
        if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); tapRegion(r); }
      });
    });
    function outbreak() {
      return !st.done && st.S.phase === 'turn' && st.S.turn.stage === 'outbreak' && Rattus.mover(st.S) === me;
    }
    function candidates() {
      if (st.done || outbreak()) { return []; }
      return Rattus.legal(st.S).filter(a => {
        if (st.kind ? a.action !== st.kind : DIRECT.indexOf(a.action) < 0) { return false; }
        var parts = partsOf(a);
        return st.picked.every((v, i) => parts[i] && parts[i][1] === v);
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
      if (!st.kind && !st.picked.length) { return; }
      if (c.length === 1) { play(c[0]); return; }
      if (nextPart(c).type === 'via') {  // R5.4: the way changes nothing but the move's text: the shortest
        play(c.filter(a => a.path.length === 1)[0] || c[0]);
      }
    }
    function pick(value) { tap(() => { st.picked.push(value); }); }
    function tapRegion(r) {
      var g = regions[r];
      if (!g || !g.classList.contains('can')) { return; }
      var next = nextPart(candidates());
      if (next.type === 'token') {  // the region's rats: one is picked, several are listed
        var rats = next.values.filter(t => st.S.rats[r].indexOf(t) >= 0);
        if (rats.length === 1) { pick(rats[0]); } else { tap(() => { st.region = r; }); }
        return;
      }
      if (outbreak()) { return; }
      pick(r);
    }
    function nextPart(c) {
      var k = st.picked.length, type = null, values = [];
      c.forEach(a => {
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
    function add(label, onclick, cls) { $('choices').appendChild(button(label, onclick, cls)); }
    function ratLabel(t) { return D.looks[t] ? W.rat + ' ' + t + ': ' + D.looks[t] : W.rat + ' ' + t; }
    function render() {
      var c = candidates(), next = nextPart(c), canRegions = {}, canRats = {};
      $('choices').textContent = '';
      $('undo').disabled = past.length === 0;
      if (outbreak()) {
        var legal = Rattus.legal(st.S);
        if (!st.knight && !st.flips.length && legal.some(a => a.action === 'knight_cubes')) {
          add(W.kinds.knight_cubes, () => { tap(() => { st.knight = true; }); });
        }
        var left = st.S.rats[st.S.plague].filter(t => st.flips.indexOf(t) < 0);
        if (left.length > 1) {  // an order only among two rats or more: the last one left is flipped last anyway
          left.forEach(t => { add(W.flip + ': ' + ratLabel(t), () => { tap(() => { st.flips.push(t); }); }, 'flip'); });
        }
        $('step').textContent = left.length > 1 ? W.outbreak : W.complete;
      } else if (st.done) {
        $('step').textContent = st.stopped ? W.stopped : W.complete;
      } else {
        if (!st.kind && !st.picked.length) { top(); }
        if (next.type === 'region') { next.values.forEach(r => { canRegions[r] = true; }); }
        if (next.type === 'token') {  // a rat is chosen by its region (a 44 px target), then by name if several
          next.values.forEach(t => {
            var r = Rattus.regionOf(st.S, t);
            if (st.region === null) { canRegions[r] = true; canRats[t] = true; }
            if (st.region === r) { add(ratLabel(t), () => { pick(t); }); }
          });
        }
        if (next.type === 'count') {
          next.values.forEach(n => { add(W.cubes[n] || String(n), () => { pick(n); }); });
        }
        $('step').textContent = prompt(next);
        if (next.type === 'region' && !st.picked.length && c.some(a => {
          return a.action === 'move_plague' || a.action === 'knight_move'; })) {
          next.values.forEach(r => { why(st.S, r); });
        }
        if (st.kind || st.picked.length) { add(W.cancel, () => { tap(() => {
          st.kind = null; st.picked = []; st.region = null; }); }, 'cancel'); }
      }
      var key = focusKey();
      draw(canRegions, canRats);
      finish(written(), st.done || outbreak());
      refocus(key);
    }
    function why(S, r) {  // a plague destination's consequences, from what this seat knows (P10)
      var o = outlook(D, S, r), line = document.createElement('p'), name = id => regionName(D, id);
      var list = (m, digits) => { return Object.keys(m).sort().map(p => {
        return p + ' ' + (digits ? m[p].toFixed(1) : m[p]); }).join(', ') || '-'; };
      line.className = 'why'; line.setAttribute('data-region', r);
      line.textContent = (o.losses ? W.why : W.calm).replace('{region}', name(r)).replace('{rats}', S.rats[r].length)
        .replace('{spread}', o.spread).replace('{where}', o.where.map(name).join(', ') || '-')
        .replace('{cubes}', list(S.cubes[r], false)).replace('{losses}', o.losses ? list(o.losses, true) : '');
      $('choices').appendChild(line);
    }
    function prompt(next) {
      var kind = st.kind || (st.picked.length ? 'picked' : 'top'), P = W.prompts;
      if (next.type === 'count') { return P.count; }
      if (kind === 'top') {
        var has = k => { return Rattus.legal(st.S).some(a => a.action === k); };
        return st.S.phase === 'final' ? P.final : st.S.phase === 'setup' ? P.setup : has('spread') ? P.spread
          : has('place') ? P.place : P.plague;
      }
      if (kind === 'merchant') { return st.picked.length ? P.merchant_to : P.merchant_from; }
      if (kind === 'monk') { return st.picked.length ? P.monk_to : P.monk_rat; }
      return P[kind] || '';
    }
    function top() {  // the cards and the abilities: one button each, in words
      var seen = {};
      Rattus.legal(st.S).forEach(a => {
        if (a.action === 'take_card') {  // R3.1: a held card is taken from its holder, named
          var from = st.S.cards[a.card];
          add(from ? W.takeFrom.replace('{card}', D.names.cards[a.card]).replace('{player}', from) : W.take[a.card],
              () => { tap(() => { play(a); }); }, 'card');
        } else if (DIRECT.indexOf(a.action) < 0 && !seen[a.action] && W.kinds[a.action]) {  // a kind the page has words for
          seen[a.action] = true;
          if (a.action === 'witch_swap' || a.action === 'end') {
            add(W.kinds[a.action], () => { tap(() => { play(a); }); });
          } else {
            add(W.kinds[a.action], () => { tap(() => { st.kind = a.action; }); });
          }
        }
      });
    }
    function draw(canRegions, canRats) {
      pieces(D, st.S, S0, regions, canRegions, canRats, st.picked.concat(st.region ? [st.region] : [], st.flips));
    }
    $('undo').onclick = () => { if (past.length) { st = JSON.parse(past.pop()); render(); } };
    var first = Rattus.legal(S0);
    if (!outbreak() && first.length === 1 && first[0].action !== 'witch_look') { play(first[0]); }
    render();
  }
  function drawMap(D) {  // the map as pbem.views.svg.map_svg draws it, with the same data- attributes
    var M = D.map, W0 = 1000, H0 = 780, BW = 190, BH = 136, at = {}, used = {}, regions = {};
    var svg = svgEl($('board'), 'svg', {xmlns: SVGNS, width: W0, height: H0, viewBox: '0 0 ' + W0 + ' ' + H0,
      'class': 'pbem-board',
      'data-game': D.game, 'data-seq': D.after.seq});
    svgEl(svg, 'title', {}, document.title);
    var marker = svgEl(svgEl(svg, 'defs', {}), 'marker', {id: 'arrowhead', viewBox: '0 0 10 10', refX: 9, refY: 5,
      markerWidth: 7, markerHeight: 7, orient: 'auto-start-reverse'});
    svgEl(marker, 'path', {d: 'M0,0 L10,5 L0,10 z', fill: '#2b5d80'});
    svgEl(svg, 'rect', {x: 0, y: 0, width: W0, height: H0, fill: '#bcd7ea'});
    M.regions.forEach(r => {  // [id, name (none: the id, capitalized), shade, x, y, in use, changed]
      r[1] = r[1] || r[0].charAt(0).toUpperCase() + r[0].slice(1);
      r[2] = ['#d9d9d9', '#f3e6c4', '#e4cf9b', '#cdb277', '#eadcb8'][r[2]];
      at[r[0]] = [r[3], r[4]]; used[r[0]] = r[5];
    });
    function edge(a, b) {  // where the line from a towards b leaves a's box
      var dx = b[0] - a[0], dy = b[1] - a[1];
      var t = Math.min(dx ? (BW / 2 + 8) / Math.abs(dx) : 1e9, dy ? (BH / 2 + 8) / Math.abs(dy) : 1e9);
      return [Math.round(a[0] + t * dx), Math.round(a[1] + t * dy)];
    }
    (D.state ? D.state.links : M.links).forEach(l => {
      var a = at[l[0]], b = at[l[1]], o = used[l[0]] && used[l[1]] ? 1 : 0.25;
      var attrs = {'class': 'link', 'data-link': l[0] + ' ' + l[1], 'data-kind': l[2] || 'border', opacity: o};
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
    M.regions.forEach(r => {
      var g = svgEl(svg, 'g', {'class': 'region', 'data-region': r[0], 'data-name': r[1],
                               'data-in-play': r[5] ? 'true' : 'false'});
      if (r[6]) { g.setAttribute('data-changed', 'true'); }
      var x0 = r[3] - BW / 2, y0 = r[4] - BH / 2;
      svgEl(g, 'rect', {x: x0, y: y0, width: BW, height: BH, rx: 14, fill: r[2], stroke: '#6b5330', 'stroke-width': 2});
      var label = svgEl(g, 'text', {x: x0 + 8, y: y0 + 30, 'font-size': BIG, 'font-weight': 'bold', fill: '#3a2a10'},
                        r[1]);
      if (r[1].length > 7) { label.setAttribute('textLength', Math.min(146, r[1].length * 19)); }
      label.setAttribute('lengthAdjust', 'spacingAndGlyphs');
      svgEl(g, 'rect', {x: x0, y: y0, width: BW, height: BH, rx: 14, fill: 'transparent', 'class': 'hit',  // the button
                        'data-region': r[0], 'aria-hidden': 'true'});
      regions[r[0]] = g;
    });
    return regions;
  }
  // The board of S, as svg.py draws it.  A rat is no tap target of its own (three share a region's
  // 70 px on a phone): a tap on it is its region's, and the rats a tap there may choose are marked.
  function pieces(D, S, S0, regions, canRegions, canRats, picked) {
    Object.keys(regions).forEach(r => {
      var g = regions[r];
      g.classList.toggle('can', !!canRegions[r]);
      var hit = g.querySelector('.hit');  // a region that may be chosen is a button over its box, named in words
      if (canRegions[r]) {
        hit.setAttribute('tabindex', '0'); hit.setAttribute('role', 'button'); hit.removeAttribute('aria-hidden');
      } else {
        ['tabindex', 'role', 'aria-label'].forEach(a => { hit.removeAttribute(a); }); hit.setAttribute('aria-hidden', 'true');
      }
      g.classList.toggle('picked', !!picked && picked.indexOf(r) >= 0);
      if (!S.rats[r]) { return; }
      Array.prototype.slice.call(g.querySelectorAll('.rat, .cubes, .plague')).forEach(el => {
        g.removeChild(el);
      });
      var box = g.querySelector('rect'), x0 = +box.getAttribute('x'), y0 = +box.getAttribute('y');
      var w = +box.getAttribute('width'), h = +box.getAttribute('height');
      var moved = JSON.stringify([S.rats[r], S.cubes[r], S.plague === r]) !==
        JSON.stringify([S0.rats[r], S0.cubes[r], S0.plague === r]);
      g.classList.toggle('moved', moved);
      box.setAttribute('stroke', S.plague === r ? '#b00000' : '#6b5330');
      box.setAttribute('stroke-width', S.plague === r ? 5 : 2);
      S.rats[r].forEach((t, i) => {
        var rx = x0 + 6 + (i % 3) * 60, ry = y0 + 40;
        var rat = svgEl(g, 'g', {'class': 'rat' + (canRats[t] ? ' opt' : '') + (D.looks[t] ? ' seen' : '') +
                                   (picked && picked.indexOf(t) >= 0 ? ' picked' : ''),
                                 'data-token': t});
        svgEl(rat, 'rect', {x: rx, y: ry, width: 58, height: 42, rx: 14, fill: '#4a3b32'});
        svgEl(rat, 'text', {x: rx + 29, y: ry + 32, 'font-size': BIG, fill: '#fff', 'text-anchor': 'middle',
                            textLength: 50, lengthAdjust: 'spacingAndGlyphs'}, t);
      });
      Object.keys(S.cubes[r]).sort().forEach((p, i) => {
        var bx = x0 + 6 + i * 46, by = y0 + h - 46, n = S.cubes[r][p], colour = D.colours[p] || '#888888';
        var mark = D.marks[p] || '', pile = svgEl(g, 'g', {'class': 'cubes', 'data-player': p, 'data-count': n,
                                                          'data-mark': mark});
        svgEl(pile, 'rect', {x: bx, y: by, width: 42, height: 42, rx: 4, fill: colour, stroke: '#222'});
        var label = svgEl(pile, 'text', {x: bx + 21, y: by + 32, 'font-size': BIG, 'font-weight': 'bold',
                                         'text-anchor': 'middle', fill: D.ink[p] || '#000'}, mark + n);
        if ((mark + n).length > 1) { label.setAttribute('textLength', 38); label.setAttribute('lengthAdjust', 'spacingAndGlyphs'); }
      });
      var cubes = Object.keys(S.cubes[r]).sort();  // a reader hears the name, the rats, whose cubes, the plague
      if (canRegions[r]) {
        hit.setAttribute('aria-label', [regionName(D, r)].concat(S.rats[r].map(t => W.rat + ' ' + t),
          cubes.map(p => p + ' ' + S.cubes[r][p]), S.plague === r ? [W.plague] : []).join(', '));
      }
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
    S.players.forEach(p => {
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
    var cards = $('cards'), info = $('card-info'), texts = D.cardText || {};
    cards.textContent = ''; info.textContent = '';
    Object.keys(S.cards).forEach(c => {  // each card a button: its ability and its risk, read on a tap
      var el = button(D.names.cards[c] + ': ' + (S.cards[c] || W.nobody), () => {
        var key = focusKey();
        shown = shown === c ? null : c; scoreboard(D, S); refocus(key);
      }, 'held');
      el.setAttribute('data-card', c); el.setAttribute('data-holder', S.cards[c] || '');
      el.setAttribute('aria-expanded', String(shown === c)); el.setAttribute('aria-controls', 'card-info');
      if (shown === c && texts[c]) { info.textContent = texts[c].join('\n'); }
      cards.appendChild(el);
    });
  }
  var shown = null;  // the card whose ability and risk are read
  function regionName(D, id) {  // as the map draws it, in the page's language
    var found = D.map.regions.filter(g => g[0] === id)[0];
    return found ? found[1] : id;
  }
  function outlook(D, S, r) {  // R4.1-R4.3 if the plague ends in r: the spreads, and the expected losses
    var here = S.rats[r].length, room = 0, where = [];
    Rattus.nb(S)[r].forEach(n => { if (S.rats[n].length < 3) { room += 3 - S.rats[n].length; where.push(n); } });
    var spread = Math.min(here === 0 ? 0 : here === 1 ? 1 : 2, S.rat_count, room);
    var players = Object.keys(S.cubes[r]);
    if (!here || !players.length) { return {spread: spread, where: spread ? where : [], losses: null}; }
    var faces = [], lost = {}, runs = 400, seed = 7;  // the faces hidden from this seat, one entry a token
    D.pool.forEach(f => { for (var i = 0; i < f[2]; i++) { faces.push(f); } });
    players.forEach(p => { lost[p] = 0; });
    for (var run = 0; run < runs; run++) {
      var left = faces.slice(), cubes = JSON.parse(JSON.stringify(S.cubes[r]));
      for (var k = 0; k < here && Object.keys(cubes).length; k++) {
        var t = S.rats[r][k], face = D.seen[t];
        if (!face) { seed = (seed * 1103515245 + 12345) % 2147483648; face = left.splice(seed % left.length, 1)[0]; }
        flip(S, cubes, face[0], face[1].split('').map(c => c === 'M' || c === 'A' ? c : Object.keys(S.cards)[+c]));
      }
      players.forEach(p => { lost[p] += S.cubes[r][p] - (cubes[p] || 0); });
    }
    players.forEach(p => { lost[p] /= runs; });
    return {spread: spread, where: spread ? where : [], losses: lost};
  }
  function flip(S, cubes, threshold, symbols) {  // R4.3 on a copy of the region's cubes
    var count = 0, top = 0;
    Object.keys(cubes).forEach(p => { count += cubes[p]; top = Math.max(top, cubes[p]); });
    if (count < threshold) { return; }
    var most = Object.keys(cubes).filter(p => cubes[p] === top);
    function remove(p) { if (cubes[p]) { cubes[p] -= 1; if (!cubes[p]) { delete cubes[p]; } } }
    symbols.forEach(s => { if (s === 'M') { most.forEach(remove); } });
    symbols.forEach(s => { if (S.cards[s] !== undefined && S.cards[s] !== null) { remove(S.cards[s]); } });
    symbols.forEach(s => { if (s === 'A') { Object.keys(cubes).forEach(remove); } });
  }
  if (document.readyState !== 'loading') { main(); }  // the packed page's loader runs this script after the load (pbem.views.packed)
})();
