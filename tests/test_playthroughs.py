"""Golden playthroughs (OpenSpiel's playthrough files): every seat's view at
every entry of two recorded games, replayed and compared line by line.

``examples/playthrough-bots`` (a human against two host bot seats, Witch looks, timeouts)
and ``examples/playthrough-seats`` (four players, a timeout, a resignation played by the
stand-in, a new player for the seat) were made by ``examples/make_playthroughs.py``.  A
change to the replay, the records, a view, a template or the seat view shows here as the
first line some seat saw differently.  The views are also held to P10: no seat's view names
a face still hidden from that seat.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from clitools import ok

from pbem.log.clock import pinned
from pbem.log.logfile import LOG_NAME, read_log
from pbem.log.records import Played, Replace, Resign, Standin, Timeout
from pbem.referee.seatview import SeatView, looks_of
from pbem.views.playthrough import seat_lines
from pbem.views.timeline import steps

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
sys.path.insert(0, str(EXAMPLES))
import make_playthroughs  # noqa: E402

FOLDERS = [EXAMPLES / name for name in make_playthroughs.NAMES]


@pytest.mark.parametrize("folder", FOLDERS, ids=lambda p: p.name)
def test_every_seats_view_at_every_entry_is_as_recorded(folder: Path) -> None:
    recorded = (folder / "views.txt").read_text(encoding="utf-8").splitlines()
    replayed = make_playthroughs.views_text(folder).splitlines()
    entry = "?"
    for n, (ours, theirs) in enumerate(zip(replayed, recorded, strict=False)):
        entry = ours if ours.startswith("# entry ") else entry
        assert ours == theirs, f"{folder.name}, {entry}, line {n + 1}: replay gives {ours!r}, golden has {theirs!r}"
    assert len(replayed) == len(recorded), f"{folder.name}: {len(replayed)} lines replayed, {len(recorded)} recorded"


def test_the_playthroughs_hold_what_they_are_for() -> None:
    """Witch looks, bot seats, timeouts and stand-in turns that flip rats, a resignation
    and a new player: each kind of entry a seat's view must follow."""
    kinds: set[type] = set()
    flips_by_seat_entries = 0
    looks = 0
    for folder in FOLDERS:
        entries, _ = read_log(folder / LOG_NAME)
        kinds |= {type(e) for e in entries}
        flips_by_seat_entries += sum(len(e.reveals) for e in entries if isinstance(e, Timeout | Standin))
        looks += sum(1 for e in entries if isinstance(e, Played) and "witch_look" in str(e.raw["move"]))
        assert entries[0].raw["options"].get("bots") or folder.name != "playthrough-bots"
    assert {Timeout, Standin, Resign, Replace} <= kinds
    assert flips_by_seat_entries > 0 and looks > 0


@pytest.mark.parametrize("folder", FOLDERS, ids=lambda p: p.name)
def test_the_playthrough_logs_verify(folder: Path) -> None:
    ok("verify", folder / LOG_NAME)


FACE_ID = re.compile(r"\b[SN][0-9]{2}\b")  # the shipped catalogue's token ids (S01.., N01..)


@pytest.mark.parametrize("folder", FOLDERS, ids=lambda p: p.name)
def test_p10_no_seats_view_names_a_face_hidden_from_it(folder: Path) -> None:
    entries, hashes = read_log(folder / LOG_NAME)
    private = make_playthroughs.private_docs(folder, tuple(entries[0].raw["players"]))
    seen_private = 0
    for game in steps(entries, hashes):
        with pinned(game.at_of(game.last_seq)):
            for seat in game.players:
                view = SeatView(game, seat, looks_of(game, seat, private.get(seat, ())))
                own = {d["token_id"] for d in private.get(seat, ()) if d["seq"] <= game.last_seq}
                allowed = set(game.revealed.values()) | own  # the log's flips, the seat's own file
                named = set(FACE_ID.findall("\n".join(seat_lines(view))))
                assert named <= allowed, f"{folder.name} entry {game.last_seq}: {seat} is shown {named - allowed}"
                seen_private += bool(view.private)
    assert seen_private  # the check saw private knowledge at all


def test_the_playthroughs_are_made_again_byte_for_byte(tmp_path: Path) -> None:
    """The host's whole path (moves, the step's bot seats and stand-ins, timeouts, the new
    player, the reveal) is deterministic: the generator makes the same files again."""
    make_playthroughs.make(tmp_path)
    for folder in FOLDERS:
        for path in sorted(p for p in folder.rglob("*") if p.is_file()):
            again = tmp_path / folder.name / path.relative_to(folder)
            assert again.read_bytes() == path.read_bytes(), f"{path.relative_to(EXAMPLES)} differs"
