"""Every mail to a seat is in that seat's language (helper D's part: the mails).

A whole 3-player game by mail through the host, one seat in Hungarian, one in Greek and one
in Ukrainian (``pbem new --lang``), on a test clock so that a reminder and a timeout notice
go out too; every seat also asks by mail for the board, the history, the log, a rule and its
template, sends a bad command, a stale move and a hostile message; the Greek seat registers a
key at its commitment, so its confirmation mail goes out.  The players act only on what they
are mailed (tests/mailgame.py), reading templates by their file names and the notation's
keywords, never by English words.

:func:`mails_of_a_three_language_game` returns every mail each seat received, and
``test_every_mail_of_the_game_holds_no_english`` holds each one's whole text (subject, body,
templates) to having no English sentence.  The mail modules' own paragraphs are also checked
apart (the views inside the mails marked off between ``⟪`` and ``⟫`` while the game is
played), against the English each of them used to write.
"""

from __future__ import annotations

import contextlib
import gzip
import mailbox
import re
from collections.abc import Callable, Iterator, Sequence
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser
from email.utils import parseaddr
from pathlib import Path
from typing import Any

import pytest
from clitools import cli, ok
from endtools import take
from english import english_lines
from mailgame import HOST, THREE, Table, attachments, player_mail, read_game, template_move
from mailhostile import raw_mail
from mailtools import signed

from pbem.bots.randombot import bot_actions
from pbem.errors import Exit
from pbem.fair import protocol
from pbem.host.keyconfirm import Held, confirm_text
from pbem.i18n import Msg, translator
from pbem.log.clock import at_of, pinned, seconds
from pbem.log.yamlio import dump_yaml
from pbem.mail import replies
from pbem.player.signfile import confirm_line

LANGS = {"red": "hu", "green": "el", "blue": "uk"}
T0 = "2026-12-01T08:00:00Z"
KEYED = "green"  # registers a key with its commitment: the key confirmation mail, in Greek

# what the host writes, in English (its own paragraphs and subjects): none may reach a seat
ENGLISH_OWN = (
    "It is your move.", "The public log is attached", "Your part of the opening", "Or open the attached page",
    "No page is attached", "Your move was accepted", "For your eyes only", "Reminder (R8.1)", "Your move file:",
    "Game g is over", "Final scores", "The host's secret", "With it anyone", "The host's audit", "Check it yourself",
    "Your message was not applied", "Your move was applied", "Reference: ", "a nonce commitment for seat",
    "It is recorded only once", "If you did not send it", "Mail commands:", "From now on pbem writes",
    "has moved on", "wins", "round 1 of 2", "round 2 of 2", "your move", "the game starts", "timed out",
    "the stand-in played", "your template", "the board after", "the history", "the log, ", "the end: ",
    "confirm the key", "kept by the host", "private to",
)


# --- the players: they read what they are mailed, by file names and keywords ----------------

