"""P2's ``H`` and ``HMAC`` as pbem computes them without OpenSSL (pbem/digests.py, for the start-up
of every command): the very bytes of the standard library's ``hashlib`` and ``hmac``, for keys
shorter than, as long as and longer than SHA-256's block, and messages in one part or several."""

from __future__ import annotations

import hashlib
import hmac
import random

import pytest

from pbem.digests import compare_digest, hmac_sha256, sha256


@pytest.mark.parametrize("size", [0, 1, 55, 56, 63, 64, 65, 1000, 100_000])
def test_p2_h_is_sha256(size: int) -> None:
    data = random.Random(size).randbytes(size)
    assert sha256(data).hexdigest() == hashlib.sha256(data).hexdigest()


@pytest.mark.parametrize("key_size", [0, 16, 32, 63, 64, 65, 128, 1000])
def test_p2_hmac_is_rfc_2104_hmac_sha256(key_size: int) -> None:
    rng = random.Random(key_size)
    key = rng.randbytes(key_size)
    for size in (0, 1, 32, 64, 200, 5000):
        parts = [rng.randbytes(size), rng.randbytes(size // 3), b""]
        want = hmac.new(key, b"".join(parts), hashlib.sha256).digest()
        assert hmac_sha256(key, *parts) == want
        assert hmac_sha256(key, b"".join(parts)) == want


def test_p2_hmac_matches_the_rfc_4231_test_vector() -> None:
    # RFC 4231, test case 2: key "Jefe", data "what do ya want for nothing?"
    assert hmac_sha256(b"Jefe", b"what do ya want ", b"for nothing?").hex() == (
        "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")


def test_digests_compare_equal_and_unequal_as_hmac_does() -> None:
    for a, b in (("ab", "ab"), ("ab", "ac"), ("ab", "abc"), ("", "")):
        assert compare_digest(a, b) == hmac.compare_digest(a, b)
        assert compare_digest(a.encode(), b.encode()) == hmac.compare_digest(a.encode(), b.encode())
