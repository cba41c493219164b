"""The lobby by mail refuses, in one paragraph naming the rule, and changes nothing.

Each case is one mail to a small game and the one answer it gets: an unknown game, a full
game, leaving after the opening began (R8.4: resign instead), press where the host turned
it off or made it public only, press from an address that holds no seat, watching twice,
a code confirmed from another address, twice, or too late, a move before every seat is
filled (P4), and ``pbem new --open`` with seats that do not add up.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from clitools import cli, ok
from lobbytools import Host, code_in, confirmed, letter, mails_to, text_of
from mailtools import game_files

from pbem.host.press import read_press
from pbem.host.settings import load_settings

ANN, BO, CY = "ann@one.example", "bo@two.example", "cy@three.example"


def made(tmp: Path, *extra: str) -> Host:
    """Game ``og``: red is the host's friend (an address at 'pbem new'), blue is open."""
    host = Host(tmp)
    ok("new", "og", "--players", "red,blue", "--seat-email", f"red={ANN}", "--open", "1", "--games", host.games, *extra)
    return host


def refused(host: Host, sender: str, subject: str, text: str = "") -> str:
    """The one answer to one mail, which must change no game file; its text."""
    before = game_files(host.games)
    host.send(letter(sender, subject, text))
    out, got = host.run()
    assert "refused:" in out, out
    assert game_files(host.games) == before
    mine = mails_to(got, sender)
    assert len(mine) == 1 and len(got) == 1, [str(m["Subject"]) for m in got]
    said = text_of(mine[0])
    assert said.startswith("Your message was not applied; nothing was changed.\n\npbem: "), said
    return said


def test_join_an_unknown_game(tmp_path: Path) -> None:
    said = refused(made(tmp_path), BO, "join nosuch")
    assert "no game 'nosuch' on this host" in said and "(P1)" in said


def test_join_a_full_game_is_refused_by_r2(tmp_path: Path) -> None:
    host = made(tmp_path)
    confirmed(host, BO, "join")
    said = refused(host, CY, "join og")
    assert "game og has no open seat: every seat is taken" in said and "R2" in said


def test_a_seat_holder_cannot_join_twice(tmp_path: Path) -> None:
    said = refused(made(tmp_path), ANN, "join og")
    assert "already holds seat red of game og" in said


def test_leave_after_the_opening_began_says_resign(tmp_path: Path) -> None:
    host = made(tmp_path)
    confirmed(host, BO, "join")
    said = refused(host, BO, "leave og")
    assert "its opening (P4) has begun" in said and "resigns (R8.4)" in said


def test_leave_before_the_start_opens_the_seat_again(tmp_path: Path) -> None:
    host = Host(tmp_path)
    ok("new", "og", "--open", "3", "--games", host.games)
    confirmed(host, BO, "join")
    assert load_settings(host.games / "og").emails == {"red": BO}
    out, _got = confirmed(host, BO, "leave")
    assert "answered: confirm" in out
    assert load_settings(host.games / "og").waiting() == ["red", "green", "blue"]


def test_press_when_the_host_turned_it_off(tmp_path: Path) -> None:
    said = refused(made(tmp_path, "--press", "off"), ANN, "press all", "Hello.")
    assert "turned press off in game og" in said and "(P1)" in said


def test_press_to_one_seat_when_press_is_public(tmp_path: Path) -> None:
    host = made(tmp_path, "--press", "public")
    confirmed(host, BO, "join")
    said = refused(host, ANN, "press blue", "Psst.")
    assert "press in game og is public only: send 'press all'" in said
    assert read_press(host.games / "og") == []


def test_press_from_an_address_with_no_seat(tmp_path: Path) -> None:
    said = refused(made(tmp_path), CY, "[rattus og] press all", "Let me in.")
    assert "holds no seat of game 'og': only a game's players send press" in said
    assert said.count("\n\n") <= 2  # one paragraph, after the opening line


