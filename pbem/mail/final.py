"""The end of a game by mail: every player's last mail, queued once.

Once a game's secret is revealed (by the host's step at the game's end, ``pbem new
--reveal-secret auto``, or by the host's ``pbem reveal``), each player with an address gets
one mail: the final scores, the winner and how a tie was broken (R6.5), the secret,
the audit's verdict as ``pbem audit`` prints it, and the final log attached, gzipped (a fifth of its
size: the mail stays small however long the game), so that ``pbem audit log.yaml.gz`` (or
``tools/audit_min.py log.yaml.gz``) on that attachment alone says the same (P6); and
``GAME-SEQ-audit.html`` (:mod:`pbem.views.endpage`), a page that checks that log in the player's
browser (its own copy of it, but for a long game's, which would make the mail too large), for a
player with no program but a mail client and a browser.
The batch is named for the game's identity (its id and the hash of
its first entry, :meth:`pbem.mail.outbox.Queue.game_batch`), and ``mail-final.txt`` in
the game's folder notes it, so a game's end is announced once, whichever run (``pbem
mail``, ``pbem serve``) sees it first, and a game made again under an old id is announced
too; the text is public: everything in it is in the log every player receives (P10).
"""

from __future__ import annotations

import logging
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser
from pathlib import Path

from pbem.errors import PbemError
from pbem.files import write_atomic
from pbem.host.games import load_game
from pbem.host.settings import SETTINGS_NAME, load_settings
from pbem.i18n import Msg, translator
from pbem.log.game import Game
from pbem.log.logfile import LOG_NAME, gzip_log, read_log
from pbem.log.records import Reveal
from pbem.mail.outbox import Queue
from pbem.mail.outgoing import end_name, octet_part, plain_cte
from pbem.mail.replies import compose, tag
from pbem.referee.audit import audit
from pbem.rules import winner
from pbem.views.narrate import final_round_lines, result_lines
from pbem.views.trust import audit_verdict, trust_lines

_log = logging.getLogger("pbem.mail.host")


FINAL_NAME = "mail-final.txt"  # in the game's folder: its last mail is queued
PAGE_LOG_GZ = 24_000  # the end page carries its own copy of a log gzipped to at most this: a mail under 90 KB
LOG_GZ = "log.yaml.gz"  # the final log, gzipped: 'pbem audit', 'pbem verify' and tools/audit_min.py read it as it is
END_LOG_GZ = 48_000  # a log gzipped to at most this rides with the end mail (base64: 66 KB beside a 25 KB page)
LOG_PART = 64_000  # a longer one comes in parts of this, a mail each (base64: 88 KB): no mail over 100 KB


def log_parts(log_gz: bytes) -> list[tuple[str, bytes]]:
    """The gzipped log as the end mails carry it: whole as ``log.yaml.gz`` if it fits beside the
    page, else cut in parts of :data:`LOG_PART` bytes, ``log.yaml.gz.001`` and on, which joined in
    the order of their names (``cat log.yaml.gz.0* > log.yaml.gz``) are that file byte for byte."""
    if len(log_gz) <= END_LOG_GZ:
        return [(LOG_GZ, log_gz)]
    cuts = range(0, len(log_gz), LOG_PART)
    return [(f"{LOG_GZ}.{index:03d}", log_gz[at:at + LOG_PART]) for index, at in enumerate(cuts, start=1)]


def final_batch(queue: Queue, game: Game) -> str:
    return queue.game_batch("final", game)


def _announced(path: Path) -> bool:
    return (path / FINAL_NAME).is_file()


def _note_announced(path: Path, game: Game) -> None:
    write_atomic(path / FINAL_NAME, f"{game.hashes[0]}\n".encode("ascii"), 0o600)


def _legacy_announced(queue: Queue, game: Game) -> bool:
    """Whether a version that named the batch for the game's id alone (``final:GAME``) announced
    this very game: that batch's first mail carries the log, whose entry 1 names entry 0's hash."""
    folder = queue.path / queue.batch_id(f"final:{game.game_id}")
    if not folder.is_dir():
        return False
    for sent in sorted(folder.glob("000.eml*")) + sorted((queue.path / "failed").glob(f"{folder.name}.000.eml*")):
        if sent.name.endswith(".retry"):
            continue
        message = BytesParser(policy=policy.default).parsebytes(sent.read_bytes())
        for part in message.iter_attachments():
            if part.get_filename() == "log.yaml" and game.hashes[0].encode() in part.get_payload(decode=True):
                return True
    return False


def announce_ends(games: Path, queue: Queue, from_address: str, folders: list[Path] | None = None,
                  trouble: set[str] | None = None) -> int:
    """The last mail of every revealed game (or of the game ``folders`` alone: those changed since
    the last pass) not yet announced; returns how many games.  One game's trouble stops no
    other game's, and is added to ``trouble``."""
    if not games.is_dir():
        return 0
    count = 0
    for child in sorted(games.iterdir()) if folders is None else folders:
        if not ((child / SETTINGS_NAME).is_file() and (child / LOG_NAME).is_file()):
            continue
        if _announced(child):
            continue
        try:
            count += announce_end(child, queue, from_address)
        except Exception as err:  # one game's trouble stops no other game's end
            _log.warning("no final mail for %s: %s", child.name, err)
            if trouble is not None:
                trouble.add(child.name)
    return count