class Players(Table):
    """tests/mailgame.py's players, who find the kind of a template by its file name (not by
    its English title), the last mail by its attached log, and sign their moves once keyed."""

    def __init__(self, tmp: Path) -> None:
        super().__init__(THREE, seed=11)
        self.tmp = tmp
        self.keys: dict[str, Path] = {}
        self.codes: dict[str, str] = {}  # a one-time code each seat was mailed (P8), to confirm
        self.hold: set[str] = set()  # seats that do not answer now (their deadline runs)

    def receive(self, messages: list[EmailMessage]) -> None:
        for msg in messages:
            seat = self.seat_of(msg)
            seat.got.append(msg)
            files = attachments(msg)
            names = [part.get_filename() or "" for part in msg.iter_attachments()]
            if "log.yaml" in files and (seat.log is None or len(files["log.yaml"]) >= len(seat.log)):
                seat.log = files["log.yaml"]
            if "log.yaml.gz" in names and msg["In-Reply-To"] is None:  # the last mail: the final log, unasked
                seat.final = msg
            code = re.search(r"^ {4}pbem confirm ([A-Z2-7]{16}) --key YOUR\.key$", body(msg), re.MULTILINE)
            if code is not None:
                self.codes[seat.player] = code.group(1)
            for name, data in files.items():
                if name.endswith(f"-{seat.player}.txt"):
                    found = template_move(data.decode())
                    if found is not None:
                        found["kind"] = ("commit" if name.endswith(f"-commit-{seat.player}.txt") else
                                         "nonce" if name.endswith(f"-reveal-{seat.player}.txt") else "move")
                    seat.template = found

    def answers(self) -> list[bytes]:
        out = []
        for player, code in sorted(self.codes.items()):
            line, _key = confirm_line(code, self.keys[player])  # signed with the key it registers (P8)
            out.append(player_mail(self.seats[player].address, line, subject="Re: pbem"))
        self.codes.clear()
        for seat in self.seats.values():
            if seat.player in self.hold:
                continue
            data, seat.template = seat.template, None
            if not isinstance(data, dict):
                continue
            if data["kind"] == "commit":
                data["nonce_commitment"] = protocol.nonce_commitment(seat.nonce)
                if seat.player == KEYED:
                    ok("keygen", "--out", self.tmp / f"{seat.player}.key")
                    self.keys[seat.player] = self.tmp / f"{seat.player}.key"
                    data["key"] = (self.tmp / f"{seat.player}.key.pub").read_text().strip()
            elif data["kind"] == "nonce":
                data["nonce"] = seat.nonce.hex()
            else:
                game = read_game(seat.log) if seat.log is not None else None
                if game is None or game.last_seq < data["after"]["seq"]:
                    seat.template = data
                    out.append(player_mail(seat.address, "log", subject="log"))
                    continue
                if game.last_seq > data["after"]["seq"]:
                    out.append(player_mail(seat.address, "template", subject="template"))
                    continue
                assert game.state is not None
                if game.state.to_move != seat.player:
                    continue
                data["actions"] = [a.to_dict() for a in bot_actions(game.state, self.rng)]
            key = self.keys.get(seat.player)
            out.append(player_mail(seat.address, signed(data, key, self.tmp) if key else dump_yaml(data)))
        return out


def body(msg: EmailMessage) -> str:
    part = msg.get_body(("plain",))
    assert isinstance(part, EmailMessage)
    return str(part.get_content()).replace("\r\n", "\n")  # as delivered: SMTP's line ends


