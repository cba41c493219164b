"""Creating a game (P3): its folder, its secret file and entry 0, all or nothing.

:func:`create` checks the players, the options and the registrations, builds
entry 0 (the game data with its hash, the secret's commitment, the options and
the keys), then writes everything into a private temporary folder and renames
it into place, so a refused or interrupted ``pbem new`` leaves no game behind.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
from dataclasses import dataclass, field
from pathlib import Path

from pbem import ENGINE_NAME, __version__
from pbem.data import STANDARD_DATA_HASHES, default_board, default_catalogue
from pbem.errors import FormatError, PbemError, StateError
from pbem.fair import protocol
from pbem.fair.keys import public_text
from pbem.files import write_atomic
from pbem.host.head import head_of
from pbem.host.index import settled
from pbem.host.sealer import Sealer, sealer_for
from pbem.host.secret import SECRET_NAME
from pbem.host.settings import (
    BOT_SECONDS,
    MAIL_MODES,
    PRESS_MODES,
    REVEALS,
    RevealWhen,
    Settings,
    check_languages,
    check_registrations,
    save_settings,
)
from pbem.i18n import Msg
from pbem.log.clock import stamp
from pbem.log.game import BOT_LEVELS, Keys
from pbem.log.logfile import LOG_NAME, append, link, locked
from pbem.log.records import Create, Draft, Edition, Made, Options
from pbem.log.yamlio import dump_yaml
from pbem.rules.data import Board, Catalogue

PLAYER_RE = re.compile(r"^[a-z][a-z0-9_-]{0,31}\Z")  # as schemas/move.json


@dataclass
class NewGame:
    game_id: str
    players: tuple[str, ...]
    first: str | None = None
    secret: bytes | None = None  # None: 32 bytes from the OS CSPRNG (P1)
    board: Board = field(default_factory=default_board)
    catalogue: Catalogue = field(default_factory=default_catalogue)
    keys: dict[str, str] = field(default_factory=dict)
    host_key: str | None = None
    # P8 / mail (pbem.fair.keys, pbem.host.settings): the host's private key file, whose public
    # key goes into entry 0 and which signs every entry; players' addresses (host.yaml)
    host_key_file: Path | None = None
    emails: dict[str, str] = field(default_factory=dict)
    deadline: int | None = None  # R8.1: seconds a turn may take (pbem.referee.deadlines)
    reminder: int | None = None  # seconds before the deadline a reminder is mailed
    absence: int | None = None  # R8.5: each seat's absence allowance in whole days (none if unset)
    bots: dict[str, str] = field(default_factory=dict)  # seat -> bot level (entry 0)
    bot_seconds: float | None = None  # their thinking time per decision (host.yaml; None: the default)
    reveal: RevealWhen = RevealWhen.MANUAL  # P6: AUTO: the host's step reveals the secret once the game is over
    languages: dict[str, str] = field(default_factory=dict)  # seat -> the language it reads (host.yaml)
    mail: str = "turn"  # what each seat is mailed by default (pbem.host.settings.MAIL_MODES; host.yaml)
    open_seats: int = 0  # seats left without an address, for strangers to join by mail (host.yaml)
    press: str = "on"  # press by mail: on, public (to all only) or off (pbem.host.settings.PRESS_MODES)


def create(games: Path, spec: NewGame) -> Path:
    """P3: the game directory, its secret file (0600) and the first log entry."""
    _check_spec(spec)
    path = games / spec.game_id
    if path.exists():
        raise StateError(Msg("game {game} already exists in {folder}", game=repr(spec.game_id),
                             folder=repr(str(games))), "P1")
    made = Made.SUPPLIED if spec.secret is not None else Made.OS_CSPRNG
    secret = spec.secret if spec.secret is not None else secrets.token_bytes(32)
    if len(secret) != 32:
        raise FormatError(Msg("the secret must be 32 bytes (64 hex digits)"), "P1")
    bots = _bot_seats(spec) if spec.bots else {}  # its refusals first, as entry 0's options
    # --- P8: the host key signs entry 0 too; host.yaml keeps its path (pbem.fair.keys) ---
    emails = check_registrations(spec.players, spec.keys, spec.emails)
    sealer = None
    if spec.host_key_file is not None:
        sealer = sealer_for(spec.host_key_file.resolve(), spec.host_key)
        spec.host_key = public_text(sealer.key)
    clash = Keys(spec.keys, spec.host_key).clash()
    if clash is not None:  # every reader refuses such an entry 0 (pbem.referee.replay)
        raise FormatError(Msg("--seat-key: one key per seat, and none the host's: {clash}; each player "
                              "makes a key of their own with 'pbem keygen'; nothing was changed", clash=clash), "P8")
    settings = Settings(emails, str(spec.host_key_file.resolve()) if spec.host_key_file else None,
                        bot_seconds=spec.bot_seconds, reveal=RevealWhen(spec.reveal), languages=dict(spec.languages),
                        mail=spec.mail, open_seats=_open_seats(spec, emails), press=spec.press)
    # --- end P8 ---
    entry = _first_entry(spec, secret, made, bots)
    _write_game(games, spec.game_id, {"secret": secret.hex(), "made": made.value}, entry, settings, sealer)
    with locked(path):
        settled(path, new=True)  # the host's index of its games: the new game's row
    return path


def _check_spec(spec: NewGame) -> None:
    """The game id, the players (R2), the first player (R2.1), the map, the deadline (R8.1)."""
    if not protocol.GAME_ID_RE.match(spec.game_id):
        raise FormatError(Msg("{game} is not a game id ({rule})", game=repr(spec.game_id),
                              rule=Msg(protocol.GAME_ID_RULE)), "P2")
    players = spec.players
    if not 2 <= len(players) <= 4 or len(set(players)) != len(players):
        raise FormatError(Msg("Rattus is for 2 to 4 players with distinct names"), "R2")
    for p in players:
        if not PLAYER_RE.match(p):
            raise FormatError(Msg("player name {name}: use 1-32 lowercase letters, digits, _ or -", name=repr(p)), "P2")
    if spec.first is not None and spec.first not in players:
        raise FormatError(Msg("--first {first} is not one of the players", first=repr(spec.first)), "R2.1")
    check_languages(players, spec.languages)
    spec.board.regions_in_use(len(players))
    if spec.reminder is not None and (spec.deadline is None or spec.reminder >= spec.deadline):
        raise FormatError(Msg("--reminder needs a --deadline, and must be shorter than it"), "R8.1")
    if spec.absence is not None and (spec.deadline is None or not 1 <= spec.absence <= 366):
        raise FormatError(Msg("--absence needs a --deadline (an absence extends deadlines) and a whole number "
                              "of days from 1 to 366"), "R8.5")
    if spec.mail not in MAIL_MODES:
        raise FormatError(Msg("--mail {mode}: give one of {modes}", mode=repr(spec.mail), modes=", ".join(MAIL_MODES)),
                          "P1")
    if spec.reveal not in REVEALS:
        raise FormatError(Msg("--reveal {reveal}: give {auto} or {manual}", reveal=repr(spec.reveal), auto=REVEALS[0],
                              manual=REVEALS[1]), "P6")
    if spec.bot_seconds is not None and not (spec.bots and BOT_SECONDS[0] <= spec.bot_seconds <= BOT_SECONDS[1]):
        raise FormatError(Msg("--bot-seconds needs a --bot seat, and {low} to {high} seconds, not {seconds}",
                              low=BOT_SECONDS[0], high=BOT_SECONDS[1], seconds=spec.bot_seconds), "P1")


def _first_entry(spec: NewGame, secret: bytes, made: Made, bots: dict[str, str]) -> Draft:
    """Entry 0 before it is chained (P3): the game, its data and edition, the secret's
    commitment, the options (R2.1, R8.1, the bot seats) and the keys (P8)."""
    data = {"map": spec.board.to_data(), "tokens": spec.catalogue.to_data()}
    data_hash = protocol.data_hash(data["map"], data["tokens"])
    options = Options(spec.first, spec.deadline, spec.reminder, bots, spec.absence)
    return Create.new(
        protocol=protocol.PROTOCOL, engine={"name": ENGINE_NAME, "version": __version__}, game=spec.game_id,
        players=tuple(spec.players), options=options, commitment=protocol.secret_commitment(secret), made=made,
        edition=Edition.STANDARD if data_hash in STANDARD_DATA_HASHES else Edition.CUSTOM,  # P3
        data_hash=data_hash, data=data, keys=spec.keys, host_key=spec.host_key or None,
    )


def _write_game(
    games: Path, game_id: str, secret: dict[str, str], entry: Draft, settings: Settings,
    sealer: Sealer | None,
) -> None:
    """The game's files written in a private temporary folder, then renamed into place at once."""
    if not games.exists():
        games.mkdir(mode=0o700, parents=True, exist_ok=True)
        os.chmod(games, 0o700)
    tmp = games / f".{game_id}.{os.getpid()}.new"
    tmp.mkdir(mode=0o700)
    os.chmod(tmp, 0o700)  # the game folder is the host's alone, whatever the umask
    try:
        write_atomic(tmp / SECRET_NAME, dump_yaml(secret).encode(), 0o600)
        os.close(os.open(tmp / ".lock", os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600))
        os.chmod(tmp / ".lock", 0o600)
        first = link(entry.to_raw(), 0, protocol.ZERO_HASH, stamp(None))
        if not settings.empty():
            save_settings(tmp, settings)
        append(tmp / LOG_NAME, [sealer.seal(first) if sealer else first])
        with contextlib.suppress(PbemError):
            head_of(tmp, write=True)  # the head index of list and tick, kept from here on by the host
        try:
            os.rename(tmp, games / game_id)
        except OSError:  # another `pbem new` made it first
            raise StateError(Msg("game {game} already exists in {folder}", game=repr(game_id),
                                 folder=repr(str(games))), "P1") from None
    except BaseException:
        for child in tmp.iterdir():
            child.unlink()
        tmp.rmdir()
        raise


