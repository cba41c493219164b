"""P8: a key registered by mail is confirmed from the seat's address, and
one key per seat (never the host's), at `pbem new`, with a commitment, at `replace`, and
in every reader (pbem verify, pbem audit, tools/audit_min.py).

The attack: in a game where blue has no key, red writes blue's commitment with a key of
red's own, and mails it with a forged `From: blue@...`.  Before, it was applied and red
signed blue's moves from then on."""

from __future__ import annotations

import mailbox
from email.message import EmailMessage
from email.utils import make_msgid
from pathlib import Path
from typing import Any

from audittools import TOOL_MODULE
from clitools import cli, ok, snapshot
from mailtools import HOST, code_mail, commit, deliver, eml, load_log, replies, reveal, setup_game, signed
from seatkeytools import forged_mail, pub

from pbem.errors import Exit
from pbem.fair.keys import entry_message, load_private_key, sign, verify
from pbem.fair.protocol import ZERO_HASH, entry_hash
from pbem.host.create import NewGame, create
from pbem.log.logfile import LOG_NAME, read_docs
from pbem.log.yamlio import dump_entry, dump_yaml
from pbem.player.signfile import confirm_line
from pbem.sim.demo import open_game

Entries = list[dict[str, Any]]


def run_mail(games: Path, inbox: Path, outbox: Path) -> str:
    return ok("mail", "--inbox", inbox, "--outbox", outbox, "--games", games, "--from", HOST)


def text_mail(sender: str, text: str, subject: str = "Re: pbem") -> bytes:
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = sender, HOST, subject
    msg["Message-ID"] = make_msgid(domain="example.org")
    msg.set_content(text + "\n")
    return msg.as_bytes()


def the_code(outbox: Path) -> str:
    body = code_mail(outbox).get_body(("plain",))
    assert body is not None
    line = next(x for x in body.get_content().splitlines() if x.strip().startswith("pbem confirm "))
    return str(line.split()[2])



def test_a_forged_from_cannot_register_a_key_for_another_seat(tmp_path: Path) -> None:
    games, inbox = setup_game(tmp_path)  # red has a key (pbem new --seat-key), blue has none
    outbox = tmp_path / "outbox"
    ok("keygen", "--out", tmp_path / "mallory.key")  # red's second key, for the attack
    deliver(inbox, eml("red@example.org", signed(commit(games, "red"), tmp_path / "red.key", tmp_path)))
    forged = signed({**commit(games, "blue"), "key": pub(tmp_path / "mallory.key")},
                    tmp_path / "mallory.key", tmp_path)
    deliver(inbox, eml("blue@example.net", forged))  # From: forged
    out = run_mail(games, inbox, outbox)
    assert "held: game g, blue's commitment registers a key" in out, out
    game = load_log(games)
    assert "blue" not in game.commits and game.keys.get("blue") is None  # nothing recorded for blue
    code = the_code(outbox)
    assert str(code_mail(outbox)["To"]) == "blue@example.net"  # the seat's address, never the sender's
    assert all(code not in m.as_string() for m in replies(outbox) if str(m["To"]) != "blue@example.net")
    assert code not in (games / "g" / LOG_NAME).read_text()
    mailbox.Maildir(str(outbox)).clear()
    # the attacker cannot confirm: a guessed code, or the right one from another address
    deliver(inbox, text_mail("blue@example.net", "confirm AAAAAAAAAAAAAAAA"))
    assert "(P8): no key awaits this code" in run_mail(games, inbox, outbox)
    deliver(inbox, text_mail("red@example.org", f"confirm {code}"))
    assert "a key is confirmed only from the address the code was mailed to" in run_mail(games, inbox, outbox)
    assert load_log(games).keys.get("blue") is None
    # blue's own commitment still works (here with blue's own key: held, then confirmed by blue)
    mailbox.Maildir(str(outbox)).clear()
    own = signed({**commit(games, "blue"), "key": pub(tmp_path / "blue.key")}, tmp_path / "blue.key", tmp_path)
    deliver(inbox, eml("blue@example.net", own))
    assert "held: game g" in run_mail(games, inbox, outbox)
    mine = the_code(outbox)
    assert mine != code
    signature = confirm_line(mine, tmp_path / "blue.key")[0].split()[2]  # 'pbem confirm CODE --key blue.key'
    deliver(inbox, text_mail("blue@example.net", f"> some quoted text\n\nconfirm {mine.lower()}\n{signature}"))
    out = run_mail(games, inbox, outbox)
    assert "applied: game g, entry 2" in out, out
    game = load_log(games)
    assert game.keys.get("blue") == pub(tmp_path / "blue.key") and "blue" in game.commits
    # the attacker's held commitment went with blue's confirmation: its code is used up
    deliver(inbox, text_mail("blue@example.net", f"confirm {code}"))
    assert "(P8): no key awaits this code" in run_mail(games, inbox, outbox)
    assert "2 signed moves verify" in ok("verify", games / "g" / LOG_NAME)


