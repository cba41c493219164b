"""SHA-256, HMAC-SHA-256 and a constant-time comparison, without loading OpenSSL.

``import hashlib`` (and ``hmac`` and ``secrets``, which import it) loads OpenSSL's library and
initialises it: 2-3 ms of every pbem process, more than any module of pbem's own, and a
`pbem apply` runs once for every mailed move (docs/benchmarks.md).  CPython carries its own
SHA-256 (the module ``random`` takes its SHA-512 the same way), which gives the same digests;
HMAC is RFC 2104 over it, exactly as the standard library's own ``hmac`` computes it when it has
no OpenSSL (tests/test_digests.py holds both equal to ``hashlib`` and ``hmac``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from hashlib import sha256 as sha256
else:
    try:
        from _sha256 import sha256  # CPython 3.11
    except ImportError:  # pragma: no cover - other Pythons
        try:
            from _sha2 import sha256  # CPython 3.12 on
        except ImportError:
            from hashlib import sha256

from _operator import _compare_digest as compare_digest  # what hmac.compare_digest is without OpenSSL

__all__ = ["compare_digest", "hmac_sha256", "sha256"]

_BLOCK = 64  # SHA-256's block size in bytes
_INNER = bytes(x ^ 0x36 for x in range(256))
_OUTER = bytes(x ^ 0x5C for x in range(256))


def hmac_sha256(key: bytes, *parts: bytes) -> bytes:
    """HMAC-SHA-256 of the concatenated ``parts`` under ``key`` (RFC 2104): the bytes of
    ``hmac.new(key, b"".join(parts), hashlib.sha256).digest()``."""
    if len(key) > _BLOCK:
        key = sha256(key).digest()
    key = key.ljust(_BLOCK, b"\0")
    inner = sha256(key.translate(_INNER))
    for part in parts:
        inner.update(part)
    return sha256(key.translate(_OUTER) + inner.digest()).digest()