@contextlib.contextmanager
def quick_mails() -> Iterator[None]:
    """No picture (not text) and a tiny stand-in for the composer page (a view of its own,
    tests/test_compose_mail.py): the mails' words are what is looked at."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("pbem.mail.replies.board_picture", lambda game, lang="en": None)
        patch.setattr("pbem.mail.replies.composer_page",
                      lambda view, to, lang="en": (b"<!doctype html><title>page</title>", ""))
        yield


def mails_of_a_three_language_game(tmp: Path) -> dict[str, list[EmailMessage]]:
    """A whole game by mail, red in Hungarian, green in Greek, blue in Ukrainian (see the
    module), and every mail each seat received, in order."""
    games, inbox, outbox = tmp / "games", tmp / "inbox", tmp / "outbox"
    mailbox.Maildir(str(inbox), create=True)
    args: list[str | Path] = ["new", "g", "--players", ",".join(THREE), "--games", games, "--deadline", "24h",
                              "--reminder", "8h", "--mail", "every"]
    for player, address in THREE.items():
        args += ["--seat-email", f"{player}={address}", "--seat-lang", f"{player}={LANGS[player]}"]
    t = seconds(T0)
    with quick_mails():
        with pinned(at_of(t)):
            ok(*args)
        table = Players(tmp)
        stalled: str | None = None
        asked = False

        def run(extra: Sequence[bytes] = (), hours: float = 0.0) -> None:
            nonlocal t
            t += int(hours * 3600) + 60
            for data in extra:
                mailbox.Maildir(str(inbox)).add(data)
            with pinned(at_of(t)):  # a quarantined message exits 3 (FORMAT); anything else is 0
                done = cli("mail", "--inbox", inbox, "--outbox", outbox, "--games", games, "--from", HOST)
            assert done.exit_code in (0, Exit.FORMAT) and "internal error" not in done.output, done.output
            table.receive(take(outbox))

        run()
        for _ in range(400):
            game = read_game((games / "g" / "log.yaml").read_bytes())
            if stalled is None and game.started and game.to_move is not None:
                # the seat to move lets its deadline pass: reminded at 16 h, timed out at 24 h (R8.1-R8.3)
                stalled = game.to_move
                assert stalled is not None
                table.hold = {stalled}
                others = table.answers()
                table.hold = set(THREE) - {stalled}
                late = table.answers()  # its move, mailed only after its deadline
                table.hold = set()
                run(others)
                run(hours=17)
                run(hours=8)
                run(late)  # it answers an old entry now: refused as stale, with the current template (P7)
                continue
            answers = table.answers()
            if stalled is not None and not asked:
                asked = True
                for address in THREE.values():  # the mail commands, a bad one, and a hostile message
                    answers += [player_mail(address, word, subject=word)
                                for word in ("board", "history", "log", "rules R3.2", "template", "rules")]
                answers.append(raw_mail(THREE["blue"].encode(), subject=b"hi\x00there"))
                answers.append(player_mail(THREE["red"], "hello", subject=""))  # no move, no subject: refused
            if not answers and all(seat.final is not None for seat in table.seats.values()):
                break
            run(answers)
        else:
            raise AssertionError("the game did not end")
    return {player: seat.got for player, seat in table.seats.items()}


# --- the views inside the mails, marked off (theirs to translate: helpers A, B and C) --------

OPEN, CLOSE = "⟪", "⟫"
VIEWS = {
    "pbem.mail.replies": ("report_lines", "board_lines", "template_in", "board_words"),
    "pbem.mail.invite": ("template",),
    "pbem.mail.deadlinemail": ("phrase", "entry_lines", "board_lines", "template"),
    "pbem.mail.final": ("audit_verdict", "trust_lines"),
    "pbem.mail.commands": ("board_lines", "history_lines", "template", "lookup"),
    "pbem.mail.accept": ("error_text", "sentence"),
    "pbem.mail.host": ("error_text",),
}
INLINE = {"phrase", "error_text", "sentence"}


def marked(view: Callable[..., Any], inline: bool) -> Callable[..., Any]:
    def said(*args: Any, **kwargs: Any) -> Any:
        out = view(*args, **kwargs)
        if isinstance(out, list):
            return [OPEN, *out, CLOSE]
        if isinstance(out, str):
            return f"{OPEN}{out}{CLOSE}" if inline else f"{OPEN}\n{out}\n{CLOSE}"
        return out

    return said


def own_text(text: str) -> str:
    """``text`` without what the views wrote (each marked off, nested or not)."""
    out, depth = [], 0
    for ch in text:
        if ch == OPEN:
            depth += 1
        elif ch == CLOSE:
            depth -= 1
        elif depth == 0:
            out.append(ch)
    assert depth == 0, text
    return "".join(out)


@pytest.fixture(scope="module")
def marked_game(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[EmailMessage]]:
    import importlib

    with pytest.MonkeyPatch.context() as patch:
        for module, names in VIEWS.items():
            loaded = importlib.import_module(module)
            for name in names:
                patch.setattr(loaded, name, marked(getattr(loaded, name), name in INLINE))
        return mails_of_a_three_language_game(tmp_path_factory.mktemp("marked"))


def subject_of(msg: EmailMessage) -> str:
    return " ".join(str(msg["Subject"]).split())


PLAYERS_SUBJECTS = {"my move", "log", "template", "board", "history", "rules R3.2", "rules", "pbem"}


def is_players_own(subject: str) -> bool:
    """A reply's ``Re:`` subject quotes what the player wrote (``Re: my move``)."""
    return subject.startswith("Re: ") and subject[4:] in PLAYERS_SUBJECTS


# --- the checks ---------------------------------------------------------------------------

