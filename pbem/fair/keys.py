"""Ed25519 signatures (PROTOCOL.md P8): players' moves and the host's log entries.

What is signed, exactly:

* A **move** is signed over ``canonical_json(move)`` (P2) of the parsed move
  with its ``signature`` field left out.  The signature is never over the
  file's bytes: comments, quoting, line endings and mail encodings do not
  matter, only the move's data does.
* A **log entry** is signed by the host over the entry's hash (P7, which
  already leaves ``signature`` out) **as its 64 lowercase hex digits, in
  ASCII**: the 64 bytes a reader sees in the log and in ``pbem verify``'s
  output, so anyone can check a signature with any Ed25519 tool and no
  decoding step.

Signatures are standard base64 (88 characters with ``==`` padding).  Public
keys are written ``ed25519:<base64 of the 32 raw bytes>``; private keys are
unencrypted PKCS#8 PEM files (``pbem keygen`` writes them with mode 0600).

``cryptography`` is imported inside the functions that need it, so that
applying a move to a game without any key does not pay for the import.
"""

from __future__ import annotations

import base64
import binascii
import functools
import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pbem.errors import FormatError, StateError
from pbem.fair import protocol
from pbem.files import read_limited
from pbem.i18n import Msg

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import (
        Ed25519PrivateKey,
        Ed25519PublicKey,
    )

PUBLIC_PREFIX = "ed25519:"
PUBLIC_PATTERN = r"^ed25519:[A-Za-z0-9+/]{43}=\Z"
SIGNATURE_PATTERN = r"^[A-Za-z0-9+/]{86}==\Z"
# patterns, compiled (and kept by ``re``) when a key or a signature is first read: start-up speed,
# a game without keys never reads one
KEY_FILE_LIMIT = 16 * 1024


# --- keys ------------------------------------------------------------------------------

