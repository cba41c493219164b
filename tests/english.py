"""Finding English in text meant for a player of another language.

A line holds an English sentence when it has two or more of English's commonest small words
(:data:`SMALL_WORDS`), or one of them among three or more Latin words.  The words were chosen
to be none of the notation's keywords (``take``, ``place``, ``plague``, ``spread``, ``after``,
...), no seat or region id, and no word of Hungarian, the one other language here written in
Latin letters (so ``a``, ``az``, ``is``, ``be``, ``el`` and ``meg`` are left out).  Words with
a digit in them (hashes, ``t07``) are not words, nor are runs of base64 (keys).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

SMALL_WORDS = frozenset(["the", "you", "your", "yours", "to", "of", "and", "or", "in", "on", "for", "with", "this", "that", "these", "those", "was", "were", "has", "have", "had", "not", "by", "from", "as", "which", "what", "when", "who", "whom", "whose", "will", "can", "may", "must", "each", "every", "its", "their", "there", "here", "all", "any", "but", "if", "then", "than", "been", "would", "should", "could", "into", "about", "only", "also", "still", "now", "it", "are", "does", "did", "done", "is_", "yet", "why", "how", "our", "we", "they", "them", "his", "her", "she", "he"]) - {"is_"}

_WORD = re.compile(r"(?<![\w'])[A-Za-z]+(?![\w'])")
_PLACEHOLDERS = re.compile(r"\b(?:FROM|TO|VIA|REGION|TOKEN|CARD|SEAT|SEQ|HASH|HEX|GAME|PLAYER)\b")
"""The notation's placeholders (``merchant FROM TO N``), written alike in every language as
``pbem rules notation`` writes them: capitals, case-sensitive, so ``from`` and ``to`` in a
sentence are still words."""
_BASE64 = re.compile(r"[A-Za-z0-9+/]{20,}={0,2}")
"""A key or a hash in base64 (``ed25519:iT/Vjm...``): random letters, where ``iT`` once read as
the word ``it``; such a run is no sentence and is left out."""


def english_lines(text: str, allowed: Iterable[str] = ()) -> list[str]:
    """The lines of ``text`` that read as English; a line holding one of ``allowed``
    (a command to type, say) is not looked at."""
    keep = tuple(allowed)
    found = []
    for line in text.splitlines():
        if any(a in line for a in keep):
            continue
        words = [w.lower() for w in _WORD.findall(_PLACEHOLDERS.sub(" ", _BASE64.sub(" ", line)))]
        small = {w for w in words if w in SMALL_WORDS}
        if len(small) >= 2 or (small and len(words) >= 3):
            found.append(line)
    return found

