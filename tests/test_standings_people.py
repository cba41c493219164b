"""The standings rate people, not colours; only a fair game between people counts.

Two open games (`pbem new --open 4`), each filled by four strangers who join by mail and
confirm the code sent to their own address; ann and bo play in both.  In the second, gus
joins and leaves before the opening (his seat goes to fay).  Both games are played out by
random moves and revealed (P6).  The standings then have one row per person, the same row for
ann across both games, no row named after a seat's colour, no address anywhere on the site,
and gus, who played nothing, is not rated.  A game whose every seat was waived (the host's
deal, P4) and a game with a bot seat, both played out by the same people, count for nobody.
In a third game the host replaces di's seat with gus mid-game (R8.4): gus, who played it to the
end, is rated for it, and di is not.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
from clitools import ok
from lobbytools import Host, confirmed

from pbem.bots.randombot import bot_actions
from pbem.host.create import NewGame, create
from pbem.host.games import apply_move, game_dir, load_game, replace, reveal, waive
from pbem.host.people import KEY_NAME, handle, people_key
from pbem.host.settings import load_settings
from pbem.host.site import build_site, standings_of
from pbem.log.game import Game
from pbem.log.moves import after_of, parse_move
from pbem.log.records import TurnMove
from pbem.log.records.sent import move_of
from pbem.log.yamlio import dump_yaml
from pbem.mail.commands import Command, answer
from pbem.player.nonces import commit_move, reveal_move
from pbem.views.standings import places

ANN, BO, CY, DI = "ann@one.example", "bo@two.example", "cy@three.example", "di@four.example"
EVE, FAY, GUS = "eve@five.example", "fay@six.example", "gus@seven.example"
COLOURS = ("red", "green", "blue", "yellow")


def play_out(games: Path, game_id: str, seed: int, hand_over: tuple[str, str] | None = None) -> Game:
    """The game's opening (each seat's nonce, P4), random moves to its end (R6), the secret revealed
    (P6); with ``hand_over`` (a seat, an address), the host gives that seat to a new player after
    four turns (R8.4)."""
    rng = random.Random(seed)
    game = load_game(game_dir(games, game_id))
    people = [p for p in game.players if p not in game.waived and p not in game.bots]  # a bot's nonce is the host's
    nonces = {p: random.Random(f"{game_id}/{p}/{seed}").randbytes(32) for p in people}
    for make in (commit_move, reveal_move):
        for player in people:
            game = apply_move(games, parse_move(dump_yaml(make(load_game(game_dir(games, game_id)), player,
                                                               nonces[player])).encode())).game
    turns = 0
    while game.state is not None and game.state.to_move is not None:
        turns += 1
        if hand_over is not None and turns == 5:
            game = replace(games, game_id, *hand_over, key=None).game
            continue
        state = game.state
        assert state is not None and state.to_move is not None
        move = TurnMove.write(game_id, state.to_move, after_of(game), [a.to_dict() for a in bot_actions(state, rng)])
        game = apply_move(games, move_of(move.to_raw())).game
    if game.secret is None:
        reveal(games, game_id)
    return load_game(game_dir(games, game_id))


@pytest.fixture(scope="module")
def league(tmp_path_factory: pytest.TempPathFactory) -> tuple[Host, dict[str, Game]]:
    host = Host(tmp_path_factory.mktemp("people"))
    for game_id in ("g1", "g2"):
        ok("new", game_id, "--open", "4", "--games", host.games)
    for address in (ANN, BO, CY, DI):
        confirmed(host, address, "join", "g1")
    for address in (ANN, BO, GUS):
        confirmed(host, address, "join", "g2")
    confirmed(host, GUS, "leave", "g2")  # before the opening: his seat is open again
    for address in (EVE, FAY):
        confirmed(host, address, "join", "g2")
    played = {game_id: play_out(host.games, game_id, seed) for seed, game_id in enumerate(("g1", "g2"))}
    create(host.games, NewGame("g3", ("red", "green"), emails={"red": EVE, "green": DI}))
    played["g3"] = play_out(host.games, "g3", 9, hand_over=("green", GUS))
    create(host.games, NewGame("waived", COLOURS, emails=dict(zip(COLOURS, (ANN, BO, CY, DI), strict=True))))
    for seat in COLOURS:
        waive(host.games, "waived", seat)  # every seat waived: the host's deal (P4)
    played["waived"] = play_out(host.games, "waived", 7)
    create(host.games, NewGame("bots", ("red", "green"), emails={"red": CY}, bots={"green": "random"}))
    played["bots"] = play_out(host.games, "bots", 8)
    return host, played


def test_the_same_stranger_is_one_row_across_two_open_games(league: tuple[Host, dict[str, Game]]) -> None:
    host, played = league
    assert all(played[g].over and played[g].secret is not None for g in played)
    key = people_key(host.games)
    holders = {g: load_settings(host.games / g).emails for g in ("g1", "g2")}
    assert sorted(holders["g1"].values()) == sorted((ANN, BO, CY, DI))
    assert sorted(holders["g2"].values()) == sorted((ANN, BO, EVE, FAY))  # gus left: fay holds his seat
    rows = {row.player: row for row in standings_of(host.games)}
    assert set(rows) == {handle(key, a) for a in (ANN, BO, CY, DI, EVE, FAY, GUS)}  # seven people, not colours
    assert rows[handle(key, ANN)].games == 2 and rows[handle(key, BO)].games == 2
    assert rows[handle(key, CY)].games == 1 and rows[handle(key, FAY)].games == 1
    assert rows[handle(key, GUS)].games == 1  # g3, which he played to the end; not g2, which he left
    assert rows[handle(key, DI)].games == 1 and rows[handle(key, EVE)].games == 2  # di: g1; not g3, handed over
    assert not set(rows) & set(COLOURS)
    for game_id in ("g1", "g2"):
        state = played[game_id].state
        assert state is not None
        winner = handle(key, holders[game_id][places(state)[0]])
        assert rows[winner].wins >= 1


def test_the_site_shows_handles_and_says_which_games_count(league: tuple[Host, dict[str, Game]]) -> None:
    host, _played = league
    site = host.games.parent / "site"
    build_site(host.games, site)
    table = (site / "standings.html").read_text(encoding="utf-8")
    key = people_key(host.games)
    assert handle(key, ANN) in table and "Over 3 games that count." in table
    assert "Test games, games with bot seats, deals no player&#39;s nonce went into" in table
    assert not re.search(r"<td[^>]*>(red|green|blue|yellow)</td>", table)
    for page in site.rglob("*"):
        if page.is_file():
            text = page.read_text(encoding="utf-8", errors="replace")
            assert not re.search(r"[a-z]+@[a-z]+\.example", text), page
    assert not (site / KEY_NAME).exists() and (host.games / KEY_NAME).stat().st_mode & 0o077 == 0


def test_a_waived_deal_and_a_bot_game_are_not_rated(league: tuple[Host, dict[str, Game]]) -> None:
    host, played = league
    assert played["waived"].waived == set(COLOURS) and played["bots"].bots == {"green": "random"}
    key = people_key(host.games)
    rows = {row.player: row for row in standings_of(host.games)}
    assert rows[handle(key, CY)].games == 1 and rows[handle(key, DI)].games == 1  # g1 alone, not 'waived'
    assert rows[handle(key, ANN)].games == 2  # g1 and g2, not 'waived'
    assert sum(row.games for row in rows.values()) == 4 + 4 + 2  # g1, g2, g3


def test_a_player_asking_by_mail_learns_their_own_name(league: tuple[Host, dict[str, Game]]) -> None:
    host, _played = league
    got = answer(host.games, CY, Command("standings", None, None, None))
    assert f"You are {handle(people_key(host.games), CY)} in the standings" in got.text
    assert CY not in got.text and ANN not in got.text
