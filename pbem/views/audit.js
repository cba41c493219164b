// The audit of a finished pbem game in the player's browser: tools/audit_min.py, line for line, in JavaScript
// (pbem/views/auditjs.py says why and how a page uses it).  WebCrypto only (crypto.subtle: SHA-256,
// HMAC-SHA-256, Ed25519); it reads no page element, sends nothing and fetches nothing.
// window.pbemAudit(text or bytes) -> Promise of {code, lines, verdict: {kind, seq, rule, line}}.
(function () {
  'use strict';
  var PROTOCOL = 'pbem-rattus/v2', TAG = 'pbem-rattus/v1', ZERO = '0'.repeat(64), DOC = 'docs/protocol.md';
  var STANDARD = STANDARD_HASHES, REMOVED = {2: 12, 3: 6, 4: 0};
  var AT = /^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$/;
  var enc = new TextEncoder(), subtle = crypto.subtle;

  function Refused(entry, rule, why, code) { this.entry = entry; this.rule = rule; this.why = why; this.code = code || 7; }
  function PyErr(type, text) { this.type = type; this.text = text; }  // KeyError, TypeError, ... as Python names them

  // --- Python's view of JSON values: what a dict, an int, str() and repr() are ---------------------
  function isDict(v) { return v !== null && typeof v === 'object' && !Array.isArray(v); }
  function isInt(v) { return typeof v === 'number'; }  // the reader keeps only integers (P2)
  function repr(v) {
    if (typeof v === 'string') { return "'" + v + "'"; }
    return str(v);
  }
  function str(v) {
    if (v === null || v === undefined) { return 'None'; }
    if (v === true) { return 'True'; }
    if (v === false) { return 'False'; }
    if (typeof v === 'string' || typeof v === 'number') { return String(v); }
    if (Array.isArray(v)) { return '[' + v.map(repr).join(', ') + ']'; }
    return '{' + Object.keys(v).map(function (k) { return repr(k) + ': ' + repr(v[k]); }).join(', ') + '}';
  }
  function at(o, k) {  // o[k], failing as Python's subscript does
    if (isDict(o) && typeof k === 'string') {
      if (Object.prototype.hasOwnProperty.call(o, k)) { return o[k]; }
      throw new PyErr('KeyError', repr(k));
    }
    if (Array.isArray(o) && typeof k === 'number') {
      if (k < -o.length || k >= o.length) { throw new PyErr('IndexError', 'list index out of range'); }
      return o[k < 0 ? o.length + k : k];
    }
    throw new PyErr('TypeError', 'cannot subscript ' + str(o) + ' with ' + repr(k));
  }
  function get(o, k, dflt) {  // o.get(k, dflt)
    if (!isDict(o)) { throw new PyErr('AttributeError', str(o) + " has no attribute 'get'"); }
    return Object.prototype.hasOwnProperty.call(o, k) ? o[k] : (dflt === undefined ? null : dflt);
  }
  function has(o, k) { return isDict(o) ? Object.prototype.hasOwnProperty.call(o, k) : (typeof o === 'string' || Array.isArray(o)) && o.indexOf(k) >= 0; }
  function len(v) {
    if (typeof v === 'string') { return Array.from(v).length; }
    if (Array.isArray(v)) { return v.length; }
    if (isDict(v)) { return Object.keys(v).length; }
    throw new PyErr('TypeError', 'object of type ' + str(v) + ' has no len()');
  }
  function truthy(v) { return !(v === null || v === false || v === 0 || v === '' || (Array.isArray(v) && !v.length) || (isDict(v) && !Object.keys(v).length)); }
  function same(a, b) {  // Python's ==, for JSON values
    if (Array.isArray(a) && Array.isArray(b)) { return a.length === b.length && a.every(function (x, i) { return same(x, b[i]); }); }
    if (isDict(a) && isDict(b)) {
      var ka = Object.keys(a), kb = Object.keys(b);
      return ka.length === kb.length && ka.every(function (k) { return has(b, k) && same(a[k], b[k]); });
    }
    return a === b;
  }
  function cmp(a, b) { var x = Array.from(a), y = Array.from(b); for (var i = 0; i < Math.min(x.length, y.length); i++) { var d = x[i].codePointAt(0) - y[i].codePointAt(0); if (d) { return d; } } return x.length - y.length; }
  function less(a, b) {  // Python's < for two strings; anything else cannot be compared
    if (typeof a !== 'string' || typeof b !== 'string') { throw new PyErr('TypeError', "'<' not supported between " + str(a) + ' and ' + str(b)); }
    return cmp(a, b) < 0;
  }

  // --- P2: bytes, hashes, hex, canonical JSON, base64 ---------------------------------------------
  function cat() { var parts = Array.prototype.slice.call(arguments), n = 0, o = 0; parts.forEach(function (p) { n += p.length; }); var out = new Uint8Array(n); parts.forEach(function (p) { out.set(p, o); o += p.length; }); return out; }
  function utf8(s) { return enc.encode(s); }
  function hex(b) { return Array.from(new Uint8Array(b), function (x) { return (x < 16 ? '0' : '') + x.toString(16); }).join(''); }
  function isHex(v, length) { return typeof v === 'string' && /^(?:[0-9a-f]{2})*$/.test(v) && (length === undefined || v.length === length); }
  function fromhex(s) {  // bytes.fromhex: pairs of hex digits, whitespace between them
    if (typeof s !== 'string') { throw new PyErr('TypeError', 'fromhex() argument must be str, not ' + str(s)); }
    var out = [], i = 0;
    while (i < s.length) {
      if (' \t\n\r\x0b\x0c'.indexOf(s[i]) >= 0) { i += 1; continue; }
      var pair = s.slice(i, i + 2);
      if (!/^[0-9a-fA-F]{2}$/.test(pair)) { throw new PyErr('ValueError', 'non-hexadecimal number found in fromhex() arg at position ' + i); }
      out.push(parseInt(pair, 16)); i += 2;
    }
    return new Uint8Array(out);
  }
  function H(data) { return subtle.digest('SHA-256', data).then(function (d) { return new Uint8Array(d); }); }
  function HMAC(key, msg) {
    return subtle.importKey('raw', key, {name: 'HMAC', hash: 'SHA-256'}, false, ['sign'])
      .then(function (k) { return subtle.sign('HMAC', k, msg); }).then(function (d) { return new Uint8Array(d); });
  }
  function canonical(v) {  // sorted keys, no spaces, UTF-8: RFC 8785 within P2's limits
    if (Array.isArray(v)) { return '[' + v.map(canonical).join(',') + ']'; }
    if (isDict(v)) { return '{' + Object.keys(v).sort(cmp).map(function (k) { return JSON.stringify(k) + ':' + canonical(v[k]); }).join(',') + '}'; }
    return JSON.stringify(v);
  }
  function b64(text, size) {  // canonical base64 of `size` bytes, or null
    if (typeof text !== 'string' || !/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4) { return null; }
    var raw = Uint8Array.from(atob(text), function (c) { return c.charCodeAt(0); });
    return raw.length === size && btoa(String.fromCharCode.apply(null, raw)) === text ? raw : null;
  }

  // --- P2, P7: read the log: documents split at '---', each one strict JSON object -----------------
  function parseJSON(s) {
    var i = 0;
    function fail(why) { throw new PyErr('ValueError', why + ': char ' + i); }
    function ws() { while (i < s.length && ' \t\n\r'.indexOf(s[i]) >= 0) { i += 1; } }
    function value(depth) {
      if (depth > 32) { throw new PyErr('ValueError', 'nested more than 32 levels deep'); }
      ws();
      var c = s[i];
      if (c === '{') {
        var o = {}; i += 1; ws();
        if (s[i] === '}') { i += 1; return o; }
        for (;;) {
          ws(); if (s[i] !== '"') { fail('Expecting property name enclosed in double quotes'); }
          var k = string(); ws();
          if (s[i] !== ':') { fail("Expecting ':' delimiter"); }
          i += 1;
          var v = value(depth + 1);
          if (Object.prototype.hasOwnProperty.call(o, k)) { throw new PyErr('ValueError', 'a key appears twice'); }
          Object.defineProperty(o, k, {value: v, enumerable: true, writable: true, configurable: true});
          ws();
          if (s[i] === ',') { i += 1; continue; }
          if (s[i] === '}') { i += 1; return o; }
          fail("Expecting ',' delimiter");
        }
      }
      if (c === '[') {
        var a = []; i += 1; ws();
        if (s[i] === ']') { i += 1; return a; }
        for (;;) {
          a.push(value(depth + 1)); ws();
          if (s[i] === ',') { i += 1; continue; }
          if (s[i] === ']') { i += 1; return a; }
          fail("Expecting ',' delimiter");
        }
      }
      if (c === '"') { return string(); }
      var word = /^(?:true|false|null|NaN|-?Infinity)/.exec(s.slice(i, i + 9));
      if (word) {
        i += word[0].length;
        if (word[0] === 'true' || word[0] === 'false') { return word[0] === 'true'; }
        if (word[0] === 'null') { return null; }
        throw new PyErr('ValueError', word[0] + " is not a JSON value P2 admits (no floats, NaN or Infinity)");
      }
      var num = /^-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?/.exec(s.slice(i));
      if (!num) { fail('Expecting value'); }
      i += num[0].length;
      if (num[1] || num[2]) { throw new PyErr('ValueError', num[0] + ' is not a JSON value P2 admits (no floats, NaN or Infinity)'); }
      var big = BigInt(num[0]);
      if (big > 9007199254740992n || big < -9007199254740992n) { throw new PyErr('ValueError', 'the integer ' + num[0] + ' is beyond 2^53'); }
      return Number(big);
    }
    function string() {
      var m = /^"((?:[^"\\\x00-\x1f]|\\["\\\/bfnrt]|\\u[0-9a-fA-F]{4})*)"/.exec(s.slice(i));
      if (!m) { fail('Invalid string'); }
      i += m[0].length;
      return JSON.parse(m[0]);
    }
    var out = value(0); ws();
    if (i < s.length) { fail('Extra data'); }
    return out;
  }
  function readDocs(text) {
    try {
      return text.replace(/\r\n?/g, '\n').split(/^---[ \t]*\n/m).filter(function (d) { return d.trim(); }).map(parseJSON);
    } catch (err) {
      if (err instanceof PyErr && err.type === 'ValueError') { throw new Refused(null, 'P2', 'the log cannot be read: ' + err.text); }
      throw err;
    }
  }
  function entryHash(e) {  // P7: H(canonical JSON of the entry without its signature)
    var copy = {}; Object.keys(e).forEach(function (k) { if (k !== 'signature') { copy[k] = e[k]; } });
    return H(utf8(canonical(copy))).then(hex);
  }
  async function checkChain(entries) {
    if (!entries.length) { throw new Refused(null, 'P3', 'the log is empty'); }
    var hashes = [], prev = ZERO;
    for (var seq = 0; seq < entries.length; seq++) {
      var e = entries[seq];
      if (!isDict(e) || !isInt(get(e, 'seq')) || e.seq !== seq) { throw new Refused(seq, 'P7', 'its seq is not ' + seq + ' (an entry was dropped, inserted or moved)'); }
      if (get(e, 'prev') !== prev) { throw new Refused(seq, 'P7', 'its prev is not the hash of the entry before'); }
      prev = await entryHash(e); hashes.push(prev);
    }
    return hashes;
  }

  // --- P3: entry 0 -------------------------------------------------------------------------------
  async function checkFirst(first) {
    var checks;
    try {
      var data = at(first, 'data'), secret = at(first, 'secret'), edition = at(first, 'edition');
      var kindOk = at(first, 'kind') === 'create' && at(first, 'protocol') === PROTOCOL;
      var atOk = AT.test(str(at(first, 'at')));
      var dataHash = hex(await H(utf8(canonical({map: at(data, 'map'), tokens: at(data, 'tokens')}))));
      var hashOk = dataHash === at(first, 'data_hash');
      var stdOk = edition === 'custom' || STANDARD.indexOf(at(first, 'data_hash')) >= 0;
      var modeOk = (edition === 'standard' || edition === 'custom') && ['os-csprng', 'supplied'].indexOf(at(secret, 'made')) >= 0 && isHex(at(secret, 'commitment'), 64);
      checks = [[kindOk, "not a 'create' entry of " + PROTOCOL], [atOk, "its 'at' is not a time like 2026-11-30T09:15:00Z"],
        [hashOk, 'its data_hash is not the hash of its map and token catalogue'],
        [stdOk, 'it claims the standard edition, but its map or token catalogue differ from the data pbem ships'],
        [modeOk, 'a bad edition, secret.made or secret commitment']];
    } catch (err) {
      if (err instanceof PyErr && (err.type === 'KeyError' || err.type === 'TypeError')) { throw new Refused(0, 'P3', 'the first entry is malformed: no field ' + err.text); }
      throw err;
    }
    checks.forEach(function (c) { if (!c[0]) { throw new Refused(0, 'P3', 'the first entry is malformed: ' + c[1]); } });
  }
  function notices(first, nonces) {  // what a reader of such a game must know (P3, P4, P7)
    var bots = get(at(first, 'options'), 'bots', {}), players = at(first, 'players');
    var botText = Object.keys(bots).sort(cmp).map(function (p) { return p + ' (' + str(bots[p]) + ')'; }).join(', ');
    var seeds = players.filter(function (p, i) { return i < nonces.length && nonces[i].length && !has(bots, p); }).join(', ');
    return ["seed (P4): from the host's secret and the nonces of " + (seeds || 'no player')].concat([
      [!seeds, "HOST'S DEAL: no player's nonce went into the seed (P4): the host alone could choose the deal"],
      [at(at(first, 'secret'), 'made') === 'supplied', 'TEST GAME: its secret was supplied, not made by the OS (P7); whoever knows it knows every face, so it proves nothing about fair play'],
      [botText, 'BOT SEATS: ' + botText + " played by the host's bots: the host holds those seats and made their nonces (P4)"],
      [at(first, 'edition') === 'custom', "CUSTOM GAME: not pbem's standard map or rat tokens (P3)"],
      [true, 'not checked: the moves were not replayed under the rules of Rattus (pbem audit does)']
    ].filter(function (c) { return c[0]; }).map(function (c) { return c[1]; }));
  }

  // --- P4, P6, P7: each entry in order, with public data only --------------------------------------
  async function checkMoveAnswers(e, seq, kind, player, players, hashes, entries) {  // P7: a move names the entry it answers
    var move = get(e, 'move'), answers = (kind === 'commit' || kind === 'nonce') ? 0 : seq - 1, after = get(move, 'after', {});
    while (answers && get(after, 'seq') !== answers && get(entries[answers], 'kind') === 'away'
           && get(entries[answers], 'player') !== player) { answers -= 1; }  // R8.5: another seat's absence changes no turn
    if (!isInt(get(after, 'seq')) || after.seq !== answers || players.indexOf(player) < 0
        || len(get(after, 'hash', '')) < 16 || !startsWith(at(hashes, answers), at(after, 'hash'))
        || at(move, 'player') !== player || at(move, 'kind') !== kind) {
      throw new Refused(seq, 'P7', 'the recorded move does not answer entry ' + answers + ', or is not ' + str(player) + "'s");
    }
  }
  function startsWith(s, prefix) {
    if (typeof prefix !== 'string') { throw new PyErr('TypeError', 'startswith first arg must be str, not ' + str(prefix)); }
    return s.indexOf(prefix) === 0;
  }
  async function checkFlips(e, seq, found) {  // P6: every revealed face opens its commitment
    var outcome = get(e, 'outcome');
    if (typeof outcome === 'number') { throw new PyErr('TypeError', "'int' object is not iterable"); }
    var events = Array.isArray(outcome) ? outcome : [];
    for (var n = 0; n < events.length; n++) {
      var ev = events[n];
      if (!isDict(ev) || ev.event !== 'token_flipped') { continue; }
      var token = str(get(ev, 'token')), tokenId = get(ev, 'token_id'), salt = str(get(ev, 'salt'));
      var i = /^t[0-9]{2}$/.test(token) ? parseInt(token.slice(1), 10) : 0;
      var bad = !(i >= 1 && i <= 49) || !isHex(salt, 32) || typeof tokenId !== 'string';
      if (!bad) {
        var opened = hex(await H(cat(utf8(TAG + '/token'), new Uint8Array([i]), fromhex(salt), utf8(tokenId))));
        bad = opened !== at(at(found.start, 'commitments'), i - 1);
      }
      if (bad) { throw new Refused(seq, 'P6', 'the reveal of ' + token + ' (' + str(tokenId) + ') does not match its commitment in the start entry'); }
      found.flips += 1;
    }
  }
  async function checkEntry(e, seq, s) {  // one entry after the first; s: what the entries so far established
    var kind = get(e, 'kind'), player = get(e, 'player'), move = get(e, 'move'), p = s.players, found = s.found;
    if (!AT.test(str(get(e, 'at'))) || less(at(e, 'at'), s.lastAt)) { throw new Refused(seq, 'P7', "its 'at' is not a time, or earlier than the entry before"); }
    s.lastAt = e.at;
    var committed = Object.keys(s.commits).length, waived = s.waived.length, revealed = Object.keys(s.nonces).length;
    if (['commit', 'nonce', 'move', 'resign', 'away'].indexOf(kind) >= 0) { await checkMoveAnswers(e, seq, kind, player, p, s.hashes, s.entries); }
    if (kind === 'commit') {  // P4 round 1
      if (has(s.commits, player) || s.waived.indexOf(player) >= 0 || revealed || !isHex(get(move, 'nonce_commitment'), 64)) {
        throw new Refused(seq, 'P4', str(player) + "'s commitment cannot be recorded here");
      }
      s.commits[player] = move.nonce_commitment;
    } else if (kind === 'waive') {  // P4: only before the first reveal
      if (p.indexOf(player) < 0 || has(s.commits, player) || s.waived.indexOf(player) >= 0 || revealed) {
        throw new Refused(seq, 'P4', repr(player) + "'s seat cannot be waived here");
      }
      s.waived.push(player);
    } else if (kind === 'nonce') {  // P4 round 2: every seat committed or waived; the nonce opens its commitment
      var nonce = get(move, 'nonce');
      if (committed + waived !== p.length || !has(s.commits, player) || has(s.nonces, player)) { throw new Refused(seq, 'P4', str(player) + "'s nonce cannot be revealed here"); }
      if (!isHex(nonce) || nonce.length < 32 || nonce.length > 128
          || hex(await H(cat(utf8(TAG + '/nonce'), fromhex(nonce)))) !== s.commits[player]) {
        throw new Refused(seq, 'P4', str(player) + "'s nonce does not match the commitment");
      }
      s.nonces[player] = nonce;
    } else if (kind === 'start') {  // P4: the entry after the last reveal, with every nonce
      if (found.start || revealed !== committed || committed + waived !== p.length) { throw new Refused(seq, 'P4', 'a start before every nonce was revealed'); }
      var wanted = {}; p.forEach(function (q) { wanted[q] = has(s.nonces, q) ? s.nonces[q] : ''; });
      if (!same(get(e, 'nonces'), wanted)) { throw new Refused(seq, 'P4', 'the nonces differ from the revealed ones'); }
      var commitments = get(e, 'commitments');
      if (!Array.isArray(commitments) || commitments.length !== 49 || !commitments.every(function (c) { return isHex(c, 64); })) {
        throw new Refused(seq, 'P6', 'the start entry is malformed: there must be 49 commitments');
      }
      found.start = e; found.startSeq = seq;
    } else if (kind === 'move' || kind === 'timeout' || kind === 'standin') {
      if (kind === 'timeout' && less(at(e, 'at'), at(e, 'due'))) { throw new Refused(seq, 'R8.2', 'a timeout at ' + e.at + ', before its deadline ' + e.due); }
      await checkFlips(e, seq, found);
    } else if (kind === 'reveal') {  // P3: the secret opens the commitment of entry 0
      var secret = fromhex(at(e, 'secret'));
      if ((found.secret !== null && found.secret.length) || hex(await H(cat(utf8(TAG + '/secret'), secret))) !== at(at(s.first, 'secret'), 'commitment')) {
        throw new Refused(seq, 'P3', 'the revealed secret does not match the commitment of entry 0');
      }
      found.secret = secret;
    } else if (['abandon', 'resign', 'replace', 'away'].indexOf(kind) < 0) {  // R8.4-R8.5: rules, not P3-P7
      throw new Refused(seq, 'P7', 'unknown entry kind ' + repr(kind));
    }
  }
  async function checkEntries(entries, hashes) {
    var first = entries[0], s = {first: first, players: at(first, 'players').slice(), commits: {}, nonces: {}, waived: [],
      found: {start: null, secret: null, flips: 0}, lastAt: at(first, 'at'), hashes: hashes, entries: entries};
    var seq = 0;
    try {
      for (seq = 1; seq < entries.length; seq++) { await checkEntry(entries[seq], seq, s); }
    } catch (err) {
      if (err instanceof PyErr) { throw new Refused(seq, 'P7', 'the entry is malformed (' + err.type + ': ' + err.text + ')'); }
      throw err;
    }
    s.found.nonces = s.players.map(function (q) { return fromhex(has(s.nonces, q) ? s.nonces[q] : ''); });
    return s.found;
  }

  // --- P8: signatures (only when the log has keys) -------------------------------------------------
  async function verify(pub, signature, message) {  // canonical base64 only (P2)
    try {
      var raw = b64(str(pub).slice(8), 32), sig = b64(signature, 64);
      if (!raw || !sig) { return false; }
      var key = await subtle.importKey('raw', raw, {name: 'Ed25519'}, false, ['verify']);
      return (await subtle.verify({name: 'Ed25519'}, key, sig, message)) && str(pub).indexOf('ed25519:') === 0;
    } catch (err) { return false; }
  }
  async function checkSignatures(entries) {
    var first = entries[0], moves = entries.filter(function (e) { return isDict(e.move); }).map(function (e) { return e.move; });
    if (!(truthy(get(first, 'host_key')) || truthy(get(first, 'keys')) || entries.concat(moves).some(function (e) { return has(e, 'signature'); })
          || moves.some(function (m) { return has(m, 'key'); }) || entries.some(function (e) { return e.kind === 'replace' && has(e, 'key'); }))) {
      return null;
    }
    var host = get(first, 'host_key'), keys = Object.assign({}, get(first, 'keys') || {});
    for (var seq = 0; seq < entries.length; seq++) {
      var e = entries[seq], move = get(e, 'move'), player = get(e, 'player'), kind = get(e, 'kind');
      if ((host !== null || has(e, 'signature')) && !(await verify(host, get(e, 'signature'), utf8(await entryHash(e))))) {
        throw new Refused(seq, 'P8', 'the host signature does not verify (or entry 0 names no host key)', 8);
      }
      if (kind === 'replace') { if (has(e, 'key')) { keys[player] = e.key; } else { delete keys[player]; } }
      var held = typeof player === 'string' && has(keys, player) ? keys[player] : null;
      var pub = truthy(held) ? held : ((kind === 'commit' && isDict(move)) ? get(move, 'key') : null);
      if (isDict(move) && (pub !== null || has(move, 'signature'))) {
        var body = {}; Object.keys(move).forEach(function (k) { if (k !== 'signature') { body[k] = move[k]; } });
        if (!(await verify(pub, get(move, 'signature'), utf8(canonical(body))))) { throw new Refused(seq, 'P8', str(player) + "'s move signature does not verify", 8); }
        if (kind === 'commit') { keys[player] = pub; }
      }
      var values = Object.keys(keys).map(function (k) { return canonical(keys[k]); });
      if (new Set(values).size < values.length || (host !== null && values.indexOf(canonical(host)) >= 0)) {
        throw new Refused(seq, 'P8', 'one key sits on two seats, or on a seat and the host', 8);
      }
    }
    return 'every signature verifies (' + (truthy(host) ? 'host key, ' : '') + Object.keys(keys).length + ' player key(s), P8)';
  }

  // --- P4-P6: with the revealed secret, recompute the seed, the deal, the commitments --------------
  function Stream(seed) { this.seed = seed; this.k = 0; this.words = []; }
  Stream.prototype.next = async function () {  // P5: the u64 words of HMAC(seed, tag/drbg || u64(k)), k = 0, 1, ...
    if (!this.words.length) {
      var counter = new Uint8Array(8); new DataView(counter.buffer).setBigUint64(0, BigInt(this.k));
      var block = await HMAC(this.seed, cat(utf8(TAG + '/drbg'), counter)), view = new DataView(block.buffer);
      for (var i = 0; i < 32; i += 8) { this.words.push(view.getBigUint64(i)); }
      this.k += 1;
    }
    return this.words.shift();
  };
  async function below(words, n) {  // P5: the first word under 2^64 - (2^64 mod n), mod n
    var N = BigInt(n), limit = (1n << 64n) - ((1n << 64n) % N);
    for (;;) { var x = await words.next(); if (x < limit) { return Number(x % N); } }
  }
  async function shuffle(words, items) {  // P5: Fisher-Yates, i = len-1 .. 1, j = below(i + 1)
    for (var i = items.length - 1; i > 0; i--) { var j = await below(words, i + 1), t = items[i]; items[i] = items[j]; items[j] = t; }
  }
  async function auditWithSecret(first, found) {
    var players = at(first, 'players'), start = found.start, seq = found.startSeq, gid = utf8(at(first, 'game'));
    var msg = cat(utf8(TAG + '/seed'), new Uint8Array([gid.length]), gid, new Uint8Array([players.length]));
    var seed = await HMAC(found.secret, cat.apply(null, [msg].concat(found.nonces.map(function (n) { return cat(new Uint8Array([n.length]), n); }))));
    var map = at(at(first, 'data'), 'map'), shades = at(at(map, 'players'), String(players.length));
    var regions = at(map, 'regions').filter(function (r) { return has(shades, at(r, 'shade')); }).map(function (r) { return at(r, 'id'); });
    var catalogue = at(at(at(first, 'data'), 'tokens'), 'tokens');
    var starting = catalogue.filter(function (t) { return truthy(at(t, 'start')); }).map(function (t) { return at(t, 'id'); });
    var normal = catalogue.filter(function (t) { return !truthy(at(t, 'start')); }).map(function (t) { return at(t, 'id'); });
    var words = new Stream(seed), named = at(at(first, 'options'), 'first');
    var firstPlayer = truthy(named) ? named : players[await below(words, players.length)];
    await shuffle(words, starting);
    var onBoard = starting.slice(0, regions.length), unused = starting.slice(regions.length);
    await shuffle(words, normal);
    if (!has(REMOVED, String(players.length))) { throw new PyErr('KeyError', String(players.length)); }
    var cut = REMOVED[players.length], removed = normal.slice(0, cut), supply = normal.slice(cut).concat(unused);
    await shuffle(words, supply);
    var plague = regions[await below(words, regions.length)], dealt = onBoard.concat(supply).concat(removed);
    var names = dealt.map(function (t, i) { return 't' + (i < 9 ? '0' : '') + (i + 1); }), board = {};
    regions.forEach(function (r, i) { if (i < names.length) { board[r] = names[i]; } });
    var setup = {first_player: firstPlayer, board: board, supply: names.slice(onBoard.length, onBoard.length + supply.length),
      removed: names.slice(onBoard.length + supply.length), plague: plague};
    var commits = [];
    for (var i = 1; i <= dealt.length; i++) {
      var salt = (await HMAC(seed, cat(utf8(TAG + '/salt'), new Uint8Array([i])))).slice(0, 16);
      commits.push(hex(await H(cat(utf8(TAG + '/token'), new Uint8Array([i]), salt, utf8(dealt[i - 1])))));
    }
    if (!same(get(start, 'setup'), setup)) { throw new Refused(seq, 'P5', 'the published setup is not what the revealed secret gives'); }
    if (!same(at(start, 'commitments'), commits)) { throw new Refused(seq, 'P5', 'the published commitments are not what the revealed secret gives'); }
    var ids = catalogue.map(function (t) { return at(t, 'id'); });
    if (!same(dealt.slice().sort(), ids.slice().sort()) || dealt.length !== 49) { throw new Refused(null, 'P6', "the 49 committed tokens are not the game's catalogue"); }
    return ['the secret matches its commitment (P3)', 'the seed, every draw and the public setup are what the secret and nonces give (P4-P5)',
      "all 49 commitments recomputed; they commit to exactly the game's catalogue (P6)",
      'all ' + found.flips + ' flipped tokens are the dealt tokens, with their salts (P6)'];
  }

  function verdict(err, notes) {  // word for word as `pbem audit` prints it; kind, seq and rule for a page's own words
    if (err === null) {
      if (notes.some(function (n) { return n.indexOf("HOST'S DEAL") === 0; })) {
        return {kind: 'host', line: "verdict: HOST'S DEAL. No player's nonce went into the seed, so the host alone could choose the deal (P4; how to check: " + DOC + ').'};
      }
      return {kind: 'fair', line: 'verdict: FAIR. The rat order was fixed at the start and never touched (how to check: ' + DOC + ').'};
    }
    if (err.code === 10) { return {kind: 'notyet', line: 'verdict: NOT YET. The secret is revealed when the game is over (P6; how to check: ' + DOC + ').'}; }
    var where = err.entry !== null ? 'at entry ' + err.entry : 'as a whole';
    return {kind: 'refused', seq: err.entry, rule: err.rule, line: 'verdict: REFUSED. The log does not verify ' + where + ' (' + err.rule + '; how to check: ' + DOC + ').'};
  }
  async function audit(text) {  // {code, lines, verdict}: tools/audit_min.py's audit(), the last line its verdict
    var lines, entries, found, signatures, notes, v;
    try {
      entries = readDocs(text);
      var hashes = await checkChain(entries);
      lines = ['ok: ' + entries.length + ' entries; the chain holds (P7)'];
      await checkFirst(entries[0]);
      found = await checkEntries(entries, hashes);
      signatures = await checkSignatures(entries);
      if (found.secret === null) { throw new Refused(null, 'P6', 'the audit needs the revealed secret', 10); }
      if (signatures) { lines.push('ok: ' + signatures); }
      (await auditWithSecret(entries[0], found)).forEach(function (line) { lines.push('ok: ' + line); });
      notes = notices(entries[0], found.nonces);
    } catch (err) {
      if (err instanceof Refused) {
        v = verdict(err);
        return {code: err.code, lines: ['failed: ' + (err.entry !== null ? 'entry ' + err.entry : 'the log') + ': ' + err.why + ' (' + err.rule + ')', v.line], verdict: v};
      }
      v = verdict(new Refused(null, 'P7', ''));
      var why = err instanceof PyErr ? err.type + ': ' + err.text : 'TypeError: ' + err;
      return {code: 7, lines: ['failed: malformed log (' + why + ')', v.line], verdict: v};
    }
    v = verdict(null, notes);
    return {code: 0, lines: lines.concat(notes, [v.line]), verdict: v};
  }
  window.pbemAudit = function (text) {  // text: the log's characters, or its bytes (read as strict UTF-8)
    if (typeof text !== 'string') {
      try { text = new TextDecoder('utf-8', {fatal: true, ignoreBOM: true}).decode(text); } catch (err) {
        var v = verdict(new Refused(null, 'P7', ''));
        return Promise.resolve({code: 7, lines: ["failed: malformed log (UnicodeDecodeError: 'utf-8' codec can't decode the log)", v.line], verdict: v});
      }
    }
    return audit(text);
  };
})();
