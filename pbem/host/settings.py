"""The host's private settings for one game: ``host.yaml`` in the game directory.

Mode 0600, never part of the public log: the players' e-mail addresses and
the path of the host's private key (P8).  The Message-IDs of applied mails
are kept beside it in ``mail-seen.txt`` (one ``<message-id> <seq>`` a line),
so that the same message is never applied twice.  Public keys are public and
live in the log (entry 0 ``keys`` and ``host_key``, commitment moves' ``key``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from pbem.errors import FormatError, TamperError
from pbem.fair.keys import check_public_text
from pbem.files import read_limited, sync_folder, write_atomic
from pbem.i18n import LANGS, Msg
from pbem.log.logfile import locked
from pbem.log.yamlio import decode, dump_yaml, load_one

SETTINGS_NAME = "host.yaml"
SEEN_NAME = "mail-seen.txt"
SETTINGS_LIMIT = 64 * 1024
SEEN_LIMIT = 16 * 1024 * 1024


class RevealWhen(StrEnum):
    """P6: the end of a game: the secret revealed by the host's step, or by the host's 'pbem reveal'."""

    AUTO = "auto"
    MANUAL = "manual"


REVEALS = tuple(r.value for r in RevealWhen)

MAIL_MODES = ("turn", "every", "digest")
"""What a seat is mailed: one mail when it is its turn (the default), a report of every entry,
or its turn's mail and at most one summary a day; refusals, Witch looks, deadline notices and
the end go to every seat whatever its mode."""

PRESS_MODES = ("on", "public", "off")
"""Press (table talk by mail): to one seat or to all (the default), to all only, or none."""

BOT_SECONDS = (0.1, 60.0)
"""The thinking time a host may give its bot seats, per decision, in seconds."""


@dataclass
class Settings:
    emails: dict[str, str] = field(default_factory=dict)
    host_key: str | None = None  # path of the host's private key file
    mail_from: str | None = None  # the host's own address for 'pbem mail' replies
    bot_seconds: float | None = None  # the thinking time of the host's bot seats, per decision
    # P6: whether the host's step reveals the secret as soon as the game is over ("auto", what
    # 'pbem new' writes by default) or leaves it to the host's 'pbem reveal' ("manual"; a game
    # whose host.yaml does not say, e.g. an older one or one made through the library)
    reveal: RevealWhen = RevealWhen.MANUAL
    # the language each seat reads (pbem.i18n.LANGS); a seat not listed reads English
    languages: dict[str, str] = field(default_factory=dict)
    mail: str = MAIL_MODES[0]  # the host's default mail mode for the game's seats (MAIL_MODES)
    mail_modes: dict[str, str] = field(default_factory=dict)  # a seat's own choice ('mail every' by mail)
    open_seats: list[str] = field(default_factory=list)  # seats opened to strangers ('pbem new --open')
    press: str = PRESS_MODES[0]  # PRESS_MODES: the host's choice at 'pbem new --press'
    watchers: dict[str, str] = field(default_factory=dict)  # an observer's address -> the language it reads
    no_receipts: list[str] = field(default_factory=list)  # seats that asked for no receipt of their moves

    def to_data(self) -> dict[str, Any]:
        data: dict[str, Any] = {}
        if self.host_key is not None:
            data["host_key"] = self.host_key
        if self.emails:
            data["emails"] = dict(sorted(self.emails.items()))
        if self.mail_from is not None:
            data["mail_from"] = self.mail_from
        if self.bot_seconds is not None:  # whole milliseconds: pbem's YAML has no floats (P2)
            data["bot_milliseconds"] = round(self.bot_seconds * 1000)
        if self.reveal is not RevealWhen.MANUAL:
            data["reveal"] = self.reveal.value
        if self.languages:
            data["languages"] = dict(sorted(self.languages.items()))
        if self.mail != MAIL_MODES[0]:
            data["mail"] = self.mail
        if self.mail_modes:
            data["mail_modes"] = dict(sorted(self.mail_modes.items()))
        if self.open_seats:
            data["open_seats"] = list(self.open_seats)
        if self.press != PRESS_MODES[0]:
            data["press"] = self.press
        if self.watchers:
            data["watchers"] = dict(sorted(self.watchers.items()))
        if self.no_receipts:
            data["no_receipts"] = sorted(self.no_receipts)
        return data

    def waiting(self) -> list[str]:
        """The open seats no address holds yet, in seat order: while any is left, the game waits
        for players and its opening (P4) has not begun."""
        return [seat for seat in self.open_seats if seat not in self.emails]

    def mail_mode(self, seat: str) -> str:
        """What ``seat`` is mailed (:data:`MAIL_MODES`): its own choice, else the host's default."""
        return self.mail_modes.get(seat, self.mail)

    def language(self, seat: str) -> str:
        """The language ``seat`` reads (English unless the host or the player chose another)."""
        return self.languages.get(seat, "en")

    def empty(self) -> bool:
        return not self.to_data()

    def players_of(self, address: str) -> list[str]:
        address = normal_address(address)
        return sorted(p for p, a in self.emails.items() if normal_address(a) == address)