def _open_seats(spec: NewGame, emails: dict[str, str]) -> list[str]:
    """The seats strangers may join by mail (``--open N``): every seat with no address, no bot
    and no key, exactly N of them, so that the host sees which seats are whose."""
    if spec.press not in PRESS_MODES:
        raise FormatError(Msg("--press {mode}: give one of {modes}", mode=repr(spec.press),
                              modes=", ".join(PRESS_MODES)), "P1")
    if not spec.open_seats:
        return []
    free = [p for p in spec.players if p not in emails and p not in spec.bots]
    if spec.open_seats != len(free) or any(p in spec.keys for p in free):
        raise FormatError(Msg("--open {count}: the open seats are the seats with no --seat-email, --bot or "
                              "--seat-key, and this game has {free} ({seats}); nothing was changed",
                              count=spec.open_seats, free=len(free), seats=", ".join(free) or "-"), "P1")
    return free


def _bot_seats(spec: NewGame) -> dict[str, str]:
    """Entry 0's ``bots`` (seat -> level): public, since a bot seat is the host's seat."""
    for player, level in spec.bots.items():
        if player not in spec.players:
            raise FormatError(Msg("--bot {player}={level}: {seat} is not one of the players ({players})",
                                  player=player, level=level, seat=repr(player), players=", ".join(spec.players)),
                              "P1")
        if level not in BOT_LEVELS:
            raise FormatError(Msg("--bot {player}={level}: no bot level {quoted} (levels: {levels})", player=player,
                                  level=level, quoted=repr(level), levels=", ".join(BOT_LEVELS)), "P1")
        if player in spec.keys:
            raise FormatError(Msg("--bot {player} and --key {player}: a bot seat is played by the host, "
                                  "which cannot sign as a player; a bot seat has no player key (P8)", player=player),
                              "P8")
    if len(spec.bots) == len(spec.players):
        raise FormatError(Msg("--bot: every seat would be a bot; a game needs at least one human seat "
                              "(use 'pbem tournament' for bots alone)"), "P1")
    return dict(sorted(spec.bots.items()))
