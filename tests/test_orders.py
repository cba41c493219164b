"""Orders in plain text (the notation), never a prefix, R7.5's whole
turns, and the short template: every line short, at most 45 lines, and a turn made only
of its lines, in its order, is accepted."""

from __future__ import annotations

import dataclasses
import random
import re
from pathlib import Path
from typing import Any

import pytest
from clitools import cli, ok, snapshot
from ordertools import a_turn, games, items, live, positions  # noqa: F401

import pbem.host.create
from pbem.errors import FormatError, RulesError
from pbem.host.create import NewGame, create
from pbem.host.games import apply_move, load_game
from pbem.log import notation, notation_write
from pbem.log.game import Game
from pbem.log.moves import after_of, parse_move
from pbem.referee import admit as referee
from pbem.referee.seatview import SeatView
from pbem.rules import Phase
from pbem.sim.demo import open_game
from pbem.views.template import template

PLAYERS = ("red", "green", "blue", "yellow")


# --- reading a template as a player does -----------------------------------------------------

def menu(text: str) -> list[tuple[str, list[str]]]:
    """The template's sections: (its form's first word, its choice lines as written, a line
    that goes on after five spaces joined to the one before)."""
    sections: list[tuple[str, list[str]]] = []
    for line in text.splitlines():
        if line.startswith("#     ") and sections and sections[-1][1]:
            sections[-1][1][-1] += " " + line.strip("# ")
        elif line.startswith("#   ") and sections:
            sections[-1][1].append(line[4:].strip())
        elif line.startswith("#  "):
            continue  # a long title goes on
        elif line.startswith("# "):
            sections.append((line[2:].split()[0], []))
    return sections


def test_templates_are_short_and_a_turn_of_their_lines_is_accepted_300_positions(
        games: dict[int, Game]) -> None:
    """Over 300 positions (every card, Knight paths, Witch turns half done, open outbreaks of
    old logs, the final round): every line under 40 characters, at most 45 lines, and a turn
    made only of the template's lines, in its order, is accepted whole (R7.5), or up to a
    Witch's look where it stops; the kinds of turn tried are counted and all must occur."""
    rng = random.Random(19)
    longest, most, accepted, stopped = 0, 0, 0, 0
    seen: set[str] = set()
    for size, state in positions(300, 19):
        game = dataclasses.replace(games[size], state=state)
        player = state.to_move
        text = template(SeatView(game, player))
        lines = text.splitlines()
        longest, most = max(longest, max(len(x) for x in lines)), max(most, len(lines))
        assert all(len(x) < 40 for x in lines), [x for x in lines if len(x) >= 40]
        assert len(lines) <= 45, text
        assert live(text)[:2] == notation_write.header_lines("g", player, game.last_seq, after_of(game)["hash"])
        chosen, stop = a_turn(text, state, rng)
        move = parse_move(("\n".join(live(text) + chosen) + "\n").encode())
        try:
            verdict = referee.judge(game, move)
        except RulesError as err:
            raise AssertionError(f"{chosen}\n{text}\n{err}") from None
        assert verdict.complete != stop, (chosen, text)
        accepted += 1
        stopped += stop
        seen |= {line.split()[0] + (" via" if line.startswith("plague") and len(line.split()) == 3 else "")
                 for line in chosen}
        if state.turn.witch_open:
            seen.add("second witch file")
    print(f"{accepted} of 300 positions: a turn of template lines accepted ({stopped} stopped at a look); "
          f"longest line {longest}, most lines {most}; kinds: {sorted(seen)}")
    assert accepted == 300 and longest < 40 and most <= 45
    assert seen >= {"look", "swap", "take", "place", "king", "plague", "plague via", "spread", "knight",
                    "flip", "end", "second witch file"}, seen


# --- the notation -----------------------------------------------------------------------------

