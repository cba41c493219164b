"""A P4 nonce from what the player keeps: secret words and a code (docs/fairplay.md).

A nonce made by a page or a program the host sent is only as good as that code, and one
made from typed words only is only as good as the words: from the public log (entry 0 and
the seat's commitment) anyone can try common sentences until one gives the commitment.  So
the secret number is made from both:

    nonce = scrypt(words, "pbem-rattus/v2/secret-number ENTRY0 SEAT CODE", N=2^15, r=8, p=1, 32 bytes)

``CODE`` is 80 random bits the page (``crypto.getRandomValues``) or ``pbem nonce``
(``os.urandom``) makes, written as 16 letters and digits (:func:`shown_code`:
``K7QM-3XZP-...``) that the player keeps with the words; ``words`` are the words as they
count (:func:`words_of`), as UTF-8; ``ENTRY0`` the hash of the game's first entry (64 hex
digits: the ``prev`` of entry 1), ``SEAT`` the player's seat.  Nobody can guess 80 random
bits, whatever the words; the memory-hard scrypt makes each guess of the words cost real
time should the code ever be known, and the page and ``pbem nonce`` refuse words easy to
guess (:mod:`pbem.fair.strength`).  ``openssl kdf -keylen 32 -kdfopt pass:WORDS -kdfopt
salt:SALT -kdfopt n:32768 -kdfopt r:8 -kdfopt p:1 SCRYPT`` prints the same 32 bytes.

Games opened before codes existed made the nonce from the words alone (:func:`words_nonce`,
``SHA-256("pbem-rattus/v1/words" LF ENTRY0 LF SEAT LF WORDS)``); ``pbem verify --words``
still checks those.  Either is a valid 32-byte P4 nonce: the protocol (commitment, seed) is
untouched; binding entry 0 makes the same words and code give another nonce in another game.
"""

from __future__ import annotations

import hashlib
import re
import secrets
import unicodedata

from pbem.errors import FormatError
from pbem.i18n import Msg

WORDS_TAG = "pbem-rattus/v1/words"
"""The words-only derivation's domain string (games opened before codes)."""

NUMBER_TAG = "pbem-rattus/v2/secret-number"
"""The secret number's domain string (words and code)."""

SCRYPT = {"n": 2 ** 15, "r": 8, "p": 1}
"""scrypt's cost: 32 MiB and about 0.1 s a guess in C (a second or two on a phone's page)."""

CODE_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
"""The code's 32 signs (Crockford's base 32: no I, L, O or U to misread)."""

CODE_LENGTH = 16
"""Signs in a code: 16 of 32, 80 random bits."""

MIN_WORDS = 5
"""The fewest words a nonce is made from: a sentence nobody could guess, not a word."""

MAX_WORDS_CHARS = 1000

_SPACE = re.compile("[ \t\n\r\u00a0]+")
_CONTROL = re.compile("[\u0000-\u001f\u007f-\u009f\u2028\u2029]")


def words_of(text: str) -> str:
    """The words as they count: lowercased, then Unicode NFC, split at every run of spaces,
    tabs, line breaks and no-break spaces and joined with one space.  The page's script
    does exactly this (``toLowerCase().normalize('NFC')``); fewer than :data:`MIN_WORDS`
    words, control characters or over 1,000 characters are refused (P4)."""
    if len(text) > MAX_WORDS_CHARS:
        raise FormatError(Msg.plural("your words are over {n} character: a sentence is enough (P4)",
                                     "your words are over {n} characters: a sentence is enough (P4)",
                                     MAX_WORDS_CHARS), "P4")
    words = " ".join(w for w in _SPACE.split(unicodedata.normalize("NFC", text.lower())) if w)
    if _CONTROL.search(words):
        raise FormatError(Msg("your words hold a control character: type them as plain text (P4)"), "P4")
    if len(words.split(" ")) < MIN_WORDS:
        raise FormatError(Msg.plural("a nonce is made from {n} word or more that nobody could guess, a sentence "
                                     "of your own (P4)", "a nonce is made from {n} words or more that nobody could "
                                     "guess, a sentence of your own (P4)", MIN_WORDS), "P4")
    return words


def words_text(entry0: str, seat: str, words: str) -> bytes:
    """The exact bytes hashed: the tag, entry 0's hash, the seat and the words, one a line
    (no newline at the end)."""
    return "\n".join((WORDS_TAG, entry0, seat, words_of(words))).encode("utf-8")


def words_nonce(entry0: str, seat: str, words: str) -> bytes:
    """The 32-byte nonce of ``seat``'s ``words`` alone in the game whose entry 0 hashes to
    ``entry0``: how games opened before codes made it (checked still, never made)."""
    return hashlib.sha256(words_text(entry0, seat, words)).digest()


def new_code() -> str:
    """A new code: 80 bits from the operating system's generator, as 16 signs."""
    value = int.from_bytes(secrets.token_bytes(CODE_LENGTH * 5 // 8), "big")
    return "".join(CODE_ALPHABET[(value >> (5 * i)) & 31] for i in reversed(range(CODE_LENGTH)))


def code_of(text: str) -> str:
    """A code as it counts: spaces and dashes dropped, capitals, O read as 0 and I or L as 1;
    anything but 16 of the code's signs is refused (P4)."""
    code = re.sub("[ \t\u00a0-]", "", text).upper().translate(str.maketrans("OIL", "011"))
    if len(code) != CODE_LENGTH or any(c not in CODE_ALPHABET for c in code):
        raise FormatError(Msg("a code is {count} letters and digits, as it was shown when the secret number was "
                              "made (like K7QM-3XZP-9D2F-HT6A); this is not one (P4)", count=CODE_LENGTH), "P4")
    return code


def shown_code(code: str) -> str:
    """The code as the player writes it down: four groups of four (``K7QM-3XZP-9D2F-HT6A``)."""
    code = code_of(code)
    return "-".join(code[i:i + 4] for i in range(0, CODE_LENGTH, 4))


def number_salt(entry0: str, seat: str, code: str) -> bytes:
    """scrypt's salt: the tag, entry 0's hash, the seat and the code, one space between (none
    of them holds a space)."""
    return " ".join((NUMBER_TAG, entry0, seat, code_of(code))).encode("ascii")


def secret_number(entry0: str, seat: str, words: str, code: str) -> bytes:
    """The 32-byte nonce of ``seat``'s ``words`` and ``code`` in the game whose entry 0 hashes
    to ``entry0`` (the words are not judged here: :func:`pbem.fair.strength.check_strength`
    does, when a number is made)."""
    return hashlib.scrypt(words_of(words).encode("utf-8"), salt=number_salt(entry0, seat, code),
                          maxmem=64 * 1024 * 1024, dklen=32, **SCRYPT)
