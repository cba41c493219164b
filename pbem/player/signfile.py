"""A player signs their move file (PROTOCOL.md P8): ``pbem sign MOVE --key KEY``; a seat that
holds a key signs its press: ``pbem sign-press``."""

from __future__ import annotations

import re
from pathlib import Path

from pbem.errors import FormatError, InternalError, SignatureError
from pbem.fair.keys import (
    confirm_message,
    fingerprint,
    load_private_key,
    move_message,
    press_message,
    public_text,
    sign,
    verify,
)
from pbem.files import read_limited, write_atomic
from pbem.i18n import Msg
from pbem.i18n.names import own_map
from pbem.log import notation, notation_write
from pbem.log.logfile import read_log
from pbem.log.moves import parse_move
from pbem.log.records import CommitMove, move_of
from pbem.log.records.sent import MoveFile
from pbem.log.yamlio import MOVE_LIMIT, dump_yaml
from pbem.referee.admit import own_regions
from pbem.referee.replay import game_from_first

_SIGNATURE_LINE = re.compile(r"^signature[ \t]*:")
_SIG_LINE = re.compile(r"^[ \t]*sig[ \t]", re.IGNORECASE)


def sign_move_file(path: Path, key_path: Path, register: bool = False, log: Path | None = None) -> MoveFile:
    """Sign a move file in place; its text is kept, only the signature line changes.

    With ``register`` (commit moves only) a ``key:`` line with the signer's public
    key is added first, so the commitment registers the key it is signed with.  With
    ``log``, the game's log, a text move's region words are read through the game's own
    map as the host reads them (P3), so the signature covers the move the host reads.
    """
    regions = None
    if log is not None:
        entries, hashes = read_log(log)
        regions = own_regions(game_from_first(entries[0], hashes[0]))
    with own_map(regions):
        return _sign(path, key_path, register)


def _sign(path: Path, key_path: Path, register: bool) -> MoveFile:
    key = load_private_key(key_path)
    public = public_text(key)
    raw = read_limited(path, MOVE_LIMIT, Msg("move file"))
    move = parse_move(raw, f"move file {path.name}")
    text = raw.decode("utf-8")
    newline = "\r\n" if "\r\n" in text else "\n"
    plain = notation.is_notation(text)  # a text move is signed with 'sig' lines, as it is written
    drop = _SIG_LINE if plain else _SIGNATURE_LINE
    lines = [ln for ln in text.splitlines() if not drop.match(ln)]
    data = move.unsigned()
    if register:
        if not isinstance(move, CommitMove):
            raise FormatError(Msg("only a nonce commitment registers a key (P8): drop --register"), "P8")
        if data.get("key") not in (None, public):
            raise FormatError(Msg("the commitment already registers another key; remove its 'key:' line"), "P8")
        if "key" not in data:
            data["key"] = public
            lines.append(f"key {public}" if plain else f'key: "{public}"')
    offered = data.get("key")
    if isinstance(offered, str) and offered != public:
        raise SignatureError(Msg(
            "this commitment registers key {offered}..., but {path} is key "
            "{key}...: sign it with the key it registers", offered=fingerprint(offered), path=str(key_path),
            key=fingerprint(public)), "P8",
        )
    signature = sign(key, move_message(data))
    signed = {**data, "signature": signature}
    if plain:
        lines += [ln for ln in notation_write.write(move_of(signed)).splitlines() if ln.startswith("sig ")]
    else:
        lines.append(f'signature: "{signature}"')
    new_text = newline.join(lines) + newline
    try:
        kept = parse_move(new_text.encode("utf-8"), f"move file {path.name}").to_raw() == signed
    except FormatError:
        kept = False
    if not kept:  # e.g. a flow-style document: rewrite it plainly (comments are lost)
        new_text = notation_write.write(move_of(signed)) if plain else dump_yaml(signed)
    result = parse_move(new_text.encode("utf-8"), f"move file {path.name}")
    if result.to_raw() != signed or not verify(public, signature, move_message(result.to_raw())):
        raise InternalError("the signed move does not read back")  # pragma: no cover
    mode = path.stat().st_mode & 0o777
    write_atomic(path, new_text.encode("utf-8"), mode)
    return result




_CODE = re.compile(r"^[A-Za-z2-7]{16}\Z")


def confirm_line(code: str, key_path: Path) -> tuple[str, str]:
    """P8: the ``confirm CODE SIGNATURE`` line that confirms the key a held commitment
    registers, signed with that key (``pbem confirm CODE --key KEY``), and the key's public text."""
    if not _CODE.match(code):
        raise FormatError(Msg("{code} is not a confirmation code: it is the 16 letters and digits after "
                              "'pbem confirm' in the host's mail", code=repr(code)), "P8")
    key = load_private_key(key_path)
    return f"confirm {code.upper()} {sign(key, confirm_message(code))}", public_text(key)


def press_line(text: str, key_path: Path, game: str, seat: str, to: str) -> tuple[str, str]:
    """P8: the ``sig SIGNATURE`` line that ends the press ``text`` of ``seat`` (a seat that holds
    the key) to ``to`` (``all``, or seats: ``blue,green``) in ``game``, so that the host relays it
    at once (``pbem sign-press``), and the key's public text."""
    readers = [s for s in to.lower().split(",") if s]
    if not readers or ("all" in readers and readers != ["all"]):
        raise FormatError(Msg("--to {to}: 'all', or the seats the press is for, e.g. 'blue' or 'blue,green'",
                              to=repr(to)), "P1")
    key = load_private_key(key_path)
    return f"sig {sign(key, press_message(game, seat, readers, text))}", public_text(key)
