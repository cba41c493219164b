"""A custom map's regions are named by its own data (P3), never read through the shipped map's.

A move may name a region in any of pbem's languages (the notation, ``pbem rules notation``),
but those names are the shipped map's: in a game whose map is its own, a word is read
first as one of its own regions (by id, then by its name on the map), and a shipped
language's name stands for a region only where the map keeps that shipped region under
its id and name.  A four-region map, two players: a region whose id is the Hungarian
name of Hungaria (``magyarorszag``) beside ``hungaria`` itself, Polonia as shipped, and
``gallia`` renamed ``Gaul``.
"""

from __future__ import annotations

from email.message import EmailMessage
from email.utils import make_msgid
from pathlib import Path

import pytest
from clitools import cli, ok, snapshot

from pbem.errors import Exit
from pbem.host.create import NewGame, create
from pbem.host.games import apply_move, load_game
from pbem.i18n import fold, translator
from pbem.i18n.names import canonical
from pbem.log import notation_write
from pbem.log.game import Game
from pbem.log.logfile import read_docs
from pbem.log.moves import after_of, parse_move, read_move
from pbem.log.yamlio import dump_yaml
from pbem.player.nonces import commit_move, reveal_move
from pbem.referee.seatview import SeatView
from pbem.rules.data import Board
from pbem.sim.demo import open_game
from pbem.views.template import template

HU_HUNGARIA = translator("hu").pgettext("region", "hungaria")  # Magyarország
OWN = fold(HU_HUNGARIA)  # magyarorszag: the custom map's own region


def small_map() -> Board:
    return Board.from_data({
        "regions": [
            {"id": "hungaria", "name": "Hungaria", "shade": "light"},
            {"id": OWN, "name": HU_HUNGARIA, "shade": "light"},
            {"id": "polonia", "name": "Polonia", "shade": "light"},
            {"id": "gallia", "name": "Gaul", "shade": "light"},
        ],
        "links": [["hungaria", OWN, "border"], [OWN, "polonia", "border"], ["polonia", "gallia", "border"],
                  ["gallia", "hungaria", "border"]],
        "players": {"2": ["light"], "3": ["light"], "4": ["light"]},
    })


@pytest.fixture
def games(tmp_path: Path) -> Path:
    folder = tmp_path / "games"
    create(folder, NewGame("m", ("red", "green"), first="red", secret=bytes(32), board=small_map()))
    game = open_game(folder, "m", nonces={"red": bytes(16), "green": bytes([1]) * 16})
    assert game.edition == "custom" and game.to_move == "red"
    return folder


def text(game: Game, line: str) -> str:
    after = after_of(game)
    return "\n".join([*notation_write.header_lines("m", game.to_move or "", after["seq"], after["hash"]), line]) + "\n"


def recorded_region(games: Path, line: str) -> str:
    """The region the host records for a setup placement written ``line``."""
    game = load_game(games / "m")
    apply_move(games, parse_move(text(game, line).encode()))
    last = read_docs(games / "m" / "log.yaml")[0][-1]
    return str(last["move"]["actions"][0]["region"])


def test_p3_the_attack_is_real_the_shipped_names_read_magyarorszag_as_hungaria() -> None:
    assert OWN == "magyarorszag"
    assert canonical(OWN, "region") == "hungaria"


def test_p3_a_custom_maps_own_region_is_read_as_itself(games: Path, tmp_path: Path) -> None:
    """`place magyarorszag 2` is the map's own Magyarorszag: `pbem check` says so and the
    host records it; the log replays and verifies as recorded."""
    game = load_game(games / "m")
    path = tmp_path / "move.txt"
    path.write_text(text(game, f"place {OWN} 2"))
    assert "the turn is complete" in ok("check", path, "--log", games / "m" / "log.yaml")
    out = ok("apply", path, "--games", games)
    assert f"red places 2 cubes in {HU_HUNGARIA}" in out, out
    game = load_game(games / "m")
    assert game.state is not None and game.state.cubes[OWN] == {"red": 2} and not game.state.cubes["hungaria"]
    assert "game m:" in ok("verify", games / "m" / "log.yaml")


@pytest.mark.parametrize(("word", "region"), [
    (HU_HUNGARIA, OWN),  # its name on the map, accents and all
    (HU_HUNGARIA.upper(), OWN),
    ("hungaria", "hungaria"),
    ("Gaul", "gallia"),  # a renamed region by its name on the map
    ("gallia", "gallia"),  # and by its id
    (translator("hu").pgettext("region", "polonia"), "polonia"),  # a shipped region kept as shipped
    (translator("el").pgettext("region", "polonia"), "polonia"),
])
def test_p3_each_word_names_the_region_a_player_of_this_map_expects(games: Path, word: str, region: str) -> None:
    assert recorded_region(games, f"place {word} 2") == region


