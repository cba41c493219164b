"""Forged mail against press and the lobby, each as the forger would send it, then closed.

* Press "from" a seat that holds a key (P8), imitating the host during the opening: held, its
  code mailed to the seat's own address; relayed only once confirmed from there (or signed
  with the seat's key, once), framed as a player's quoted words; a plain Reply to it goes to
  its sender alone, never to every seat.
* Private press that waits for a digest seat's daily summary: its player leaves and a
  stranger takes the seat; the stranger's summaries never tell it (the player who left is
  given it with the leave's answer); a summary an older pbem kept under the seat alone
  becomes its holder's.
* 64 forged ``join`` mails from 64 made-up addresses to one game: a real stranger's held join
  to that game still confirms, and a new stranger to another game still gets a code.
"""

from __future__ import annotations

from pathlib import Path

from clitools import cli, ok
from lobbytools import Host, code_in, confirmed, letter, mails_to, text_of

from pbem.host.press import read_press
from pbem.host.settings import load_settings
from pbem.mail.ratelimit import STRANGERS_PER_GAME

ANN, BO, CY, DI = "ann@one.example", "bo@two.example", "cy@three.example", "di@four.example"
PHISH = ("pbem: the host lost your secret number for game og.\n"
         "Reply to this mail with your five words, or the game is abandoned.\n-- the host")


def keyed_table(tmp: Path) -> Host:
    """Game ``og``, full, in its opening (P4): red holds a key (P8), blue and green none."""
    host = Host(tmp)
    ok("keygen", "--out", tmp / "red.key")
    ok("new", "og", "--players", "red,blue,green", "--seat-email", f"red={ANN}", "--seat-email", f"blue={BO}",
       "--seat-email", f"green={CY}", "--seat-key", f"red={tmp / 'red.key.pub'}", "--games", host.games)
    host.run()  # the opening's first mails
    return host


def test_press_forged_in_a_keyed_seats_name_is_held_for_the_seats_own_code(tmp_path: Path) -> None:
    host = keyed_table(tmp_path)
    host.send(letter(ANN, "press all", PHISH))  # the forger writes "from" red's address
    out, got = host.run()
    assert "answered: press" in out, out
    assert mails_to(got, BO) == [] and mails_to(got, CY) == []  # nothing relayed
    assert read_press(host.games / "og") == []  # nothing kept
    (notice,) = mails_to(got, ANN)  # red's own address reads what came in its name, and the code
    said = text_of(notice)
    assert "Press in the name of seat red of game og arrived, for every seat" in said
    assert "> Reply to this mail with your five words" in said
    assert "If you did not send it, do not reply: nothing is relayed" in said
    host.send(letter(BO, "Re: [rattus og] confirm press", f"confirm {code_in(notice)}"))  # the code from blue
    out, got = host.run()
    assert "press in red's name is confirmed only from red's address" in out, out
    assert read_press(host.games / "og") == [] and mails_to(got, CY) == []


def test_confirmed_press_is_framed_as_a_players_words_and_a_reply_goes_to_its_sender_alone(tmp_path: Path) -> None:
    host = keyed_table(tmp_path)
    host.send(letter(ANN, "press all", PHISH))
    _out, got = host.run()
    (notice,) = mails_to(got, ANN)
    host.send(letter(ANN, "Re: [rattus og] confirm press", f"confirm {code_in(notice)}"))  # red's own, confirmed
    _out, got = host.run()
    assert [(p.sender, p.to) for p in read_press(host.games / "og")] == [("red", ("all",))]
    (relayed,) = mails_to(got, BO)
    text = text_of(relayed)
    lines = text.split("\n")
    assert lines[0].startswith("Press from red (a player, not the host) to every seat of game og"), text
    assert "the host wrote none of them" in lines[0]
    body = lines[lines.index("> pbem: the host lost your secret number for game og."):]
    assert body[:3] == ["> pbem: the host lost your secret number for game og.",
                        "> Reply to this mail with your five words, or the game is abandoned.", "> -- the host"]
    assert not any(line.startswith(("pbem:", "Reply to this mail", "-- the host")) for line in lines)
    assert "A plain Reply goes to red alone, never to every seat" in text
    assert str(relayed["Subject"]) == "[rattus og] press red"
    # blue falls for it and replies: the words go to red alone, not to green
    host.send(letter(BO, "Re: " + str(relayed["Subject"]), "apple river stone cloud lamp\n\n> " + lines[0],
                     reply_to=str(relayed["Message-ID"])))
    _out, got = host.run()
    assert [(p.sender, p.to) for p in read_press(host.games / "og")][1:] == [("blue", ("red",))]
    assert not [m for m in mails_to(got, CY) if "apple river" in text_of(m)]
    assert [m for m in mails_to(got, ANN) if "apple river" in text_of(m)]
    code = code_in(notice)
    host.send(letter(ANN, "Re: [rattus og] confirm press", f"confirm {code}"))  # a code is used once
    out, _got = host.run()
    assert "refused:" in out and "awaits this code" in out, out
    assert len(read_press(host.games / "og")) == 2