def announce_end(path: Path, queue: Queue, from_address: str) -> int:
    """One game's last mails, if its secret is revealed and they were never queued."""
    emails = load_settings(path).emails
    if not emails:
        return 0
    entries, _hashes = read_log(path / LOG_NAME)  # read, not replayed: most games are not over
    if not any(isinstance(entry, Reveal) for entry in entries):
        return 0
    game = load_game(path)  # replayed and checked before anything is said about its end
    if game.secret is None:  # pragma: no cover - a log with a reveal entry has its secret
        return 0
    batch = final_batch(queue, game)
    if queue.spooled(batch) or _legacy_announced(queue, game):
        _note_announced(path, game)
        return 0
    from pbem.views.endpage import end_page  # start-up speed: the page's drawing (xml.etree), only at a game's end

    log_bytes = (path / LOG_NAME).read_bytes()
    log_gz = gzip_log(log_bytes)
    settings = load_settings(path)
    parts = log_parts(log_gz)
    texts: dict[str, tuple[str, str, str]] = {}
    out: list[EmailMessage] = []
    for player in (p for p in game.players if p in emails):
        lang = settings.language(player)  # in the seat's language
        if lang not in texts:
            copy = log_bytes.decode("utf-8") if len(log_gz) <= PAGE_LOG_GZ else None  # the mail stays bounded
            texts[lang] = (*end_text(game, lang, len(parts)), end_page(game, copy, lang))
        subject, body, page = texts[lang]
        msg = compose(from_address, emails[player], subject, body, queue.message_id(batch, len(out), from_address))
        if len(parts) == 1:
            msg.add_attachment(log_gz, maintype="application", subtype="gzip", filename=LOG_GZ)  # a fifth of its size
        page_name = end_name(game.game_id, game.last_seq)  # the audit in the player's browser
        msg.add_attachment(page.encode("utf-8"), **octet_part(page_name), cte=plain_cte(page.encode("utf-8")))
        out.append(msg)
        for number, (name, part) in enumerate(parts if len(parts) > 1 else [], start=1):
            said = translator(lang)
            msg = compose(from_address, emails[player], f"{tag(game.game_id)} " + said.say(Msg(
                "the end: the log, part {part} of {parts}", part=number, parts=len(parts))), said.say(Msg(
                    "Part {part} of {parts} of the game's final log, gzipped and cut to keep each mail small. Save "
                    "every part in one folder; joined in the order of their names they are log.yaml.gz: "
                    "'cat log.yaml.gz.0* > log.yaml.gz' (Windows: 'copy /b log.yaml.gz.0* log.yaml.gz'). The audit "
                    "page takes the parts chosen together.", part=number, parts=len(parts))) + "\n",
                queue.message_id(batch, len(out), from_address))
            msg.add_attachment(part, **octet_part(name))  # a part alone is no gzip file
            out.append(msg)
    spooled = queue.put(batch, "final", out)  # False: another run queued it a moment ago
    _note_announced(path, game)
    return int(spooled)


def end_text(game: Game, lang: str = "en", parts: int = 1) -> tuple[str, str]:
    """The subject and the body of the last mail, in ``lang``: public facts only; ``parts``: the
    mails after it that carry the log (:func:`log_parts`), if it does not."""
    assert game.state is not None and game.secret is not None  # a revealed game is over
    said = translator(lang)
    best = winner(game.state)
    try:
        findings = audit(game)
        verdict = audit_verdict(None, game, lang=lang)
    except PbemError as err:  # pragma: no cover - the host's own log always audits
        findings, verdict = [], audit_verdict(err, game, lang=lang)
    lines = [
        said.say(Msg("Game {game} is over. How it ended:", game=game.game_id)),
        "",
        *final_round_lines(game, lang),  # the last page of the story first, then who won it
        "",
        *result_lines(game, lang),
        "",
        said.say(Msg("The host's secret, revealed in the log's last entry: {secret}", secret=game.secret.hex())),
        said.say(Msg("With it anyone can recompute the rat order, every token's face and every draw, and check "
                     "them against what was promised at the start.")),
        "",
        said.say(Msg("The host's audit of the attached log:")),
        *("  " + said.say(Msg("ok: {finding}", finding=finding)) for finding in findings),
        verdict,
        *trust_lines(game, lang=lang),
        "",
        said.say(Msg("Check it yourself with no program but a web browser: open the attached {page}; it checks "
                     "the log with the browser alone, not with the host's word.",
                     page=end_name(game.game_id, game.last_seq))),
        said.say(Msg("Check it yourself with the attached log and nothing else: 'pbem audit log.yaml.gz', or "
                     "'python3 tools/audit_min.py log.yaml.gz' (the standard library alone).")),
        said.say(Msg("No audit can tell who made a nonce: check that yours was yours with the secret words and "
                     "code you kept, 'pbem verify log.yaml.gz --words SEAT' (or 'openssl kdf ... SCRYPT': "
                     "docs/fairplay.md).")),
    ]
    if parts > 1:  # the log comes after: the audit's words are about that log
        lines[-3:-3] = [said.say(Msg.plural(
            "This game's log is too long for one mail: it comes in the next {n} mail, log.yaml.gz.001; save it "
            "as log.yaml.gz.", "This game's log is too long for one mail: it comes in the next {n} mails, "
            "log.yaml.gz.001 and on; save them in one folder and join them into log.yaml.gz: 'cat log.yaml.gz.0* > "
            "log.yaml.gz' (Windows: 'copy /b log.yaml.gz.0* log.yaml.gz'). The page takes the parts chosen together.",
            parts))]
    subject = said.say(Msg("the end: {winner} wins; the final scores, the secret and the audit", winner=best))
    return f"{tag(game.game_id)} {subject}", "\n".join(lines) + "\n"