def test_a_seat_commits_without_a_key_while_a_forged_one_is_held(tmp_path: Path) -> None:
    games, inbox = setup_game(tmp_path)
    outbox = tmp_path / "outbox"
    ok("keygen", "--out", tmp_path / "mallory.key")
    forged = signed({**commit(games, "blue"), "key": pub(tmp_path / "mallory.key")},
                    tmp_path / "mallory.key", tmp_path)
    deliver(inbox, eml("blue@example.net", forged))
    assert "held" in run_mail(games, inbox, outbox)
    code = the_code(outbox)
    # blue's own, unsigned, in a reply that quotes the code mail: a message with a move is a move
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = "blue@example.net", HOST, "Re: pbem: confirm the key"
    msg["Message-ID"] = make_msgid(domain="example.org")
    msg.set_content(f"Not mine! Here is my own commitment.\n\n> reply with the line\n>\n>     confirm {code}\n")
    msg.add_attachment(dump_yaml(commit(games, "blue")).encode(), maintype="application", subtype="x-yaml",
                       filename="commit.yaml")
    deliver(inbox, bytes(msg))
    assert "applied: game g, entry 1" in run_mail(games, inbox, outbox)
    line = confirm_line(code, tmp_path / "blue.key")[0]  # even blue, by mistake, with her own key
    deliver(inbox, text_mail("blue@example.net", line))
    assert "is not yours, and it was dropped" in run_mail(games, inbox, outbox)
    assert load_log(games).keys.get("blue") is None


def test_a_commitment_with_another_seats_key_is_refused_at_once(tmp_path: Path) -> None:
    games, inbox = setup_game(tmp_path)
    outbox = tmp_path / "outbox"
    stolen = signed({**commit(games, "blue"), "key": pub(tmp_path / "red.key")}, tmp_path / "red.key", tmp_path)
    deliver(inbox, eml("blue@example.net", stolen))
    out = run_mail(games, inbox, outbox)
    assert "refused: signature refused (P8): the key " in out and "is already seat red's" in out and "held" not in out, out
    path = tmp_path / "stolen.yaml"
    path.write_text(stolen)
    before = snapshot(games)
    result = cli("apply", path, "--games", games, "--confirm-key")
    assert result.exit_code == Exit.SIGNATURE and "one key per seat" in result.stderr and "(P8)" in result.stderr
    assert snapshot(games) == before


def test_pbem_apply_needs_confirm_key_for_a_new_key(tmp_path: Path) -> None:
    games, _inbox = setup_game(tmp_path)
    path = tmp_path / "blue.yaml"
    path.write_text(signed({**commit(games, "blue"), "key": pub(tmp_path / "blue.key")}, tmp_path / "blue.key",
                           tmp_path))
    before = snapshot(games)
    result = cli("apply", path, "--games", games)
    assert result.exit_code == Exit.SIGNATURE and "--confirm-key" in result.stderr and "(P8)" in result.stderr
    assert snapshot(games) == before
    ok("apply", path, "--games", games, "--confirm-key")
    assert load_log(games).keys.get("blue") == pub(tmp_path / "blue.key")


