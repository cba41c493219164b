"""The viewer's (`pbem html`'s) style and script: how the board fits the screen and steps.

Each entry has two drawings of its map (:mod:`pbem.views.svg`): the standard one, whose words
are 13 to 18 units of a map 1000 units wide, and the compact one (:data:`pbem.views.layout.COMPACT`),
whose words are 30 units and more.  A screen under 820 CSS px wide shows the compact one, fitted
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
  var ZOOMS = [1, 1.5, 2, 3];
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
      map.innerHTML = drawing(e.svg) + '\\n' + drawing(e.small);
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
