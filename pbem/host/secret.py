"""The game's secret file (P1): the 32 bytes behind the deal, kept by the host alone.

``secret.yaml`` (mode 0600) is written once, when the game is created
(:mod:`.create`), and read back only to deal the faces and, at the end, to
reveal it (P6); every read checks it against the commitment in entry 0, so a
changed secret file is refused, never used.
"""

from __future__ import annotations

from pathlib import Path

from pbem.errors import TamperError
from pbem.fair import protocol
from pbem.files import read_limited
from pbem.i18n import Msg
from pbem.log.game import Game
from pbem.log.yamlio import decode, load_one

SECRET_NAME = "secret.yaml"


def read_secret(path: Path) -> tuple[bytes, str]:
    raw = read_limited(path / SECRET_NAME, 4096, Msg("secret file"))
    data = load_one(decode(raw, Msg("the secret file")), Msg("the secret file"))
    try:
        secret = bytes.fromhex(data["secret"])
        made = str(data["made"])
        if len(secret) != 32:
            raise ValueError
    except (KeyError, TypeError, ValueError):
        raise TamperError(Msg("the secret file must hold 'secret' (64 hex digits) and 'made'"), "P1") from None
    return secret, made


def secret_for(game: Game, path: Path) -> bytes:
    """The game's secret, once it matches the commitment in entry 0 (P3)."""
    secret, _made = read_secret(path)
    if protocol.secret_commitment(secret) != game.secret_commitment:
        raise TamperError(Msg("the secret file does not match the commitment in entry 0"), "P3")
    return secret
