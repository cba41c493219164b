"""P4 from the mail alone: the round-1 invitation says in words what the two rounds protect,
its 'pbem nonce' command runs on what the mail brought (the log is attached), its by-hand
recipe is three lines pasted whole that print the very lines to send (nothing computed by
hand), every seat answering with them starts the game, and a commitment a person hashed over
the nonce's hex text with the tag does not strand the game: the reveal says the one line that
opens it, and that line starts the game; one hashed without the tag is named at the reveal."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from email.message import EmailMessage
from pathlib import Path

import pytest
from clitools import ok, snapshot
from mailtools import ADDRESSES, HOST, replies, setup_game

from pbem.errors import RulesError
from pbem.fair.protocol import nonce_commitment
from pbem.host.games import apply_move, load_game
from pbem.log import notation_write
from pbem.log.moves import after_of, parse_move
from pbem.log.records import CommitMove


@pytest.fixture(autouse=True)
def no_picture(monkeypatch: pytest.MonkeyPatch) -> None:
    """The board's PNG costs ~0.2 s a mail; tests/test_pictures.py checks it is sent."""
    monkeypatch.setattr("pbem.mail.replies.board_picture", lambda game, lang="en": None)


@pytest.fixture()
def invited(tmp_path: Path) -> tuple[Path, dict[str, EmailMessage]]:
    """A new game with addresses; the host's first run mails each seat its round-1 invitation."""
    games, inbox = setup_game(tmp_path, key_for_red=False)
    ok("mail", "--inbox", inbox, "--outbox", tmp_path / "outbox", "--games", games, "--from", HOST)
    mails = {str(m["To"]): m for m in replies(tmp_path / "outbox")}
    return games, {seat: mails[address] for seat, address in ADDRESSES.items()}


def text_of(msg: EmailMessage) -> str:
    body = msg.get_body(("plain",))
    assert body is not None
    return str(body.get_content()).replace("\r\n", "\n")


def saved(msg: EmailMessage, folder: Path) -> Path:
    """Every attachment saved in ``folder``, as a mail client's 'save all' does."""
    folder.mkdir()
    for part in msg.iter_attachments():
        name = part.get_filename()
        assert name is not None and "/" not in name
        payload = part.get_payload(decode=True)
        assert isinstance(payload, bytes)
        (folder / name).write_bytes(payload)
    return folder


def reply_lines(msg: EmailMessage, last: str) -> bytes:
    """The template's live lines in the mail's text, then ``last``: what a player replies."""
    head = [line for line in text_of(msg).splitlines() if re.match(r"(game|after) \S+ \S+$", line)]
    return ("\n".join([*head, last]) + "\n").encode()


def test_p4_the_first_mail_says_what_the_two_rounds_protect_in_words(
        invited: tuple[Path, dict[str, EmailMessage]]) -> None:
    _games, mails = invited
    text = text_of(mails["red"])
    first = text.split("\n\n")[0]
    assert "so that nobody, the host included, can choose the order after seeing the others'" in first, first
    assert "nonce" not in first.lower() and "commit" not in first.lower(), first  # no jargon before it is shown
    assert "trust (P1): the host sees every face" in text  # the trust statement in full, once: here


def test_p4_the_mails_pbem_command_runs_on_what_the_mail_brought(
        invited: tuple[Path, dict[str, EmailMessage]], tmp_path: Path) -> None:
    """Save the attachments, run the command the mail shows there, reply with commit.txt: accepted."""
    games, mails = invited
    folder = saved(mails["red"], tmp_path / "red-inbox")
    command = next(line.split() for line in text_of(mails["red"]).splitlines() if line.strip().startswith("pbem nonce"))
    assert command[:2] == ["pbem", "nonce"] and "--games" not in command
    here = Path.cwd()
    os.chdir(folder)
    try:
        ok(*command[1:])
    finally:
        os.chdir(here)
    move = parse_move((folder / "commit.txt").read_bytes())
    assert isinstance(move, CommitMove) and apply_move(games, move).game.commits["red"] == move.nonce_commitment


RECIPE_TOOLS = pytest.mark.skipif(not all(shutil.which(t) for t in ("bash", "openssl", "xxd", "sha256sum")),
                                  reason="the recipe's tools")


