"""Fair play by email: the byte-exact primitives of PROTOCOL.md P2-P7.

Everything here is a pure function of its arguments (no I/O, no clock, no OS
randomness), so an auditor gets the same bytes as the GM did.  Only ``hashlib``
and ``hmac`` from the standard library are used for cryptography.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import re
import struct
from collections.abc import Mapping, Sequence
from typing import TypeVar

from pbem.record import Record
from pbem.rules.data import N_TOKENS, Board, Catalogue

__all__ = [
    "GAME_ID_RE",
    "GAME_ID_RULE",
    "HASH_PREFIX_MIN",
    "MAX_NONCE_BYTES",
    "MIN_NONCE_BYTES",
    "N_TOKENS",
    "PROTOCOL",
    "PUBLIC_NAMES",
    "REMOVED_NORMALS",
    "SALT_BYTES",
    "TAG",
    "ZERO_HASH",
    "Deal",
    "Drbg",
    "canonical_base64",
    "canonical_json",
    "data_hash",
    "deal",
    "derive_seed",
    "entry_hash",
    "nonce_commitment",
    "secret_commitment",
    "sha256_hex",
]

T = TypeVar("T")

PROTOCOL = "pbem-rattus/v2"
"""The protocol a log follows, recorded in its first entry (P3, P7)."""

TAG = "pbem-rattus/v1"
"""Version tag prefixed to every hashed domain string (v2 keeps the v1 tags)."""

ZERO_HASH = "0" * 64
"""``prev`` of the first log entry (P7)."""

GAME_ID_RE = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}\Z")
"""P2: game ids are 1-64 characters of ``a-z 0-9 _ -``, starting with a letter or digit
(so never ``.`` or ``..``; ``\\Z``: no trailing newline)."""

GAME_ID_RULE = "1-64 characters of a-z 0-9 _ -, starting with a letter or digit"
"""P2: :data:`GAME_ID_RE` in words, for refusals."""

MAX_NONCE_BYTES = 64
"""P4: a player's nonce is at most 64 bytes (0 bytes: a waived seat)."""

MIN_NONCE_BYTES = 16
"""P4: the policy minimum of a player's nonce (the seed formula itself takes 0-64)."""

HASH_PREFIX_MIN = 16
"""P7: a move names the entry it answers by at least the first 16 hex digits of its hash."""


SALT_BYTES = 16
"""P6: ``salt_i`` is the first 16 bytes of an HMAC."""

REMOVED_NORMALS: Mapping[int, int] = {2: 12, 3: 6, 4: 0}
"""P5 step 3: normal tokens removed from the game, by player count."""

MAX_SAFE_INT = 2**53
"""P2: integers stay within +-2^53."""

_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)
"""What ``json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)`` uses,
made once: dumps with any option builds a new encoder each call, and a replay hashes
every entry of the log (start-up speed)."""

_HEX_RE = re.compile(r"[0-9a-f]*\Z")


# --------------------------------------------------------------------- P2


def _u8(i: int) -> bytes:
    """P2: ``u8(i)``, one unsigned byte."""
    return i.to_bytes(1, "big")


def _u64(i: int) -> bytes:
    """P2: ``u64(i)``, eight unsigned big-endian bytes."""
    return i.to_bytes(8, "big")


def _check_json_value(obj: object, path: str, seen: set[int]) -> None:
    """P2: only str, int (within +-2^53), bool, null, lists and maps with ASCII str keys."""
    if obj is None or isinstance(obj, (str, bool)):
        return
    if isinstance(obj, int):
        if not -MAX_SAFE_INT <= obj <= MAX_SAFE_INT:
            raise ValueError(f"canonical JSON: integer at {path} is outside +-2^53")
        return
    if isinstance(obj, float):
        raise ValueError(f"canonical JSON: float at {path} (only integers are allowed)")
    if isinstance(obj, (list, dict)):
        if id(obj) in seen:
            raise ValueError(f"canonical JSON: circular reference at {path}")
        seen.add(id(obj))
        if isinstance(obj, list):
            for i, item in enumerate(obj):
                _check_json_value(item, f"{path}[{i}]", seen)
        else:
            for key, value in obj.items():
                if not isinstance(key, str):
                    raise ValueError(f"canonical JSON: non-string key {key!r} at {path}")
                if not key.isascii():
                    raise ValueError(f"canonical JSON: non-ASCII key {key!r} at {path}")
                _check_json_value(value, f"{path}.{key}", seen)
        seen.discard(id(obj))
        return
    raise ValueError(f"canonical JSON: {type(obj).__name__} at {path} is not allowed")


