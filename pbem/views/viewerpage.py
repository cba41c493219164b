"""The viewer's (`pbem html`'s) style and script: how the board fits the screen and steps.

Each entry's map is drawn twice: the standard drawing (:mod:`pbem.views.svg`), whose words
are 13 to 18 units of a map 1000 units wide, travels in the page's data; the script draws the
compact one from its pieces (:data:`pbem.views.layout.COMPACT`, the look `pbem.views.svg` draws a
site's game page with: the same sizes and places), whose words are 30 units and more, so the page
holds and its maker draws each entry's map once.  A screen under 820 CSS px wide shows the compact one, fitted
to its width: at 360 px its words are 10 px and more, and the whole map is in view.  A wider
screen shows the standard one, at least 780 px wide (10 px words); from 1120 px on, beside the
side panel, as tall as the screen allows, so the players' scores are in view beside the board.

The map's box keeps the map's shape; the zoom buttons (and ``+``, ``-``, ``0`` on the keyboard,
two fingers on a touch screen) draw the map 1.5, 2 or 3 times as large inside it, and the box then
scrolls both ways (a finger, the arrow keys once it has the focus).  A swipe on the page steps
through the game, as do the buttons and the arrow keys elsewhere; a swipe that starts on a map
larger than its box moves the map instead.
"""

from __future__ import annotations

STYLE = """
body { font-family: DejaVu Sans, Liberation Sans, Arial, sans-serif; margin: 12px; background: #f4f1ea;
       font-size: 16px; }
h1 { font-size: 20px; margin: 0 0 8px 0; }
#controls { display: flex; flex-wrap: wrap; align-items: center; gap: 4px; background: #f4f1ea; }
#controls button { font-size: 16px; min-width: 44px; min-height: 44px; }
#where { margin-left: 8px; font-weight: bold; }
:focus-visible { outline: 3px solid #1d4f91; outline-offset: 2px; }
#frame { display: grid; grid-template-columns: minmax(0, 1fr); grid-template-areas: "map" "words" "panel"; gap: 8px; }
#map { grid-area: map; min-width: 0; overflow: auto; aspect-ratio: 1000 / 780; border: 1px solid #999;
       background: #bcd7ea; touch-action: pan-x pan-y; }
#panel { grid-area: panel; min-width: 0; } #words { grid-area: words; min-width: 0; }
#map svg { display: block; width: calc(100% * var(--zoom, 1)); height: auto; max-width: none; }
#map svg.standard { display: none; }
#panel svg { display: block; width: 100%; height: auto; max-width: 420px; border: 1px solid #999; background: #fff; }
@media (min-width: 820px) {
  #map svg.standard { display: block; } #map svg.compact { display: none; }
  #map { min-width: 780px; }
}
@media (min-width: 1120px) {
  #frame { grid-template-columns: clamp(780px, calc((100vh - 110px) * 1.282), calc(100vw - 350px)) 300px;
           grid-template-areas: "map panel" "words panel"; align-items: start; }
  #panel svg { max-width: none; }
}
#narration { font-family: DejaVu Sans Mono, monospace; font-size: 14px; white-space: pre-wrap; background: #fff;
             border: 1px solid #ccc; padding: 8px; margin: 0 0 8px 0; }
#verdict { padding: 8px; border: 2px solid #2c7a2c; background: #eef8ee; }
#verdict p { margin: 0 0 10px 0; } #verdict p:last-child { margin-bottom: 0; }
#verdict.refused { border-color: #b00000; background: #fbeaea; }
#verdict:empty { display: none; }
#map .region[data-changed] > rect:first-of-type { stroke-dasharray: 14 6; stroke-width: 6; }
#swipe { display: none; }
html, body { overscroll-behavior-x: none; }
#view { touch-action: pan-y pinch-zoom; }
@media (max-width: 819px) {
  body { margin: 6px; }
  #controls { position: sticky; top: 0; z-index: 1; padding: 4px 0; }
  #controls button { padding: 2px 6px; } #controls .w { display: none; }  /* the buttons' words: their names */
  #zoom-in, #zoom-out { font-size: 22px; font-weight: bold; }
  #swipe { display: block; font-size: 14px; color: #444; margin: 4px 0; }
}
"""

