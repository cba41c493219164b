"""The end of a game by mail (P6, R6.5).

Once the game is over the host's step reveals the secret (``pbem new --reveal-secret auto``, the
default) or leaves it to the host's ``pbem reveal`` (``--reveal-secret manual``), and every player
gets one last mail: the final scores, the winner and the tie-break, the secret, the audit's
verdict and the final log, which audits FAIR alone, by ``pbem audit`` and by
``tools/audit_min.py``, with no other file.
"""

from __future__ import annotations

import gzip

import mailbox
from pathlib import Path

import pytest
from clitools import cli, ok
from endtools import audits_alone, new_game, take
from mailgame import HOST, THREE, Table, attachments, read_game
from mailtools import plain

from pbem.views.endpage import end_page
from pbem.views.packed import repack, unpack
from pbem.views.html import csp_hash


@pytest.fixture(autouse=True)
def no_picture(monkeypatch: pytest.MonkeyPatch) -> None:
    """The board's PNG costs ~0.05 s a mail and the composer page up to seconds;
    tests/test_pictures.py and tests/test_compose_mail.py check they are sent."""
    monkeypatch.setattr("pbem.mail.replies.board_picture", lambda game, lang="en": None)
    monkeypatch.setattr("pbem.mail.replies.composer_page", lambda view, to, lang="en": (None, "not in this test"))


def play_by_mail(tmp: Path, table: Table, games: Path, limit: int = 400) -> int:
    """Run `pbem mail` over a Maildir until no player has anything to answer; returns runs."""
    inbox, outbox = tmp / "inbox", tmp / "outbox"
    mailbox.Maildir(str(inbox), create=True)
    for runs in range(limit):
        out = ok("mail", "--inbox", inbox, "--outbox", outbox, "--games", games, "--from", HOST)
        assert "refused" not in out and "quarantined" not in out.replace("0 quarantined", ""), out
        table.receive(take(outbox))
        answers = table.answers()
        if not answers:
            return runs
        for data in answers:
            mailbox.Maildir(str(inbox)).add(data)
    raise AssertionError("the game did not end")


def test_every_player_gets_the_last_mail_and_its_log_audits_fair_alone(tmp_path: Path) -> None:
    games = tmp_path / "games"
    new_game(games)
    table = Table(THREE)
    play_by_mail(tmp_path, table, games)
    host_log = (games / "g" / "log.yaml").read_bytes()
    game = read_game(host_log)
    assert game.over and game.secret is not None  # P6: revealed by the host's step
    assert game.state is not None
    scores = game.state.scores()
    for seat in table.seats.values():
        final = seat.final
        assert final is not None, f"{seat.player} never got the last mail"
        assert sum("] the end: " in str(m["Subject"]) for m in seat.got) == 1  # one last mail
        text = plain(final)
        assert "Final scores: " + ", ".join(f"{p} {scores[p]}" for p in game.players) in text
        assert "(R6.5)" in text and game.secret.hex() in text and "verdict: FAIR." in text
        log = attachments(final)["log.yaml.gz"]  # gzipped: a fifth of its size
        assert gzip.decompress(log) == host_log
        page = attachments(final)[f"g-{game.last_seq}-audit.html"].decode("utf-8")  # the audit in a browser
        assert page.replace("\r\n", "\n") == end_page(game, host_log.decode("utf-8"), "en")
        assert f"g-{game.last_seq}-audit.html" in text
        saved = tmp_path / f"{seat.player}-g-{game.last_seq}-audit.html"  # as the player saves the attachment
        saved.write_bytes(attachments(final)[f"g-{game.last_seq}-audit.html"])
        assert ok("fingerprint", saved).startswith(f"ok: {saved.name} is pbem")  # pbem's page for this log
        audits_alone(log, tmp_path / f"kept-{seat.player}")
    assert cli("reveal", "g", "--games", games).exit_code != 0  # revealed once, by the step
    # the host's one-line change to the real attachment: its verdict always FAIR, the policy's hash made to match
    real = saved.read_text(encoding="utf-8").replace("\r\n", "\n")
    inside = unpack(real)  # the page's script travels packed in it (pbem.views.packed)
    assert inside is not None
    body, script = inside
    line = "  function verdict(err, notes) {"
    fair = script.replace(line, line + " err = null; notes = [];")
    saved.write_text(repack(real.replace(csp_hash(script), csp_hash(fair)), body, fair), encoding="utf-8")
    refused = cli("fingerprint", saved)
    assert refused.exit_code == 7 and "err = null; notes = [];" in refused.stderr, refused.stderr


@pytest.mark.slow
def test_with_reveal_manual_the_last_mail_follows_the_hosts_reveal(tmp_path: Path) -> None:
    games = tmp_path / "games"
    new_game(games, "--reveal-secret", "manual")
    table = Table(THREE, seed=3)
    play_by_mail(tmp_path, table, games)
    game = read_game((games / "g" / "log.yaml").read_bytes())
    assert game.over and game.secret is None  # P6: the host reveals
    assert all(seat.final is None for seat in table.seats.values())
    ok("reveal", "g", "--games", games)
    ok("mail", "--inbox", tmp_path / "inbox", "--outbox", tmp_path / "outbox", "--games", games, "--from", HOST)
    table.receive(take(tmp_path / "outbox"))
    for seat in table.seats.values():
        assert seat.final is not None
        audits_alone(attachments(seat.final)["log.yaml.gz"], tmp_path / f"kept-{seat.player}")
    ok("mail", "--inbox", tmp_path / "inbox", "--outbox", tmp_path / "outbox", "--games", games, "--from", HOST)
    assert take(tmp_path / "outbox") == []  # the last mail goes once