def _is_json_value(obj: object, depth: int) -> bool:
    """The fast check behind canonical_json (a log replays thousands of entries);
    False sends the value to :func:`_check_json_value` for a precise error."""
    if obj is None or type(obj) is str or type(obj) is bool:
        return True
    if type(obj) is int:
        return -MAX_SAFE_INT <= obj <= MAX_SAFE_INT
    if depth > 256:  # deep, or circular: let the slow walk decide
        return False
    if type(obj) is list:
        return all(_is_json_value(item, depth + 1) for item in obj)
    if type(obj) is dict:
        return all(
            type(k) is str and k.isascii() and _is_json_value(v, depth + 1)
            for k, v in obj.items()
        )
    return False


def canonical_json(obj: object) -> bytes:
    """P2: canonical JSON bytes (sorted keys, no spaces, UTF-8 unescaped).

    Raises ValueError for anything P2 does not allow: floats, non-string or
    non-ASCII keys, integers outside +-2^53, and any type other than str, int,
    bool, None, list and dict (tuples included).
    """
    if not _is_json_value(obj, 0):
        _check_json_value(obj, "$", set())  # the slow walk names what is wrong
    return _CANONICAL.encode(obj).encode("utf-8")


def canonical_base64(text: str, size: int) -> bool:
    """P2: ``text`` is the one canonical base64 spelling (standard alphabet, padded) of
    ``size`` bytes.  The spare bits of the last character must be zero, so a decoder
    that re-encodes gets ``text`` back; any other spelling is refused."""
    if len(text) != 4 * ((size + 2) // 3) or not text.isascii():
        return False
    try:
        raw = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        return False
    return len(raw) == size and base64.b64encode(raw).decode("ascii") == text


def sha256_hex(data: bytes) -> str:
    """P2: ``H(x)`` as lowercase hex."""
    return hashlib.sha256(data).hexdigest()


def _hmac(key: bytes, msg: bytes) -> bytes:
    """P2: ``HMAC(k, x)`` (HMAC-SHA-256), raw bytes (``hmac.digest``: the same bytes as
    ``hmac.new(k, x, sha256).digest()`` in one call; a deal draws about 23)."""
    return hmac.digest(key, msg, "sha256")


# --------------------------------------------------------------------- P3, P4


def secret_commitment(secret: bytes) -> str:
    """P3: ``H("pbem-rattus/v1/secret" || secret)`` as hex."""
    return sha256_hex(f"{TAG}/secret".encode() + secret)


def data_hash(map_data: object, tokens_data: object) -> str:
    """P3: ``H(canonical JSON of {"map": map, "tokens": catalogue})`` as hex."""
    return sha256_hex(canonical_json({"map": map_data, "tokens": tokens_data}))


def checked_json(obj: object) -> bytes:
    """:func:`canonical_json` of a value already known to hold only P2's values (a log
    entry whose hash was computed, say): the same bytes, without walking it again."""
    return _CANONICAL.encode(obj).encode("utf-8")


def nonce_commitment(nonce: bytes) -> str:
    """P4: ``H("pbem-rattus/v1/nonce" || nonce)`` as hex: what a player commits to first."""
    return sha256_hex(f"{TAG}/nonce".encode() + bytes(nonce))


def derive_seed(secret: bytes, game_id: str, nonces: Sequence[bytes]) -> bytes:
    """P4: the game's seed from the secret, the game id and the players' nonces.

    ``nonces`` has one entry per player in seat order; ``b""`` stands for a
    waived seat.
    """
    if not isinstance(game_id, str) or not GAME_ID_RE.match(game_id):
        raise ValueError(f"game id {game_id!r} must be {GAME_ID_RULE}")
    if len(nonces) > 255:
        raise ValueError("too many players for u8(n)")
    gid = game_id.encode("ascii")
    msg = bytearray(f"{TAG}/seed".encode())
    msg += _u8(len(gid)) + gid + _u8(len(nonces))
    for seat, nonce in enumerate(nonces, start=1):
        if not isinstance(nonce, (bytes, bytearray)):
            raise ValueError(f"nonce of seat {seat} must be bytes")
        if len(nonce) > MAX_NONCE_BYTES:
            raise ValueError(f"nonce of seat {seat} is longer than {MAX_NONCE_BYTES} bytes")
        msg += _u8(len(nonce)) + bytes(nonce)
    return _hmac(secret, bytes(msg))


# --------------------------------------------------------------------- P5


_DRBG_TAG = f"{TAG}/drbg".encode()
_WORDS = struct.Struct(">4Q")  # an HMAC-SHA-256 block as four big-endian u64 words


class Drbg:
    """P5: the deterministic stream of u64 words drawn from the seed."""

    def __init__(self, seed: bytes) -> None:
        self._seed = bytes(seed)
        self._block = 0
        self._left: list[int] = []  # the current block's words not drawn yet, the next one last

    def word(self) -> int:
        """P5: the next big-endian u64 word of ``HMAC(seed, TAG/drbg || u64(k))``, k = 0, 1, ...
        (a block's 32 bytes are its four words, read at once)."""
        left = self._left
        if not left:
            left.extend(reversed(_WORDS.unpack(_hmac(self._seed, _DRBG_TAG + _u64(self._block)))))
            self._block += 1
        return left.pop()

    def below(self, n: int) -> int:
        """P5: uniform integer in ``[0, n)`` by rejection sampling."""
        if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= 2**64:
            raise ValueError(f"below(n) needs 1 <= n <= 2^64, got {n!r}")
        limit = 2**64 - (2**64 % n)
        while True:
            x = self.word()
            if x < limit:
                return x % n

    def shuffle(self, items: list[T]) -> None:
        """P5: in-place Fisher-Yates, ``i`` from ``len-1`` down to 1, ``j = below(i+1)``."""
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]


