"""R5.6, P10: what a Witch saw is in its holder's mail as words, in the seat's language, and in
the page mailed with it; no other seat's mail changes with it.

A look is written to the holder's private file as the host writes it (a true face with its
salt, P6); the mails after the entry are made by the mail host's own path.
"""

from __future__ import annotations

import re
from email.message import EmailMessage
from pathlib import Path

import pytest
from mailtools import ADDRESSES, HOST, attachment, eml, red_move, started, to_of  # noqa: F401

from pbem.host.secret import read_secret
from pbem.host.settings import load_settings, save_settings
from pbem.host.step import Applied
from pbem.log.logfile import LOG_NAME, read_log
from pbem.log.yamlio import dump_yaml
from pbem.mail.headers import parse_mail
from pbem.mail.host import MailHost
from pbem.referee.audit import host_faces
from pbem.referee.replay import replay
from pbem.referee.seatview import Look
from pbem.views.packed import readable
from pbem.views.text import face_text


@pytest.fixture(autouse=True)
def no_picture(monkeypatch: pytest.MonkeyPatch) -> None:
    """The board's PNG costs ~0.2 s a mail; tests/test_pictures.py checks it is sent."""
    monkeypatch.setattr("pbem.mail.replies.board_picture", lambda game, lang="en": None)


def game_of(games: Path):  # type: ignore[no-untyped-def]
    return replay(*read_log(games / "g" / LOG_NAME))


def mails_after_a_look(games: Path, seat: str, token: str | None) -> tuple[list[EmailMessage], Look | None]:
    """The mails after the log's last entry, ``seat`` having looked at ``token`` in it (or no look)."""
    game = game_of(games)
    private = games / "g" / "private" / f"{seat}.yaml"
    private.parent.mkdir(exist_ok=True)
    look = None
    if token is not None:
        faces = host_faces(game, read_secret(games / "g")[0])
        look = Look(game.last_seq, token, faces.face(token).id, faces.salt(token))
        private.write_text("---\n" + dump_yaml(look.doc(game)))
    elif private.exists():
        private.unlink()
    applied = Applied([game.entries[-1]], [], [private] if look else [], game)
    mail = parse_mail(eml("red@example.org", red_move(games)))
    return MailHost(games, lambda m: None, HOST).answers.applied(mail, applied, ""), look


def text_of(msg: EmailMessage) -> str:
    body = msg.get_body(("plain",))
    assert body is not None
    return str(body.get_content())


def shown(msg: EmailMessage) -> str:
    """A mail as its reader sees it, the host's own ids and dates left out."""
    parts = [text_of(msg), str(msg["Subject"])]
    parts += [f"{p.get_filename()}:{p.get_payload(decode=True)!r}" for p in msg.iter_attachments()]
    return re.sub(r"<[^>]*@[^>]*>", "<id>", "\n".join(parts))


def test_r5_6_the_witchs_look_is_in_the_mails_text_and_in_the_page(
        started: tuple[Path, Path, Path]) -> None:
    """The holder (red, to move) reads the face in the mail's text, not only in an attachment,
    with where the rat is now; the page mailed with it lists the look in its 'looks' panel."""
    games, _inbox, _outbox = started
    out, look = mails_after_a_look(games, "red", "t01")
    assert look is not None
    game = game_of(games)
    words = face_text(game, look.token_id)
    mine = next(m for m in out if "private to red" in str(m["Subject"]))
    assert "Your Witch saw rat t01 (now in " in text_of(mine) and f"): {look.token_id}, {words} (R5.6)." \
        in text_of(mine), text_of(mine)
    assert text_of(mine).index("Your Witch saw") < text_of(mine).index("game g  (players"), "the look comes first"
    page = attachment(mine, ".html")
    assert page is not None and f"t01 (you looked): {words}" in readable(page.decode())


def test_r5_6_the_look_is_said_in_the_seats_language(
        started: tuple[Path, Path, Path]) -> None:
    games, _inbox, _outbox = started
    settings = load_settings(games / "g")
    settings.languages["red"] = "hu"
    save_settings(games / "g", settings)
    out, look = mails_after_a_look(games, "red", "t01")
    assert look is not None
    mine = text_of(next(m for m in out if to_of(m) == ADDRESSES["red"] and m.is_multipart()))
    assert "A Boszorkányod" in mine and face_text(game_of(games), look.token_id, "hu") in mine, mine
    assert "Your Witch saw" not in mine