@pytest.mark.parametrize("lang", ["el", "uk"])
def test_p3_a_shipped_name_of_a_region_the_map_renamed_names_nothing(games: Path, tmp_path: Path, lang: str) -> None:
    """Gallia is Gaul on this map: the shipped languages' Gallia is not its name here; the
    move is refused whole, naming the word, and no file changes."""
    word = translator(lang).pgettext("region", "gallia")
    game = load_game(games / "m")
    path = tmp_path / "move.txt"
    path.write_text(text(game, f"place {word} 2"))
    before = snapshot(games)
    for args in (("check", path, "--log", games / "m" / "log.yaml"), ("apply", path, "--games", games)):
        result = cli(*args)
        assert result.exit_code == Exit.FORMAT, result.stderr
        assert word in result.stderr and "(R7.3)" in result.stderr, result.stderr
    assert snapshot(games) == before


def test_p3_the_template_shows_no_shipped_name_that_reads_back_as_another_region(games: Path) -> None:
    """In Hungarian, Hungaria's shipped name is this map's Magyarorszag: the template shows
    `hungaria`, which reads back as Hungaria; Polonia keeps its Hungarian name."""
    game = load_game(games / "m")
    shown = template(SeatView(game, "red"), "hu")
    choices = " ".join(line for line in shown.splitlines() if line.startswith("#   "))
    assert "hungaria 2" in choices and f"{HU_HUNGARIA} 2" not in choices, shown
    assert translator("hu").pgettext("region", "polonia") + " 2" in choices, shown


def test_p3_the_standard_map_still_reads_every_language(tmp_path: Path) -> None:
    folder = tmp_path / "std"
    create(folder, NewGame("m", ("red", "green"), first="red", secret=bytes(32)))
    open_game(folder, "m", nonces={"red": bytes(16), "green": bytes([1]) * 16})
    assert recorded_region(folder, f"place {OWN} 2") == "hungaria"


# --- a signed text move (P8) reads as the host reads it ------------------------------------------

def signed_game(tmp_path: Path) -> tuple[Path, Path]:
    """The small map's game, red holding a key (every red move signed, P8)."""
    key = tmp_path / "red.key"
    ok("keygen", "--out", key)
    folder = tmp_path / "signed"
    public = (tmp_path / "red.key.pub").read_text().strip()
    create(folder, NewGame("m", ("red", "green"), first="red", secret=bytes(32), board=small_map(),
                           keys={"red": public}))
    for make in (commit_move, reveal_move):
        for seat in ("red", "green"):
            path = tmp_path / f"{seat}-{make.__name__}.yaml"
            path.write_text(dump_yaml(make(load_game(folder / "m"), seat, bytes([len(seat)]) * 16)))
            if seat == "red":
                ok("sign", path, "--key", key)
            apply_move(folder, read_move(path))
    return folder, key


def test_p8_a_text_move_signed_with_the_games_log_names_its_own_region(tmp_path: Path) -> None:
    """`pbem sign --log` reads the words through the game's map as the host does: the
    signature covers `magyarorszag` the map's own region, and the host records it."""
    games, key = signed_game(tmp_path)
    path = tmp_path / "move.txt"
    path.write_text(text(load_game(games / "m"), f"place {OWN} 2"))
    ok("sign", path, "--key", key, "--log", games / "m" / "log.yaml")
    assert "the turn is complete" in ok("check", path, "--log", games / "m" / "log.yaml")
    ok("apply", path, "--games", games)
    assert read_docs(games / "m" / "log.yaml")[0][-1]["move"]["actions"][0]["region"] == OWN
    assert "game m:" in ok("verify", games / "m" / "log.yaml")


def test_p8_a_text_move_signed_over_the_shipped_names_is_refused_saying_how_to_sign_it(tmp_path: Path) -> None:
    """Signed without the log, the signature covers the shipped reading (Hungaria): the
    host refuses it, naming `pbem sign --log`, and no file changes."""
    games, key = signed_game(tmp_path)
    path = tmp_path / "move.txt"
    path.write_text(text(load_game(games / "m"), f"place {OWN} 2"))
    ok("sign", path, "--key", key)
    before = snapshot(games)
    result = cli("apply", path, "--games", games)
    assert result.exit_code == Exit.SIGNATURE, result.stderr
    assert "(P8)" in result.stderr and "--log" in result.stderr and "own map" in result.stderr, result.stderr
    assert snapshot(games) == before


def test_p3_a_mailed_text_move_names_the_maps_own_region(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The same reading through the mail transport (`pbem apply MSG.eml`: one admission path)."""
    monkeypatch.setattr("pbem.mail.replies.board_picture", lambda game, lang="en": None)
    folder = tmp_path / "mailed"
    create(folder, NewGame("m", ("red", "green"), first="red", secret=bytes(32), board=small_map(),
                           emails={"red": "red@example.org", "green": "green@example.net"}))
    game = open_game(folder, "m", nonces={"red": bytes(16), "green": bytes([1]) * 16})
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = "red@example.org", "host@example.org", "my move"
    msg["Message-ID"] = make_msgid(domain="example.org")
    msg.set_content(f"Here it is:\n\n{text(game, f'place {OWN} 2')}\n-- \nRed\n")
    path = tmp_path / "move.eml"
    path.write_bytes(bytes(msg))
    assert "red's move accepted" in ok("apply", path, "--games", folder, "--from", "host@example.org")
    assert read_docs(folder / "m" / "log.yaml")[0][-1]["move"]["actions"][0]["region"] == OWN
