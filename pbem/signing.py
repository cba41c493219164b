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
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pbem import protocol
from pbem.errors import FormatError, SignatureError, StateError, UnknownError
from pbem.moves import Move, parse_move
from pbem.replay import log_has_signatures
from pbem.yamlio import MOVE_LIMIT, read_limited, write_atomic

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import (
        Ed25519PrivateKey,
        Ed25519PublicKey,
    )

    from pbem.game import Game

PUBLIC_PREFIX = "ed25519:"
PUBLIC_RE = re.compile(r"^ed25519:[A-Za-z0-9+/]{43}=\Z")
SIGNATURE_RE = re.compile(r"^[A-Za-z0-9+/]{86}==\Z")
KEY_FILE_LIMIT = 16 * 1024
_SIGNATURE_LINE = re.compile(r"^signature[ \t]*:")


# --- keys ------------------------------------------------------------------------------

def keygen(out: Path) -> tuple[Path, Path, str]:
    """A new key pair: private key ``out`` (PEM, mode 0600), public key ``out.pub``."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    pub_path = out.with_name(out.name + ".pub")
    for target in (out, pub_path):
        if target.exists():
            raise StateError(f"{target} exists; pbem does not overwrite key files")
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

    data = read_limited(path, KEY_FILE_LIMIT, "key file")
    if data.lstrip().startswith(PUBLIC_PREFIX.encode()):
        raise FormatError(
            f"{path} is a public key; signing needs the private key file (without .pub)", "P8"
        )
    try:
        if b"OPENSSH PRIVATE KEY" in data:
            key: Any = serialization.load_ssh_private_key(data, password=None)
        else:
            key = serialization.load_pem_private_key(data, password=None)
    except (ValueError, TypeError) as err:
        raise FormatError(f"{path} is not an unencrypted Ed25519 private key: {err}", "P8") from None
    if not isinstance(key, Ed25519PrivateKey):
        raise FormatError(f"{path} holds a {type(key).__name__}, not an Ed25519 key", "P8")
    return key


def public_text(key: Ed25519PrivateKey) -> str:
    """``ed25519:<base64 of the 32 raw public key bytes>``."""
    from cryptography.hazmat.primitives import serialization

    raw = key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return PUBLIC_PREFIX + base64.b64encode(raw).decode("ascii")


def is_public_text(text: object) -> bool:
    """``ed25519:`` and the canonical base64 of 32 bytes (P2: one spelling per key)."""
    return (
        isinstance(text, str) and PUBLIC_RE.match(text) is not None
        and protocol.canonical_base64(text[len(PUBLIC_PREFIX):], 32)
    )


def check_public_text(text: str, what: str = "public key") -> str:
    if not PUBLIC_RE.match(text):
        raise FormatError(
            f"{what} must be one line 'ed25519:' followed by 44 base64 characters", "P8"
        )
    if not is_public_text(text):
        raise FormatError(
            f"{what} is not in canonical base64: the spare bits of its last character must be "
            "zero (copy the key as 'pbem keygen' wrote it)", "P2",
        )
    return text


def read_public_key(path: Path) -> str:
    """The ``ed25519:...`` line of a ``.pub`` file (a private key file is refused)."""
    data = read_limited(path, KEY_FILE_LIMIT, "public key file")
    text = data.decode("ascii", "replace").strip()
    if "PRIVATE KEY" in text:
        raise FormatError(
            f"{path} is a private key: give the player's public key file ({path.name}.pub); "
            "a private key never leaves its owner",
            "P8",
        )
    return check_public_text(text, f"public key file {path}")


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

    if not isinstance(signature, str) or not SIGNATURE_RE.match(signature):
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


def fingerprint(public: str) -> str:
    return public[len(PUBLIC_PREFIX):][:12]


# --- the host side: moves ---------------------------------------------------------------

def key_for(keys: dict[str, str], data: dict[str, Any], player: str) -> tuple[str | None, str]:
    """The key a move of ``player`` must be signed with, and where that key comes from.

    A key registered earlier (entry 0 or an earlier commitment) is in force; a
    commitment that registers a key must itself be signed with it (proof of possession).
    """
    registered = keys.get(player)
    offered = data.get("key") if data.get("kind") == "commit" else None
    if registered is not None:
        if isinstance(offered, str) and offered != registered:
            raise SignatureError(
                f"{player} already has key {fingerprint(registered)}... registered; a nonce "
                "commitment cannot replace it", "P8",
            )
        return registered, "the key registered for " + player
    if isinstance(offered, str):
        return offered, "the key this commitment registers"
    return None, ""


def check_move(game: Game, move: Move) -> None:
    """Refuse a move of a player with a key that is unsigned or wrongly signed (P8)."""
    public, source = key_for(game.keys, move.data, move.player)
    signature = move.data.get("signature")
    if public is None:
        if signature is not None:
            raise SignatureError(
                f"the move is signed, but {move.player} has no registered key to check it "
                "against; register one ('pbem new --key', or 'key:' in the commitment) or send the "
                "move unsigned", "P8",
            )
        return
    if signature is None:
        raise SignatureError(
            f"{move.player}'s moves must be signed with {source} ({fingerprint(public)}...); "
            "this move is not signed: run 'pbem sign MOVE --key YOUR_KEY' and send it again",
            "P8",
        )
    if not verify(public, signature, move_message(move.data)):
        raise SignatureError(
            f"the move's signature does not verify with {source} ({fingerprint(public)}...): "
            "it was signed with another key, or the move was changed after signing; "
            "nothing was changed", "P8",
        )


# --- the host side: entries -------------------------------------------------------------

@dataclass
class Sealer:
    """The host's private key, checked against the public key in entry 0."""

    key: Ed25519PrivateKey

    def seal(self, entry: dict[str, Any]) -> dict[str, Any]:
        """The chained entry with the host's signature over its hash (last field)."""
        body = {k: v for k, v in entry.items() if k != "signature"}
        return {**body, "signature": sign(self.key, entry_message(body))}


