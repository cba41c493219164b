"""The host's and the command line's refusals, made by real bad input, are said in
Hungarian, Greek and Ukrainian with no English sentence left (and stay as they were in English)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from english import english_lines

from pbem.cli.shell import _pairs, writable
from pbem.errors import PbemError
from pbem.files import read_limited
from pbem.host.botseat import bot_move
from pbem.host.create import NewGame, create
from pbem.host.games import game_dir, load_game, reveal
from pbem.host.secret import read_secret
from pbem.host.settings import check_languages, check_registrations
from pbem.i18n import error_text
from pbem.sim.play_as import play_as

LANGS = ("hu", "el", "uk")
# what stays as typed: options, values and commands (the words of the notation and the CLI)
ALLOWED = ("pbem tournament", "pbem keygen", "pbem nonce")


def refusal(make: Callable[[], Any]) -> PbemError:
    with pytest.raises(PbemError) as caught:
        make()
    return caught.value


@pytest.fixture
def games(tmp_path: Path) -> Path:
    root = tmp_path / "games"
    root.mkdir()
    create(root, NewGame("g1", ("ann", "bob"), secret=bytes(32)))
    return root


def cases(games: Path) -> dict[str, Callable[[], Any]]:
    path = games / "g1"
    return {
        "game id": lambda: create(games, NewGame("Bad Id!", ("ann", "bob"))),
        "players": lambda: create(games, NewGame("g2", ("ann",))),
        "player name": lambda: create(games, NewGame("g2", ("Ann", "bob"))),
        "first": lambda: create(games, NewGame("g2", ("ann", "bob"), first="cid")),
        "reminder": lambda: create(games, NewGame("g2", ("ann", "bob"), reminder=60)),
        "reveal": lambda: create(games, NewGame("g2", ("ann", "bob"), reveal="never")),  # type: ignore[arg-type]
        "bot seconds": lambda: create(games, NewGame("g2", ("ann", "bob"), bot_seconds=5.0)),
        "exists": lambda: create(games, NewGame("g1", ("ann", "bob"))),
        "secret": lambda: create(games, NewGame("g2", ("ann", "bob"), secret=b"short")),
        "bot seat": lambda: create(games, NewGame("g2", ("ann", "bob"), bots={"cid": "random"})),
        "bot level": lambda: create(games, NewGame("g2", ("ann", "bob"), bots={"bob": "genius"})),
        "all bots": lambda: create(games, NewGame("g2", ("ann", "bob"), bots={"ann": "random", "bob": "random"})),
        "language seat": lambda: check_languages(("ann", "bob"), {"cid": "uk"}),
        "language": lambda: check_languages(("ann", "bob"), {"ann": "de"}),
        "email seat": lambda: check_registrations(("ann", "bob"), {}, {"cid": "c@example.org"}),
        "no game": lambda: game_dir(games, "nope"),
        "no game id": lambda: game_dir(games, "No Way"),
        "reveal early": lambda: reveal(games, "g1"),
        "bot not a player": lambda: bot_move(path, load_game(path), "cid", "random"),
        "bot before start": lambda: bot_move(path, load_game(path), "ann", "random"),
        "missing file": lambda: read_limited(games / "missing.yaml", 1024, "move file"),
        "a folder": lambda: read_limited(games, 1024, "move file"),
        "too large": lambda: read_limited(path / "log.yaml", 10, "log"),
        "no secret file": lambda: read_secret(games),
        "overwrite": lambda: writable(path / "log.yaml", False),
        "no folder": lambda: writable(games / "none" / "x.html", False),
        "pair": lambda: _pairs(("ann",), "--email"),
        "pair twice": lambda: _pairs(("ann=a@b.c", "ann=d@e.f"), "--email"),
        "play as": lambda: play_as(games, 2, "zed", "random"),
    }


def test_the_hosts_refusals_are_said_in_each_language(games: Path) -> None:
    for name, make in cases(games).items():
        err = refusal(make)
        assert error_text(err, "en") == str(err), name
        for lang in LANGS:
            said = error_text(err, lang).replace(str(games.resolve()), "GAMES").replace(str(games), "GAMES")
            said = said.replace("--play-as", "--OPTION")  # an option as typed ('as' is an English word)
            assert said != str(err), (name, lang)
            assert english_lines(said, ALLOWED) == [], (name, lang, said)


def test_the_english_stays_as_it_was(games: Path) -> None:
    said = {name: str(refusal(make)) for name, make in cases(games).items()}
    assert said["first"] == "malformed input (R2.1): --first 'cid' is not one of the players"
    assert said["reveal"] == "malformed input (P6): --reveal 'never': give auto or manual"
    assert said["no secret file"] == f"not found (P1): secret file {str(games / 'secret.yaml')!r} does not exist"
    assert said["bot not a player"] == "not found (R2.1): 'cid' is not a player in game 'g1'"
    assert said["no game"].startswith(f"not found (P1): no game 'nope' in {str(games)!r} (no log.yaml there). "
                                      f"pbem looked in {games.resolve()} (--games, else $PBEM_GAMES, else the "
                                      "current folder); the games there: g1")
