"""PROTOCOL.md P6: token identities and commitments, and checking a reveal.

Every token has a position (1..49) and a public name (``t07``); its commitment
binds the position, a salt from the seed and the token's catalogue id.  Pure
functions, standard library only.
"""

from __future__ import annotations

import hmac
import re

from pbem.fair.protocol import _HEX_RE, N_TOKENS, SALT_BYTES, TAG, Deal, _hmac, _u8, sha256_hex

_NAME_RE = re.compile(r"t([0-9]{2})\Z")


def position_of(name: str) -> int:
    """P6: the position of public name ``tNN`` (1..49); ValueError otherwise."""
    m = _NAME_RE.match(name) if isinstance(name, str) else None
    if m is None:
        raise ValueError(f"{name!r} is not a token name like 't07'")
    i = int(m.group(1))
    if not 1 <= i <= N_TOKENS:
        raise ValueError(f"token name {name!r} is outside t01..t{N_TOKENS:02d}")
    return i


def _check_position(position: int) -> None:
    if isinstance(position, bool) or not isinstance(position, int):
        raise ValueError(f"token position must be an int, got {position!r}")
    if not 1 <= position <= N_TOKENS:
        raise ValueError(f"token position {position} is outside 1..{N_TOKENS}")


def token_salt(seed: bytes, position: int) -> bytes:
    """P6: ``salt_i``, the first 16 bytes of ``HMAC(seed, TAG/salt || u8(i))``."""
    _check_position(position)
    return _hmac(seed, f"{TAG}/salt".encode() + _u8(position))[:SALT_BYTES]


def token_commit(position: int, salt: bytes, token_id: str) -> str:
    """P6: ``commit_i = H(TAG/token || u8(i) || salt_i || token_id)`` as hex."""
    _check_position(position)
    if len(salt) != SALT_BYTES:
        raise ValueError(f"a token salt is {SALT_BYTES} bytes, got {len(salt)}")
    return sha256_hex(f"{TAG}/token".encode() + _u8(position) + bytes(salt) + token_id.encode())


def commitments(seed: bytes, deal: Deal) -> list[str]:
    """P6: the 49 commitments, hex, in position order (index 0 is ``t01``)."""
    if len(deal.token_ids) != N_TOKENS:
        raise ValueError(f"a deal has {N_TOKENS} tokens, got {len(deal.token_ids)}")
    return [
        token_commit(i, token_salt(seed, i), token_id)
        for i, token_id in enumerate(deal.token_ids, start=1)
    ]


def check_reveal(commit_hex: str, position: int, salt_hex: str, token_id: str) -> bool:
    """P6: does the reveal (``token_id``, ``salt_i`` hex) open ``commit_i``?

    Malformed input (bad hex, wrong salt length, bad position) does not
    open anything and gives False; the final comparison is constant-time.
    """
    if not (
        isinstance(commit_hex, str)
        and isinstance(salt_hex, str)
        and isinstance(token_id, str)
        and len(commit_hex) == 64
        and len(salt_hex) == 2 * SALT_BYTES
        and _HEX_RE.match(commit_hex)
        and _HEX_RE.match(salt_hex)
    ):
        return False
    try:
        expected = token_commit(position, bytes.fromhex(salt_hex), token_id)
    except ValueError:
        return False
    return hmac.compare_digest(expected, commit_hex)
