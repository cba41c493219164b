"""The site and the standings by mail: a `standings` question gets the standings table over
the host's finished games (a stranger's gets nothing), and `pbem serve --site` keeps the site
current: a round that records the players' moves brings their game's page up to date."""

from __future__ import annotations

import mailbox
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from clitools import ok
from endtools import new_game, take
from mailgame import HOST, THREE, Table, player_mail
from mailtools import ADDRESSES, game_files, started, to_of  # noqa: F401 (started: a fixture)

from pbem.errors import UnknownError
from pbem.host.site import standings_of
from pbem.mail.commands import Command, answer
from pbem.views.standings import table_lines

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"


def test_standings_by_mail_is_the_sites_table(started: tuple[Path, Path, Path]) -> None:
    games, inbox, outbox = started
    for name in ("rattus-2p", "rattus-3p"):
        shutil.copytree(EXAMPLES / name, games / name)
    rows = standings_of(games)  # the cards are made (and kept) here: asking changes no game file
    before = game_files(games)
    mailbox.Maildir(str(inbox)).add(player_mail(ADDRESSES["blue"], "thanks", subject="standings"))
    ok("mail", "--inbox", inbox, "--outbox", outbox, "--games", games, "--from", HOST)
    replies = take(outbox)
    assert game_files(games) == before and [to_of(r) for r in replies] == [ADDRESSES["blue"]]
    body = replies[0].get_body(("plain",))
    assert body is not None
    got = str(body.get_content()).replace("\r\n", "\n")
    assert "\n".join(table_lines(rows)) in got
    assert rows == [] and got.startswith("No game on this host counts")  # test games, no addresses: nobody rated


def test_a_strangers_standings_question_is_answered_to_nobody(started: tuple[Path, Path, Path]) -> None:
    games, _inbox, _outbox = started
    with pytest.raises(UnknownError, match="plays no game on this host"):
        answer(games, "stranger@example.com", Command("standings", None, None, None))


def wait_for(test: Callable[[], bool], what: str, seconds: float = 120) -> None:
    deadline = time.monotonic() + seconds
    while not test():
        if time.monotonic() > deadline:
            raise AssertionError(f"waited {seconds:.0f} s for {what}")
        time.sleep(0.05)


def test_serve_with_a_site_keeps_it_current_after_each_round(tmp_path: Path) -> None:
    games, inbox, outbox, site = tmp_path / "games", tmp_path / "inbox", tmp_path / "outbox", tmp_path / "site"
    mailbox.Maildir(str(inbox), create=True)
    mailbox.Maildir(str(outbox), create=True)
    new_game(games)
    card = site / "games" / "g.html"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    with (tmp_path / "serve.out").open("ab") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "pbem", "serve", "--inbox", str(inbox), "--outbox", str(outbox), "--games",
             str(games), "--from", HOST, "--interval", "0.05", "--site", str(site)],
            stdout=log, stderr=subprocess.STDOUT, env=env)
    try:
        wait_for(lambda: card.is_file() and "opening round 1 of 2" in card.read_text(), "the site")
        table = Table(THREE)
        wait_for(lambda: len(list((outbox / "new").iterdir())) >= 3, "the invitations")
        table.receive(take(outbox))
        for data in table.answers():  # the three commitments (P4, round 1)
            mailbox.Maildir(str(inbox)).add(data)
        pages = (card, site / "index.html")  # the game's card is written before the index: both are waited for
        wait_for(lambda: all("opening round 2 of 2" in page.read_text() for page in pages),
                 "the site after the commitments")
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 0, (tmp_path / "serve.out").read_text()