PUBLIC_NAMES: tuple[str, ...] = tuple(f"t{i:02d}" for i in range(1, N_TOKENS + 1))
"""P6: the public names of positions 1 to 49 (``t01`` ... ``t49``), in order: ``Deal.name(i)``
is ``PUBLIC_NAMES[i - 1]``."""


class Deal(Record):
    """P5/P6: the outcome of every setup draw, with P6 positions.

    ``token_ids[i]`` is the catalogue id of the token at position ``i + 1``
    (public name ``Deal.name(i + 1)``); ``board``, ``supply`` and ``removed``
    hold public names only.
    """

    first_player: str
    regions_in_use: tuple[str, ...]
    board: tuple[tuple[str, str], ...]
    supply: tuple[str, ...]
    removed: tuple[str, ...]
    plague_start: str
    token_ids: tuple[str, ...]

    @staticmethod
    def name(i: int) -> str:
        """P6: the public name of position ``i`` (``t07``)."""
        if isinstance(i, bool) or not isinstance(i, int) or not 1 <= i <= N_TOKENS:
            raise ValueError(f"token position {i!r} is outside 1..{N_TOKENS}")
        return PUBLIC_NAMES[i - 1]

    def id_of(self, name: str) -> str:
        """P6: the catalogue id of the token with public name ``name``."""
        names = [Deal.name(i) for i in range(1, len(self.token_ids) + 1)]
        if name not in names:
            raise ValueError(f"{name!r} is not a token name like 't07'")
        return self.token_ids[names.index(name)]


def deal(
    seed: bytes,
    players: Sequence[str],
    first_named: str | None,
    board: Board,
    catalogue: Catalogue,
) -> Deal:
    """P5: all setup draws in the stated order; P6: positions and public names."""
    n = len(players)
    if n not in REMOVED_NORMALS:
        raise ValueError(f"Rattus needs 2-4 players, got {n}")
    if len(set(players)) != n:
        raise ValueError("player names must be distinct")
    if first_named is not None and first_named not in players:
        raise ValueError(f"first player {first_named!r} is not one of the players")
    if len(catalogue.tokens) != N_TOKENS:
        raise ValueError(f"the catalogue must hold {N_TOKENS} tokens")
    in_use = board.regions_in_use(n)
    starting = [t.id for t in catalogue.starting]
    normal = [t.id for t in catalogue.normal]
    if len(in_use) > len(starting):
        raise ValueError(f"{len(in_use)} regions in use but only {len(starting)} starting tokens")
    n_removed = REMOVED_NORMALS[n]

    rng = Drbg(seed)
    # 1. first player, unless named
    first = first_named if first_named is not None else players[rng.below(n)]
    # 2. starting tokens, catalogue order; the first len(in_use) go onto the regions in use
    rng.shuffle(starting)
    on_board, unused_starting = starting[: len(in_use)], starting[len(in_use) :]
    # 3. normal tokens, catalogue order; the first 12 (2p) / 6 (3p) / 0 (4p) are removed
    rng.shuffle(normal)
    removed, kept = normal[:n_removed], normal[n_removed:]
    # 4. supply = kept normals, then unused starting tokens; shuffled, drawn from the front
    supply = kept + unused_starting
    rng.shuffle(supply)
    # 5. plague start
    plague = in_use[rng.below(len(in_use))]

    token_ids = tuple(on_board + supply + removed)
    names = PUBLIC_NAMES[: len(token_ids)]
    n_board, n_supply = len(on_board), len(supply)
    return Deal(
        first_player=first,
        regions_in_use=in_use,
        board=tuple(zip(in_use, names[:n_board], strict=True)),
        supply=tuple(names[n_board : n_board + n_supply]),
        removed=tuple(names[n_board + n_supply :]),
        plague_start=plague,
        token_ids=token_ids,
    )


# --------------------------------------------------------------------- P7


def entry_hash(entry: Mapping[str, object]) -> str:
    """P7: ``H(canonical JSON of the entry without its "signature" field)`` as hex."""
    return sha256_hex(canonical_json({k: v for k, v in entry.items() if k != "signature"}))
