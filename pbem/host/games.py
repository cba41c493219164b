"""The host's side: creating a game, starting it, applying moves, revealing the secret.

Every operation takes the game's lock, reads and replays the whole public log
(so a tampered log is refused before anything is added to it), checks the
input, and only then writes: private files first, the log last, each
atomically.  A refused input changes no file.
"""

from __future__ import annotations

import os
import re
import secrets
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pbem import ENGINE_NAME, __version__
from pbem.data import STANDARD_DATA_HASHES, default_board, default_catalogue
from pbem.errors import FormatError, PbemError, StateError, TamperError, UnknownError
from pbem.fair import protocol
from pbem.fair.dealing import HostFaces
from pbem.fair.keys import public_text
from pbem.fair.tokens import position_of
from pbem.files import read_limited, write_atomic
from pbem.host.sealer import game_sealer, sealer_for
from pbem.host.settings import Settings, check_registrations, save_settings
from pbem.log.clock import stamp
from pbem.log.game import Game
from pbem.log.logfile import LOG_NAME, append, link, locked, read_log
from pbem.log.moves import Move
from pbem.log.yamlio import decode, dump_yaml, load_one, load_stream
from pbem.record import Record
from pbem.referee.admit import Verdict, check_abandon, check_waive, judge
from pbem.referee.audit import host_faces, start_entry
from pbem.referee.replay import apply_entry, replay
from pbem.referee.reveals import outcome_dicts
from pbem.referee.seats import check_replace, due_at, resigned_to_move, standin_entry
from pbem.referee.signatures import log_has_signatures, require_valid
from pbem.rules import play
from pbem.rules.data import Board, Catalogue, face_words
from pbem.rules.events import Event, TokenLooked

SECRET_NAME = "secret.yaml"
PLAYER_RE = re.compile(r"^[a-z][a-z0-9_-]{0,31}\Z")  # as schemas/move.json
PRIVATE_DIR = "private"


def game_dir(games: Path, game_id: str) -> Path:
    if not protocol.GAME_ID_RE.match(game_id):
        raise UnknownError(f"{game_id!r} is not a game id ({protocol.GAME_ID_RULE})", "P2")
    path = games / game_id
    if not (path / LOG_NAME).is_file():
        raise UnknownError(f"no game {game_id!r} in {str(games)!r} (no {LOG_NAME} there). {_games_seen(games)}", "P1")
    return path


def _games_seen(games: Path) -> str:
    """Where pbem looked and the games it found there, for a game id it could not find."""
    where = f"pbem looked in {games.resolve()} (--games, else $PBEM_GAMES, else the current folder)"
    try:
        found = sorted(p.name for p in games.iterdir() if (p / LOG_NAME).is_file())
    except OSError:
        return f"{where}, which cannot be read."
    if not found:
        nearby = sorted(  # folders here that hold games, as the demo's demo-games/ does
            p.name for p in games.iterdir()
            if p.is_dir() and any((q / LOG_NAME).is_file() for q in p.iterdir() if q.is_dir())
        )
        hint = f"; try {' or '.join(f'--games {games / n}' for n in nearby[:5])}" if nearby else ""
        return f"{where} and found no game there; name the folder that holds the games with --games{hint}"
    shown = ", ".join(found[:20]) + (f" and {len(found) - 20} more" if len(found) > 20 else "")
    return f"{where}; the games there: {shown}"


def load_game(path: Path) -> Game:
    """Read and replay a game directory's public log."""
    entries, hashes = read_log(path / LOG_NAME)
    game = replay(entries, hashes)
    if log_has_signatures(entries):  # P8; most games use no keys and skip the import
        require_valid(entries)  # a log whose signatures fail is tampered with
    return game


# --- the secret -----------------------------------------------------------------

def read_secret(path: Path) -> tuple[bytes, str]:
    data = load_one(decode(read_limited(path / SECRET_NAME, 4096, "secret file"), "the secret file"), "the secret file")
    try:
        secret = bytes.fromhex(data["secret"])
        made = str(data["made"])
        if len(secret) != 32:
            raise ValueError
    except (KeyError, TypeError, ValueError):
        raise TamperError("the secret file must hold 'secret' (64 hex digits) and 'made'", "P1") from None
    return secret, made