def by_hand(msg: EmailMessage) -> tuple[str, str]:
    """The invitation's three lines, pasted whole into bash as it says: the 'nonce' line to keep
    and the 'commit' line to send, exactly as printed."""
    lines = text_of(msg).splitlines()
    at = next(i for i, line in enumerate(lines) if line.strip().startswith("N=$(openssl"))
    script = "\n".join(line.strip() for line in lines[at:at + 3])
    out = subprocess.run(["bash", "-c", script], capture_output=True, text=True, check=True).stdout.splitlines()
    assert len(out) == 2 and re.fullmatch(r"nonce [0-9a-f]{64}", out[0]) and re.fullmatch(r"commit [0-9a-f]{64}",
                                                                                           out[1]), out
    return out[0], out[1]


@RECIPE_TOOLS
def test_p4_every_seat_answering_with_the_mails_three_lines_starts_the_game(
        invited: tuple[Path, dict[str, EmailMessage]]) -> None:
    """Each seat pastes the invitation's lines and replies with the 'commit' line they print; in
    round 2 it replies with the 'nonce' line they printed: every commitment is P4's, the game
    starts, and every reader's check passes.  Nothing is computed by the player."""
    games, mails = invited
    kept = {}
    for seat, msg in mails.items():
        kept[seat], commit = by_hand(msg)
        apply_move(games, parse_move(reply_lines(msg, commit)))
        assert load_game(games / "g").commits[seat] == nonce_commitment(bytes.fromhex(kept[seat].split()[1]))
    for seat, msg in mails.items():
        apply_move(games, parse_move(reply_lines(msg, kept[seat])))
    assert load_game(games / "g").started
    ok("verify", games / "g" / "log.yaml")


@RECIPE_TOOLS
def test_p4_an_improvised_hash_of_the_digits_is_named_at_the_reveal_and_changes_no_file(
        invited: tuple[Path, dict[str, EmailMessage]]) -> None:
    """A player who improvises instead, 'printf %s HEX | sha256sum' (no tag, the digits as text):
    round 1 cannot tell (a commitment is any 64 hex digits); round 2's refusal names exactly what
    was hashed and what to do, and changes no file."""
    games, mails = invited
    nonce = bytes(range(32)).hex()
    improvised = subprocess.run(["bash", "-c", f"printf %s {nonce} | sha256sum"], capture_output=True, text=True,
                                check=True).stdout.split()[0]
    for seat, msg in mails.items():
        commit = f"commit {improvised}" if seat == "red" else by_hand(msg)[1]
        apply_move(games, parse_move(reply_lines(msg, commit)))
    before = snapshot(games)
    with pytest.raises(RulesError, match="SHA-256 of the nonce's hex digits alone") as refused:
        apply_move(games, parse_move(reply_lines(mails["red"], f"nonce {nonce}")))
    assert "the invitation's three lines" in refused.value.message and refused.value.rule == "P4"
    assert snapshot(games) == before


def test_p4_a_commitment_over_the_hex_text_is_opened_by_the_line_the_reveal_names(tmp_path: Path) -> None:
    """The obvious hash, sha256('pbem-rattus/v1/nonce' + the 64 hex digits as text), cannot be
    told from any other commitment when it is sent; at the reveal the refusal names the one
    line that opens it (the text's bytes are a P4 nonce of 64 bytes), changes no file, and
    that line is recorded and starts the game: no seat stranded, P4 unchanged."""
    from pbem.host.create import NewGame, create

    create(tmp_path, NewGame("h", ("red", "green"), secret=bytes(32), first="red"))
    nonce = bytes(range(32)).hex()
    after = after_of(load_game(tmp_path / "h"), opening=True)

    def sent(player: str, line: str) -> bytes:
        return ("\n".join([*notation_write.header_lines("h", player, after["seq"], after["hash"]), line]) + "\n").encode()

    apply_move(tmp_path, parse_move(sent("red", f"commit {nonce_commitment(nonce.encode('ascii'))}")))
    apply_move(tmp_path, parse_move(sent("green", f"commit {nonce_commitment(bytes(16))}")))
    apply_move(tmp_path, parse_move(sent("green", f"nonce {bytes(16).hex()}")))
    before = snapshot(tmp_path)
    with pytest.raises(RulesError, match="hash of the nonce's hex text") as refused:
        apply_move(tmp_path, parse_move(sent("red", f"nonce {nonce}")))
    assert snapshot(tmp_path) == before
    line = re.search(r"nonce ([0-9a-f]+)$", refused.value.message)
    assert line is not None and bytes.fromhex(line.group(1)) == nonce.encode("ascii")
    started = apply_move(tmp_path, parse_move(sent("red", f"nonce {line.group(1)}"))).game
    assert started.started and started.nonces["red"] == line.group(1)
    ok("verify", tmp_path / "h" / "log.yaml")  # every reader's replay checks the reveal as P4 says
