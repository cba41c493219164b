"""Pages are made from templates with slots (MarkupSafe's ``Markup``, :func:`pbem.views.markup.render`):
a part of a page is rendered on its own and put in its slot as ``Markup``, and a sentence gets its
values as the message's own parameters; no view fills a ``{slot}`` by ``str.replace`` on a template
or a translated sentence (a value holding a slot's name would be filled too, and escaping skipped)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from pbem.host.create import NewGame, create
from pbem.host.games import load_game
from pbem.referee.seatview import SeatView
from pbem.views.compose import compose_page
from pbem.views.packed import readable

VIEWS = Path(__file__).resolve().parent.parent / "pbem" / "views"


def test_no_view_fills_a_slot_by_replace() -> None:
    """Every ``.replace("{name}", ...)`` in the Python of pbem/views (a script's own JavaScript,
    inside a string, is the script's business)."""
    found = []
    for path in sorted(VIEWS.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "replace"
                    and node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)
                    and re.fullmatch(r"\{\w+\}", node.args[0].value)):
                found.append(f"{path.name}:{node.lineno}: {ast.unparse(node)[:80]}")
    assert found == [], found


def test_each_composer_page_has_its_parts_and_no_empty_slot(tmp_path: Path) -> None:
    """The opening's page has the opening's prompt and what to keep, and no undo; a turn's page has
    its undo and its map's legend, and nothing of the opening; neither leaves a slot unfilled."""
    games = tmp_path / "games"
    create(games, NewGame("t", ("red", "green"), first="red", secret=bytes(32)))
    page = readable(compose_page(SeatView(load_game(games / "t"), "red"), None, "en"))
    body = page[page.index("<main"):page.index('<script type="application/json"')]
    assert 'id="opening"' in body and 'id="keep"' in body and 'id="undo"' not in body
    assert "dashed:" not in body and re.search(r"\{\w+\}", body) is None, body
    from pbem.sim.demo import open_game

    game = open_game(games, "t", nonces={"red": bytes(16), "green": bytes([1]) * 16})
    page = readable(compose_page(SeatView(game, "red"), None, "en"))
    body = page[page.index("<main"):page.index('<script type="application/json"')]
    assert 'id="undo" disabled' in body and "dashed:" in body and 'id="opening"' not in body and 'id="keep"' not in body
    assert re.search(r"\{\w+\}", body) is None, body