def _secret_for(game: Game, path: Path) -> bytes:
    secret, _made = read_secret(path)
    if protocol.secret_commitment(secret) != game.secret_commitment:
        raise TamperError("the secret file does not match the commitment in entry 0", "P3")
    return secret


# --- new game ---------------------------------------------------------------------

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


def create(games: Path, spec: NewGame) -> Path:
    """P3: the game directory, its secret file (0600) and the first log entry."""
    if not protocol.GAME_ID_RE.match(spec.game_id):
        raise FormatError(f"{spec.game_id!r} is not a game id ({protocol.GAME_ID_RULE})", "P2")
    players = spec.players
    if not 2 <= len(players) <= 4 or len(set(players)) != len(players):
        raise FormatError("Rattus is for 2 to 4 players with distinct names", "R2")
    for p in players:
        if not PLAYER_RE.match(p):
            raise FormatError(f"player name {p!r}: use 1-32 lowercase letters, digits, _ or -", "P2")
    if spec.first is not None and spec.first not in players:
        raise FormatError(f"--first {spec.first!r} is not one of the players", "R2.1")
    spec.board.regions_in_use(len(players))
    if spec.reminder is not None and (spec.deadline is None or spec.reminder >= spec.deadline):
        raise FormatError("--reminder needs a --deadline, and must be shorter than it", "R8.1")
    path = games / spec.game_id
    if path.exists():
        raise StateError(f"game {spec.game_id!r} already exists in {str(games)!r}", "P1")
    made = "supplied" if spec.secret is not None else "os-csprng"
    secret = spec.secret if spec.secret is not None else secrets.token_bytes(32)
    if len(secret) != 32:
        raise FormatError("the secret must be 32 bytes (64 hex digits)", "P1")
    data = {"map": spec.board.to_data(), "tokens": spec.catalogue.to_data()}
    data_hash = protocol.data_hash(data["map"], data["tokens"])
    entry: dict[str, Any] = {
        "kind": "create",
        "protocol": protocol.PROTOCOL,
        "engine": {"name": ENGINE_NAME, "version": __version__},
        "game": spec.game_id,
        "players": list(players),
        "options": _options(spec),
        "secret": {"commitment": protocol.secret_commitment(secret), "made": made},
        "edition": "standard" if data_hash in STANDARD_DATA_HASHES else "custom",  # P3
        "data_hash": data_hash,
        "data": data,
    }
    if spec.keys:
        entry["keys"] = dict(sorted(spec.keys.items()))
    # --- P8: the host key signs entry 0 too; host.yaml keeps its path (pbem.fair.keys) ---
    emails = check_registrations(players, spec.keys, spec.emails)
    sealer = None
    if spec.host_key_file is not None:
        sealer = sealer_for(spec.host_key_file.resolve(), spec.host_key)
        spec.host_key = public_text(sealer.key)
    settings = Settings(emails, str(spec.host_key_file.resolve()) if spec.host_key_file else None)
    # --- end P8 ---
    if spec.host_key:
        entry["host_key"] = spec.host_key
    if not games.exists():
        games.mkdir(mode=0o700, parents=True, exist_ok=True)
        os.chmod(games, 0o700)
    tmp = games / f".{spec.game_id}.{os.getpid()}.new"
    tmp.mkdir(mode=0o700)
    os.chmod(tmp, 0o700)  # the game folder is the host's alone, whatever the umask
    try:
        write_atomic(tmp / SECRET_NAME, dump_yaml({"secret": secret.hex(), "made": made}).encode(), 0o600)
        os.close(os.open(tmp / ".lock", os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600))
        os.chmod(tmp / ".lock", 0o600)
        first = link(entry, 0, protocol.ZERO_HASH, stamp(None))
        if not settings.empty():
            save_settings(tmp, settings)
        append(tmp / LOG_NAME, [sealer.seal(first) if sealer else first])
        try:
            os.rename(tmp, path)
        except OSError:  # another `pbem new` made it first
            raise StateError(f"game {spec.game_id!r} already exists in {str(games)!r}", "P1") from None
    except BaseException:
        for child in tmp.iterdir():
            child.unlink()
        tmp.rmdir()
        raise
    return path