EVERY_LINE = {
    "take Monk": [{"action": "take_card", "card": "monk"}],
    "place GALLIA 2": [{"action": "place", "region": "gallia", "count": 2}],
    "king anglia": [{"action": "king", "region": "anglia"}],
    "merchant gallia italia 3": [{"action": "merchant", "source": "gallia", "target": "italia", "count": 3}],
    "monk t7 hispania": [{"action": "monk", "token": "t07", "target": "hispania"}],
    "look T04": [{"action": "witch_look", "token": "t04"}],
    "swap": [{"action": "witch_swap"}],
    "plague italia": [{"action": "move_plague", "path": ["italia"]}],
    "plague gallia italia": [{"action": "move_plague", "path": ["gallia", "italia"]}],
    "spread hispania": [{"action": "spread", "region": "hispania"}],
    "knight cubes": [{"action": "knight_cubes"}],
    "flip t03, t05": [{"action": "flip", "token": "t03"}, {"action": "flip", "token": "t05"}],
    "knight anglia gallia": [{"action": "knight_move", "path": ["anglia", "gallia"]}],
    "end": [{"action": "end"}],
}


@pytest.mark.parametrize("line", sorted(EVERY_LINE))
def test_each_notation_line_reads_as_its_canonical_action(line: str) -> None:
    head = "game g red\nafter 3 0123456789abcdef\n"
    move = parse_move((head + line + "   # a comment\n").encode())
    assert move.to_raw()["actions"] == EVERY_LINE[line]
    assert notation.parse(notation_write.write(move)) == move.to_raw()  # written back, read the same


@pytest.mark.parametrize(("text", "says"), [
    ("game g red\nafter 3 0123456789abcdef\nplace gallia 2\nplague ital\nia\n", "line 5 ('ia') is not a move line"),
    ("game g red\nafter 3 0123456789abcdef\nplace gallia\n2\n", "the line is 'place REGION N'"),
    ("game g red\nafter 3 0123456789abcdef\nplace gallia 2 plague italia\n", "the line is 'place REGION N'"),
    ("game g red\nafter 3 0123\nplace gallia 2\n", "the line is 'after SEQ HASH'"),
    ("game g red\nafter 3 0123456789abcdef\nplace gallia 2\ncommit " + "ab" * 32 + "\n", "mixes"),
    ("place gallia 2\nplague italia\n", "does not say game and player and after"),
])
def test_a_damaged_text_move_is_refused_whole_naming_the_line(text: str, says: str) -> None:
    with pytest.raises(FormatError, match=re.escape(says)):
        parse_move(text.encode())


# --- R7.5 ----------------------------------------------------------------------------------

@pytest.fixture()
def started(tmp_path: Path) -> tuple[Path, Game]:
    create(tmp_path, NewGame("r", ("red", "green"), secret=bytes(32), first="red"))
    game = open_game(tmp_path, "r", nonces={"red": bytes(16), "green": bytes([1]) * 16})
    while game.state is not None and game.state.phase is Phase.SETUP:
        text = template(SeatView(game, game.to_move or ""))
        apply_move(tmp_path, parse_move((text + f"place {items(menu(text)[-1][1])[0]}\n").encode()))
        game = load_game(tmp_path / "r")
    return tmp_path, game


def lines_file(folder: Path, game: Game, body: list[str], name: str = "move.txt") -> Path:
    after = after_of(game)
    path = folder.parent / f"{folder.name}-{name}"
    path.write_text("\n".join([*notation_write.header_lines("r", game.to_move or "", after["seq"], after["hash"]), *body])
                    + "\n")
    return path


def test_r7_5_a_half_turn_is_refused_whole_and_nothing_is_recorded(started: tuple[Path, Game]) -> None:
    games, game = started
    place = f"place {items(dict(menu(template(SeatView(game, 'red'))))['place'])[0]}"
    path = lines_file(games, game, ["take monk", place])
    before = snapshot(games)
    result = cli("apply", path, "--games", games)
    assert result.exit_code == 4 and "(R7.5)" in result.stderr and "you still owe: move the plague" in result.stderr
    assert snapshot(games) == before
    checked = cli("check", path, "--log", games / "r" / "log.yaml")
    assert checked.stderr == result.stderr  # the host's words, offline (P10)