@pytest.mark.parametrize("token", ["t01", "t02"])
def test_p10_no_other_seats_mail_depends_on_what_the_witch_saw(
        started: tuple[Path, Path, Path], token: str) -> None:
    """Blue's mail is the same, word for word and attachment for attachment, whether red's
    Witch saw nothing, t01 or t02 (each a face hidden from blue)."""
    games, _inbox, _outbox = started
    without, _ = mails_after_a_look(games, "red", None)
    with_look, look = mails_after_a_look(games, "red", token)
    assert look is not None
    blue = [shown(m) for m in without if to_of(m) == ADDRESSES["blue"]]
    assert blue and blue == [shown(m) for m in with_look if to_of(m) == ADDRESSES["blue"]]
    assert look.token_id not in "".join(blue) and look.salt not in "".join(blue)


def turn_mode(games: Path, lang: str = "en") -> None:
    """Every seat mailed by the default mode (one mail a turn), in ``lang``."""
    settings = load_settings(games / "g")
    settings.mail_modes = {seat: "turn" for seat in ("red", "blue")}
    settings.languages = {seat: lang for seat in ("red", "blue")}
    save_settings(games / "g", settings)


def test_r5_6_after_a_look_the_turn_mail_leads_with_the_face(started: tuple[Path, Path, Path]) -> None:
    """R7.5: the look ends the move file, and the same turn goes on in the next: the 'your move'
    mail's subject and first line say what the Witch saw; no narration of the player's own move;
    the page to go on with, packed, and the template: the mail stays under 30 KB."""
    games, _inbox, _outbox = started
    turn_mode(games)
    out, look = mails_after_a_look(games, "red", "t01")
    assert look is not None
    words = face_text(game_of(games), look.token_id)
    mine = next(m for m in out if to_of(m) == ADDRESSES["red"] and "your move" in str(m["Subject"]))
    subject = str(mine["Subject"])
    assert subject.startswith("[rattus g] your move; your Witch saw t01: ") and words[:20] in subject, subject
    first = text_of(mine).split("\n")[0]
    assert first.startswith("Your Witch saw rat t01 (now in ") and f"{look.token_id}, {words} (R5.6)." in first
    assert "Since your last turn" not in text_of(mine) and "after " in text_of(mine)  # the template's header
    assert len(bytes(mine)) <= 30 * 1024, len(bytes(mine))
    page = attachment(mine, ".html")
    assert page is not None and f"t01 (you looked): {words}" in readable(page.decode())


def test_the_turn_mail_says_the_board_in_words_in_the_seats_language(started: tuple[Path, Path, Path]) -> None:
    """A player in a terminal mail client reads the board in the 'your move' mail: each region in
    use with its rats (face down: a count and their public names, P10) and cubes, the plague piece,
    the cards' holders, the cubes on the board and the supplies; in Greek for a Greek seat."""
    games, _inbox, _outbox = started
    turn_mode(games, "el")
    out, _look = mails_after_a_look(games, "red", None)
    game = game_of(games)
    state = game.state
    assert state is not None and state.to_move is not None
    text = text_of(next(m for m in out if to_of(m) == ADDRESSES[state.to_move] and m.is_multipart()))
    from pbem.i18n import Msg, translator

    said = translator("el")
    assert said.say(Msg("The board now:")) in text and said.say(Msg("The board now:")) != "The board now:"
    assert said.say(Msg("{region}  rats: {rats} cubes: {cubes}  <- plague", region="", rats="", cubes="")).split()[-1] \
        in text, text  # the plague piece's mark, in Greek
    for region in state.regions:
        name = translator("el").pgettext("region", region)
        line = next(line for line in text.split("\n") if line.strip().startswith(name + " "))
        rats = state.rats[region]
        assert f": {len(rats)} " in line and all(t in line for t in rats), line
    assert said.say(Msg("cards: {cards}", cards="")) in text and said.say(Msg("cube supply: {cubes}", cubes="")) in text
    assert said.say(Msg("rats left in supply: {left}; flipped: {flipped}", left=len(state.rat_supply),
                        flipped=len(state.flipped))) in text
    faces = host_faces(game, read_secret(games / "g")[0])
    hidden = [faces.face(t).id for r in state.regions for t in state.rats[r]]
    assert not any(face in text for face in hidden)  # no face still hidden (P10)