def sealer_for(key_path: Path, public: str | None = None) -> Sealer:
    key = load_private_key(key_path)
    if public is not None and public_text(key) != public:
        raise SignatureError(
            f"the host key file {key_path} is not the key recorded in entry 0 "
            f"({fingerprint(public)}...)", "P8",
        )
    return Sealer(key)


def game_sealer(game_dir: Path, game: Game) -> Sealer | None:
    """The sealer for a game whose entry 0 names a host key; None when there is none."""
    public = game.entries[0].get("host_key")
    if not isinstance(public, str):
        return None
    from pbem.settings import load_settings

    settings = load_settings(game_dir)
    if settings.host_key is None:
        raise SignatureError(
            f"entry 0 records a host key, but {game_dir / 'host.yaml'} names no host key file; "
            "the host must sign every entry (restore host.yaml's 'host_key')", "P8",
        )
    return sealer_for(Path(settings.host_key), public)


# --- anyone: checking a whole log ---------------------------------------------------------

@dataclass
class LogSignatures:
    entries_signed: int
    moves_signed: int
    failures: list[str]


def check_log(entries: list[dict[str, Any]]) -> LogSignatures:
    """Every host signature on every entry, every player signature on every move (P8)."""
    failures: list[str] = []
    host_key = entries[0].get("host_key")
    keys = entries[0].get("keys") or {}
    if host_key is not None and not is_public_text(host_key):
        failures.append("entry 0: 'host_key' is not an ed25519 public key")
        host_key = None
    if not isinstance(keys, dict):
        failures.append("entry 0: 'keys' is not a mapping of players to public keys")
        keys = {}
    keys = {p: k for p, k in keys.items() if isinstance(k, str)}
    entries_signed = moves_signed = 0
    for seq, entry in enumerate(entries):
        if isinstance(host_key, str):
            if "signature" not in entry:
                failures.append(f"entry {seq}: no host signature (entry 0 names a host key)")
            elif not verify(host_key, entry["signature"], entry_message(entry)):
                failures.append(f"entry {seq}: the host signature does not verify")
            else:
                entries_signed += 1
        elif "signature" in entry:
            failures.append(f"entry {seq}: signed, but entry 0 names no host key")
        move, player = entry.get("move"), entry.get("player")
        if entry.get("kind") == "replace" and isinstance(player, str):
            # R8.4: the seat's new player signs with the new key from this entry on (none: unsigned)
            new_key = entry.get("key")
            if isinstance(new_key, str):
                keys[player] = new_key
            else:
                keys.pop(player, None)
            continue
        if not isinstance(move, dict) or not isinstance(player, str):
            continue
        try:
            public, source = key_for(keys, move, player)
        except SignatureError as err:
            failures.append(f"entry {seq}: {err.message}")
            continue
        if public is not None:
            if "signature" not in move:
                failures.append(f"entry {seq}: {player}'s move is not signed ({source} is in force)")
            elif not verify(public, move["signature"], move_message(move)):
                failures.append(f"entry {seq}: {player}'s move signature does not verify")
            else:
                moves_signed += 1
        elif "signature" in move:
            failures.append(f"entry {seq}: {player}'s move is signed, but {player} has no key")
        if entry.get("kind") == "commit" and isinstance(public, str):
            keys[player] = public
    return LogSignatures(entries_signed, moves_signed, failures)