def normal_address(address: str) -> str:
    from email.utils import parseaddr  # lazily: 'pbem apply' of a game without mail

    return parseaddr(address)[1].strip().lower()


def check_address(address: str, player: str) -> str:
    from email.utils import parseaddr

    _name, addr = parseaddr(address)
    if not addr or "@" not in addr or addr.startswith("@") or addr.endswith("@") or " " in addr:
        raise FormatError(Msg("{player}: {address} is not an e-mail address", player=player,
                              address=repr(address)), "P1")
    return addr


def settings_bytes(settings: Settings) -> bytes:
    head = "# pbem host settings: private to the host (mode 0600), never sent to players\n"
    return (head + dump_yaml(settings.to_data())).encode("utf-8")


def save_settings(game_dir: Path, settings: Settings) -> None:
    write_atomic(game_dir / SETTINGS_NAME, settings_bytes(settings), 0o600)


_PARSED: dict[tuple[str, bytes], Any] = {}


def _parsed(where: str, raw: bytes) -> Any:
    """The YAML of a host.yaml, parsed once a process for the same bytes (pbem mail reads a game's
    settings four times a message); the caller only reads it."""
    key = (where, raw)
    if key not in _PARSED:
        if len(_PARSED) >= 256:
            _PARSED.clear()
        _PARSED[key] = load_one(decode(raw, where), where)
    return _PARSED[key]


def load_settings(game_dir: Path) -> Settings:
    path = game_dir / SETTINGS_NAME
    if not path.exists():
        return Settings()
    data = _parsed(str(path), read_limited(path, SETTINGS_LIMIT, Msg("host settings")))
    if data is None:
        return Settings()
    if not isinstance(data, dict):
        raise TamperError(Msg("{path} must be a mapping with 'emails' and 'host_key'", path=str(path)))
    emails, host_key, mail_from = data.get("emails", {}), data.get("host_key"), data.get("mail_from")
    bot_ms = data.get("bot_milliseconds")
    reveal = data.get("reveal", "manual")
    languages = data.get("languages", {})
    mail, mail_modes = data.get("mail", MAIL_MODES[0]), data.get("mail_modes", {})
    open_seats, press, watchers = data.get("open_seats", []), data.get("press", "on"), data.get("watchers", {})
    no_receipts = data.get("no_receipts", [])
    if (
        not isinstance(open_seats, list) or not isinstance(no_receipts, list)
        or not all(isinstance(x, str) for x in open_seats + no_receipts)
        or press not in PRESS_MODES or not isinstance(watchers, dict)
        or not all(isinstance(k, str) and v in LANGS for k, v in watchers.items())
    ):
        raise TamperError(Msg("{path}: 'open_seats' and 'no_receipts' must list seats, 'press' be one of {modes}, "
                              "'watchers' map addresses to {langs}", path=str(path), modes=", ".join(PRESS_MODES),
                              langs=", ".join(LANGS)))
    if (
        mail not in MAIL_MODES
        or not isinstance(mail_modes, dict)
        or not all(isinstance(k, str) and v in MAIL_MODES for k, v in mail_modes.items())
        or reveal not in REVEALS
        or not isinstance(languages, dict)
        or not all(isinstance(k, str) and v in LANGS for k, v in languages.items())
        or not isinstance(emails, dict)
        or not (mail_from is None or isinstance(mail_from, str))
        or not all(isinstance(k, str) and isinstance(v, str) for k, v in emails.items())
        or not (host_key is None or isinstance(host_key, str))
        or not (bot_ms is None or (type(bot_ms) is int and BOT_SECONDS[0] <= bot_ms / 1000 <= BOT_SECONDS[1]))
    ):
        raise TamperError(Msg("{path} must hold 'emails' (player: address), 'host_key' (a path), "
                              "'bot_milliseconds' ({low} to {high}) 'reveal' ({auto} or {manual}) and "
                              "'languages' (seat: {langs}), 'mail' and 'mail_modes' (seat: {modes})",
                              path=str(path), low=f"{BOT_SECONDS[0] * 1000:.0f}",
                              high=f"{BOT_SECONDS[1] * 1000:.0f}", auto=REVEALS[0], manual=REVEALS[1],
                              langs=", ".join(LANGS), modes=", ".join(MAIL_MODES)))
    return Settings(dict(emails), host_key, mail_from, None if bot_ms is None else bot_ms / 1000, RevealWhen(reveal),
                    dict(languages), str(mail), dict(mail_modes), list(open_seats), str(press), dict(watchers),
                    list(no_receipts))


# --- Message-IDs already applied ------------------------------------------------------------