def test_r7_5_a_move_stops_right_after_a_witch_look_and_the_next_goes_on(started: tuple[Path, Game]) -> None:
    games, game = started
    assert game.state is not None
    token = next(t for r in game.state.regions for t in game.state.rats[r])
    out = ok("apply", lines_file(games, game, ["take witch", f"look {token}"]), "--games", games)
    assert "accepted" in out
    game = load_game(games / "r")
    text = template(SeatView(game, "red"))
    assert text.index("# look TOKEN (R5.6): a second look") < text.index("# place REGION N")  # the Witch first
    rest = next(t for t, stopped in (a_turn(text, game.state, random.Random(k)) for k in range(50)) if not stopped)
    ok("apply", lines_file(games, game, rest, "rest.txt"), "--games", games)
    assert load_game(games / "r").to_move == "green"


def test_r7_5_holds_only_for_games_made_by_the_version_that_brings_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A game created by pbem 0.1 keeps its half turns: its log still verifies and audits."""
    monkeypatch.setattr(pbem.host.create, "__version__", "0.1.0")
    create(tmp_path, NewGame("r", ("red", "green"), secret=bytes(32), first="red"))
    game = open_game(tmp_path, "r", nonces={"red": bytes(16), "green": bytes([1]) * 16})
    assert not game.facts.whole_turns
    while game.state is not None and game.state.phase is Phase.SETUP:
        text = template(SeatView(game, game.to_move or ""))
        apply_move(tmp_path, parse_move((text + f"place {items(menu(text)[-1][1])[0]}\n").encode()))
        game = load_game(tmp_path / "r")
    place = f"place {items(dict(menu(template(SeatView(game, 'red'))))['place'])[0]}"
    ok("apply", lines_file(tmp_path, game, [place]), "--games", tmp_path)  # a half turn, as before
    assert load_game(tmp_path / "r").to_move == "red"
    assert "game r:" in ok("verify", tmp_path / "r" / "log.yaml")


def test_r7_5_a_final_round_go_without_end_is_refused(games: dict[int, Game]) -> None:
    for _size, state in positions(400, 7):
        if state.phase is Phase.FINAL and state.to_move is not None:
            game = dataclasses.replace(games[_size], state=state)
            text = template(SeatView(game, state.to_move))
            with pytest.raises(RulesError, match=r"R7\.5"):
                referee.judge(game, parse_move(("\n".join(live(text)) + "\n" + _an_ability(state) + "\n").encode()))
            return
    pytest.fail("no final-round position")


def _an_ability(state: Any) -> str:
    """Some legal final-round line other than 'end' (R6.2), or a Peasant's cube."""
    from pbem.rules import legal_actions

    for action in legal_actions(state):
        if action.kind != "end":
            return str(notation_write.action_line(action))
    return f"place {state.regions[0]} 1"


def test_p4_a_commitment_hashed_over_the_nonces_hex_text_is_named_at_the_reveal(tmp_path: Path) -> None:
    """The shell one-liner hashes the nonce's hex text; the reveal says exactly that (P4)."""
    from pbem.fair.protocol import nonce_commitment

    create(tmp_path, NewGame("h", ("red", "green"), secret=bytes(32), first="red"))
    nonce = bytes(range(32))
    game = load_game(tmp_path / "h")
    after = after_of(game, opening=True)
    head = notation_write.header_lines("h", "red", after["seq"], after["hash"])
    wrong = nonce_commitment(nonce.hex().encode("ascii"))  # sha256 over the text, not the bytes
    apply_move(tmp_path, parse_move(("\n".join([*head, f"commit {wrong}"]) + "\n").encode()))
    head_green = notation_write.header_lines("h", "green", after["seq"], after["hash"])
    apply_move(tmp_path, parse_move(("\n".join([*head_green, f"commit {nonce_commitment(bytes(16))}"]) + "\n").encode()))
    before = snapshot(tmp_path)
    with pytest.raises(RulesError, match="hash of the nonce's hex text"):
        apply_move(tmp_path, parse_move(("\n".join([*head, f"nonce {nonce.hex()}"]) + "\n").encode()))
    assert snapshot(tmp_path) == before


