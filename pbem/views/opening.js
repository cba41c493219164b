// The opening's part of the composer page (pbem.views.compose): the secret number from the
// player's own words and a code of random bits (secret.js), its commitment, and round 2's
// reveal (P4).  Only the opening's page carries it (and secret.js): a turn's page, sent with
// every "your move" mail, has no use for it.  compose.js calls Opening(D, W, finish, header, tools)
// with its helpers ($, button).
var Opening = (() => {
  var $, button, W;
  function hex(bytes) {
    return Array.prototype.map.call(new Uint8Array(bytes), b => {
      return (b < 16 ? '0' : '') + b.toString(16);
    }).join('');
  }
  function unhex(text) {
    var out = new Uint8Array(text.length / 2);
    for (var i = 0; i < out.length; i++) { out[i] = parseInt(text.substr(2 * i, 2), 16); }
    return out;
  }
  function wordsOf(text) {  // pbem.fair.words.words_of: lowercased, NFC, one space between words
    return text.toLowerCase().normalize('NFC').split(/[ \t\n\r\u00a0]+/).filter(Boolean).join(' ');
  }
  function wordsChecked(D, text) {  // pbem.fair.words.words_of: the words as they count, or why not
    var words = wordsOf(text);
    if (text.length > D.maxChars || /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/.test(words)) { return {why: W.control}; }
    if (words.split(' ').length < D.minWords) { return {why: W.few}; }
    return {words: words};
  }
  function wordsNonce(D, words) {  // a game opened before codes: SHA-256(tag LF entry0 LF seat LF words)
    var all = new TextEncoder().encode([D.wordsTag, D.entry0, D.seat, words].join('\n'));
    return crypto.subtle.digest('SHA-256', all).then(hex);
  }
  function later(fn) { return new Promise(done => { setTimeout(() => { done(fn()); }, 30); }); }  // the status is drawn first
  function opening(D, finish, header) {
    var box = $('choices');
    $('keep').hidden = false;
    function say(text) { $('status').textContent = text; }
    function showNonce(nonceHex, words, code) {
      $('nonce').textContent = W.number + ' ' + nonceHex;
      if (words) { $('words-kept').textContent = words; $('words-note').hidden = false; }
      if (code) { $('code-kept').textContent = Secret.shown(code); $('code-note').hidden = false; }
      var a = $('nonce-file');
      a.href = 'data:text/plain;charset=utf-8,' + encodeURIComponent(
        header.concat(['nonce ' + nonceHex]).join('\n') + '\n');
      a.download = D.game + '-' + D.seat + '-nonce.txt'; a.className = 'button';
      a.removeAttribute('aria-disabled'); a.tabIndex = 0;
    }
    function field(id, text) {  // what to type, said above the field: a phone cuts a long placeholder off
      var label = document.createElement('label'), input = document.createElement('input');
      label.htmlFor = id; label.className = 'field'; label.textContent = text; input.id = id;
      ['autocapitalize', 'autocomplete', 'autocorrect', 'spellcheck'].forEach(a => {
        input.setAttribute(a, a === 'spellcheck' ? 'false' : 'off');
      });
      box.appendChild(label); box.appendChild(input);
      return input;
    }
    function made(words, code) {  // the secret number of the words and the code (pbem.fair.words.secret_number)
      say(W.working);
      return later(() => Secret.number(D, words, code)).then(hex);
    }
    var input = field(D.opening === 'commit' ? 'words-in' : 'nonce-in', D.opening === 'commit' ? W.words : W.placeholder);
    if (D.opening === 'commit') {
      box.appendChild(button(W.make, () => {
        var w = wordsChecked(D, input.value);
        if (w.why) { say(w.why); return; }
        var bits = Secret.estimate(D, w.words);
        if (bits < D.strongBits) { say(W.weak.replace('{bits}', String(Math.round(bits)))); return; }
        var code = Secret.newCode();
        made(w.words, code).then(nonce => {
          return window.pbemCommitment(nonce).then(c => {
            say(''); showNonce(nonce, w.words, code); finish(['commit ' + c], true); box.textContent = '';
          });
        });
      }, 'make'));
      finish([], false);
      return;
    }
    var codeIn = field('code-in', W.code);
    function reveal(nonce, words, code) {  // only a nonce whose commitment is this seat's (P4)
      return window.pbemCommitment(nonce).then(c => {
        if (D.committed && c !== D.committed) { return false; }
        say(''); showNonce(nonce, words, code); finish(['nonce ' + nonce], true); return true;
      });
    }
    function shown(nonce, words, code) {
      return reveal(nonce, words, code).then(good => { if (!good) { say(W.mismatch); } return good; });
    }
    function inFile(text) {  // the nonce line of a kept nonce move, pasted whole (a one-line field drops its line breaks)
      var m = /nonce:?[ \t]*"?([0-9a-fA-F]{64})(?![0-9a-fA-F])/.exec(text);
      return m ? m[1].toLowerCase() : null;
    }
    function given(text) {
      var v = text.trim().toLowerCase(), kept = inFile(text);
      if (/^[0-9a-f]{64}$/.test(v)) { shown(v, '', ''); return; }
      if (kept !== null) { shown(kept, '', ''); return; }
      var w = wordsChecked(D, text);
      if (w.why) { say(w.why); return; }
      if (!codeIn.value.trim()) {  // a game opened before codes: the words alone
        wordsNonce(D, w.words).then(n => reveal(n, w.words, '')).then(good => { if (!good) { say(W.needCode); } });
        return;
      }
      var code = Secret.codeOf(codeIn.value);
      if (code === null) { say(W.badCode); return; }
      made(w.words, code).then(n => { shown(n, w.words, code); });
    }
    box.appendChild(button(W.use, () => { given(input.value); }, 'use'));
    var file = document.createElement('input');
    file.type = 'file'; file.id = 'nonce-load'; file.accept = '.txt,.yaml,text/plain'; file.title = W.file;
    var label = document.createElement('label');
    label.textContent = W.file; label.appendChild(file); box.appendChild(label);
    file.onchange = () => {
      if (!file.files.length) { return; }
      var reader = new FileReader();
      reader.onload = () => {
        var kept = inFile(String(reader.result));
        if (kept !== null) { shown(kept, '', ''); } else { say(W.hex); }
      };
      reader.readAsText(file.files[0]);
    };
    finish([], false);
    var key = 'pbem-nonce/' + D.game + '/' + D.seat, kept = null;  // where an earlier page kept it
    try { kept = localStorage.getItem(key); } catch (e) { kept = null; }
    if (kept !== null) {  // used only if it is this seat's committed nonce; then no page can read it here
      reveal(String(kept), '', '').then(good => {
        if (!good) { say(W.changed); } else { try { localStorage.removeItem(key); } catch (e) { /* gone */ } }
      });
    }
  }
  return (D, words, finish, header, tools) => {
    $ = tools.$; button = tools.button; W = words;
    window.pbemCommitment = nonceHex => {  // P4: SHA-256 of the protocol's prefix and the nonce's bytes
      var prefix = new TextEncoder().encode(D.prefix), nonce = unhex(nonceHex);
      var all = new Uint8Array(prefix.length + nonce.length);
      all.set(prefix, 0); all.set(nonce, prefix.length);
      return crypto.subtle.digest('SHA-256', all).then(hex);
    };
    opening(D, finish, header);
  };
})();