def test_press_forged_in_a_seats_name_is_shown_to_that_seat_at_its_own_address(tmp_path: Path) -> None:
    """Press is not signed, so a From forged as red's address is relayed as red's; but the answer
    goes to red's own address with the text that was sent in red's name, so red learns of it."""
    host = made(tmp_path)
    confirmed(host, BO, "join")
    host.send(letter(ANN, "press all", "Blue is cheating, everybody gang up on blue."))  # the forger writes as ann
    out, got = host.run()
    assert "answered: press" in out, out
    to_red = mails_to(got, ANN)
    assert len(to_red) == 1
    said = text_of(to_red[0])
    assert "Your press (number 1 of game og) is kept and goes to blue" in said
    assert "Blue is cheating, everybody gang up on blue." in said
    assert "If you did not send it, someone wrote in your name" in said
    assert [p.sender for p in read_press(host.games / "og")] == ["red"]


def test_press_to_a_seat_that_is_not_in_the_game(tmp_path: Path) -> None:
    said = refused(made(tmp_path), ANN, "press green", "Hi.")
    assert "green is not another seat of game og (red, blue)" in said


def test_watch_twice(tmp_path: Path) -> None:
    host = made(tmp_path)
    confirmed(host, CY, "watch")
    assert load_settings(host.games / "og").watchers == {CY: "en"}
    said = refused(host, CY, "watch og")
    assert "already watches game og" in said


def test_unwatch_what_one_does_not_watch(tmp_path: Path) -> None:
    said = refused(made(tmp_path), CY, "unwatch og")
    assert "does not watch game og" in said


def _code(host: Host, sender: str, subject: str) -> str:
    host.send(letter(sender, subject))
    _out, got = host.run()
    return code_in(mails_to(got, sender)[0])


def test_a_code_works_from_its_own_address_once(tmp_path: Path) -> None:
    host = made(tmp_path)
    code = _code(host, BO, "join og")
    said = refused(host, CY, "Re: [rattus og] confirm join", f"confirm {code}")  # the code is not CY's
    assert "only from the address it was mailed to" in said
    host.send(letter(BO, "Re: [rattus og] confirm join", f"confirm {code}"))  # BO's is still good
    host.run()
    assert load_settings(host.games / "og").emails["blue"] == BO
    code = _code(host, CY, "watch og")
    host.send(letter(CY, "Re: [rattus og] confirm watch", f"confirm {code}"))
    host.run()
    said = refused(host, CY, "Re: [rattus og] confirm watch", f"confirm {code}")  # used up
    assert "no join, leave or watch awaits this code" in said


def test_a_guessed_code_seats_nobody(tmp_path: Path) -> None:
    host = made(tmp_path)
    _code(host, BO, "join og")
    said = refused(host, CY, "confirm", "confirm ABCDEFGHIJKLMNOP")
    assert "no join, leave or watch awaits this code" in said
    assert load_settings(host.games / "og").waiting() == ["blue"]


def test_a_code_expires(tmp_path: Path) -> None:
    host = made(tmp_path)
    code = _code(host, BO, "join og")
    host.hours += 24
    host.send(letter(BO, "Re: [rattus og] confirm join", f"confirm {code}"))
    out, got = host.run()
    assert "this code has expired (a code lasts 24 hours)" in text_of(mails_to(got, BO)[0]), out
    assert load_settings(host.games / "og").waiting() == ["blue"]


def test_no_move_before_every_seat_is_filled(tmp_path: Path) -> None:
    host = made(tmp_path)
    move = tmp_path / "commit.yaml"
    ok("nonce", host.games / "og" / "log.yaml", "--player", "red", "--out", move, "--keep", tmp_path / "nonce")
    result = cli("apply", move, "--games", host.games)
    assert result.exit_code != 0 and "waiting for players (1 open seat left)" in result.stderr
    assert "(P4)" in result.stderr


@pytest.mark.parametrize("args", [["--players", "red,blue", "--open", "2", "--seat-email", f"red={ANN}"],
                                  ["--open", "1"]])
def test_open_seats_that_do_not_add_up(tmp_path: Path, args: list[str]) -> None:
    result = cli("new", "og", *args, "--games", tmp_path / "games")
    assert result.exit_code != 0 and not (tmp_path / "games" / "og").exists()
    assert result.stderr.count("\n") == 1 and ("--open 2" in result.stderr or "2 to 4 players" in result.stderr)