def test_pbem_new_refuses_one_key_on_two_seats_or_the_hosts(tmp_path: Path) -> None:
    for name in ("host", "red"):
        ok("keygen", "--out", tmp_path / f"{name}.key")
    red = tmp_path / "red.key.pub"
    for extra in (["--seat-key", f"red={red}", "--seat-key", f"blue={red}"],
                  ["--seat-key", f"red={tmp_path / 'host.key.pub'}", "--host-key", tmp_path / "host.key"]):
        result = cli("new", "g", "--players", "red,blue", "--games", tmp_path / "games", *extra)
        assert result.exit_code == Exit.FORMAT and "(P8): --seat-key: one key per seat, and none the host's: " \
            in result.stderr, result.stderr
        assert not (tmp_path / "games" / "g").exists()


def started(tmp_path: Path, host_key: bool = False) -> Path:
    games = tmp_path / "games"
    for name in ("host", "a", "b"):
        ok("keygen", "--out", tmp_path / f"{name}.key")
    create(games, NewGame("g", ("red", "green"), host_key_file=tmp_path / "host.key" if host_key else None))
    open_game(games, "g")
    return games


def test_replace_refuses_another_seats_key_and_the_hosts(tmp_path: Path) -> None:
    games = started(tmp_path, host_key=True)
    ok("replace", "g", "--seat", "red", "--key", tmp_path / "a.key.pub", "--games", games)
    for key in ("a", "host"):
        before = snapshot(games)
        result = cli("replace", "g", "--seat", "green", "--key", tmp_path / f"{key}.key.pub", "--games", games)
        assert result.exit_code == Exit.SIGNATURE and "one key per seat" in result.stderr, result.stderr
        assert snapshot(games) == before
    ok("replace", "g", "--seat", "red", "--key", tmp_path / "a.key.pub", "--games", games)  # its own key again


# --- every reader refuses a log with one key on two seats, or a seat on the host's key -------------

def rewrite(log: Path, entries: Entries, host: Path | None = None) -> Path:
    """Re-chain (and, with the host's private key, re-sign) a log after an edit."""
    prev, key = ZERO_HASH, load_private_key(host) if host else None
    for seq, entry in enumerate(entries):
        entry.update(seq=seq, prev=prev)
        entry.pop("signature", None)
        if isinstance(entry.get("move"), dict):  # each recorded move answers its entry's new hash (P7)
            target = 0 if entry["kind"] in ("commit", "nonce") else seq - 1
            entry["move"]["after"] = {"seq": target, "hash": entry_hash(entries[target])[:16]}
        if key is not None:
            entry["signature"] = sign(key, entry_message(entry))
        prev = entry_hash(entry)
    log.write_text("".join(dump_entry(e) for e in entries))
    return log


def readers_refuse(log: Path, at: int) -> None:
    result = cli("verify", log)
    assert result.exit_code == Exit.TAMPERED and f"entry {at}:" in result.stderr, result.stderr
    assert "(P8)" in result.stderr
    assert cli("audit", log).exit_code == Exit.TAMPERED
    code, lines = TOOL_MODULE.audit(str(log))
    assert code == 7 and f"at entry {at} (P8" in lines[-1], lines


def test_readers_refuse_one_key_on_two_seats_in_entry_0(tmp_path: Path) -> None:
    games = started(tmp_path)
    entries, _ = read_docs(games / "g" / LOG_NAME)
    entries[0]["keys"] = {"green": pub(tmp_path / "a.key"), "red": pub(tmp_path / "a.key")}
    readers_refuse(rewrite(tmp_path / "log.yaml", entries), 0)