def test_the_game_was_played_whole_by_mail_in_three_languages(marked_game: dict[str, list[EmailMessage]]) -> None:
    for player, got in marked_game.items():
        lang = LANGS[player]
        said = translator(lang)
        texts = [body(m) for m in got]
        subjects = [subject_of(m) for m in got]
        assert any(replies.round_subject("commit", lang) in s for s in subjects), player
        assert any(replies.round_subject("reveal", lang) in s for s in subjects), player
        assert any(said.gettext(replies.ACCEPTED_TEXT) in t for t in texts), player
        assert any(own_text(replies.move_text(lang)) in own_text(t) for t in texts), player
        assert any(said.gettext(replies.LOG_TEXT).split("(")[0] in t for t in texts), player
        assert sum("log.yaml.gz" in [p.get_filename() for p in m.iter_attachments()]
                   and m["In-Reply-To"] is None for m in got) == 1, player  # the last mail, once
    assert f"Re: {translator('hu').gettext(replies.REPLY_SUBJECT)}" in map(subject_of, marked_game["red"])
    everyone = [m for got in marked_game.values() for m in got]
    reminders = [m for m in everyone if translator(LANGS[seat_of(m)]).gettext("Your move file:") in body(m)]
    assert len(reminders) == 1
    notices = [m for m in everyone if "R8.3" in body(m) or "timeout" in str(m["Subject"])]
    assert notices


def seat_of(msg: EmailMessage) -> str:
    address = parseaddr(str(msg["To"]))[1]
    return next(p for p, a in THREE.items() if a == address)


def test_no_subject_the_host_writes_holds_english(marked_game: dict[str, list[EmailMessage]]) -> None:
    for player, got in marked_game.items():
        for msg in got:
            subject = subject_of(msg)
            assert subject.startswith(("[rattus g] ", "pbem: ", "Re: ")), subject
            if subject.startswith("Re: ") and not is_players_own(subject):  # the player wrote none
                assert subject == "Re: " + translator(LANGS[player]).gettext(replies.REPLY_SUBJECT), subject
            if is_players_own(subject):
                continue
            assert not english_lines(subject), (player, subject)
            assert not any(words in subject for words in ENGLISH_OWN), (player, subject)


def test_no_paragraph_the_mail_modules_write_holds_english(marked_game: dict[str, list[EmailMessage]]) -> None:
    """Every mail each seat got, less the views marked off: no English sentence, and none of
    the host's English paragraphs (commands to type, file names and the notation aside)."""
    kinds: set[str] = set()
    for player, got in marked_game.items():
        for msg in got:
            text = own_text(body(msg))  # the commands to type aside (TYPED)
            assert not english_lines(text, allowed=TYPED), (player, subject_of(msg), english_lines(text, allowed=TYPED))
            for words in ENGLISH_OWN:
                assert words not in text, (player, subject_of(msg), words)
            kinds.update(k for k, words in KINDS[LANGS[player]].items() if words in text)
    assert kinds == set(KINDS["hu"]), set(KINDS["hu"]) - kinds  # every kind of mail went out


def _kinds(lang: str) -> dict[str, str]:
    """A sentence of each kind of mail the game sends, in ``lang`` (its first words)."""
    said = translator(lang)
    first = {
        "invitation": said.gettext(replies.ROUND_TEXT),
        "your move": said.gettext(replies.MOVE_TEXT),
        "page": said.gettext(replies.PAGE_TEXT),
        "report": said.gettext(replies.LOG_TEXT),
        "accepted": said.gettext(replies.ACCEPTED_TEXT),
        "reminder": said.gettext("Your move file:"),
        "final": said.gettext("The host's audit of the attached log:"),
        "finding": said.gettext("the secret matches its commitment (P3)"),
        "log command": said.gettext("The public log is attached, gzipped; anyone can check it with 'pbem verify "
                                     "log.yaml.gz'."),
        "refusal": said.gettext("Your message was not applied; nothing was changed."),
        "stale": said.gettext("The game has moved on: your current template is attached (and below). Fill it in "
                              "and send it back; a message whose subject is 'template' gets a fresh one."),
        "quarantine": said.gettext("Your message was not applied; nothing was changed. It was kept for the "
                                   "host to look at."),
    }
    return {kind: text.split("{")[0].split("\n")[0][:40] for kind, text in first.items()}