def test_press_signed_with_the_seats_key_is_relayed_at_once_and_once(tmp_path: Path) -> None:
    """P8: red signs its press ('pbem sign-press'); the host relays it with no code mail. The
    same press sent again (its lines wrapped anew by a mail client), or its words changed under
    the signature, relays nothing."""
    host = keyed_table(tmp_path)
    words = tmp_path / "press.txt"
    words.write_text("Blue, shall we share the north?\nI take Paris, you take Lyon.\n")
    made = cli("sign-press", words, "--key", tmp_path / "red.key", "--game", "og", "--seat", "red", "--to", "all")
    assert made.exit_code == 0 and "mail the text above, its last line too" in made.stderr
    signed = made.stdout
    assert signed.splitlines()[-1].startswith("sig ")
    host.send(letter(ANN, "[rattus og] press all", signed))
    _out, got = host.run()
    for reader in (BO, CY):
        (relayed,) = mails_to(got, reader)
        assert "> I take Paris, you take Lyon." in text_of(relayed) and "sig " not in text_of(relayed)
    assert [p.text for p in read_press(host.games / "og")] == ["Blue, shall we share the north?\nI take Paris, you "
                                                               "take Lyon."]
    assert "north?\nI take" in signed
    host.send(letter(ANN, "[rattus og] press all", signed.replace("north?\nI take", "north? I take")))  # rewrapped
    out, got = host.run()
    assert "this signed press was relayed before (number 1 of game og)" in out, out
    host.send(letter(ANN, "[rattus og] press all", signed.replace("Paris", "Nice")))  # the words changed
    out, got = host.run()
    assert "the press is signed, but not with red's key" in out, out
    assert mails_to(got, BO) == [] and len(read_press(host.games / "og")) == 1


def test_a_seats_next_holder_never_reads_the_press_that_waited_for_its_player(tmp_path: Path) -> None:
    host = Host(tmp_path)
    ok("new", "og", "--players", "red,blue,green", "--seat-email", f"red={ANN}", "--open", "2", "--mail", "digest",
       "--games", host.games)
    confirmed(host, CY, "join")
    seat = load_settings(host.games / "og").players_of(CY)[0]
    host.send(letter(ANN, "press all", "Welcome, everyone."))
    _out, got = host.run()  # CY's first summary: it tells the welcome at once
    assert [m for m in mails_to(got, CY) if "Welcome, everyone." in text_of(m)]
    host.send(letter(ANN, f"press {seat}", "Between us: I will attack blue's cities first."))
    _out, got = host.run()  # within the day: it waits for CY's next summary
    assert not [m for m in mails_to(got, CY) if "Between us" in text_of(m)]
    _out, got = confirmed(host, CY, "leave")  # CY leaves before the summary; the leave's answer gives it
    left = [text_of(m) for m in mails_to(got, CY) if "You left game og" in text_of(m)]
    _out, got = confirmed(host, DI, "join")
    assert load_settings(host.games / "og").players_of(DI) == [seat]  # the stranger holds CY's old seat
    host.send(letter(ANN, "press all", "Hello to the newcomer."))
    later: list[str] = []
    for hours in (1, 25, 49):
        _out, more = host.run(hours)
        later += [text_of(m) for m in mails_to(got + more, DI)]
        got = []
    summary = next(text for text in later if "Hello to the newcomer." in text)  # DI's summaries do come
    assert "each the words of the seat that sent it (a player, not the host)" in summary
    assert "\n    > Hello to the newcomer.\n" in summary  # quoted, as every relayed press is
    assert not any("Between us" in text for text in later), later
    assert len(left) == 1 and "> Between us: I will attack blue's cities first." in left[0], left  # to CY, who left


def test_64_forged_joins_neither_evict_a_real_join_nor_shut_the_lobby_of_another_game(tmp_path: Path) -> None:
    host = Host(tmp_path)
    ok("new", "og", "--players", "red,blue,green", "--seat-email", f"red={ANN}", "--open", "2", "--games", host.games)
    ok("new", "ob", "--players", "red,blue", "--seat-email", f"red={ANN}", "--open", "1", "--games", host.games)
    host.send(letter(BO, "join og"))
    _out, got = host.run()
    (code_mail,) = mails_to(got, BO)
    host.send(*(letter(f"made-up{i}@nowhere{i}.example", "join og") for i in range(64)))
    flood, got = host.run()
    answered = len(got)
    host.send(letter(BO, "Re: [rattus og] confirm join", f"confirm {code_in(code_mail)}"),
              letter(CY, "join ob"))
    _out, got = host.run()
    assert load_settings(host.games / "og").players_of(BO) == ["blue"]  # her held join still confirms
    assert [str(m["Subject"]) for m in mails_to(got, CY)] == ["[rattus ob] confirm join"]  # answered
    assert answered == STRANGERS_PER_GAME  # og's budget of answers to strangers in the hour; no more
    assert "already holds 16 'join' requests awaiting their codes" in flood, flood  # held no more


def test_a_summary_kept_under_the_seat_alone_goes_on_for_its_holder(tmp_path: Path) -> None:
    """A games folder from before summaries were kept by holder: the seat's line becomes its
    holder's, so the holder's next summary still waits its day and tells nothing twice."""
    host = Host(tmp_path)
    ok("new", "og", "--players", "red,blue", "--seat-email", f"red={ANN}", "--open", "1", "--mail", "digest",
       "--games", host.games)
    confirmed(host, BO, "join")
    host.send(letter(ANN, "press all", "Told before the upgrade."))
    host.run()
    digest = host.games / "og" / "mail-digest.txt"
    (line,) = [ln for ln in digest.read_text().splitlines() if ln.startswith("blue:")]
    digest.write_text("blue " + line.split(" ", 1)[1] + "\n")  # the older form: the seat alone
    host.send(letter(ANN, "press all", "Said after it."))
    _out, got = host.run()
    assert not [m for m in mails_to(got, BO) if "summary" in str(m["Subject"])]  # not due yet: the day goes on
    _out, got = host.run(24)
    (summary,) = [text_of(m) for m in mails_to(got, BO) if "summary" in str(m["Subject"])]
    assert "Said after it." in summary and "Told before the upgrade." not in summary
    assert [ln.split()[0] for ln in digest.read_text().splitlines()] == [f"blue:{BO}"]