def _options(spec: NewGame) -> dict[str, Any]:
    """Entry 0's options: the first player (R2.1) and, when set, the deadline (R8.1)."""
    options: dict[str, Any] = {"first": spec.first}
    if spec.deadline is not None:
        options["deadline"] = spec.deadline
    if spec.reminder is not None:
        options["reminder"] = spec.reminder
    return options


# --- applying moves -------------------------------------------------------------

class Applied(Record):
    """What an accepted move added: entries, events, and private files written."""

    entries: list[dict[str, Any]]
    events: list[Event]
    private: list[Path]
    game: Game


def apply_move(games: Path, move: Move) -> Applied:
    """The referee's verdict on ``move`` (P10: on public facts only), then, if admitted,
    its resolution with the faces and its entries (P4, P7, R1-R7)."""
    path = game_dir(games, move.game)
    with locked(path):
        game = load_game(path)
        verdict = judge(game, move)
        if move.kind != "move":
            return _write(path, game, [{"kind": move.kind, "player": move.player, "move": move.data}])
        faces = host_faces(game, _secret_for(game, path))
        entry, events = resolve(game, verdict, faces)
        return _write(path, game, [entry], events=events, faces=faces)


def resolve(game: Game, verdict: Verdict, faces: HostFaces) -> tuple[dict[str, Any], list[Event]]:
    """An admitted move resolved with the faces, as its log entry (P10: this cannot refuse)."""
    move = verdict.move
    assert game.state is not None  # the referee admits moves of a started game only
    try:
        _state, events = play(game.state, move.player, verdict.actions, faces)
    except Exception as err:  # pragma: no cover - a bug in pbem, never a refusal
        raise PbemError(f"internal error: an admitted move did not resolve: {err}") from err
    entry = {"kind": "move", "player": move.player, "move": move.data, "outcome": outcome_dicts(events, faces.salt)}
    return entry, events


def waive(games: Path, game_id: str, player: str) -> Applied:
    """P4: the host records that ``player`` adds no nonce (only before the first reveal)."""
    path = game_dir(games, game_id)
    with locked(path):
        game = load_game(path)
        check_waive(game, player)
        return _write(path, game, [{"kind": "waive", "player": player}])


def abandon(games: Path, game_id: str) -> Applied:
    """P4: a game whose opening cannot finish (a nonce never revealed) is abandoned, on the record."""
    path = game_dir(games, game_id)
    with locked(path):
        game = load_game(path)
        check_abandon(game)
        return _write(path, game, [{"kind": "abandon"}])


def _write(
    path: Path,
    game: Game,
    entries: list[dict[str, Any]],
    events: list[Event] | None = None,
    faces: HostFaces | None = None,
) -> Applied:
    """Chain the new entries, replay them as any reader would, then write."""
    chained = []
    seq, prev = game.last_seq, game.last_hash
    sealer = None
    if game.entries[0].get("host_key"):  # P8: the host signs every entry
        sealer = game_sealer(path, game)
    pending = list(entries)
    while pending:
        entry = pending.pop(0)
        seq += 1
        entry = link(entry, seq, prev, stamp(game.last_at))
        if sealer is not None:
            entry = sealer.seal(entry)
        prev = protocol.entry_hash(entry)
        try:
            apply_entry(game, entry, prev)  # the same check every reader will make
        except TamperError as err:  # pragma: no cover - would be a bug in pbem itself
            raise PbemError(f"internal error: the new entry does not replay: {err}") from err
        chained.append(entry)
        if game.ready_to_start and not pending:  # P4: the last reveal (or waiver) starts the game
            pending.append(start_entry(game, _secret_for(game, path)))
        elif game.resigned and not pending and resigned_to_move(game) is not None:
            # R8.4: a resigned seat is played by the stand-in at once, turn after turn
            faces = faces or host_faces(game, _secret_for(game, path))
            pending.append(standin_entry(game, "standin", faces))
    private = _write_private(path, game, events or [], faces, seq, seq - len(chained))
    append(path / LOG_NAME, chained)
    return Applied(chained, events or [], private, game)