def test_games_lists_the_open_games_and_the_senders_own(tmp_path: Path) -> None:
    host = made(tmp_path, "--press", "public")
    ok("new", "full", "--players", "red,blue", "--seat-email", f"red={ANN}", "--seat-email", f"blue={BO}", "--games", host.games)
    host.send(letter(ANN, "games"))
    _out, got = host.run()  # the new game's invitation goes to ANN too: the answer is told apart by its subject
    said = text_of(next(m for m in mails_to(got, ANN) if "your games and the open games" in str(m["Subject"])))
    assert "og: 1 of 2 seats open; no deadline; its players read en; press: public" in said
    assert "full (your seat: red): the opening (P4): your part is awaited" in said
    assert "og (your seat: red): waiting for players" in said


def test_a_stranger_joins_in_ukrainian_and_reads_it_from_then_on(tmp_path: Path) -> None:
    host = made(tmp_path)
    host.send(letter(BO, "join og uk"))
    _out, got = host.run()
    code_mail = mails_to(got, BO)[0]
    assert "Хтось із цієї адреси попросив приєднатися до гри og" in text_of(code_mail)
    host.send(letter(BO, "Re: [rattus og] confirm join", f"confirm {code_in(code_mail)}"))
    _out, got = host.run()
    seated = [text_of(m) for m in mails_to(got, BO)]  # with the opening's first mail, in no set order
    assert any("Місце blue у грі og — ваше, і тепер усі місця зайнято" in text for text in seated), seated
    assert load_settings(host.games / "og").language("blue") == "uk"
    host.send(letter(ANN, "press blue", "Szia!"))
    _out, got = host.run()
    relayed = [m for m in mails_to(got, BO) if "Szia!" in text_of(m)]
    assert len(relayed) == 1
    assert text_of(relayed[0]).startswith("Повідомлення від red (гравця, не ведучого) лише для вас у грі og")
    assert str(relayed[0]["Subject"]) == "[rattus og] press red"  # a plain Reply answers red alone


def test_press_to_a_digest_seat_waits_for_its_daily_summary(tmp_path: Path) -> None:
    host = made(tmp_path, "--mail", "digest")
    confirmed(host, BO, "join")
    host.send(letter(ANN, "press blue", "First word."))
    _out, got = host.run()  # blue had no summary yet: this one tells the press
    assert [m for m in mails_to(got, BO) if "First word." in text_of(m)]
    host.send(letter(ANN, "press all", "Second word."))
    _out, got = host.run()
    assert not [m for m in mails_to(got, BO) if "Second word." in text_of(m)]  # not at once: in the summary
    _out, got = host.run(hours=24)
    summary = [m for m in mails_to(got, BO) if "Second word." in text_of(m)]
    assert len(summary) == 1 and "summary" in str(summary[0]["Subject"])
    assert "First word." not in text_of(summary[0])  # each press told once


def test_serve_announces_the_open_games_when_they_change(tmp_path: Path) -> None:
    from pbem.mail.serve import Server

    host = made(tmp_path)
    said: list[str] = []
    server = Server(host.games, host.inbox, None, host.outbox, None, "rattus@host.example", 0.01, said.append)
    server.serve(rounds=2)
    assert said.count("pbem serve: open game og: 1 seat(s) open (blue); a mail 'join og' takes one") == 1, said
    confirmed(host, BO, "join")
    server.serve(rounds=1)
    assert said[-2] == "pbem serve: no open game now", said


def test_join_alone_takes_a_seat_in_the_first_open_game(tmp_path: Path) -> None:
    host = made(tmp_path)
    ok("new", "full", "--players", "red,blue", "--seat-email", f"red={CY}", "--seat-email", f"blue={BO}", "--games", host.games)
    host.send(letter(BO, "join"))
    _out, got = host.run()
    subjects = [str(m["Subject"]) for m in mails_to(got, BO)]  # with game full's invitation, in no set order
    assert "[rattus og] confirm join" in subjects, subjects
    code_mail = next(m for m in mails_to(got, BO) if str(m["Subject"]) == "[rattus og] confirm join")
    host.send(letter(BO, "Re: [rattus og] confirm join", f"confirm {code_in(code_mail)}"))
    host.run()
    assert load_settings(host.games / "og").emails == {"red": ANN, "blue": BO}


