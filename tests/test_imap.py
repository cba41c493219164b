"""`pbem mail --imap HOST:PORT --folder F` against a real dovecot on
127.0.0.1 (tests/dovecot.py: STARTTLS with a certificate of the run's own, a passwd-file
login) and a real SMTP server (aiosmtpd): a whole 3-player game from the invitations to
the last mail, each player's mailed log auditing FAIR alone (P6); a message another client
saw first applied once (P7); a server that is down is said, and changes nothing."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from clitools import cli, snapshot
from dovecot import Dovecot
from endtools import audits_alone, new_game
from imaptools import append, client, delivered, dovecot, flags_of, imap, run_mail  # noqa: F401
from mailgame import HOST, THREE, Table, attachments, player_mail, read_game
from mailtools import Collect, smtp_server

from pbem.errors import Exit


@pytest.fixture(autouse=True)
def no_picture(monkeypatch: pytest.MonkeyPatch) -> None:
    """The board's PNG costs ~0.2 s a mail; tests/test_pictures.py checks it is sent."""
    monkeypatch.setattr("pbem.mail.replies.board_picture", lambda game, lang="en": None)


@pytest.mark.slow
def test_a_whole_three_player_game_through_imap_ends_with_every_log_auditing_fair(
    imap: tuple[Dovecot, str], tmp_path: Path
) -> None:
    server, folder = imap
    games = tmp_path / "games"
    new_game(games)
    table = Table(THREE, seed=11)
    collected = Collect()
    with smtp_server(collected) as smtp:
        for _ in range(400):
            out = run_mail(server, folder, smtp, games)
            assert "refused" not in out and ", 0 quarantined" in out, out
            table.receive(delivered(collected))
            answers = table.answers()
            if not answers:
                break
            for data in answers:
                append(server, folder, data)
    game = read_game((games / "g" / "log.yaml").read_bytes())
    assert game.over and game.secret is not None
    assert all(b"\\Seen" in f for f in flags_of(server, folder))  # each message marked once handled
    for seat in table.seats.values():
        assert seat.final is not None, f"{seat.player} never got the last mail"
        audits_alone(attachments(seat.final)["log.yaml.gz"], tmp_path / f"kept-{seat.player}")


def test_from_the_invitations_to_the_last_mail_through_imap(imap: tuple[Dovecot, str], tmp_path: Path) -> None:
    """The fast suite's game through IMAP: the opening by mail (invitations, commitments,
    nonces), the moves applied by the host ('pbem apply' files), the end announced by mail:
    each player's mailed log audits FAIR alone (P6)."""
    from pbem.bots.randombot import bot_actions
    from pbem.host.games import apply_move
    from pbem.log.moves import after_of, parse_move
    from pbem.log.yamlio import dump_yaml

    server, folder = imap
    games = tmp_path / "games"
    new_game(games)
    table = Table(THREE, seed=4)
    collected = Collect()
    rng = random.Random(4)
    with smtp_server(collected) as smtp:
        while True:  # P4 by mail: the invitations, then each round's answers
            run_mail(server, folder, smtp, games)
            table.receive(delivered(collected))
            game = read_game((games / "g" / "log.yaml").read_bytes())
            if game.started:
                break
            for data in table.answers():
                append(server, folder, data)
        while game.state is not None and game.state.to_move is not None:  # the moves, by the host
            player = game.state.to_move
            move = {"game": "g", "player": player, "kind": "move", "after": after_of(game),
                    "actions": [a.to_dict() for a in bot_actions(game.state, rng)]}
            game = apply_move(games, parse_move(dump_yaml(move).encode())).game
        assert game.secret is not None  # P6: the host's step revealed it at the end
        run_mail(server, folder, smtp, games)
        table.receive(delivered(collected))
    for seat in table.seats.values():
        assert seat.final is not None, f"{seat.player} never got the last mail"
        audits_alone(attachments(seat.final)["log.yaml.gz"], tmp_path / f"kept-{seat.player}")


