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

from pbem import ENGINE_NAME, __version__, protocol
from pbem.audit import host_faces, start_entry
from pbem.clock import stamp
from pbem.dealing import HostFaces
from pbem.errors import FormatError, PbemError, StateError, TamperError, UnknownError
from pbem.game import Game
from pbem.gamedata import STANDARD_DATA_HASHES, Board, Catalogue, default_board, default_catalogue
from pbem.logfile import LOG_NAME, append, link, locked, read_log
from pbem.moves import Move
from pbem.record import Record
from pbem.referee import Verdict, check_abandon, check_waive, judge
from pbem.replay import apply_entry, log_has_signatures, outcome_dicts, replay
from pbem.rules import play
from pbem.rules.events import Event, TokenLooked
from pbem.yamlio import decode, dump_yaml, load_one, load_stream, read_limited, write_atomic

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
        from pbem import signing

        signing.require_valid(entries)  # a log whose signatures fail is tampered with
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
    # P8 / mail (pbem.signing, pbem.settings): the host's private key file, whose public
    # key goes into entry 0 and which signs every entry; players' addresses (host.yaml)
    host_key_file: Path | None = None
    emails: dict[str, str] = field(default_factory=dict)
    bots: dict[str, str] = field(default_factory=dict)  # seat -> bot level (issue 13; entry 0)


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
        "options": {"first": spec.first, **_bot_options(spec)},
        "secret": {"commitment": protocol.secret_commitment(secret), "made": made},
        "edition": "standard" if data_hash in STANDARD_DATA_HASHES else "custom",  # P3
        "data_hash": data_hash,
        "data": data,
    }
    if spec.keys:
        entry["keys"] = dict(sorted(spec.keys.items()))
    # --- P8: the host key signs entry 0 too; host.yaml keeps its path (pbem.signing) ---
    from pbem.settings import Settings, check_registrations, save_settings

    emails = check_registrations(players, spec.keys, spec.emails)
    sealer = None
    if spec.host_key_file is not None:
        from pbem.signing import public_text, sealer_for

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


def _bot_options(spec: NewGame) -> dict[str, Any]:
    """Entry 0's ``bots`` (seat -> level): public, since a bot seat is the host's seat."""
    if not spec.bots:
        return {}
    from pbem.bots import LEVELS

    for player, level in spec.bots.items():
        if player not in spec.players:
            raise FormatError(f"--bot {player}={level}: {player!r} is not one of the players "
                              f"({', '.join(spec.players)})", "P1")
        if level not in LEVELS:
            raise FormatError(f"--bot {player}={level}: no bot level {level!r} (levels: {', '.join(LEVELS)})", "P1")
        if player in spec.keys:
            raise FormatError(f"--bot {player} and --key {player}: a bot seat is played by the host, "
                              "which cannot sign as a player; a bot seat has no player key (P8)", "P8")
    if len(spec.bots) == len(spec.players):
        raise FormatError("--bot: every seat would be a bot; a game needs at least one human seat "
                          "(use 'pbem tournament' for bots alone)", "P1")
    return {"bots": dict(sorted(spec.bots.items()))}


# --- applying moves -------------------------------------------------------------

class Applied(Record):
    """What an accepted move added: entries, events, and private files written."""

    entries: list[dict[str, Any]]
    events: list[Event]
    private: list[Path]
    game: Game


def apply_move(games: Path, move: Move) -> Applied:
    """The referee's verdict on ``move`` (P10: on public facts only), then, if admitted,
    its resolution with the faces and its entries (P4, P7, R1-R7); then the host plays
    the game's bot seats, if any, until a human seat is awaited (pbem.bots.seat)."""
    applied = apply_one(games, move)
    if not applied.game.bots:
        return applied
    return answer_bots(games, applied)


def answer_bots(games: Path, applied: Applied) -> Applied:
    """``applied`` followed by the bot seats' entries, as one :class:`Applied`."""
    from pbem.bots.seat import play_bots  # only games with bot seats pay for the bots' import

    steps = play_bots(games, applied.game, [applied])
    return Applied(
        [e for a in steps for e in a.entries], [e for a in steps for e in a.events],
        [p for a in steps for p in a.private if p not in applied.private or a is applied],
        steps[-1].game,
    )


def apply_one(games: Path, move: Move) -> Applied:
    """One move: :func:`apply_move` without the bot seats' answers."""
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
        from pbem import signing

        sealer = signing.game_sealer(path, game)
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
            position = protocol.position_of(look.token)
            docs.append(dump_yaml({
                "seq": seq,
                "token": look.token,
                "token_id": faces.look(look.token),
                "salt": faces.salt(look.token),
                "position": position,
                "commitment": game.commitments[position - 1],
            }))
        write_atomic(target, "".join("---\n" + d for d in docs).encode(), 0o600)
        written.append(target)
    return written


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