def read_private(path: Path, player: str, up_to: int) -> list[dict[str, Any]]:
    """A player's private reveals for entries up to ``up_to``.

    A reveal of a later entry can only be left by an apply that was killed
    between writing it and appending its entry (the log is written last): it
    never happened, so it is not shown, and the next write drops it.
    """
    target = path / PRIVATE_DIR / f"{player}.yaml"
    if not target.exists():
        return []
    docs = load_stream(decode(read_limited(target, 1 << 20, "private file"), "private file"), "private file")
    return [d for d in docs if isinstance(d, dict) and isinstance(d.get("seq"), int) and d["seq"] <= up_to]


def _face_words(game: Game, token_id: str | None) -> str:
    """R5.6: what the Witch saw, in words, for the private file."""
    return face_words(game.catalogue.by_id(token_id)) if token_id else ""


def _write_private(
    path: Path, game: Game, events: list[Event], faces: HostFaces | None, seq: int, before: int
) -> list[Path]:
    """R5.6, P6: a Witch's look goes to that player's private file only (before the log)."""
    looks = [e for e in events if isinstance(e, TokenLooked)]
    if not looks or faces is None:
        return []
    written = []
    folder = path / PRIVATE_DIR
    folder.mkdir(mode=0o700, exist_ok=True)
    os.chmod(folder, 0o700)
    for player in sorted({e.player for e in looks}):
        target = folder / f"{player}.yaml"
        docs = [dump_yaml(d) for d in read_private(path, player, before)]
        for look in (e for e in looks if e.player == player):
            position = position_of(look.token)
            docs.append(dump_yaml({
                "seq": seq,
                "token": look.token,
                "token_id": faces.look(look.token),
                "face": _face_words(game, faces.look(look.token)),
                "salt": faces.salt(look.token),
                "position": position,
                "commitment": game.commitments[position - 1],
            }))
        write_atomic(target, "".join("---\n" + d for d in docs).encode(), 0o600)
        written.append(target)
    return written


# --- R8: timeouts and new players ----------------------------------------------------------

def timeout(games: Path, game_id: str) -> Applied | None:
    """R8.2: if the deadline of the player to move has passed (by the host's clock), record a
    timeout whose turn the stand-in plays (R8.3); None when no deadline has passed.

    Whether it is recorded depends on the log and the clock only, never on a face (P10)."""
    from pbem.log.clock import now
    from pbem.referee.deadlines import due

    path = game_dir(games, game_id)
    with locked(path):
        game = load_game(path)
        found = due(game)
        if found is None or now() < found[1]:
            return None
        faces = host_faces(game, _secret_for(game, path))
        assert due_at(game) == found[1]
        return _write(path, game, [standin_entry(game, "timeout", faces)], faces=faces)


def replace(games: Path, game_id: str, seat: str, email: str | None, key: str | None) -> Applied:
    """R8.4: hand ``seat`` to a new player: an entry naming the seat and, where used, the new
    key (checked for that seat's moves from this entry on); the address goes to host.yaml."""
    from pbem.host.settings import check_address, load_settings, save_settings

    path = game_dir(games, game_id)
    with locked(path):
        game = load_game(path)
        check_replace(game, seat)
        settings = load_settings(path)
        if email is not None:
            settings.emails[seat] = check_address(email, seat)
        elif seat in settings.emails:
            del settings.emails[seat]  # the old player's address must not get the new player's mail
        entry: dict[str, Any] = {"kind": "replace", "player": seat}
        if key is not None:
            entry["key"] = key
        save_settings(path, settings)  # before the log: a crash leaves at worst no entry
        return _write(path, game, [entry])


# --- the end ------------------------------------------------------------------------

def reveal(games: Path, game_id: str) -> Applied:
    """P6: when the game is over, publish the secret in a final entry."""
    path = game_dir(games, game_id)
    with locked(path):
        game = load_game(path)
        if not game.over:
            raise StateError("the secret is revealed only when the game is over", "P6")
        if game.secret is not None:
            raise StateError("the secret has already been revealed", "P6")
        secret = _secret_for(game, path)
        return _write(path, game, [{"kind": "reveal", "secret": secret.hex()}])
