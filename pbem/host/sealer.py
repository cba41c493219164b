"""The host's signing key (PROTOCOL.md P8): every entry the host writes carries its signature.

The key file's path is kept in the game's private settings (``host.yaml``), and the
key must be the one whose public half entry 0 records.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pbem.errors import SignatureError
from pbem.fair.keys import entry_message, fingerprint, load_private_key, public_text, sign
from pbem.host.settings import load_settings
from pbem.i18n import Msg
from pbem.log.game import Game

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey


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
        raise SignatureError(Msg(
            "the host key file {path} is not the key recorded in entry 0 ({fingerprint}...)",
            path=str(key_path), fingerprint=fingerprint(public)), "P8",
        )
    return Sealer(key)


def game_sealer(game_dir: Path, game: Game) -> Sealer | None:
    """The sealer for a game whose entry 0 names a host key; None when there is none."""
    public = game.keys.host
    if not isinstance(public, str):
        return None
    settings = load_settings(game_dir)
    if settings.host_key is None:
        raise SignatureError(Msg(
            "entry 0 records a host key, but {path} names no host key file; "
            "the host must sign every entry (restore host.yaml's 'host_key')", path=str(game_dir / "host.yaml")), "P8",
        )
    return sealer_for(Path(settings.host_key), public)


