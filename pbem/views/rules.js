// The rules of Rattus as the composer page needs them: the legal next actions of the seat to
// move and the public state after each, faces unknown (P10).  A copy, for the page's choices
// only: pbem's Python rules (pbem.rules: checks, legal, engine) stay the only authority, every
// move the page writes is judged by them, and tests/test_rulesjs.py holds this file to them
// over thousands of positions of random games (the same actions, in the same order, and the
// same states after each).  The state is pbem.views.seatstate.seat_state's JSON (the neighbours
// worked out once from its links, kept as S.nb).  DECK comes before this file, derived from the
// deck's declaration (pbem.views.seatstate.deck_js): each kind's keyword and fields, the card whose
// ability it is, the groups each part allows.  This file holds what no declaration says: each
// group's generator (G) and each kind's effect (E), one each for every declared one
// (tests/test_seventh_card.py); a card is named by its action's kind (A.king is the King's card),
// the Peasant alone by its id: his ability changes the placing, it adds no action (R5.5).  DECK comes before this file, derived from the
// deck's declaration (pbem.views.seatstate.deck_js): each kind's keyword and fields, the card whose
// ability it is, the groups each part allows.  This file holds what no declaration says: each
// group's generator (G) and each kind's effect (E), one each for every declared one
// (tests/test_seventh_card.py); a card is named by its action's kind (A.king is the King's card),
// the Peasant alone by its id: his ability changes the placing, it adds no action (R5.5).
var Rattus = (() => {
  var MAX_RATS = 3;  // R1.7
  var A = DECK.ability;

  function nb(S) {  // neighbours among the regions in use, in map order (pbem.rules.data.Board.adjacency)
    if (!S.nb) {
      S.nb = {};
      S.regions.forEach(r => {
        S.nb[r] = S.regions.filter(x => S.links.some(l => (l[0] === r && l[1] === x) || (l[1] === r && l[0] === x)));
      });
    }
    return S.nb;
  }
  function copy(S) { return JSON.parse(JSON.stringify(S)); }
  function mover(S) { return S.phase === 'over' ? null : S.players[S.current]; }
  function has(list, x) { return list.indexOf(x) >= 0; }
  function mine(S, region, p) { return S.cubes[region][p] || 0; }
  function withRoom(S, regions) {  // R1.7
    return regions.filter(r => S.rats[r].length < MAX_RATS);
  }
  function abilityOpen(S, p, card) {  // R5: the holder's, once a turn
    return S.cards[card] === p && !has(S.turn.used, card);
  }

  // R2.5, R3.2, R5.5, R6.3: the counts one may place on a region with `rats` rats
  function counts(S, p, rats) {
    if (S.phase === 'setup') { return [2]; }
    if (S.phase === 'final') { return [1]; }
    var supply = S.supply[p], peasant = abilityOpen(S, p, 'peasant');
    if (!supply) { return []; }
    var normal = rats < supply ? rats : supply;
    if (peasant) {
      var extra = rats < supply ? rats + 1 : supply;
      return rats && normal !== extra ? [normal, extra] : [extra];
    }
    return rats ? [normal] : [];
  }
  function placeOpen(S, p) {  // R3.2 once a turn; R6.3 the Peasant's cube
    if (S.phase === 'final') { return abilityOpen(S, p, 'peasant') && S.supply[p] >= 1; }
    return !(S.phase === 'turn' && S.turn.placed);
  }
  function canPlace(S, p) {
    return S.regions.some(r => counts(S, p, S.rats[r].length).length > 0);
  }
  function paths(S, longest) {  // R3.3, R5.4, R6.3
    var start = S.plague, out = [];
    nb(S)[start].forEach(first => {
      if (first !== start) { out.push([first]); }
      if (longest === 2) {
        nb(S)[first].forEach(second => { if (second !== start) { out.push([first, second]); } });
      }
    });
    return out;
  }

  var G = {
    take_card: (S, p) => {  // R3.1
      if (S.turn.card_taken) { return []; }
      return Object.keys(S.cards).filter(c => S.cards[c] !== p)  // the classes in order (R1.5)

        .map(c => { return {action: 'take_card', card: c}; });
    },
    place: (S, p) => {
      if (!placeOpen(S, p)) { return []; }
      var out = [];
      S.regions.forEach(r => {
        counts(S, p, S.rats[r].length).forEach(n => { out.push({action: 'place', region: r, count: n}); });
      });
      return out;
    },
    king: (S, p) => {  // R5.1
      if (!abilityOpen(S, p, A.king)) { return []; }
      return S.regions.filter(r => !S.rats[r].length && mine(S, r, p))
        .map(r => { return {action: 'king', region: r}; });
    },
    merchant: (S, p) => {  // R5.2
      if (!abilityOpen(S, p, A.merchant)) { return []; }
      var out = [];
      S.regions.forEach(r => {
        var most = Math.min(3, mine(S, r, p));
        nb(S)[r].forEach(n => {
          for (var k = 1; k <= most; k++) { out.push({action: 'merchant', source: r, target: n, count: k}); }
        });
      });
      return out;
    },
    monk: (S, p) => {  // R5.3
      if (!abilityOpen(S, p, A.monk)) { return []; }
      var out = [];
      S.regions.forEach(r => {
        var targets = withRoom(S, nb(S)[r]);
        S.rats[r].forEach(t => {
          targets.forEach(n => { out.push({action: 'monk', token: t, target: n}); });
        });
      });
      return out;
    },
    witch_look: (S, p) => {  // R5.6: the looks, then the swap
      var out = [], turn = S.turn, second = turn.witch_open && turn.witch_looked.length === 1;
      if (second ? S.cards[A.witch_look] === p : abilityOpen(S, p, A.witch_look)) {
        S.regions.forEach(r => {
          S.rats[r].forEach(t => {
            if (!(second && t === turn.witch_looked[0])) { out.push({action: 'witch_look', token: t}); }
          });
        });
      }
      if (turn.witch_open && turn.witch_looked.length === 2) { out.push({action: 'witch_swap'}); }
      return out;
    },
    move_plague: (S, p) => {  // R3.2 ruling: phase B first while a cube can be placed
      if (!S.turn.placed && canPlace(S, p)) { return []; }
      return paths(S, S.cards[A.knight_move] === p ? 2 : 1).map(path => { return {action: 'move_plague', path: path}; });
    },
    spread: S => {  // R4.1
      return withRoom(S, nb(S)[S.plague]).map(r => { return {action: 'spread', region: r}; });
    },
    flip: (S, p) => {  // R4.2, R5.4
      var out = S.rats[S.plague].map(t => { return {action: 'flip', token: t}; });
      if (!S.turn.flips && S.cards[A.knight_cubes] === p && !S.turn.knight_cubes) { out.push({action: 'knight_cubes'}); }
      return out;
    },
    knight_move: (S, p) => {  // R6.3
      if (!abilityOpen(S, p, A.knight_move)) { return []; }
      return paths(S, 2).map(path => { return {action: 'knight_move', path: path}; });
    },
    end: () => { return [{action: 'end'}]; }
  };
  function legal(S) {  // pbem.rules.legal.legal_actions, in its order
    var p = mover(S), out = [];
    if (p === null) { return out; }
    (DECK.kinds[S.phase + ' ' + S.turn.stage] || []).forEach(k => { out = out.concat(G[k](S, p)); });
    return out;
  }

  function fresh() {
    return {card_taken: false, placed: false, used: [], witch_looked: [], witch_open: false, stage: 'main',
            spread_left: 0, knight_cubes: false, flips: 0};
  }
  function use(S, card) { if (!has(S.turn.used, card)) { S.turn.used.push(card); S.turn.used.sort(); } }
  function startPart(S, seat, phase) {
    S.current = seat; S.phase = phase; S.turn = fresh();
    if (phase === 'turn') { S.turn_number += 1; }
  }
  function endTurn(S) {  // R3.4, R6.1 and its ruling, R6.2
    var n = S.players.length, reason = !S.rat_count ||
      S.players.some(p => S.supply[p] === 0) ||
      !S.regions.some(r => S.rats[r].length);
    if (!reason) { startPart(S, (S.current + 1) % n, 'turn'); return; }
    S.last_player = S.current; S.queue = [];
    for (var k = 1; k < n; k++) { S.queue.push(((S.current - k) % n + n) % n); }
    startPart(S, S.queue.shift(), 'final');
  }
  function pending(S, r) {  // R4.2
    return S.rats[r].length > 0 && Object.keys(S.cubes[r]).some(p => S.cubes[r][p] > 0);
  }
  function afterSpread(S) {
    if (S.turn.spread_left) { return; }
    if (pending(S, S.plague)) { S.turn.stage = 'outbreak'; } else { endTurn(S); }
  }
  function add(S, r, p, n) {
    var left = mine(S, r, p) + n;
    if (left) { S.cubes[r][p] = left; } else { delete S.cubes[r][p]; }
  }
  function regionOf(S, token) {
    for (var i = 0; i < S.regions.length; i++) { if (has(S.rats[S.regions[i]], token)) { return S.regions[i]; } }
    return null;
  }
  var E = {
    take_card: (S, p, a) => { S.cards[a.card] = p; S.turn.card_taken = true; },
    place: (S, p, a) => {
      if (S.phase === 'final') { use(S, 'peasant'); } else if (S.phase === 'turn') {
        if (a.count > Math.min(S.rats[a.region].length, S.supply[p])) { use(S, 'peasant'); }  // R5.5
        S.turn.placed = true;
      }
      S.supply[p] -= a.count; add(S, a.region, p, a.count);
    },
    king: (S, p, a) => { use(S, A.king); add(S, a.region, p, -1); S.palace[p] += 1; },
    merchant: (S, p, a) => { use(S, A.merchant); add(S, a.source, p, -a.count); add(S, a.target, p, a.count); },
    monk: (S, p, a) => {
      var from = regionOf(S, a.token);
      use(S, A.monk); S.rats[from].splice(S.rats[from].indexOf(a.token), 1); S.rats[a.target].push(a.token);
    },
    witch_look: (S, p, a) => {
      if (!S.turn.witch_open) { use(S, A.witch_look); S.turn.witch_open = true; S.turn.witch_looked = []; }
      S.turn.witch_looked.push(a.token);
    },
    witch_swap: S => {  // each takes the other's place (R4.2)
      var one = S.turn.witch_looked[0], two = S.turn.witch_looked[1];
      var ra = S.rats[regionOf(S, one)], rb = S.rats[regionOf(S, two)], ia = ra.indexOf(one), ib = rb.indexOf(two);
      ra[ia] = two; rb[ib] = one; S.turn.witch_open = false;
    },
    move_plague: (S, p, a) => {  // R3.3, R4.1
      if (a.path.length === 2) { use(S, A.knight_move); }
      S.plague = a.path[a.path.length - 1];
      var here = S.rats[S.plague].length, wanted = here === 0 ? 0 : here === 1 ? 1 : 2, room = 0;
      nb(S)[S.plague].forEach(r => { room += MAX_RATS - S.rats[r].length; });
      S.turn.spread_left = Math.min(wanted, S.rat_count, room); S.turn.stage = 'spread';
      afterSpread(S);
    },
    spread: (S, p, a) => {
      S.rats[a.region].push(S.rat_next.length ? S.rat_next.shift() : '?');
      S.rat_count -= 1; S.turn.spread_left -= 1; afterSpread(S);
    },
    knight_cubes: S => { S.turn.knight_cubes = true; },
    knight_move: (S, p, a) => { use(S, A.knight_move); S.plague = a.path[a.path.length - 1]; },
    end: S => {
      if (!S.queue.length) { return false; }  // the final sweep (R6.4) needs the faces
      startPart(S, S.queue.shift(), 'final'); return true;
    },
    flip: () => false  // a flip needs the face: the host's alone
  };

  // The state after one legal action of the seat to move (pbem.rules.engine.apply_legal with
  // no faces), or null where only the faces could tell (a flip, the final sweep).
  function apply(S, a) {
    var T = copy(S), p = mover(S), setup = S.phase === 'setup';
    if (E[a.action](T, p, a) === false) { return null; }
    if (setup) {
      if (T.queue.length) { startPart(T, T.queue.shift(), 'setup'); } else { startPart(T, T.current, 'turn'); }
    } else if (a.action !== 'witch_look' && a.action !== 'witch_swap') {
      T.turn.witch_open = false;  // R5.6 ruling: any other action ends the Witch's use
    }
    return T;
  }

  function line(a) {  // pbem.log.notation.action_line: the keyword, then the fields in order
    return [DECK.words[a.action]].concat(...DECK.fields[a.action].map(f => a[f])).join(' ');
  }

  function scores(S) {  // R6.5: cubes on the board, the palace included
    var out = {};
    S.players.forEach(p => {
      out[p] = S.palace[p];
      S.regions.forEach(r => { out[p] += mine(S, r, p); });
    });
    return out;
  }

  return {nb: nb, legal: legal, apply: apply, line: line, mover: mover, scores: scores, regionOf: regionOf};
})();