# --- players: signing a move file ---------------------------------------------------------

def sign_move_file(path: Path, key_path: Path, register: bool = False) -> Move:
    """Sign a move file in place; its text is kept, only the signature line changes.

    With ``register`` (commit moves only) a ``key:`` line with the signer's public
    key is added first, so the commitment registers the key it is signed with.
    """
    key = load_private_key(key_path)
    public = public_text(key)
    raw = read_limited(path, MOVE_LIMIT, "move file")
    move = parse_move(raw, f"move file {path.name}")
    text = raw.decode("utf-8")
    newline = "\r\n" if "\r\n" in text else "\n"
    lines = [ln for ln in text.splitlines() if not _SIGNATURE_LINE.match(ln)]
    data = {k: v for k, v in move.data.items() if k != "signature"}
    if register:
        if move.kind != "commit":
            raise FormatError("only a nonce commitment registers a key (P8): drop --register", "P8")
        if data.get("key") not in (None, public):
            raise FormatError("the commitment already registers another key; remove its 'key:' line", "P8")
        if "key" not in data:
            data["key"] = public
            lines.append(f'key: "{public}"')
    offered = data.get("key")
    if isinstance(offered, str) and offered != public:
        raise SignatureError(
            f"this commitment registers key {fingerprint(offered)}..., but {key_path} is key "
            f"{fingerprint(public)}...: sign it with the key it registers", "P8",
        )
    signature = sign(key, move_message(data))
    lines.append(f'signature: "{signature}"')
    new_text = newline.join(lines) + newline
    signed = {**data, "signature": signature}
    try:
        kept = parse_move(new_text.encode("utf-8"), f"move file {path.name}").data == signed
    except FormatError:
        kept = False
    if not kept:  # e.g. a flow-style document: rewrite it plainly (comments are lost)
        from pbem.yamlio import dump_yaml

        new_text = dump_yaml(signed)
    result = parse_move(new_text.encode("utf-8"), f"move file {path.name}")
    if result.data != signed or not verify(public, signature, move_message(result.data)):
        raise UnknownError("internal error: the signed move does not read back")  # pragma: no cover
    mode = path.stat().st_mode & 0o777
    write_atomic(path, new_text.encode("utf-8"), mode)
    return result


def require_valid(entries: list[dict[str, Any]]) -> LogSignatures | None:
    """Refuse a log whose signatures do not all hold (P8); None for a log without keys.

    The host runs this before it appends anything, and ``pbem verify`` and
    ``pbem audit`` before they say a log is good.
    """
    if not log_has_signatures(entries):
        return None
    checked = check_log(entries)
    if checked.failures:
        raise SignatureError("; ".join(checked.failures), "P8")
    return checked