def keygen(out: Path) -> tuple[Path, Path, str]:
    """A new key pair: private key ``out`` (PEM, mode 0600), public key ``out.pub``."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    pub_path = out.with_name(out.name + ".pub")
    for target in (out, pub_path):
        if target.exists():
            raise StateError(Msg("{target} exists; pbem does not overwrite key files", target=str(target)))
    key = Ed25519PrivateKey.generate()
    pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    fd = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(pem)
    os.chmod(out, 0o600)
    public = public_text(key)
    fd = os.open(pub_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    with os.fdopen(fd, "w", encoding="ascii") as handle:
        handle.write(public + "\n")
    return out, pub_path, public


def load_private_key(path: Path) -> Ed25519PrivateKey:
    """An Ed25519 private key from a PEM (PKCS#8 or OpenSSH) file."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    data = read_limited(path, KEY_FILE_LIMIT, Msg("key file"))
    if data.lstrip().startswith(PUBLIC_PREFIX.encode()):
        raise FormatError(
            Msg("{path} is a public key; signing needs the private key file (without .pub)", path=str(path)), "P8"
        )
    try:
        if b"OPENSSH PRIVATE KEY" in data:
            key: Any = serialization.load_ssh_private_key(data, password=None)
        else:
            key = serialization.load_pem_private_key(data, password=None)
    except (ValueError, TypeError) as err:
        raise FormatError(Msg("{path} is not an unencrypted Ed25519 private key: {err}", path=str(path),
                                  err=str(err)), "P8") from None
    if not isinstance(key, Ed25519PrivateKey):
        raise FormatError(Msg("{path} holds a {kind}, not an Ed25519 key", path=str(path),
                                  kind=type(key).__name__), "P8")
    return key


def public_text(key: Ed25519PrivateKey) -> str:
    """``ed25519:<base64 of the 32 raw public key bytes>``."""
    from cryptography.hazmat.primitives import serialization

    raw = key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return PUBLIC_PREFIX + base64.b64encode(raw).decode("ascii")


def is_public_text(text: object) -> bool:
    """``ed25519:`` and the canonical base64 of 32 bytes (P2: one spelling per key)."""
    return (
        isinstance(text, str) and re.match(PUBLIC_PATTERN, text) is not None
        and protocol.canonical_base64(text[len(PUBLIC_PREFIX):], 32)
    )


def check_public_text(text: str, what: str = "public key", *, path: Path | None = None) -> str:
    """``text`` if it is a public key (``what`` names where it came from: an option such as
    ``--key red``; ``path``: the public key file it was read from)."""
    if not re.match(PUBLIC_PATTERN, text):
        if path is not None:
            msg = Msg("public key file {path} must be one line 'ed25519:' followed by 44 base64 characters",
                      path=str(path))
        elif what == "public key":
            msg = Msg("public key must be one line 'ed25519:' followed by 44 base64 characters")
        else:
            msg = Msg("{what} must be one line 'ed25519:' followed by 44 base64 characters", what=what)
        raise FormatError(msg, "P8")
    if not is_public_text(text):
        if path is not None:
            msg = Msg("public key file {path} is not in canonical base64: the spare bits of its last character "
                      "must be zero (copy the key as 'pbem keygen' wrote it)", path=str(path))
        elif what == "public key":
            msg = Msg("public key is not in canonical base64: the spare bits of its last character must be "
                      "zero (copy the key as 'pbem keygen' wrote it)")
        else:
            msg = Msg("{what} is not in canonical base64: the spare bits of its last character must be "
                      "zero (copy the key as 'pbem keygen' wrote it)", what=what)
        raise FormatError(msg, "P2")
    return text


def read_public_key(path: Path) -> str:
    """The ``ed25519:...`` line of a ``.pub`` file (a private key file is refused)."""
    data = read_limited(path, KEY_FILE_LIMIT, Msg("public key file"))
    text = data.decode("ascii", "replace").strip()
    if "PRIVATE KEY" in text:
        raise FormatError(
            Msg("{path} is a private key: give the player's public key file ({name}.pub); "
                "a private key never leaves its owner", path=str(path), name=path.name),
            "P8",
        )
    return check_public_text(text, path=path)


@functools.lru_cache(maxsize=64)
def _public_key(text: str) -> Ed25519PublicKey:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    check_public_text(text)
    return Ed25519PublicKey.from_public_bytes(base64.b64decode(text[len(PUBLIC_PREFIX):]))


# --- signing and checking bytes -------------------------------------------------------

def sign(key: Ed25519PrivateKey, message: bytes) -> str:
    return base64.b64encode(key.sign(message)).decode("ascii")


def verify(public: str, signature: object, message: bytes) -> bool:
    """True when ``signature`` (canonical base64, P2) is ``public``'s signature of ``message``."""
    from cryptography.exceptions import InvalidSignature

    if not isinstance(signature, str) or not re.match(SIGNATURE_PATTERN, signature):
        return False
    try:
        raw = base64.b64decode(signature, validate=True)
        if base64.b64encode(raw).decode("ascii") != signature:  # P2: one spelling, not 16
            return False
        _public_key(public).verify(raw, message)
    except (InvalidSignature, binascii.Error, ValueError, FormatError):
        return False
    return True


def move_message(data: dict[str, Any]) -> bytes:
    """P8: what a player signs, the canonical JSON of the move without ``signature``."""
    return protocol.canonical_json({k: v for k, v in data.items() if k != "signature"})


def entry_message(entry: dict[str, Any]) -> bytes:
    """P8: what the host signs, the entry's hash (P7) as 64 ASCII hex digits."""
    return protocol.entry_hash(entry).encode("ascii")


def confirm_message(code: str) -> bytes:
    """P8: what a player signs to confirm the key a held commitment registers, under the
    one-time code the host mailed: the ASCII text ``pbem-rattus/v2 key confirmation CODE``."""
    return f"{protocol.PROTOCOL} key confirmation {code.upper()}".encode("ascii")


def press_message(game: str, seat: str, to: list[str], text: str) -> bytes:
    """P8: what a seat that holds a key signs to have its press relayed at once: the ASCII text
    ``pbem-rattus/v2 press`` and a space, then the canonical JSON of the game, the seat (``player``),
    its readers (``to``: ``["all"]`` or seats) and its words, with no control character (as the
    host keeps press) and every run of white space one space (a mail client may wrap lines)."""
    import unicodedata  # lazily: only press is read so (pbem apply's start-up)

    kept = "".join(ch for ch in text.replace("\r\n", "\n") if ch in " \t\n" or unicodedata.category(ch)[0] != "C")
    words = " ".join(kept.split())
    return f"{protocol.PROTOCOL} press ".encode("ascii") + protocol.canonical_json(
        {"game": game, "player": seat, "text": words, "to": to})


def fingerprint(public: str) -> str:
    return public[len(PUBLIC_PREFIX):][:12]


