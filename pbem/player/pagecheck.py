"""`pbem fingerprint [PAGE]`: is a composer page file the one this pbem writes?

The composer page (:mod:`pbem.views.compose`) is a file the host sends; what runs in it is
decided by its head: a Content-Security-Policy that admits the loader and the page's one script
and one style by their hashes, then the loader, which unpacks the page's gzipped body and script
(:mod:`pbem.views.packed`).  The page's **fingerprint** is the SHA-256 of the head from the line
``<head>`` to the line ``</script>`` (:func:`pbem.views.compose.fingerprint`): the same in every
page and language of one pbem version.  A page shows its fingerprint, but a changed page can
show anything; this check reads the file itself: the two lines before the head are the doctype
and ``<html lang>``, the head is this version's byte for byte, the packed script is one of this
version's two, and nothing else, in the page or in the body it unpacks, can run (no other script,
meta, frame, object, link, base or form).  Standard tools print the same
fingerprint: ``tr -d '\\r' < PAGE | sed -n '/^<head>$/,/^<\\/script>$/p' | sha256sum``.
The end mail's audit page is checked as :mod:`pbem.player.auditcheck` says.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from pbem import __version__
from pbem.errors import FormatError, PageError
from pbem.files import read_limited
from pbem.i18n import Msg
from pbem.player.auditcheck import check_audit_page
from pbem.views.compose import composer_head, fingerprint
from pbem.views.composejs import SCRIPTS
from pbem.views.endpage import END_MARK
from pbem.views.packed import PACKED_TAG, unpack

PAGE_LIMIT = 8 * 1024 * 1024
"""The largest page read (a composer page is at most a few hundred KB)."""

_START = re.compile(r'<!DOCTYPE html>\n<html lang="[A-Za-z]{1,8}(?:-[A-Za-z0-9]{1,8})*" data-csp-violations="0">\n\Z')
_DATA = '<script type="application/json" id="pbem-data">'
_ACTIVE = re.compile(r"<(script|meta|i?frame|object|embed|link|base|form|portal|applet)\b", re.IGNORECASE)
_CLAIM = re.compile(r'data-pbem="([^" ]{1,40}) ')


def _text(path: Path) -> str:
    """The page's text as a browser reads it: a mail carries the page as text, so a saved copy may
    end its lines with CR LF, which HTML reads as LF (as every script's hash is taken)."""
    try:
        return read_limited(path, PAGE_LIMIT, Msg("page")).decode("utf-8").replace("\r\n", "\n")
    except UnicodeDecodeError:
        raise FormatError(Msg("{file} is not a composer page: it is not UTF-8 text", file=path.name), "P4") from None


def check_page(path: Path, log: Path | None = None) -> Msg:
    """The sentence saying ``path`` is this version's composer page (or the end mail's audit page
    for the log it carries, or for ``log`` where a long game's page carries none); PageError if not."""
    text = _text(path)
    unpacked = unpack(text)
    body = text if unpacked is None else text + unpacked[0]  # a page's words may travel packed
    if END_MARK in body or ('id="pbem-audit"' in body and 'id="pbem-data"' not in body):
        return check_audit_page(path, text, log)
    head_at = text.find("<head>\n")
    if head_at < 0 or not _START.match(text[:head_at]):
        raise PageError(Msg("{file} is not a composer page as pbem writes it: something other than the doctype "
                              "and <html> comes before its <head>; do not make your nonce with it", file=path.name),
                          "P4")
    end = text.find("\n</script>\n", head_at)
    head = text[head_at:end + len("\n</script>\n")] if end >= 0 else text[head_at:]
    if head != composer_head():
        claim = _CLAIM.search(text)
        raise PageError(
            Msg("{file} is not pbem {version}'s composer page: its head (from <head> to </script>) has the "
                "fingerprint {got}, not {want}; do not make your nonce with it (the page says it is from pbem "
                "{claimed}: check it with that version)", file=path.name, version=__version__,
                got=hashlib.sha256(head.encode("utf-8")).hexdigest(), want=fingerprint(),
                claimed=claim.group(1) if claim else "?"), "P4")
    inside = unpacked
    if inside is None or inside[1] not in SCRIPTS:
        raise PageError(Msg("{file} is not pbem {version}'s composer page: its packed part does not unpack to this "
                            "version's script; do not make your nonce with it", file=path.name, version=__version__),
                        "P4")
    rest = text[head_at + len(head):].replace(PACKED_TAG, "", 1) + inside[0].replace(_DATA, "", 1)
    active = _ACTIVE.search(rest)
    if active is not None:
        raise PageError(Msg("{file} holds markup pbem's composer page does not (<{tag}): something else could "
                              "run in it; do not make your nonce with it", file=path.name,
                              tag=active.group(1).lower()), "P4")
    return Msg("{file} is pbem {version}'s composer page: its head has the fingerprint {print} and nothing else "
               "in it can run (docs/fairplay.md)", file=path.name, version=__version__, print=fingerprint())