def test_readers_refuse_a_seat_on_the_host_key(tmp_path: Path) -> None:
    games = started(tmp_path, host_key=True)
    entries, _ = read_docs(games / "g" / LOG_NAME)
    entries[0]["keys"] = {"red": pub(tmp_path / "host.key")}
    readers_refuse(rewrite(tmp_path / "log.yaml", entries, tmp_path / "host.key"), 0)


def test_readers_refuse_a_replace_onto_another_seats_key(tmp_path: Path) -> None:
    games = started(tmp_path)
    ok("replace", "g", "--seat", "red", "--key", tmp_path / "a.key.pub", "--games", games)
    ok("replace", "g", "--seat", "green", "--key", tmp_path / "b.key.pub", "--games", games)
    entries, _ = read_docs(games / "g" / LOG_NAME)
    at = max(i for i, e in enumerate(entries) if e["kind"] == "replace")
    entries[at]["key"] = pub(tmp_path / "a.key")
    readers_refuse(rewrite(tmp_path / "log.yaml", entries[: at + 1]), at)


def test_pbem_apply_of_a_mailed_message_holds_the_key_too(tmp_path: Path) -> None:
    """The file transport (`pbem apply MSG.eml`) is the same admission path: held, not recorded."""
    games, message = forged_mail(tmp_path)
    result = cli("apply", message, "--games", games, "--from", HOST)
    assert result.exit_code != 0 and "nothing recorded yet: held: game g" in result.stderr, result.stderr
    game = load_log(games)
    assert game.last_seq == 0 and game.keys.get("blue") is None
    result = cli("apply", message, "--games", games, "--confirm-key")
    assert result.exit_code == Exit.FORMAT and "--confirm-key is for a move file" in result.stderr


def test_a_damaged_file_of_held_keys_is_named_and_nothing_changes(tmp_path: Path) -> None:
    """The host's own file of held commitments, damaged: a clear P8 refusal, not a crash."""
    games, message = forged_mail(tmp_path)
    cli("apply", message, "--games", games, "--from", HOST)  # held under a code
    pending = games / "g" / "private" / "+keys-pending.json"
    assert pending.is_file()
    pending.write_text("{not json")
    before = snapshot(games / "g")
    result = cli("apply", message, "--games", games, "--from", HOST)
    assert result.exit_code == Exit.STATE and "held key commitments" in result.stderr and "(P8)" in result.stderr
    assert snapshot(games / "g") == before  # the game's files as they were (the sender is answered)


def code_mails(outbox: Path) -> list[tuple[str, str, str]]:
    """(subject, text, code) of every code mail in the outbox."""
    out = []
    for msg in replies(outbox):
        body = msg.get_body(("plain",))
        assert body is not None
        text = body.get_content()
        line = next((x for x in text.splitlines() if x.strip().startswith("pbem confirm ")), None)
        if line is not None:
            out.append((str(msg["Subject"]), text, line.split()[2]))
    return out


