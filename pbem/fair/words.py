"""A P4 nonce from words the player chose: entropy that does not rest on the host's code.

A nonce made by a page or a program the host sent is only as good as that code: a host
could plant the bytes and grind its secret against them.  A nonce derived from words the
player typed and kept is checked by the player alone, with a standard tool:

    nonce = SHA-256("pbem-rattus/v1/words" || LF || entry0 || LF || seat || LF || words)

``entry0`` is the hash of the game's first entry (64 hex digits: the ``prev`` of entry 1),
``seat`` the player's seat, ``words`` the words as they count (:func:`words_of`), all as
UTF-8; ``LF`` is one newline byte.  So ``printf 'pbem-rattus/v1/words\\n%s\\n%s\\n%s' ENTRY0
SEAT 'WORDS' | sha256sum`` prints the nonce.  Its 32 bytes are a valid P4 nonce: the
protocol (commitment, seed) is untouched.  Binding entry 0 makes words used again in
another game (or a game created again under the same id) give another nonce.  The words
themselves are never sent; the host learns the nonce at the reveal, after its secret was
fixed (P3), so it cannot choose the deal unless it guesses the words (docs/fairplay.md).
"""

from __future__ import annotations

import hashlib
import re
import unicodedata

from pbem.errors import FormatError
from pbem.i18n import Msg

WORDS_TAG = "pbem-rattus/v1/words"
"""The derivation's domain string (the protocol's ``v1`` tags' spelling)."""

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
    """The 32-byte nonce of ``seat``'s ``words`` in the game whose entry 0 hashes to ``entry0``."""
    return hashlib.sha256(words_text(entry0, seat, words)).digest()
