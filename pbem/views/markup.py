"""Pages built by a template that escapes by default (as Jinja's autoescape, MarkupSafe's ``Markup``).

:func:`render` fills a page's template (``str.format`` fields) and escapes every value for
HTML, text and attributes alike; only a :class:`Markup` value goes in as it is: a drawing
made by the escaping SVG builder (:mod:`pbem.views.svg`), the page's own script and style,
JSON made safe for its ``<script>`` block.  So no view places ``escape()`` by hand, and a
value forgotten is escaped rather than injected.
"""

from __future__ import annotations

from html import escape


class Markup(str):
    """Text that is already HTML: built by an escaping builder, or the page's own fixed code."""

    __slots__ = ()


def render(template: str, **values: str) -> Markup:
    """``template`` with each ``{name}`` filled: a :class:`Markup` value as it is, any other escaped."""
    return Markup(template.format_map({name: value if isinstance(value, Markup) else escape(value)
                                       for name, value in values.items()}))


def lines(texts: list[str]) -> str:
    """Lines of plain text, one a line (for a ``<pre>``; escaped when rendered)."""
    return "\n".join(texts)
