"""A page that unpacks itself: its body and script travel gzipped, in ASCII a mail carries as it is.

The composer page goes out with every "your move" mail.  Written out, its script and data are
about 37 KB, and a mail's base64 makes that 50 KB; gzipped they are about a third.  So the page
carries its body (the markup and the data block) and its script as one gzipped JSON object in
base64 (``<script type="application/gzip" id="pbem-packed">``, lines of 76 characters), and a
loader of a few lines in its head unpacks it with the browser's own ``DecompressionStream``
(every current browser has it), puts the body in, then the script.  Every other character of the
page is ASCII (the title and the no-script part say any other letter as a character reference),
so that a mail attaches the file as it is (``7bit``), with no second base64.

What runs is still decided by the head alone: its Content-Security-Policy admits the loader and
the page's one script by their SHA-256 hashes (a script element the loader makes runs only if its
text is the admitted one) and the one style by its hash.  The page's fingerprint is taken over
that head, from the line ``<head>`` to the line ``</script>`` (the policy and the loader), as before;
:func:`unpack` gives what the packed block holds, so that ``pbem fingerprint`` checks it too
(:mod:`pbem.player.pagecheck`).  Where scripts do not run (a mail program's preview), the
``<noscript>`` part says what to do; in a browser with no ``DecompressionStream``, the loader
shows that same part.
"""

from __future__ import annotations

import base64
import gzip
import json
import re

from pbem.views.html import policy
from pbem.views.markup import Markup, render

PACKED_TAG = '<script type="application/gzip" id="pbem-packed">'
"""The packed block's opening tag: base64 of the gzipped JSON ``{"body": ..., "script": ...}``."""

LOADER = ("\ndocument.addEventListener('DOMContentLoaded',function(){"
          "var box=document.getElementById('pbem-packed'),plain=document.querySelector('noscript');"
          "function fail(){if(plain){plain.insertAdjacentHTML('afterend',plain.textContent);}}"
          "if(!box){return;}"
          "if(!window.DecompressionStream){fail();return;}"
          "var raw=Uint8Array.from(atob(box.textContent.replace(/\\s/g,'')),function(c){return c.charCodeAt(0);});"
          "new Response(new Blob([raw]).stream().pipeThrough(new DecompressionStream('gzip'))).text().then("
          "function(text){var p=JSON.parse(text),s=document.createElement('script');"
          "box.insertAdjacentHTML('beforebegin',p.body);s.textContent=p.script;document.body.appendChild(s);},fail);"
          "});\n")
"""The loader: the packed block unpacked, its body put in before it, then its script (run only if
the policy admits its hash); where the browser cannot unpack, the no-script part is shown."""


HEAD_BLOCK = """<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="{policy}">
<script>{loader}</script>
"""
"""The part of a packed page's head that decides what runs (its fingerprint is taken over it)."""

PAGE = """<!DOCTYPE html>
<html lang="{lang}" data-csp-violations="0">
{head}<title>{title}</title>
<style>{style}</style>
</head>
<body>
{plain}
{packed_tag}
{packed}
</script>
</body>
</html>
"""


def head_block(script: str, style: str, *others: str) -> Markup:
    """:data:`HEAD_BLOCK` for a page whose packed script is ``script`` (or one of ``others``, which
    its policy admits as well) and style ``style``."""
    return render(HEAD_BLOCK, policy=Markup(policy(script, style, LOADER, *others)), loader=Markup(LOADER))


def ascii_html(markup: str) -> Markup:
    """Markup with every character outside ASCII as a character reference (for text and
    attribute values only: never inside a script or a style)."""
    return Markup(markup.encode("ascii", "xmlcharrefreplace").decode("ascii"))


def pack(body: str, script: str) -> str:
    """The packed block's text: the body and the script, gzipped, in base64 lines of 76 characters."""
    data = json.dumps({"body": body, "script": script}, ensure_ascii=False, separators=(",", ":"))
    packed = base64.b64encode(gzip.compress(data.encode("utf-8"), compresslevel=9, mtime=0)).decode("ascii")
    return "\n".join(packed[i:i + 76] for i in range(0, len(packed), 76))


def packed_page(title: str, lang: str, style: str, plain: Markup, body: str, script: str,
                head: Markup | None = None) -> str:
    """The whole page: the head (policy, loader; ``head`` where its policy admits more scripts than
    ``script``), ``title`` (text) and ``style``; ``plain``, the markup shown where scripts do not
    run (a ``<noscript>``); ``body`` and ``script`` packed."""
    head = head_block(script, style) if head is None else head
    return render(PAGE, lang=lang, head=head, title=ascii_html(render("{t}", t=title)),
                  style=Markup(style), plain=ascii_html(plain), packed_tag=Markup(PACKED_TAG),
                  packed=Markup(pack(body, script)))


_PACKED = re.compile(re.escape(PACKED_TAG) + r"\n([A-Za-z0-9+/=\n]*)</script>")


def unpack(page: str) -> tuple[str, str] | None:
    """(the body, the script) a page's packed block holds; None if it has none or it does not unpack."""
    found = _PACKED.search(str(page).replace("\r\n", "\n"))  # a copy saved from a mail may end its lines with CR LF
    if found is None:
        return None
    try:
        data = json.loads(gzip.decompress(base64.b64decode(found.group(1).replace("\n", ""), validate=True)))
    except (ValueError, OSError, EOFError):
        return None
    if not isinstance(data, dict) or not isinstance(data.get("body"), str) or not isinstance(data.get("script"), str):
        return None
    return data["body"], data["script"]


def readable(page: str) -> str:
    """The page as a browser builds it, for a reader of its markup: the packed block replaced by
    the body it holds (the page itself if it has none)."""
    page = str(page).replace("\r\n", "\n")  # plain text: a Markup page would escape what is put in it
    found = _PACKED.search(page)
    inside = unpack(page)
    if found is None or inside is None:
        return page
    return page[:found.start()] + inside[0] + page[found.end():]


def unpacked(page: str) -> str:
    """The page as a browser runs it, for a reader of its lines: the packed block replaced by the
    body and the script it holds (the page itself if it has none)."""
    page = str(page).replace("\r\n", "\n")  # plain text: a Markup page would escape what is put in it
    found = _PACKED.search(page)
    inside = unpack(page)
    if found is None or inside is None:
        return page
    return page[:found.start()] + inside[0] + "\n<script>" + inside[1] + "</script>" + page[found.end():]


def repack(page: str, body: str, script: str) -> str:
    """``page`` with its packed block holding ``body`` and ``script`` instead."""
    page = str(page)  # plain text: a Markup page would escape what is put in it
    found = _PACKED.search(page)
    if found is None:
        return page
    return page[:found.start()] + PACKED_TAG + "\n" + pack(body, script) + "\n</script>" + page[found.end():]
