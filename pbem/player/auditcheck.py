"""`pbem fingerprint PAGE` of an end mail's audit page: is the file the page this pbem writes?

The end mail's page (:mod:`pbem.views.endpage`) checks the game's log in the player's browser
and says FAIR or REFUSED; the host sends it, so a host who rewrote the log could send a page
whose script says FAIR of anything.  The page carries the log it checks; this check rebuilds,
from that log, the page this version of pbem writes (the same language, the same words, the
same script and policy) and compares the file with it byte for byte.  The first line that
differs is named, with the head's fingerprint (the part that decides what runs and every word
of the verdict: :func:`pbem.views.endpage.fingerprint`), so that a player knows what was changed.
A page that passes is pbem's page for the log it carries; whether that log is fair is what the
page, `pbem audit` and tools/audit_min.py then say.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import re
import zlib
from difflib import SequenceMatcher
from pathlib import Path

from pbem import __version__
from pbem.errors import PageError, PbemError
from pbem.i18n import LANGS, Msg
from pbem.log.logfile import log_records
from pbem.log.yamlio import LOG_LIMIT
from pbem.referee.replay import replay
from pbem.views.endpage import end_page, fingerprint

_LANG = re.compile(r'<!DOCTYPE html>\n<html lang="([a-z]{2})" ')
_BLOCK = re.compile(r'<script type="application/json" id="pbem-audit">(\{"log_gz":"[A-Za-z0-9+/=]*"\})</script>')
_CLAIM = re.compile(r'data-pbem="([^" ]{1,40}) ')
_HEAD = re.compile(r"<head>\n.*?\n</script>\n", re.DOTALL)


def _refuse(name: str, why: Msg) -> PageError:
    return PageError(Msg("{file} is not an audit page pbem {version} wrote: {why}; do not take its verdict",
                         file=name, version=__version__, why=why), "P6")


def _carried_log(name: str, text: str) -> tuple[str, str]:
    """The page's language and the log's text it carries (gunzipped, at most a log's size)."""
    lang = _LANG.match(text)
    block = _BLOCK.search(text)
    if lang is None or lang.group(1) not in LANGS or block is None:
        raise _refuse(name, Msg("it has no language pbem speaks or no copy of the log as pbem packs it"))
    try:
        packed = base64.b64decode(json.loads(block.group(1))["log_gz"], validate=True)
        unpack = zlib.decompressobj(16 + zlib.MAX_WBITS)  # gzip; never more than a log's size
        data = unpack.decompress(packed, LOG_LIMIT + 1)
        if len(data) > LOG_LIMIT or not unpack.eof:
            raise ValueError("larger than a log")
        return lang.group(1), data.decode("utf-8")
    except (ValueError, binascii.Error, zlib.error) as err:
        raise _refuse(name, Msg("its copy of the log cannot be unpacked ({why})", why=str(err))) from None


def _shown(text: str) -> str:
    """A piece of the file, safe to print: every character a terminal would act on as an escape."""
    return "".join(c if c.isprintable() else f"\\u{ord(c):04x}" for c in text)


def _differences(got: str, want: str) -> tuple[str, int, str, str]:
    """Where the file and pbem's page differ: the file's changed lines (from 1, the first few),
    and the first of them that is not the policy (which changes with any script), with a piece
    of the file and of pbem's page there."""
    mine, theirs = got.split("\n"), want.split("\n")
    changed = [op for op in SequenceMatcher(None, mine, theirs, autojunk=False).get_opcodes() if op[0] != "equal"]
    numbers = sorted({n for _tag, i1, i2, _j1, _j2 in changed for n in range(i1 + 1, max(i2, i1 + 1) + 1)})
    named = ", ".join(str(n) for n in numbers[:5]) + (", ..." if len(numbers) > 5 else "")
    shown = next((op for op in changed if "Content-Security-Policy" not in "".join(mine[op[1]:op[2]])), changed[0])
    _tag, i1, i2, j1, j2 = shown
    a, b = "\n".join(mine[i1:i2]), "\n".join(theirs[j1:j2])
    at = next((k for k, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))
    start = max(0, at - 30)
    return named, i1 + 1, _shown(a[start:at + 50]), _shown(b[start:at + 50])


def check_audit_page(path: Path, text: str) -> Msg:
    """The sentence saying ``path`` (its ``text``) is pbem's audit page for the log it carries;
    PageError naming the first line that differs if not."""
    lang, log_text = _carried_log(path.name, text)
    try:
        game = replay(*log_records(log_text.encode("utf-8")))
    except PbemError as err:
        raise _refuse(path.name, Msg("the log it carries does not replay, so pbem would not have written the page "
                                     "({why}); {head}", why=str(err), head=_head_said(text))) from None
    if game.state is None or game.secret is None:
        raise _refuse(path.name, Msg("the log it carries is not a finished game's (its secret is not revealed, P6)"))
    want = end_page(game, log_text, lang)
    if text == want:
        return Msg.plural(
            "{file} is pbem {version}'s audit page for the log it carries (game {game}, {n} entry): its head has the "
            "fingerprint {print}, and every other line is the one pbem writes; its verdict is the browser's own check "
            "of that log (docs/fairplay.md)",
            "{file} is pbem {version}'s audit page for the log it carries (game {game}, {n} entries): its head has "
            "the fingerprint {print}, and every other line is the one pbem writes; its verdict is the browser's own "
            "check of that log (docs/fairplay.md)", len(game.entries), file=path.name, version=__version__,
            game=game.game_id, print=fingerprint())
    lines, line, mine, theirs = _differences(text, want)
    raise _refuse(path.name, Msg(
        "its lines {lines} differ from the page pbem writes for the log it carries (at line {line} the file has "
        "\"{got}\", pbem's page has \"{want}\"); {head}", lines=lines, line=line, got=mine, want=theirs,
        head=_head_said(text)))


def _head_said(text: str) -> Msg:
    """The head's fingerprint against this version's, and the version the page claims."""
    head = _HEAD.search(text)
    got = hashlib.sha256(head.group(0).encode("utf-8")).hexdigest() if head else "?"
    claim = _CLAIM.search(text)
    return Msg("its head has the fingerprint {got}, pbem {version}'s is {print}{verdict} (the page says it is from "
               "pbem {claimed}: check it with that version)", got=got, version=__version__, print=fingerprint(),
               verdict=Msg(", so its script or its words are not pbem's") if got != fingerprint() else "",
               claimed=claim.group(1) if claim else "?")
