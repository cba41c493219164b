"""Pages put together from parts stay markup, and only markup goes in unescaped.

A page is its head and its body joined (``page_head(...) + render(...)``), a list is its items
joined; a page so joined, placed in another template, goes in as it is, while every plain
text (a player's press, a region's name, a title) is escaped wherever it meets the markup:
as a template's value, or added to a page on either side.
"""

from __future__ import annotations

from markupsafe import Markup

from pbem.views.html import page_head, press_block
from pbem.views.markup import render

HOSTILE = "</pre><script>alert('x')</script>"
ESCAPED = "&lt;/pre&gt;&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;"


def test_a_page_joined_with_plus_stays_markup_and_is_not_escaped_again() -> None:
    page = page_head("Rattus game g", "", "") + render("<main><p>{text}</p></main>", text="rats & plague")
    assert isinstance(page, Markup)
    assert "<main><p>rats &amp; plague</p></main>" in page
    assert render("{page}<footer>{made}</footer>", page=page, made="pbem") == page + Markup("<footer>pbem</footer>")


def test_items_joined_stay_markup_and_a_plain_item_among_them_is_escaped() -> None:
    items = [render("<li>{name}</li>", name=name) for name in ("Anglia", "Gallia")]
    joined = Markup("").join([*items, HOSTILE])
    assert isinstance(joined, Markup)
    assert joined == "<li>Anglia</li><li>Gallia</li>" + ESCAPED


def test_plain_text_is_escaped_in_text_and_in_attribute_values() -> None:
    said = """<b>"Rats" & 'plague'</b>"""
    assert render('<p title="{said}">{said}</p>', said=said) == (
        '<p title="&lt;b&gt;&#34;Rats&#34; &amp; &#39;plague&#39;&lt;/b&gt;">'
        "&lt;b&gt;&#34;Rats&#34; &amp; &#39;plague&#39;&lt;/b&gt;</p>")


def test_plain_text_added_to_a_page_on_either_side_is_escaped() -> None:
    page = render("<p>{text}</p>", text="a")
    assert page + HOSTILE == "<p>a</p>" + ESCAPED
    assert HOSTILE + page == ESCAPED + "<p>a</p>"
    assert isinstance(HOSTILE + page, Markup)


def test_a_press_text_meant_to_break_out_of_the_press_block_is_text() -> None:
    block = press_block([("2026-11-30T09:00:00Z", "red", HOSTILE)])
    assert isinstance(block, Markup)
    assert f"<pre>{ESCAPED}</pre>" in block and "<script>" not in block
