"""Pages built by a template that escapes by default, with MarkupSafe's ``Markup`` (as Jinja's autoescape).

:func:`render` fills a page's template (``str.format`` fields) and escapes every value for
HTML, text and attributes alike; only a :class:`Markup` value goes in as it is: a drawing
made by the escaping SVG builder (:mod:`pbem.views.svg`), the page's own script and style,
JSON made safe for its ``<script>`` block.  So no view places ``escape()`` by hand, and a
value forgotten is escaped rather than injected.  MarkupSafe's ``Markup`` stays ``Markup``
when pages are joined (``+``, ``Markup("").join``, ``format``) and escapes the plain text
joined to it, so a page put together from rendered parts is never escaped a second time.
"""

from __future__ import annotations

from markupsafe import Markup, escape

__all__ = ["Markup", "escape", "lines", "render"]


def render(template: str, **values: str) -> Markup:
    """``template`` with each ``{name}`` filled: a :class:`Markup` value as it is, any other escaped."""
    return Markup(template.format_map({name: escape(value) for name, value in values.items()}))


def lines(texts: list[str]) -> str:
    """Lines of plain text, one a line (for a ``<pre>``; escaped when rendered)."""
    return "\n".join(texts)