def test_a_move_another_client_saw_first_is_applied_once(imap: tuple[Dovecot, str], tmp_path: Path) -> None:
    server, folder = imap
    games = tmp_path / "games"
    new_game(games)
    table = Table(THREE)
    collected = Collect()
    with smtp_server(collected) as smtp:
        run_mail(server, folder, smtp, games)
        table.receive(delivered(collected))  # the invitations: round 1
        answers = table.answers()
        assert len(answers) == 3
        append(server, folder, answers[0], r"(\Seen)")  # read by the player's own client first
        with client(server) as other:  # and one read (BODY[]: \Seen) by another client
            append(server, folder, answers[1])
            other.select(folder)
            other.uid("FETCH", "2", "(BODY[])")
        append(server, folder, answers[2])
        out = run_mail(server, folder, smtp, games)
        assert out.count("applied: game g") == 3, out
        assert out.count("seen by another mail client first") == 2, out
        game = read_game((games / "g" / "log.yaml").read_bytes())
        assert sorted(game.commits) == sorted(THREE)  # P4: each commitment once
        again = run_mail(server, folder, smtp, games)
        assert again.startswith("0 message(s) processed"), again
        replies = delivered(collected)
    answered = [m for m in replies if m["In-Reply-To"] is not None]
    assert len(answered) == 3 and len({m["Message-ID"] for m in replies}) == len(replies)


def test_a_server_that_is_down_is_said_and_changes_nothing(imap: tuple[Dovecot, str], tmp_path: Path) -> None:
    server, folder = imap
    games = tmp_path / "games"
    new_game(games)
    before = snapshot(games)
    from mailtools import free_port

    result = cli("mail", "--imap", f"127.0.0.1:{free_port()}", "--folder", folder, "--outbox", tmp_path / "out",
                 "--games", games, "--from", HOST)
    assert result.exit_code == Exit.BUSY and "cannot be reached" in result.stderr, result.stderr
    assert {k: v for k, v in snapshot(games).items() if not k.startswith("+mail-queue")} == before


def test_a_login_missing_or_refused_is_one_clear_paragraph(
    imap: tuple[Dovecot, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    server, folder = imap
    games = tmp_path / "games"
    new_game(games)
    args = ("mail", "--imap", server.address, "--folder", folder, "--outbox", tmp_path / "out",
            "--games", games, "--from", HOST)
    monkeypatch.setenv("PBEM_IMAP_PASSWORD", "wrong")
    result = cli(*args)
    assert result.exit_code == Exit.FORMAT and "login as 'rattus' was refused" in result.stderr, result.stderr
    monkeypatch.delenv("PBEM_IMAP_USER")
    result = cli(*args)
    assert result.exit_code == Exit.FORMAT and "$PBEM_IMAP_USER is not set" in result.stderr, result.stderr
    monkeypatch.setenv("PBEM_IMAP_USER", server.user)
    monkeypatch.setenv("PBEM_IMAP_PASSWORD", server.password)
    result = cli(*args[:3], "--folder", "no-such-folder", *args[5:])
    assert result.exit_code == Exit.FORMAT and "no folder 'no-such-folder'" in result.stderr, result.stderr


def test_a_stranger_is_quarantined_flagged_and_left_in_place(imap: tuple[Dovecot, str], tmp_path: Path) -> None:
    server, folder = imap
    games = tmp_path / "games"
    new_game(games)
    append(server, folder, player_mail("mallory@example.com", "game: g"))
    collected = Collect()
    with smtp_server(collected) as smtp:
        result = cli("mail", "--imap", server.address, "--folder", folder, "--smtp", smtp, "--games", games,
                     "--from", HOST)
        assert result.exit_code == Exit.FORMAT and "is not registered for any game" in result.output, result.output
        assert run_mail(server, folder, smtp, games).startswith("0 message(s) processed")
    assert [b"\\Flagged" in f and b"\\Seen" in f for f in flags_of(server, folder)] == [True]
    assert "mallory" not in " ".join(str(m[0]) for m in collected.messages)  # a stranger is never answered
    assert (games / "+mail-queue" / "imap-quarantine.log").is_file()