def test_a_forged_registration_code_confirms_nothing(tmp_path: Path) -> None:
    """P8.  Blue registers her key; red, forging From: blue, registers a key of red's own for
    blue's seat.  Blue gets two code mails: each names the seat and its key's fingerprint, and
    the code of the forged one, confirmed by blue (signed with her key), confirms nothing:
    that commitment is dropped.  Blue's own code, signed with her key, records her key; red
    gains no seat, and blue's signed reveal is taken."""
    games, inbox = setup_game(tmp_path)  # red has a key (pbem new --seat-key), blue has none yet
    outbox = tmp_path / "outbox"
    ok("keygen", "--out", tmp_path / "mallory.key")  # red's second key, for the attack
    deliver(inbox, eml("red@example.org", signed(commit(games, "red"), tmp_path / "red.key", tmp_path)))
    own = signed({**commit(games, "blue"), "key": pub(tmp_path / "blue.key")}, tmp_path / "blue.key", tmp_path)
    deliver(inbox, eml("blue@example.net", own))
    run_mail(games, inbox, outbox)
    forged = signed({**commit(games, "blue"), "key": pub(tmp_path / "mallory.key")}, tmp_path / "mallory.key",
                    tmp_path)
    deliver(inbox, eml("blue@example.net", forged))  # From: forged
    run_mail(games, inbox, outbox)
    blue_fp, mallory_fp = pub(tmp_path / "blue.key")[8:20], pub(tmp_path / "mallory.key")[8:20]
    mails = code_mails(outbox)  # in the outbox's order, which a Maildir does not promise: told by the key
    assert len(mails) == 2
    (real_subject, real_text, real), (forged_subject, forged_text, fake) = sorted(
        mails, key=lambda found: mallory_fp in found[0])
    # each code mail names the seat and the key it would register: blue can tell them apart
    assert "seat blue" in real_subject and blue_fp in real_subject and pub(tmp_path / "blue.key") in real_text
    assert "seat blue" in forged_subject and mallory_fp in forged_subject
    assert pub(tmp_path / "mallory.key") in forged_text and pub(tmp_path / "blue.key") not in forged_text
    mailbox.Maildir(str(outbox)).clear()
    before = snapshot(games / "g")

    # blue confirms the wrong mail, signing with her own key: it confirms nothing, and is dropped
    deliver(inbox, text_mail("blue@example.net", confirm_line(fake, tmp_path / "blue.key")[0]))
    out = run_mail(games, inbox, outbox)
    assert f"the code {fake} holds a commitment for blue that registers the key {mallory_fp}..." in out, out
    assert "is not yours, and it was dropped" in out and "(P8)" in out
    assert load_log(games).keys.get("blue") is None and "blue" not in load_log(games).commits
    # an unsigned confirmation (even of blue's own code) confirms nothing, and keeps the code
    deliver(inbox, text_mail("blue@example.net", f"confirm {real}"))
    assert "a key is confirmed with a line signed by that very key" in run_mail(games, inbox, outbox)
    # the forger, with its own key, from blue's address: the forged code is gone
    deliver(inbox, text_mail("blue@example.net", confirm_line(fake, tmp_path / "mallory.key")[0]))
    assert "(P8): no key awaits this code" in run_mail(games, inbox, outbox)
    assert snapshot(games / "g")[LOG_NAME] == before[LOG_NAME]  # the log: untouched all along

    # blue's own code, signed with her key, records her key, and her signed reveal is taken
    deliver(inbox, text_mail("blue@example.net", confirm_line(real, tmp_path / "blue.key")[0]))
    assert "applied: game g, entry 2" in run_mail(games, inbox, outbox)
    game = load_log(games)
    assert game.keys.get("blue") == pub(tmp_path / "blue.key")
    assert all(game.keys.get(p) != pub(tmp_path / "mallory.key") for p in game.players)  # the attacker: no seat
    deliver(inbox, eml("red@example.org", signed(reveal(games, "red"), tmp_path / "red.key", tmp_path)))
    deliver(inbox, eml("blue@example.net", signed(reveal(games, "blue"), tmp_path / "blue.key", tmp_path)))
    out = run_mail(games, inbox, outbox)
    assert out.count("applied: game g") == 2 and load_log(games).started, out


def test_pbem_confirm_writes_the_line_signed_with_the_key(tmp_path: Path) -> None:
    ok("keygen", "--out", tmp_path / "k.key")
    result = cli("confirm", "abcdefghijklmnop", "--key", tmp_path / "k.key")
    assert result.exit_code == 0
    line = result.stdout.splitlines()[0]
    word, code, signature = line.split()
    assert (word, code) == ("confirm", "ABCDEFGHIJKLMNOP")
    assert verify(pub(tmp_path / "k.key"), signature, b"pbem-rattus/v2 key confirmation ABCDEFGHIJKLMNOP")
    assert pub(tmp_path / "k.key")[8:20] in result.stderr  # the key's fingerprint, to compare
    bad = cli("confirm", "not-a-code", "--key", tmp_path / "k.key")
    assert bad.exit_code == Exit.FORMAT and "is not a confirmation code" in bad.stderr and "(P8)" in bad.stderr