def test_p4_an_opening_move_answering_the_logs_last_entry_is_told_it_answers_entry_0(tmp_path: Path) -> None:
    """A player who copies the newest entry's seq and hash into a commitment is told that every
    move of the opening answers the creation, entry 0 (P4, P7), not that the move is older."""
    from pbem.errors import StaleError
    from pbem.fair.protocol import nonce_commitment

    create(tmp_path, NewGame("h", ("red", "green"), secret=bytes(32), first="red"))
    after = after_of(load_game(tmp_path / "h"), opening=True)
    red = notation_write.header_lines("h", "red", after["seq"], after["hash"])
    apply_move(tmp_path, parse_move(("\n".join([*red, f"commit {nonce_commitment(bytes(32))}"]) + "\n").encode()))
    game = load_game(tmp_path / "h")
    green = notation_write.header_lines("h", "green", game.last_seq, game.last_hash)
    before = snapshot(tmp_path)
    with pytest.raises(StaleError) as refused:
        apply_move(tmp_path, parse_move(("\n".join([*green, f"commit {nonce_commitment(bytes(1))}"]) + "\n").encode()))
    said = refused.value.message
    assert "answers entry 0, the game's creation" in said and "an older entry" not in said, said
    assert snapshot(tmp_path) == before


def test_check_takes_games_and_template_show_history_take_a_mailed_log(tmp_path: Path) -> None:
    games = tmp_path / "games"
    ok("new", "m", "--players", "red,green", "--first", "red", "--games", games)
    mailed = tmp_path / "inbox" / "m-log.yaml"  # the log attached to a mail, saved anywhere
    mailed.parent.mkdir()
    mailed.write_bytes((games / "m" / "log.yaml").read_bytes())
    text = ok("template", mailed, "--player", "red")
    assert "game m red" in text
    assert "game m" in ok("show", mailed) and "entry 0" in ok("history", mailed)
    move = tmp_path / "commit.txt"
    move.write_text(text + f"commit {'ab' * 32}\n")
    assert "ok: red's nonce commitment would be recorded" in ok("check", move, "--games", games)
    out = tmp_path / "t.txt"
    ok("template", "m", "--player", "red", "--out", out, "--games", games)
    refused = cli("template", "m", "--player", "red", "--out", out, "--games", games)
    assert refused.exit_code != 0 and "--force" in refused.stderr
    ok("template", "m", "--player", "green", "--out", out, "--force", "--games", games)
    assert "game m green" in out.read_text()


def test_show_counts_the_palace_and_names_the_winner() -> None:
    """R6.5: the cubes on the board include the palace, and a finished game names its winner."""
    out = ok("show", Path(__file__).parent.parent / "examples" / "rattus-3p" / "log.yaml")
    assert "cubes on the board (the palace included):" in out and "winner: blue" in out and "R6.5" in out


def test_the_trust_and_bot_seat_paragraphs_are_said_once_per_command_and_mail(tmp_path: Path) -> None:
    """`pbem new` with bot seats (whose commitments the host's step records at once) says the
    BOT SEATS notice once, not before and again after its report; a report mail says the seed
    line and each notice once, not in the report and again above the board."""
    from pbem.mail.replies import Report

    out = ok("new", "b", "--players", "red,green,blue", "--bot", "blue=random", "--games", tmp_path)
    assert out.count("BOT SEATS") == 1, out
    from pbem.log.yamlio import dump_yaml
    from pbem.player.nonces import commit_move, reveal_move

    applied = None
    for make in (commit_move, reveal_move):
        for player in ("red", "green"):
            text = dump_yaml(make(load_game(tmp_path / "b"), player, bytes([len(player)]) * 16))
            applied = apply_move(tmp_path, parse_move(text.encode()))
    assert applied is not None and applied.game.started
    report = Report.of(applied, tmp_path / "b")
    body = "\n".join(report.lines) + "\n" + report.board
    assert body.count("seed (P4):") == 1 and body.count("BOT SEATS") == 1, body