KINDS = {lang: _kinds(lang) for lang in ("hu", "el", "uk")}


def test_the_key_confirmation_mail_is_in_the_seats_language(marked_game: dict[str, list[EmailMessage]]) -> None:
    lang = LANGS[KEYED]
    said = translator(lang)
    codes = [m for m in marked_game[KEYED]
             if re.search(r"^ {4}pbem confirm [A-Z2-7]{16} --key YOUR\.key$", body(m), re.MULTILINE)]
    assert len(codes) == 1
    assert said.gettext("If it is not your key, or you did not send it, do not reply: nothing is recorded, and "
                        "no key is registered for your seat.") in body(codes[0])
    key = "ed25519:" + "A" * 43 + "="
    for lang in ("hu", "el", "uk"):
        subject, text = confirm_text(Held("g", "green", "ABCDEFGHIJKLMNOP", "green@example.com", key), lang)
        command = "pbem confirm ABCDEFGHIJKLMNOP --key YOUR.key"
        assert not english_lines(subject) and not english_lines(text, allowed=(command,))
        assert f"\n    {command}\n" in text  # the command, as it is in every language
        assert f"\n    {key}\n" in text and "AAAAAAAAAAAA" in subject  # the key, and its fingerprint


def test_the_log_attachments_keep_their_names_and_stay_language_neutral(
    marked_game: dict[str, list[EmailMessage]],
) -> None:
    logs: dict[str, set[bytes]] = {}
    for got in marked_game.values():
        for msg in got:
            for part in msg.iter_attachments():
                name = part.get_filename() or ""
                assert re.fullmatch(r"g-(\d+-(log\.yaml\.gz|[a-z]+\.(txt|html))|(commit|reveal)-[a-z]+\.txt|"
                                    r"private-[a-z]+\.yaml|\d+\.png)|log\.yaml(\.gz)?", name), name
                data = part.get_payload(decode=True)
                if name.endswith("log.yaml.gz") and isinstance(data, bytes):
                    logs.setdefault(name, set()).add(gzip.decompress(data))
    assert logs and all(len(same) == 1 for same in logs.values())  # the same log whatever the language


def mail_texts(msg: EmailMessage) -> list[str]:
    """Every text a player reads in ``msg``: the subject, the body, and each text attachment
    (a template); the log (YAML, language-neutral by design) and the private looks aside."""
    texts = [subject_of(msg), body(msg)]
    for part in msg.iter_attachments():
        name = part.get_filename() or ""
        if part.get_content_type() == "text/plain" and name.endswith(".txt"):
            texts.append(str(part.get_content()))
    return texts


TYPED = ("pbem ", "audit_min.py", "confirm ")
"""Commands a player types (kept as they are in every language)."""


def test_every_mail_of_the_game_holds_no_english(marked_game: dict[str, list[EmailMessage]]) -> None:
    """The whole check: every mail each seat received in the three-language game, its
    subject, its body and its templates, holds no English sentence; names, seat ids, the
    notation's keywords and the commands to type aside.  (The game played once, with the
    views' marks, which are taken out here: the views' words are judged with the rest.)"""
    found = []
    for player, got in marked_game.items():
        assert len(got) >= 20, (player, len(got))
        for msg in got:
            subject = subject_of(msg)
            for marked in mail_texts(msg):
                text = marked.replace(OPEN, "").replace(CLOSE, "")
                if text == subject and is_players_own(subject):
                    continue
                found += [(player, subject, line) for line in english_lines(text, allowed=TYPED)]
    assert found == [], "\n".join(f"{p}: {s} | {line}" for p, s, line in found[:60])


INTERNAL = re.compile(r"take_card|move_plague|knight_move|knight_cubes|witch_look|witch_swap|/count\b")
ORDERED = {"hu": r"helyettesítő: (rakj|léptesd|tedd)", "el": r"αναπληρωτής: (τοποθέτησε|μετακίνησε|βάλε)",
           "uk": r"замінник: (розмістіть|перемістіть|покладіть)"}
