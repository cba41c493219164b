"""How many guesses a player's secret words would take: an estimate that refuses guessable words.

The secret number's guarantee is the code (:mod:`pbem.fair.words`: 80 random bits the
player keeps), never the words.  The words still matter when the code is not secret (a
doctored page that planted it): so the page and ``pbem nonce --from-words`` refuse words
whose estimate is under :data:`STRONG_BITS`.  The estimate is deliberately small and
pessimistic, and the page's script computes exactly the same (``secret.js``):

- a word of the shipped list of the commonest words (``common-words.txt``: English from
  zxcvbn's frequency lists, and the commonest Hungarian, Greek and Ukrainian words) costs
  ``log2(rank + 1)`` bits; any other word at most 16 bits (as if from a 65,536-word
  dictionary), and never more than trying its letters one by one (``log2 26`` a letter,
  ``log2 10`` a digit): an unknown word is not credited as random;
- a word said before in the sentence, or the next of a counting sequence (one two three,
  a b c, Monday Tuesday), costs 1 bit;
- three words or more in a row of a famous sentence (:func:`phrases`: pangrams, quotations,
  nursery rhymes) cost nothing, and the sentence ``log2`` of the list's length once.

A sum of such costs over-estimates no dictionary attack that tries common words, their
repeats and known sentences first; 48 bits is about 3 x 10^14 guesses, each an scrypt.
(zxcvbn, the reference estimator, is about 800 kB: the page travels by mail.)
"""

from __future__ import annotations

import math
from functools import cache
from importlib import resources

from pbem.errors import FormatError
from pbem.i18n import Msg

STRONG_BITS = 48
"""The least estimate (bits) of words a secret number is made from."""

UNKNOWN_BITS = 16
"""A word not in the list: at most this (a 65,536-word dictionary's)."""

@cache
def _lines(name: str) -> tuple[str, ...]:
    """A shipped list, one item a line (``#`` lines are notes), read on first use."""
    text = resources.files("pbem.fair").joinpath(name).read_text(encoding="utf-8")
    return tuple(line for line in text.split("\n") if line and not line.startswith("#"))


def phrases() -> tuple[str, ...]:
    """Famous sentences (``famous-sentences.txt``: pangrams, quotations, rhymes in the four
    languages), as :func:`pbem.fair.words.words_of` writes them: a phrase dictionary's first tries."""
    return _lines("famous-sentences.txt")


def sequences() -> tuple[str, ...]:
    """Counting sequences (``counting.txt``): a word that follows the word before in one costs 1 bit."""
    return _lines("counting.txt")


def common_words() -> tuple[str, ...]:
    """The shipped list of the commonest words, most common first (read on first use)."""
    return _lines("common-words.txt")


@cache
def _ranks() -> dict[str, int]:
    return {w: i + 1 for i, w in enumerate(common_words())}


def _quoted(words: list[str]) -> tuple[list[bool], int]:
    """Which words are part of a run of 3 or more words of a famous sentence, and how many
    sentences were found."""
    quoted, found = [False] * len(words), 0
    for phrase in (p.split(" ") for p in phrases()):
        least, hit = min(3, len(phrase)), False
        for s in range(len(words)):
            for t in range(len(phrase)):
                k = 0
                while s + k < len(words) and t + k < len(phrase) and words[s + k] == phrase[t + k]:
                    k += 1
                if k >= least:
                    quoted[s:s + k] = [True] * k
                    hit = True
        found += hit
    return quoted, found


def _follows(before: str, word: str) -> bool:
    for sequence in (s.split(" ") for s in sequences()):
        if before in sequence and sequence.index(before) + 1 < len(sequence) \
                and sequence[sequence.index(before) + 1] == word:
            return True
    return False


def _word_bits(word: str) -> float:
    rank = _ranks().get(word)
    listed = math.log2(rank + 1) if rank is not None else UNKNOWN_BITS
    letters = len(word) * math.log2(10 if word.isascii() and word.isdigit() else 26)
    return min(listed, letters)


def estimate(words: str) -> float:
    """The estimate, in bits, of ``words`` as they count (:func:`pbem.fair.words.words_of`)."""
    split = words.split(" ")
    quoted, found = _quoted(split)
    bits = found * math.log2(len(phrases()))
    seen: set[str] = set()
    for i, word in enumerate(split):
        if not quoted[i]:
            repeated = word in seen or (i > 0 and _follows(split[i - 1], word))
            bits += 1 if repeated else _word_bits(word)
        seen.add(word)
    return bits


def weak_words(bits: int | str) -> Msg:
    """The refusal of words whose estimate is ``bits`` (the page fills in its own estimate)."""
    return Msg("these secret words are too easy to guess: about {bits} bits by pbem's estimate, and a secret "
               "number needs {least} (P4). Common words, a word said twice, counting (one two three) and famous "
               "sentences count for little: add words of your own that nobody would put together", bits=bits,
               least=STRONG_BITS)


def check_strength(words: str) -> float:
    """The estimate of ``words`` (as they count), or a refusal naming it when it is under
    :data:`STRONG_BITS` (P4)."""
    bits = estimate(words)
    if bits < STRONG_BITS:
        raise FormatError(weak_words(round(bits)), "P4")
    return bits
