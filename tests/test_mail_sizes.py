"""What a player's mailbox carries, in bytes: a whole game by mail as a mutt player gets it.

A "your move" mail carries its text (the news, the board in words, the template) and the composer
page packed (its body and script gzipped inside it, attached as it is: pbem.views.packed); the end
mail carries the log gzipped and its audit page packed.  The bounds: a median mail of at most
25 KB, at most 35 KB received per own turn (every mail after the opening, the end's included),
no mail over 100 KB; a default Reply quotes at most 60 lines.
"""

from __future__ import annotations

import gzip
import json
import re
import statistics
import subprocess
import sys
from email.message import EmailMessage
from pathlib import Path

import pytest
from mutt import HOST, MailTable, asks, leaves, own_turns, quoted, shown

from pbem.mail.final import announce_end
from pbem.mail.outbox import Queue
from pbem.views.packed import unpack

FOUR = {"red": "red@example.org", "green": "green@example.com", "blue": "blue@example.net",
        "yellow": "yellow@example.org"}
ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def no_picture(monkeypatch: pytest.MonkeyPatch) -> None:
    """A 'turn' mail carries no picture; the PNG would only cost time."""
    monkeypatch.setattr("pbem.mail.replies.board_picture", lambda game, lang="en": None)


def part(msg: EmailMessage, name: str) -> bytes:
    data = next(p.get_payload(decode=True) for p in leaves(msg) if (p.get_filename() or "").endswith(name))
    assert isinstance(data, bytes)
    return data


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> MailTable:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("pbem.mail.replies.board_picture", lambda game, lang="en": None)
        table = MailTable(tmp_path_factory.mktemp("four"), FOUR, "turn", seed=5, secret=bytes(range(32)))
        table.play()
    return table


def test_a_whole_four_player_game_by_mail_stays_small(played: MailTable) -> None:
    """Every mail of the game: the median at most 25 KB, none over 100 KB, at most 35 KB received
    per own turn (all the players' mails after the opening over all their turns), every 'your move'
    mail quoted in at most 60 lines by a Reply."""
    game = played.game()
    assert game.over and game.secret is not None
    sizes = [len(bytes(m)) for _s, m, _st in played.sent]
    assert statistics.median(sizes) <= 25 * 1024 and max(sizes) <= 100 * 1024, (statistics.median(sizes), max(sizes))
    got = sum(len(bytes(m)) for _s, m, started in played.sent if started)  # as bench/mailsize.py counts it
    turns = sum(own_turns(game, seat) for seat in FOUR)
    assert got / turns <= 35 * 1024, (got, turns)
    asking = [m for _s, m, _st in played.sent if asks(m) == "your move"]
    assert asking and max(len(quoted(m)) for m in asking) <= 60
    page = part(asking[-1], ".html")
    assert page.isascii() and unpack(page.decode()) is not None  # the page packed, attached as it is


def audits_fair(log_gz: bytes, folder: Path) -> bool:
    """tools/audit_min.py's verdict on the gzipped log, saved in ``folder`` as log.yaml.gz: FAIR."""
    (folder / "log.yaml.gz").write_bytes(log_gz)
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "audit_min.py"), "log.yaml.gz"], cwd=folder,
                          capture_output=True, text=True, check=False)
    return done.returncode == 0 and done.stdout.splitlines()[-1].startswith("verdict: FAIR.")


def test_the_end_mails_log_is_gzipped_and_audits_alone(played: MailTable, tmp_path: Path) -> None:
    """The end mail's log.yaml.gz is the host's log, and tools/audit_min.py says FAIR on it as it is."""
    end = next(m for _s, m, _st in reversed(played.sent) if "the end" in str(m["Subject"]))
    log = part(end, "log.yaml.gz")
    assert gzip.decompress(log) == (played.games / "g" / "log.yaml").read_bytes()
    assert audits_fair(log, tmp_path)


def ended(played: MailTable, tmp_path: Path) -> list[EmailMessage]:
    """The game's end mails queued again, as a host run after the game's last entry queues them."""
    from email import message_from_bytes, policy

    (played.games / "g" / "mail-final.txt").unlink(missing_ok=True)
    assert announce_end(played.games / "g", Queue(tmp_path / "queue"), HOST) == 1
    files = sorted((tmp_path / "queue").rglob("*.eml"))
    out = [message_from_bytes(f.read_bytes(), policy=policy.default) for f in files]
    assert all(isinstance(m, EmailMessage) for m in out)
    return out