THIRD = {"hu": "a helyettesítő", "el": "ο αναπληρωτής", "uk": "замінник"}


def test_no_mail_holds_an_internal_id_or_orders_the_reader_for_the_stand_in(
    marked_game: dict[str, list[EmailMessage]],
) -> None:
    """R8.3 and R7.3 as the seats read them: the stand-in's turn (the stalled seat's timeout)
    is told as what it did, in the seat's language, and no refusal or narration in any
    mail names an action by the log's id (take_card, move_plague) or a schema path."""
    for player, got in marked_game.items():
        lang, told = LANGS[player], False
        for msg in got:
            for marked in mail_texts(msg):
                text = marked.replace(OPEN, "").replace(CLOSE, "")
                assert not INTERNAL.search(text), (player, subject_of(msg), INTERNAL.search(text))
                assert not re.search(ORDERED[lang], text), (player, subject_of(msg))
                told = told or THIRD[lang] in text
        assert told, player


# --- English as it was, and subjects a mail client reads back whole ------------------------

def test_the_english_mail_texts_are_as_they_were() -> None:
    from pbem.log.records import Entry

    # the opening's subjects in the words the round-1 mail explains (a secret number, its fingerprint), no jargon
    assert replies.round_subject("commit") == "round 1 of 2: send the fingerprint of your secret number"
    assert replies.round_subject("reveal") == "round 2 of 2: send your secret number"
    assert replies.move_text() == replies.MOVE_TEXT and replies.round_text() == replies.ROUND_TEXT
    assert replies.move_text().startswith("It is your move. Reply with the rest of your turn, one action a\n")
    entries = [Entry(1, T0, "red", {}), Entry(2, T0, None, {})]
    assert replies.entries_subject(entries) == "entry 1: red; entry 2: the host"
    assert replies.entries_subject(entries, "hu") == "1. bejegyzés: red; 2. bejegyzés: a házigazda"


def _said(lang: str, text: str, **params: Any) -> str:
    return translator(lang).say(Msg(text, **params))


SUBJECTS = [
    "[pbem g] " + "; ".join([_said("el", "entry {seq}: {label}", seq=11, label="blue"),
                             _said("el", "your move (turn {turn})", turn=12),
                             _said("el", "entry {seq}: timeout, the stand-in played {player}", seq=12, player="blue")]),
    "[pbem g] " + _said("hu", "entry {seq}: {label}", seq=7, label=Msg("the game starts")),
    "[pbem g] " + _said("uk", "entry {seq}: timeout, the stand-in played {player}", seq=8, player="blue"),
    _said("el", "pbem: the rules, {rule}", rule="R3.2"),
    "[pbem a-very-long-game-name-of-sixty-four-characters-0123456789abcdef] " + _said("uk", "your move (turn {turn})",
                                                                                     turn=12),
    "[pbem g] entry 6: blue; entry 7: the game starts; your move, blue",
]


@pytest.mark.parametrize("subject", SUBJECTS)
def test_a_subject_reads_back_whole_after_the_wire(subject: str) -> None:
    """The standard library folds a space between two encoded words away; the host's subjects
    keep every space, the ``[pbem GAME]`` tag stays plain, and an English one is as it was."""
    from pbem.mail.outbox import _wire_policy

    msg = replies.compose(HOST, "red@example.org", subject, "text\n", "<a@host.example>")
    wire = msg.as_bytes(policy=_wire_policy(msg))
    head = wire.split(b"\r\n\r\n", 1)[0]
    assert all(len(line) <= 78 for line in head.split(b"\r\n"))
    back = BytesParser(policy=policy.default).parsebytes(wire)
    assert str(back["Subject"]) == subject
    if subject.isascii():
        assert f"Subject: {subject}\r\n".encode() in wire
    elif subject.startswith("[pbem g]"):  # the tag a client threads on, as it is
        assert b"Subject: [pbem g]" in wire
