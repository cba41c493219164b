"""One seat's view (P10, R5.6): everything a seat may see, built in one place.

``pbem.referee.seatview.SeatView`` is the public game plus that seat's own Witch looks;
``show --as``, the templates, the report mails' private part and the bots' knowledge
are all built from it.  The structural tests keep it that way: no seat-facing view
takes a bare game and player, and a seat's private file is read for a view in one
place only.
"""

from __future__ import annotations

import ast
import inspect
import random
from pathlib import Path

import pytest
from clitools import ok
from layertools import MODULES

from pbem.bots.knowledge import from_view
from pbem.bots.randombot import bot_actions
from pbem.errors import UnknownError
from pbem.host.create import NewGame, create
from pbem.host.games import apply_move, load_game, timeout
from pbem.host.private import seat_view
from pbem.log.clock import at_of, pinned, seconds
from pbem.log.moves import after_of, parse_move
from pbem.log.yamlio import dump_yaml
from pbem.referee.audit import host_faces
from pbem.referee.seatview import Look, SeatView, public_faces
from pbem.sim.demo import open_game
from pbem.views import template as template_module
from pbem.views import text as text_module

T0 = "2026-12-01T09:00:00Z"


def timed_out_game(games: Path) -> None:
    """A 2-player game with a 1-minute deadline: blue plays random moves, red never moves, so
    each of red's turns is a timeout played by the stand-in (R8.2, R8.3); it stops once such a
    turn has flipped a rat with the game still going."""
    with pinned(T0):
        create(games, NewGame("g", ("red", "blue"), first="red", secret=bytes(range(32)), deadline=60))
        open_game(games, "g", {"red": bytes([1]) * 16, "blue": bytes([2]) * 16})
    clock, rng = seconds(T0), random.Random(7)
    while True:
        game = load_game(games / "g")
        assert game.state is not None and not game.over, "no timeout flipped a rat before the end"
        if any(e.raw["kind"] == "timeout" and "token_flipped" in str(e.raw["outcome"]) for e in game.entries):
            return
        clock += 120
        with pinned(at_of(clock)):
            if game.to_move == "red":
                assert timeout(games, "g") is not None
            else:
                data = {"game": "g", "player": game.to_move, "kind": "move", "after": after_of(game),
                        "actions": [a.to_dict() for a in bot_actions(game.state, rng)]}
                apply_move(games, parse_move(dump_yaml(data).encode()))


def test_r8_2_a_timeouts_flips_are_in_every_seats_view_and_the_bots_knowledge(tmp_path: Path) -> None:
    """An old bug: the bots read flips from move entries only, so a rat flipped by
    a timeout's stand-in turn broke every bot seat ('the log's reveals do not match')."""
    games = tmp_path / "games"
    timed_out_game(games)
    game = load_game(games / "g")
    assert game.state is not None and game.state.flipped
    by_timeout = {e["token"] for entry in game.entries if entry.raw["kind"] == "timeout"
                  for e in entry.raw["outcome"] if e["event"] == "token_flipped"}
    assert by_timeout  # a stand-in's turn flipped rats
    for seat in game.players:
        view = seat_view(games / "g", game, seat)
        assert set(view.public) == set(game.state.flipped)
        know = from_view(view)
        assert set(know.revealed) == set(game.state.flipped)
        assert not set(know.hidden) & set(game.state.flipped)
    mover = game.to_move
    assert mover is not None
    ok("bot", "g", "--player", mover, "--games", games, "--seconds", "0.1")  # it crashed before


def test_r5_6_a_seat_sees_its_own_looks_and_no_one_elses(tmp_path: Path) -> None:
    path = create(tmp_path, NewGame("g", ("red", "blue"), secret=bytes(32)))
    game = open_game(tmp_path, "g")
    faces = host_faces(game, bytes(32))
    look = Look(game.last_seq, "t02", faces.face("t02").id, faces.salt("t02"))
    red, blue = SeatView(game, "red", [look]), SeatView(game, "blue")
    assert red.private == {"t02": look.token_id} and blue.private == {}
    assert from_view(red).known("t02") == faces.face("t02") and from_view(blue).known("t02") is None
    assert text_module.private_lines(blue) == [] and look.token_id in text_module.private_lines(red)[0]
    later = Look(game.last_seq + 1, "t03", faces.face("t03").id, faces.salt("t03"))
    assert SeatView(game, "red", [later]).looks == ()  # a look of an entry not in the log never happened
    with pytest.raises(UnknownError):
        seat_view(path, game, "mallory")


def test_p6_a_flipped_rat_is_public_in_every_view(tmp_path: Path) -> None:
    games = tmp_path / "games"
    timed_out_game(games)
    game = load_game(games / "g")
    faces = public_faces(game)
    assert game.state is not None and set(faces) == set(game.state.flipped)
    secret_faces = host_faces(game, bytes(range(32)))
    assert all(secret_faces.face(t).id == tid for t, tid in faces.items())


# --- structure: every view for a seat comes from SeatView -------------------------------------

SEAT_FACING = {
    "pbem.views.template": ("template", "resign_template"),
    "pbem.views.text": ("private_lines",),
    "pbem.bots.knowledge": ("from_view",),
}


def test_every_seat_facing_view_takes_a_seat_view() -> None:
    modules = {"pbem.views.template": template_module, "pbem.views.text": text_module}
    from pbem.bots import knowledge

    modules["pbem.bots.knowledge"] = knowledge
    for name, functions in SEAT_FACING.items():
        for function in functions:
            params = list(inspect.signature(getattr(modules[name], function)).parameters.values())
            assert params and params[0].annotation in ("SeatView", SeatView), f"{name}.{function}"
            assert not any(p.name in ("player", "seat") for p in params), f"{name}.{function}"


def calls_of(module: str, name: str) -> list[tuple[str, int]]:
    """(function containing it, line) for every call of ``name`` in ``module``."""
    tree = ast.parse(MODULES[module].read_text(encoding="utf-8"))
    found: list[tuple[str, int]] = []

    def visit(node: ast.AST, where: str) -> None:
        for child in ast.iter_child_nodes(node):
            inner = child.name if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef) else where
            if isinstance(child, ast.Call):
                func = child.func
                called = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
                if called == name:
                    found.append((where, child.lineno))
            visit(child, inner)

    visit(tree, "<module>")
    return found


def test_a_seats_private_file_is_read_for_a_view_in_one_place() -> None:
    """``read_private`` is called by ``seat_view`` (and by the private file's own writer, which
    keeps the looks already there); every other reader asks the seat's view."""
    callers = {(m, where) for m in MODULES for where, _ in calls_of(m, "read_private")}
    assert callers == {("pbem.host.private", "seat_view"), ("pbem.host.private", "write_private")}, callers


def test_the_structural_check_is_not_vacuous(tmp_path: Path) -> None:
    planted = "def show(path, game, seat):\n    return read_private(path, seat, game.last_seq)\n"
    module = tmp_path / "planted.py"
    module.write_text(planted)
    MODULES["planted"] = module
    try:
        assert calls_of("planted", "read_private") == [("show", 2)]
    finally:
        del MODULES["planted"]
