// The secret number of the opening (P4) as pbem.fair.words makes it, in the browser: a code of
// 80 random bits (crypto.getRandomValues), scrypt over the words and the code (written here
// over WebCrypto's PBKDF2-HMAC-SHA-256, with Salsa20/8 by hand: RFC 7914), and the estimate of
// the words that refuses guessable ones (pbem.fair.strength).  tests/test_secret_number.py
// holds all three to Python's, byte for byte.
var Secret = (() => {
  var ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ', LENGTH = 16;  // Crockford's base 32: 80 bits
  function R(a, b) { return (a << b) | (a >>> (32 - b)); }
  function salsa(B, at, X) {  // X ^= B[at..at+16], then Salsa20/8 of X in place (RFC 7914, 3)
    for (var k = 0; k < 16; k++) { X[k] ^= B[at + k]; }
    var x0 = X[0], x1 = X[1], x2 = X[2], x3 = X[3], x4 = X[4], x5 = X[5], x6 = X[6], x7 = X[7];
    var x8 = X[8], x9 = X[9], x10 = X[10], x11 = X[11], x12 = X[12], x13 = X[13], x14 = X[14], x15 = X[15];
    for (var i = 0; i < 8; i += 2) {
      x4 ^= R(x0 + x12, 7); x8 ^= R(x4 + x0, 9); x12 ^= R(x8 + x4, 13); x0 ^= R(x12 + x8, 18);
      x9 ^= R(x5 + x1, 7); x13 ^= R(x9 + x5, 9); x1 ^= R(x13 + x9, 13); x5 ^= R(x1 + x13, 18);
      x14 ^= R(x10 + x6, 7); x2 ^= R(x14 + x10, 9); x6 ^= R(x2 + x14, 13); x10 ^= R(x6 + x2, 18);
      x3 ^= R(x15 + x11, 7); x7 ^= R(x3 + x15, 9); x11 ^= R(x7 + x3, 13); x15 ^= R(x11 + x7, 18);
      x1 ^= R(x0 + x3, 7); x2 ^= R(x1 + x0, 9); x3 ^= R(x2 + x1, 13); x0 ^= R(x3 + x2, 18);
      x6 ^= R(x5 + x4, 7); x7 ^= R(x6 + x5, 9); x4 ^= R(x7 + x6, 13); x5 ^= R(x4 + x7, 18);
      x11 ^= R(x10 + x9, 7); x8 ^= R(x11 + x10, 9); x9 ^= R(x8 + x11, 13); x10 ^= R(x9 + x8, 18);
      x12 ^= R(x15 + x14, 7); x13 ^= R(x12 + x15, 9); x14 ^= R(x13 + x12, 13); x15 ^= R(x14 + x13, 18);
    }
    X[0] += x0; X[1] += x1; X[2] += x2; X[3] += x3; X[4] += x4; X[5] += x5; X[6] += x6; X[7] += x7;
    X[8] += x8; X[9] += x9; X[10] += x10; X[11] += x11; X[12] += x12; X[13] += x13; X[14] += x14; X[15] += x15;
  }
  function blockMix(B, Y, X, r) {  // scryptBlockMix of B in place (Y, X: room)
    X.set(B.subarray((2 * r - 1) * 16, 2 * r * 16));
    for (var i = 0; i < 2 * r; i++) { salsa(B, i * 16, X); Y.set(X, i * 16); }
    for (i = 0; i < r; i++) {
      B.set(Y.subarray(2 * i * 16, 2 * i * 16 + 16), i * 16);
      B.set(Y.subarray((2 * i + 1) * 16, (2 * i + 1) * 16 + 16), (r + i) * 16);
    }
  }
  function roMix(bytes, N, r) {  // scryptROMix of one 128r-byte block, in place
    var n = 32 * r, B = new Uint32Array(n), V = new Uint32Array(n * N), Y = new Uint32Array(n);
    var X = new Uint32Array(16), k, i;
    for (k = 0; k < n; k++) {
      B[k] = bytes[4 * k] | (bytes[4 * k + 1] << 8) | (bytes[4 * k + 2] << 16) | (bytes[4 * k + 3] << 24);
    }
    for (i = 0; i < N; i++) { V.set(B, i * n); blockMix(B, Y, X, r); }
    for (i = 0; i < N; i++) {
      var j = (B[(2 * r - 1) * 16] & (N - 1)) * n;
      for (k = 0; k < n; k++) { B[k] ^= V[j + k]; }
      blockMix(B, Y, X, r);
    }
    for (k = 0; k < n; k++) {
      bytes[4 * k] = B[k]; bytes[4 * k + 1] = B[k] >>> 8; bytes[4 * k + 2] = B[k] >>> 16; bytes[4 * k + 3] = B[k] >>> 24;
    }
  }
  function pbkdf2(password, salt, length) {  // PBKDF2-HMAC-SHA-256, one iteration
    return crypto.subtle.importKey('raw', password, {name: 'PBKDF2'}, false, ['deriveBits']).then(key => {
      return crypto.subtle.deriveBits({name: 'PBKDF2', salt: salt, iterations: 1, hash: 'SHA-256'}, key, 8 * length);
    }).then(bits => new Uint8Array(bits));
  }
  function scrypt(password, salt, N, r, p, length) {  // RFC 7914: bytes in, a promise of bytes
    return pbkdf2(password, salt, 128 * r * p).then(B => {
      for (var i = 0; i < p; i++) { roMix(B.subarray(128 * r * i, 128 * r * (i + 1)), N, r); }
      return pbkdf2(password, B, length);
    });
  }
  function newCode() {  // 80 bits from the browser's generator, as 16 signs (pbem.fair.words.new_code)
    var bytes = crypto.getRandomValues(new Uint8Array(LENGTH * 5 / 8)), out = '', acc = 0, bits = 0;
    bytes.forEach(b => {
      acc = (acc << 8) | b; bits += 8;
      while (bits >= 5) { out += ALPHABET.charAt((acc >> (bits - 5)) & 31); bits -= 5; }
      acc &= (1 << bits) - 1;
    });
    return out;
  }
  function codeOf(text) {  // pbem.fair.words.code_of: null if it is not a code
    var code = text.replace(/[ \t\u00a0-]/g, '').toUpperCase().replace(/O/g, '0').replace(/[IL]/g, '1');
    if (code.length !== LENGTH) { return null; }
    for (var i = 0; i < LENGTH; i++) { if (ALPHABET.indexOf(code.charAt(i)) < 0) { return null; } }
    return code;
  }
  function shown(code) { return code.match(/.{4}/g).join('-'); }
  function number(D, words, code) {  // pbem.fair.words.secret_number: a promise of the 32 bytes
    var salt = [D.numberTag, D.entry0, D.seat, code].join(' '), enc = new TextEncoder();
    return scrypt(enc.encode(words), enc.encode(salt), D.scrypt.n, D.scrypt.r, D.scrypt.p, 32);
  }
  function estimate(D, words) {  // pbem.fair.strength.estimate, step for step
    var split = words.split(' '), quoted = split.map(() => false), bits = 0, seen = Object.create(null);
    var ranks = D.ranks;  // (no prototype: a word such as 'constructor' is a word)
    if (!ranks) { ranks = D.ranks = Object.create(null); D.common.split(' ').forEach((w, i) => { ranks[w] = i + 1; }); }
    D.phrases.forEach(text => {
      var phrase = text.split(' '), least = Math.min(3, phrase.length), hit = false;
      for (var s = 0; s < split.length; s++) {
        for (var t = 0; t < phrase.length; t++) {
          var k = 0;
          while (s + k < split.length && t + k < phrase.length && split[s + k] === phrase[t + k]) { k++; }
          if (k >= least) { for (var q = s; q < s + k; q++) { quoted[q] = true; } hit = true; }
        }
      }
      if (hit) { bits += Math.log2(D.phrases.length); }
    });
    function follows(before, word) {
      return D.sequences.some(text => {
        var seq = text.split(' '), at = seq.indexOf(before);
        return at >= 0 && at + 1 < seq.length && seq[at + 1] === word;
      });
    }
    split.forEach((word, i) => {
      if (!quoted[i]) {
        if (seen[word] || (i > 0 && follows(split[i - 1], word))) { bits += 1; } else {
          var listed = ranks[word] ? Math.log2(ranks[word] + 1) : D.unknownBits;
          bits += Math.min(listed, Array.from(word).length * Math.log2(/^[0-9]+$/.test(word) ? 10 : 26));
        }
      }
      seen[word] = true;
    });
    return bits;
  }
  return {scrypt: scrypt, newCode: newCode, codeOf: codeOf, shown: shown, number: number, estimate: estimate};
})();