SCRIPT = """
(function () {
  var root = document.documentElement, violations = 0;
  document.addEventListener('securitypolicyviolation', function () {
    violations += 1;
    root.setAttribute('data-csp-violations', String(violations));
  });
  document.addEventListener('DOMContentLoaded', main);
  var ZOOMS = [1, 1.5, 2, 3], NS = 'http://www.w3.org/2000/svg';
  function mk(parent, tag, attrs, text) {
    var e = parent.appendChild(document.createElementNS(NS, tag));
    Object.keys(attrs).forEach(function (k) { e.setAttribute(k, attrs[k]); });
    if (text !== undefined) { e.textContent = text; }
    return e;
  }
  function fitted(parent, x, y, text, size, room, attrs) {  // svg.py's _fitted
    var t = mk(parent, 'text', Object.assign({x: Math.round(x), y: Math.round(y), 'font-size': size}, attrs), text);
    if (text.length * size * 0.62 > room) {
      t.setAttribute('textLength', room); t.setAttribute('lengthAdjust', 'spacingAndGlyphs');
    }
  }
  function compact(std) {  // pbem.views.svg's COMPACT look (a phone's), drawn here from the standard drawing's pieces
    var svg = std.cloneNode(false), at = {}, BW = 190, BH = 136;
    svg.setAttribute('class', 'pbem-board compact');
    Array.prototype.forEach.call(std.children, function (e) {
      if (e.tagName === 'title' || e.tagName === 'rect') { svg.appendChild(e.cloneNode(true)); }
      if (e.tagName === 'defs') { svg.appendChild(e.cloneNode(true)).querySelector('marker').id = 'arrowhead-compact'; }
    });
    std.querySelectorAll('.region').forEach(function (g) {
      var r = g.querySelector(':scope > rect');
      at[g.getAttribute('data-region')] = [+r.getAttribute('x') + 95, +r.getAttribute('y') + 59];
    });
    function edge(a, b) {  // svg.py's _edge for the compact box
      var dx = b[0] - a[0], dy = b[1] - a[1];
      var t = Math.min(dx ? (BW / 2 + 8) / Math.abs(dx) : 1e9, dy ? (BH / 2 + 8) / Math.abs(dy) : 1e9);
      return [Math.round(a[0] + t * dx), Math.round(a[1] + t * dy)];
    }
    std.querySelectorAll('.link').forEach(function (l) {
      var c = svg.appendChild(l.cloneNode(false)), ends = l.getAttribute('data-link').split(' ');
      if (l.getAttribute('data-kind') !== 'arrow') { return; }
      var p = edge(at[ends[0]], at[ends[1]]), q = edge(at[ends[1]], at[ends[0]]);
      [['x1', p[0]], ['y1', p[1]], ['x2', q[0]], ['y2', q[1]], ['marker-start', 'url(#arrowhead-compact)'],
       ['marker-end', 'url(#arrowhead-compact)']].forEach(function (a) { c.setAttribute(a[0], a[1]); });
    });
    std.querySelectorAll('.region').forEach(function (g) { region(svg, g, at[g.getAttribute('data-region')]); });
    return svg;
  }
  function region(svg, g, centre) {  // svg.py's _region, _rats, _cubes and _plague in the COMPACT look
    var c = svg.appendChild(g.cloneNode(false)), r = g.querySelector(':scope > rect');
    var words = g.querySelectorAll(':scope > text');
    var x0 = centre[0] - 95, y0 = centre[1] - 68, plague = !!g.querySelector('.plague'), label = words[0].textContent;
    c.appendChild(g.querySelector(':scope > title').cloneNode(true));
    mk(c, 'rect', {x: x0, y: y0, width: 190, height: 136, rx: 14, fill: r.getAttribute('fill'),
                   stroke: r.getAttribute('stroke'), 'stroke-width': r.getAttribute('stroke-width')});
    fitted(c, x0 + 8, y0 + 32, label, label.length <= 8 ? 33 : 30, plague ? 148 : 176,
           {'font-weight': 'bold', fill: '#3a2a10'});
    if (words.length > 1) { fitted(c, x0 + 12, y0 + 98, words[1].textContent, 30, 170, {fill: '#555'}); }
    g.querySelectorAll('.rat').forEach(function (t, i) {
      var rat = mk(c, 'g', {'class': 'rat', 'data-token': t.getAttribute('data-token')});
      var rx = x0 + 8 + i * 60, ry = y0 + 45;
      mk(rat, 'rect', {x: rx, y: ry, width: 56, height: 42, rx: 21, fill: '#4a3b32'});
      fitted(rat, rx + 28, ry + 32, t.getAttribute('data-token'), 30, 50, {fill: '#fff', 'text-anchor': 'middle'});
    });
    g.querySelectorAll('.cubes').forEach(function (p, i) {
      var pile = mk(c, 'g', {'class': 'cubes', 'data-player': p.getAttribute('data-player'),
                             'data-count': p.getAttribute('data-count'), 'data-mark': p.getAttribute('data-mark')});
      var bx = x0 + 6 + i * 46, by = y0 + 88, text = p.querySelector('text');
      mk(pile, 'rect', {x: bx, y: by, width: 44, height: 42, rx: 3, fill: p.querySelector('rect').getAttribute('fill'),
                        stroke: '#222'});
      fitted(pile, bx + 22, by + 32, text.textContent, 30, 40,
             {fill: text.getAttribute('fill'), 'text-anchor': 'middle', 'font-weight': 'bold'});
    });
    if (plague) {
      var px = x0 + 160, py = y0 + 3;
      var piece = mk(c, 'g', {'class': 'plague', 'data-region': g.getAttribute('data-region')});
      mk(piece, 'circle', {cx: px + 12, cy: py + 9, r: 9, fill: '#111'});
      mk(piece, 'path', {d: 'M' + px + ',' + (py + 40) + ' L' + (px + 5) + ',' + (py + 16) + ' L' + (px + 19) + ',' +
                            (py + 16) + ' L' + (px + 24) + ',' + (py + 40) + ' z', fill: '#111'});
    }
  }
  function main() {
    var view = document.getElementById('view'), map = document.getElementById('map');
    var data = JSON.parse(document.getElementById('pbem-data').textContent), W = data.words;
    var n = data.entries.length, shown = -1, zoom = 1;
    document.getElementById('needs-script').hidden = true;
    function wanted() {
      var m = /entry=(\\d+)/.exec(location.hash);
      var i = m ? parseInt(m[1], 10) : n - 1;
      return Math.max(0, Math.min(n - 1, i));
    }
    function drawing(lines) {  // pbem.views.html.drawing: a drawing's lines from the page's table
      return lines.map(function (k) { return data.parts[k]; }).join('\\n');
    }
    function drawn() {  // the map's drawing this screen shows (the other is display: none)
      return Array.prototype.filter.call(map.querySelectorAll('svg'), function (s) {
        return s.getBoundingClientRect().width > 0; })[0];
    }
    function show(i) {
      i = Math.max(0, Math.min(n - 1, i));
      var e = data.entries[i];
      shown = i;
      map.innerHTML = drawing(e.svg);
      map.appendChild(compact(map.firstElementChild));
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
      var svg = drawn(), changed = svg && svg.querySelector('.region[data-changed] rect');
      if (changed && zoom > 1) {  // a larger map: the entry's first change in sight
        var box = changed.getBBox(), k = svg.getBoundingClientRect().width / 1000;
        map.scrollLeft = (box.x + box.width / 2) * k - map.clientWidth / 2;
        map.scrollTop = (box.y + box.height / 2) * k - map.clientHeight / 2;
      }
      if (location.hash !== '#entry=' + i) { history.replaceState(null, '', '#entry=' + i); }
    }
    function zoomTo(z) {  // the point at the box's centre stays there
      z = Math.max(1, Math.min(3, z));
      var cx = (map.scrollLeft + map.clientWidth / 2) / zoom, cy = (map.scrollTop + map.clientHeight / 2) / zoom;
      zoom = z;
      map.style.setProperty('--zoom', String(z));
      map.setAttribute('data-zoom', String(z));
      map.scrollLeft = cx * z - map.clientWidth / 2;
      map.scrollTop = cy * z - map.clientHeight / 2;
      document.getElementById('zoom-in').disabled = z >= 3;
      document.getElementById('zoom-out').disabled = z <= 1;
      document.getElementById('fit').disabled = z <= 1;
    }
    function step(d) {
      var next = ZOOMS.filter(function (z) { return d > 0 ? z > zoom + 0.01 : z < zoom - 0.01; });
      if (next.length) { zoomTo(d > 0 ? next[0] : next[next.length - 1]); }
    }
    document.getElementById('first').onclick = function () { show(0); };
    document.getElementById('prev').onclick = function () { show(shown - 1); };
    document.getElementById('next').onclick = function () { show(shown + 1); };
    document.getElementById('last').onclick = function () { show(n - 1); };
    document.getElementById('zoom-in').onclick = function () { step(1); };
    document.getElementById('zoom-out').onclick = function () { step(-1); };
    document.getElementById('fit').onclick = function () { zoomTo(1); };
    document.addEventListener('keydown', function (ev) {
      if (ev.altKey || ev.ctrlKey || ev.metaKey || /^(INPUT|TEXTAREA|SELECT)$/.test(ev.target.tagName)) { return; }
      var inMap = document.activeElement === map && zoom > 1;  // the arrows move a larger map
      if (ev.key === 'ArrowLeft' && !inMap) { show(shown - 1); }
      else if (ev.key === 'ArrowRight' && !inMap) { show(shown + 1); }
      else if (ev.key === 'Home') { show(0); }
      else if (ev.key === 'End') { show(n - 1); }
      else if (ev.key === '+' || ev.key === '=') { step(1); }
      else if (ev.key === '-') { step(-1); }
      else if (ev.key === '0') { zoomTo(1); }
      else { return; }
      ev.preventDefault();
    });
    var start = null, pinch = null;  // a swipe: to the left the next entry, to the right the one before
    view.addEventListener('touchstart', function (ev) {
      var t = ev.touches;
      if (t.length === 2 && map.contains(ev.target)) {
        pinch = {d: Math.hypot(t[0].clientX - t[1].clientX, t[0].clientY - t[1].clientY), z: zoom};
      }
      var panning = map.contains(ev.target) && zoom > 1;  // a larger map moves, not the game
      start = t.length === 1 && !panning ? {x: t[0].clientX, y: t[0].clientY} : null;
    }, {passive: true});
    map.addEventListener('touchmove', function (ev) {  // two fingers on the map: its zoom
      var t = ev.touches;
      if (!pinch || t.length !== 2) { return; }
      zoomTo(pinch.z * Math.hypot(t[0].clientX - t[1].clientX, t[0].clientY - t[1].clientY) / pinch.d);
      ev.preventDefault();
    }, {passive: false});
    view.addEventListener('touchend', function (ev) {
      if (ev.touches.length < 2) { pinch = null; }
      if (!start) { return; }
      var t = ev.changedTouches[0], dx = t.clientX - start.x, dy = t.clientY - start.y;
      start = null;
      if (Math.abs(dx) > 50 && Math.abs(dx) > 2 * Math.abs(dy)) { show(shown + (dx < 0 ? 1 : -1)); }
    }, {passive: true});
    window.addEventListener('hashchange', function () { if (wanted() !== shown) { show(wanted()); } });
    zoomTo(1);
    show(wanted());
  }
})();
"""