def seen_ids(game_dir: Path) -> dict[str, int]:
    path = game_dir / SEEN_NAME
    if not path.exists():
        return {}
    text = decode(read_limited(path, SEEN_LIMIT, Msg("seen-mail list")), str(path))
    out: dict[str, int] = {}
    for line in text.split("\n")[:-1]:  # a last line with no newline was cut short: not read
        parts = line.split()
        if len(parts) == 2 and parts[1].isdigit():
            out[parts[0]] = int(parts[1])
    return out


def record_seen(game_dir: Path, message_id: str, seq: int) -> None:
    """Add one applied Message-ID (the caller holds the game's lock): one line appended and
    synced, as the mail ledger and the delivery journal are (one wait for the disk, where the
    whole list was rewritten, synced, renamed and its folder synced).  A line the
    disk cut short has no newline: :func:`seen_ids` skips it, and the next line ends it with a
    word no line holds, so that it is never read (``<id> 1`` may be the start of ``<id> 12``)."""
    path = game_dir / SEEN_NAME
    made = not path.exists()
    fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW, 0o600)
    try:
        os.fchmod(fd, 0o600)  # the host's own, whatever the umask
        size = os.fstat(fd).st_size
        cut = size > 0 and os.pread(fd, 1, size - 1) != b"\n"
        os.write(fd, (b" -\n" if cut else b"") + f"{message_id} {seq}\n".encode())  # ' -': never read
        os.fsync(fd)
    finally:
        os.close(fd)
    if made:
        sync_folder(game_dir)


def check_languages(players: tuple[str, ...], languages: dict[str, str], option: str = "--seat-lang") -> None:
    """Each seat named is a player of the game, and each language one pbem speaks."""
    for seat, lang in languages.items():
        if seat not in players:
            raise FormatError(Msg("{option} {seat}={lang}: {quoted} is not one of the players ({players}); "
                                  "nothing was changed", option=option, seat=seat, lang=lang, quoted=repr(seat),
                                  players=", ".join(players)), "P1")
        if lang not in LANGS:
            raise FormatError(Msg("{option} {seat}={lang}: pbem speaks {langs} (English, Hungarian, "
                                  "Greek, Ukrainian), not {quoted}; nothing was changed", option=option, seat=seat,
                                  lang=lang, langs=", ".join(LANGS), quoted=repr(lang)), "P1")


def set_language(game_dir: Path, players: tuple[str, ...], seat: str, lang: str) -> str:
    """The language ``seat`` (one of the game's ``players``) reads from now on, in
    host.yaml under the game's lock; no entry is written (the log is language-neutral).
    Returns the language the seat read before."""
    check_languages(players, {seat: lang}, "language")
    with locked(game_dir):
        settings = load_settings(game_dir)
        before = settings.language(seat)
        if lang == "en":
            settings.languages.pop(seat, None)
        else:
            settings.languages[seat] = lang
        save_settings(game_dir, settings)
    return before


def set_mail_mode(game_dir: Path, players: tuple[str, ...], seat: str, mode: str) -> str:
    """What ``seat`` is mailed from now on (:data:`MAIL_MODES`), in host.yaml under the game's
    lock; no entry is written.  Returns the seat's mode before."""
    if seat not in players or mode not in MAIL_MODES:
        raise FormatError(Msg("mail {mode} for {seat}: give one of {modes} for one of the players ({players}); "
                              "nothing was changed", mode=mode, seat=seat, modes=", ".join(MAIL_MODES),
                              players=", ".join(players)), "P1")
    with locked(game_dir):
        settings = load_settings(game_dir)
        before = settings.mail_mode(seat)
        settings.mail_modes[seat] = mode
        save_settings(game_dir, settings)
    return before


def set_receipts(game_dir: Path, players: tuple[str, ...], seat: str, on: bool) -> None:
    """Whether ``seat`` gets a short receipt of each of its moves the host records (the
    default) from now on, in host.yaml under the game's lock; no entry is written."""
    if seat not in players:
        raise FormatError(Msg("receipts for {seat}: give one of the players ({players}); nothing was changed",
                              seat=seat, players=", ".join(players)), "P1")
    with locked(game_dir):
        settings = load_settings(game_dir)
        settings.no_receipts = [s for s in settings.no_receipts if s != seat] + ([] if on else [seat])
        save_settings(game_dir, settings)


def check_registrations(
    players: tuple[str, ...], keys: dict[str, str], emails: dict[str, str]
) -> dict[str, str]:
    """``pbem new``'s keys and addresses checked (players of the game, well formed);
    returns the bare addresses."""
    for what, table in (("--seat-key", keys), ("--seat-email", emails)):
        for player in table:
            if player not in players:
                raise FormatError(
                    Msg("{what} {player}=...: {quoted} is not one of the players ({players})", what=what, player=player,
                        quoted=repr(player), players=", ".join(players)), "P8" if what == "--seat-key" else "P1",
                )
    for player, public in keys.items():
        check_public_text(public, f"--seat-key {player}")
    return {player: check_address(address, player) for player, address in emails.items()}
