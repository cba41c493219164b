"""The mail host's words — subjects that name each entry for what it is,
unfolded ASCII subjects, the first move's invitation, the rule a malformed mail cites, and
a duplicate answered as the applied move it is."""

from __future__ import annotations

from email import policy
from email.parser import BytesParser
from pathlib import Path

from clitools import ok
from mailtools import (
    ADDRESSES,
    HOST,
    attachment,
    commit,
    deliver,
    eml,
    load_log,
    plain,
    replies,
    reveal,
    setup_game,
    to_of,
)

from pbem.log.yamlio import dump_yaml
from pbem.mail.outbox import Queue
from pbem.mail.replies import compose


def mail_args(games: Path, inbox: Path, outbox: Path) -> tuple[str | Path, ...]:
    return ("mail", "--inbox", inbox, "--outbox", outbox, "--games", games, "--from", HOST)


def test_the_start_mail_names_the_mover_and_the_hosts_start_entry(tmp_path: Path) -> None:
    games, inbox = setup_game(tmp_path, key_for_red=False)
    outbox = tmp_path / "outbox"
    for step in (commit, reveal):
        for player, address in ADDRESSES.items():
            deliver(inbox, eml(address, step(games, player)))
            ok(*mail_args(games, inbox, outbox))
    game = load_log(games)
    assert game.started
    start = game.last_seq
    subjects = {str(m["Subject"]) for m in replies(outbox) if f"entry {start}" in str(m["Subject"])}
    assert subjects and all(f"entry {start - 1}: blue; entry {start}: the game starts" in s for s in subjects)
    assert any(s.startswith("[rattus g] your move (") and s.endswith(f"entry {start}: the game starts")
               for s in subjects), subjects
    assert not any(f"entry {start}: blue" in s for s in subjects)


def test_an_ascii_subject_is_written_on_one_line_and_a_non_ascii_one_folds_cleanly(tmp_path: Path) -> None:
    queue = Queue(tmp_path / "q")
    long_ascii = "[pbem spring-1347] entry 6: blue; entry 7: the game starts; your move, red; " + "x " * 30
    accented = "Re: " + "é" * 60 + " and more words " * 4
    queue.put("b", "k", [compose(HOST, ADDRESSES["red"], s, "text", f"<{i}@host.example>")
                         for i, s in enumerate((long_ascii, accented))])
    for path, subject in zip(sorted((tmp_path / "q" / "b").glob("*.eml")), (long_ascii, accented), strict=True):
        head = path.read_bytes().split(b"\r\n\r\n")[0].split(b"\r\n")
        at = next(i for i, line in enumerate(head) if line.startswith(b"Subject:"))
        if subject.isascii():
            assert not head[at + 1].startswith((b" ", b"\t"))  # no fold at all
        assert all(len(line) <= 998 for line in head)
        assert head[at] != b"Subject:" and head[at] != b"Subject: "  # never an empty first line
        parsed = BytesParser(policy=policy.default).parsebytes(path.read_bytes())
        assert str(parsed["Subject"]) == " ".join(subject.split())


def test_the_first_move_invitation_speaks_of_the_move_not_the_nonce(tmp_path: Path) -> None:
    """A game started without mail (its opening applied from files): its first move's
    invitation says it is your move, and attaches the move template."""
    games, inbox = setup_game(tmp_path, key_for_red=False)
    outbox = tmp_path / "outbox"
    for step in (commit, reveal):
        for player in ADDRESSES:
            path = tmp_path / f"{player}-{step.__name__}.yaml"
            path.write_text(dump_yaml(step(games, player)))
            ok("apply", path, "--games", games)
    assert load_log(games).started
    ok(*mail_args(games, inbox, outbox))
    got = [m for m in replies(outbox) if str(m["Subject"]).startswith("[rattus g] your move (")]
    assert len(got) == 1 and to_of(got[0]) == ADDRESSES["red"]
    text = plain(got[0])
    assert text.startswith("It is your move.") and "nonce" not in text.split("\n\n")[0]
    data = attachment(got[0], "-red.txt")
    assert data is not None and "game g red\n" in data.decode() and "# place REGION 2 (R2.5)" in data.decode()


def test_an_html_only_mail_and_an_empty_field_cite_the_file_format_rule(tmp_path: Path) -> None:
    games, inbox = setup_game(tmp_path, key_for_red=False)
    outbox = tmp_path / "outbox"
    html = (f"From: {ADDRESSES['red']}\r\nTo: {HOST}\r\nSubject: move\r\nMessage-ID: <h@example.org>\r\n"
            "MIME-Version: 1.0\r\nContent-Type: text/html; charset=utf-8\r\n\r\n<p>game: g</p>\r\n").encode()
    deliver(inbox, html)
    empty = commit(games, "blue")
    empty["nonce_commitment"] = ""
    deliver(inbox, eml(ADDRESSES["blue"], empty))
    out = ok(*mail_args(games, inbox, outbox))
    assert out.count("(P2)") == 2 and "(P7)" not in out, out
    bodies = {to_of(m): plain(m) for m in replies(outbox)
              if "Re: " in str(m["Subject"])}
    assert "(P2)" in bodies[ADDRESSES["red"]] and "plain-text" in bodies[ADDRESSES["red"]]
    assert "(P2)" in bodies[ADDRESSES["blue"]] and "is empty" in bodies[ADDRESSES["blue"]]
    assert "hash chain" not in "".join(bodies.values())


def test_a_duplicate_is_answered_as_already_applied(tmp_path: Path) -> None:
    games, inbox = setup_game(tmp_path, key_for_red=False)
    outbox = tmp_path / "outbox"
    message = eml(ADDRESSES["red"], commit(games, "red"))
    deliver(inbox, message)
    ok(*mail_args(games, inbox, outbox))
    seen = {str(m["Message-ID"]) for m in replies(outbox)}
    deliver(inbox, message)
    out = ok(*mail_args(games, inbox, outbox))
    assert "already applied" in out
    again = [m for m in replies(outbox) if str(m["Message-ID"]) not in seen]
    assert [to_of(m) for m in again] == [ADDRESSES["red"]]
    text = plain(again[0])
    assert text.startswith("Your move was already applied, as entry 1; this copy of it changed nothing.")
    assert "not applied" not in text