def test_the_end_mail_of_a_long_game_stays_under_100_kb(played: MailTable, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """A log whose gzipped copy would make the mail too large travels once, as the attachment: the
    page, which then asks for that file, stays the size of a short game's (however long the game)."""
    monkeypatch.setattr("pbem.mail.final.PAGE_LOG_GZ", 0)  # this game's log counts as a long game's
    sent = ended(played, tmp_path)
    assert len(sent) == len(FOUR)
    end = sent[0]
    page = part(end, "-audit.html").decode()
    inside = unpack(page)
    assert inside is not None
    data = json.loads(re.search(r'id="pbem-audit">(.*?)</script>', inside[0]).group(1))  # type: ignore[union-attr]
    assert data["log_gz"] == "" and "choose the attached log.yaml.gz" in inside[1]  # the script's own words
    # the page holds the verdict's words in every language (its fingerprint covers them): about 23 KB
    assert len(page) <= 25 * 1024 and len(bytes(end)) <= 100 * 1024


def test_a_log_too_long_for_one_mail_comes_in_parts_that_join_into_the_log(
        played: MailTable, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Past what fits beside the page, the end mail carries no log and says it comes in the next N
    mails; each carries one part, and the parts joined in the order of their names are the log
    gzipped, which tools/audit_min.py says FAIR of."""
    monkeypatch.setattr("pbem.mail.final.END_LOG_GZ", 1000)  # this game's log counts as a very long game's
    monkeypatch.setattr("pbem.mail.final.LOG_PART", 4000)
    monkeypatch.setattr("pbem.mail.final.PAGE_LOG_GZ", 0)
    sent = ended(played, tmp_path)
    log_gz = gzip.compress((played.games / "g" / "log.yaml").read_bytes(), compresslevel=9, mtime=0)
    count = -(-len(log_gz) // 4000)
    assert count >= 3 and len(sent) == len(FOUR) * (1 + count)
    for seat, address in FOUR.items():
        mine = [m for m in sent if m["To"] == address]
        end, parts = mine[0], mine[1:]
        text = shown(end)
        assert "the end:" in str(end["Subject"]) and not any(".gz" in (p.get_filename() or "") for p in leaves(end))
        assert f"it comes in the next {count} mails, log.yaml.gz.001 and on" in text, (seat, text)
        names = [next(p.get_filename() or "" for p in leaves(m) if p.get_filename()) for m in parts]
        assert names == [f"log.yaml.gz.{n:03d}" for n in range(1, count + 1)]
        assert [str(m["Subject"]).split("] ", 1)[1] for m in parts] == [
            f"the end: the log, part {n} of {count}" for n in range(1, count + 1)]
        joined = b"".join(part(m, name) for m, name in zip(parts, names, strict=True))
        assert joined == log_gz
    assert audits_fair(log_gz, tmp_path)


def test_no_end_mail_passes_100_kb_however_long_the_log(played: MailTable, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """With the real bounds, a gzipped log of 230 KB (about twenty times a long four-player game's,
    random bytes so that nothing compresses it further) goes out in mails of at most 100 KB each."""
    import os

    big = os.urandom(230_000)
    monkeypatch.setattr("pbem.mail.final.gzip_log", lambda data: big)
    sent = ended(played, tmp_path)
    assert len(sent) == len(FOUR) * (1 + 4)  # the end mail, then four parts of at most 64,000 bytes
    assert max(len(bytes(m)) for m in sent) <= 100 * 1024, max(len(bytes(m)) for m in sent)


def test_the_log_command_answers_with_the_log_gzipped(played: MailTable) -> None:
    """'log' mailed to the host: the public log as log.yaml.gz (a long game's stays a small mail),
    which is the log byte for byte once unpacked."""
    from pbem.mail.commands import Command, answer

    found = answer(played.games, FOUR["red"], Command(word="log", rule=None, tag=None, code=None))
    [(name, data, subtype)] = found.files
    assert (name, subtype) == (f"g-{played.game().last_seq}-log.yaml.gz", "gzip")  # as every mail names it
    assert gzip.decompress(data) == (played.games / "g" / "log.yaml").read_bytes()
    assert "pbem verify log.yaml.gz" in found.text


def test_news_that_does_not_fit_keeps_the_newest_entry_and_says_what_it_left_out(played: MailTable) -> None:
    """With the board and the template in the mail, the news since a seat's last turn may not fit
    its 60 lines: the mail keeps the newest entry's headline and its last events (what led to the
    board it shows), and its first line says how many lines it left out and how to get them."""
    from pbem.views.narrate import entry_lines

    game = played.game()
    cut = 0
    for _seat, msg, _started in played.sent:
        text = msg.get_body(("plain",))
        assert text is not None
        lines = str(text.get_content()).splitlines()
        if asks(msg) != "your move" or "lines left out: send 'history'" not in lines[0]:
            continue
        cut += 1
        after = int(next(line for line in lines if line.startswith("after ")).split()[1])
        newest = entry_lines(game, game.entries[after])
        news = lines[1:lines.index("")]
        assert news[-1] == newest[-1] and any(line == newest[0] for line in news), (news, newest)
    assert cut  # a four-player game's news is long