def test_join_alone_when_no_game_is_open(tmp_path: Path) -> None:
    host = Host(tmp_path)
    ok("new", "full", "--players", "red,blue", "--seat-email", f"red={ANN}", "--seat-email", f"blue={BO}", "--games", host.games)
    host.run()  # the game's invitations
    said = refused(host, CY, "join")
    assert "no game on this host has an open seat now" in said


def test_list_says_which_seats_wait_and_misses_no_mail_for_them(tmp_path: Path) -> None:
    host = Host(tmp_path)
    ok("new", "og", "--open", "3", "--games", host.games)
    confirmed(host, BO, "join")
    (host.games / "+mail-queue").mkdir(exist_ok=True)
    out = ok("list", "--games", host.games)
    assert "og: waiting for players, 2 open seat(s) (green, blue); a mail 'join og' takes one" in out
    assert "no mail in flight" not in out  # nobody is mailed before the game is full


def test_forged_joins_from_many_addresses_mail_at_most_the_games_hourly_codes(tmp_path: Path) -> None:
    """A forger writes 'join og' "from" 70 addresses no game lists: the host mails at most
    STRANGERS_PER_GAME codes among them all in the hour (each address its own too), and the
    seat's holder, an address the game lists, is still answered."""
    from pbem.mail.ratelimit import STRANGERS_PER_GAME

    host = made(tmp_path)
    host.send(*(letter(f"victim{i}@far.example", "join og") for i in range(70)))
    _out, got = host.run()
    assert len(got) == STRANGERS_PER_GAME
    assert load_settings(host.games / "og").waiting() == ["blue"]  # nobody seated
    host.send(letter(ANN, "games"))
    _out, got = host.run()
    assert len(mails_to(got, ANN)) == 1


def test_strangers_to_many_games_are_answered_at_most_the_hosts_hourly_ceiling(tmp_path: Path) -> None:
    """Forged Froms spread over seven games, ten each: every game's budget allows its ten, and
    the host's ceiling, STRANGERS_PER_HOUR for all strangers together, stops the rest."""
    from pbem.mail.ratelimit import STRANGERS_PER_GAME, STRANGERS_PER_HOUR, within

    asked = [within(tmp_path, f"victim{i}@far.example", stranger=True, game=f"g{i % 7}") for i in range(70)]
    assert STRANGERS_PER_GAME * 7 > STRANGERS_PER_HOUR == asked.count(True) and asked[-1] is False


@pytest.mark.parametrize(("lang", "asked", "done"), [
    ("uk", "[rattus og] підтвердження: приєднання", "[rattus og] місце ваше"),
    ("el", "[rattus og] επιβεβαίωση: συμμετοχή", "[rattus og] η θέση είναι δική σου")])
def test_a_join_in_another_language_is_answered_with_subjects_in_that_language(tmp_path: Path, lang: str, asked: str,
                                                                                done: str) -> None:
    """'join og uk' from a stranger: the code mail's subject and the welcome's are in Ukrainian
    (no English 'confirm join' over a Ukrainian body), and a plain Reply to the code mail, which
    carries that subject back, from an address the host does not know yet, still takes the seat."""
    host = made(tmp_path)
    host.send(letter(BO, f"join og {lang}"))
    _out, got = host.run()
    code_mail = mails_to(got, BO)[0]
    assert str(code_mail["Subject"]) == asked
    host.send(letter(BO, "Re: " + str(code_mail["Subject"]), f"confirm {code_in(code_mail)}\n",
                     reply_to=str(code_mail["Message-ID"])))
    _out, more = host.run()
    assert [str(m["Subject"]) for m in mails_to(more, BO)][:1] == [done], [m["Subject"] for m in more]
    assert BO in load_settings(host.games / "og").emails.values()


def test_a_press_without_text_or_too_long_cites_the_rule_on_text_not_the_roles() -> None:
    """A press is text as the log's text is (P2: printable Unicode, a length cap); its refusals
    cite P2, not P1 (who holds the secret and what each party must trust)."""
    from pbem.errors import FormatError
    from pbem.host.press import TEXT_LIMIT, clean

    for text in ("\n  \n", "x" * (TEXT_LIMIT + 1)):
        with pytest.raises(FormatError) as refused_:
            clean(text)
        assert refused_.value.rule == "P2", refused_.value
