"""The host's side of a game in play: starting it, applying moves, timeouts, revealing the secret.

Creating a game is :mod:`.create`'s, the secret file :mod:`.secret`'s and the
players' private files :mod:`.private`'s.  Every operation takes the game's lock, reads and replays the whole public log
(so a tampered log is refused before anything is added to it), checks the
input, and only then writes through the host's step (:func:`pbem.host.step.record`:
private files first, the log last, each atomically; then the start, the stand-in's
and the bot seats' turns, in the same lock).  A refused input changes no file.
"""

from __future__ import annotations

from pathlib import Path

from pbem.errors import SignatureError, StateError, UnknownError
from pbem.fair import protocol
from pbem.host.head import refresh
from pbem.host.index import settled
from pbem.host.replaycache import CachedGame, cached_game
from pbem.host.secret import secret_for
from pbem.host.settings import check_address, load_settings, save_settings
from pbem.host.step import Applied, judged, record
from pbem.i18n import N_, Msg
from pbem.log.clock import now
from pbem.log.game import Game
from pbem.log.logfile import LOG_NAME, locked
from pbem.log.records import Abandon, Replace, Reveal, Waive
from pbem.log.records.sent import MoveFile
from pbem.referee.admit import check_abandon, check_waive
from pbem.referee.audit import host_faces
from pbem.referee.deadlines import due
from pbem.referee.seats import check_replace, due_at, standin_entry


def game_dir(games: Path, game_id: str) -> Path:
    if not protocol.GAME_ID_RE.match(game_id):
        raise UnknownError(Msg("{game} is not a game id ({rule})", game=repr(game_id), rule=Msg(protocol.GAME_ID_RULE)),
                           "P2")
    path = games / game_id
    if not (path / LOG_NAME).is_file():
        raise UnknownError(Msg("no game {game} in {folder} (no {log} there). {seen}", game=repr(game_id),
                               folder=repr(str(games)), log=LOG_NAME, seen=_games_seen(games)), "P1")
    return path


# protocol.GAME_ID_RULE, marked here for the catalogs (a refusal says it as a Msg)
N_("1-64 characters of a-z 0-9 _ -, starting with a letter or digit")


def _games_seen(games: Path) -> Msg:
    """Where pbem looked and the games it found there, for a game id it could not find."""
    folder = str(games.resolve())
    try:
        found = sorted(p.name for p in games.iterdir() if (p / LOG_NAME).is_file())
    except OSError:
        return Msg("pbem looked in {folder} (--games, else $PBEM_GAMES, else the current folder), "
                   "which cannot be read.", folder=folder)
    if not found:
        nearby = sorted(  # folders here that hold games, as the demo's demo-games/ does
            p.name for p in games.iterdir()
            if p.is_dir() and any((q / LOG_NAME).is_file() for q in p.iterdir() if q.is_dir())
        )
        if not nearby:
            return Msg("pbem looked in {folder} (--games, else $PBEM_GAMES, else the current folder) and "
                       "found no game there; name the folder that holds the games with --games", folder=folder)
        tries: str = f"--games {games / nearby[0]}"
        for n in nearby[1:5]:
            tries = Msg("{tries} or {option}", tries=tries, option=f"--games {games / n}")
        return Msg("pbem looked in {folder} (--games, else $PBEM_GAMES, else the current folder) and "
                   "found no game there; name the folder that holds the games with --games; try {tries}",
                   folder=folder, tries=tries)
    if len(found) > 20:
        return Msg.plural("pbem looked in {folder} (--games, else $PBEM_GAMES, else the current folder); "
                          "the games there: {shown} and {n} more game",
                          "pbem looked in {folder} (--games, else $PBEM_GAMES, else the current folder); "
                          "the games there: {shown} and {n} more games", len(found) - 20,
                          folder=folder, shown=", ".join(found[:20]))
    return Msg("pbem looked in {folder} (--games, else $PBEM_GAMES, else the current folder); "
               "the games there: {shown}", folder=folder, shown=", ".join(found))


def load_game(path: Path) -> Game:
    """Read and replay a game directory's public log (the new entries only, when the host's
    replay cache holds the rest byte for byte: :mod:`pbem.host.replaycache`)."""
    return cached_game(path, keep=False).game


def _recorded(path: Path, read: CachedGame, applied: Applied) -> Applied:
    """An input recorded on ``read``: now, and only now, the game as read is kept for the next reader."""
    read.keep(path)
    refresh(path, read)  # the head index of list and tick, from the new entries alone
    settled(path)  # the host's index of its games: this game's row, and its dirty mark cleared
    return applied


# --- applying moves -------------------------------------------------------------

def apply_move(games: Path, move: MoveFile, key_confirmed: bool = False) -> Applied:
    """The referee's verdict on ``move`` (P10: on public facts only), then, if admitted,
    its resolution with the faces and its entries (P4, P7, R1-R7), then the host's step.

    A commitment that registers a key is recorded only with ``key_confirmed``: confirmed
    from the seat's address (:mod:`pbem.host.keyconfirm`), or by the host at the keyboard
    (``pbem apply --confirm-key``); anyone could have written it in the seat's name (P8)."""
    path = game_dir(games, move.game)
    with locked(path):
        waiting = load_settings(path).waiting()
        if waiting:  # an open game (pbem new --open): no move before every seat is filled
            raise StateError(Msg.plural(
                "game {game} is waiting for players ({n} open seat left); its opening (P4) begins once every seat "
                "is filled; nothing was changed",
                "game {game} is waiting for players ({n} open seats left); its opening (P4) begins once every seat "
                "is filled; nothing was changed", len(waiting), game=move.game), "P4")
        read = cached_game(path)
        game = read.game
        written = judged(path, game, move)
        offered = move.key
        if offered is not None and offered != game.keys.get(move.player) and not key_confirmed:
            raise SignatureError(Msg(
                "the commitment registers a key for {seat}, and anyone could have written "
                "it in {seat}'s name: it is recorded only once the key is confirmed as "
                "{seat}'s: by mail, the host mails a one-time code to the seat's address "
                "and a reply from it carrying the code records it; at the keyboard, 'pbem apply FILE "
                "--confirm-key' once you have confirmed the key with the seat's player; or the key "
                "comes with 'pbem new --key'; nothing was changed", seat=move.player), "P8",
            )
        return _recorded(path, read, record(path, game, *written))


def answer(games: Path, game_id: str) -> Applied:
    """The host's step with no new entry: a game just created, whose bot seats commit (P4)."""
    path = game_dir(games, game_id)
    with locked(path):
        read = cached_game(path)
        return _recorded(path, read, record(path, read.game, []))


def waive(games: Path, game_id: str, player: str) -> Applied:
    """P4: the host records that ``player`` adds no nonce (a seat not committed, before the first reveal)."""
    path = game_dir(games, game_id)
    with locked(path):
        read = cached_game(path)
        game = read.game
        check_waive(game, player)
        return _recorded(path, read, record(path, game, [Waive.new(player)]))


def abandon(games: Path, game_id: str) -> Applied:
    """P4: a game whose opening cannot finish (a nonce never revealed) is abandoned, on the record."""
    path = game_dir(games, game_id)
    with locked(path):
        read = cached_game(path)
        game = read.game
        check_abandon(game)
        return _recorded(path, read, record(path, game, [Abandon.new()]))


# --- R8: timeouts and new players ----------------------------------------------------------

def timeout(games: Path, game_id: str) -> Applied | None:
    """R8.2: if the deadline of the player to move has passed (by the host's clock), record a
    timeout whose turn the stand-in plays (R8.3); None when no deadline has passed.

    Whether it is recorded depends on the log and the clock only, never on a face (P10)."""
    path = game_dir(games, game_id)
    with locked(path):
        read = cached_game(path)
        game = read.game
        found = due(game)
        if found is None or now() < found[1]:
            return None
        faces = host_faces(game, secret_for(game, path))
        assert due_at(game) == found[1]
        return _recorded(path, read, record(path, game, [standin_entry(game, faces, timed_out=True)], faces=faces))


def replace(games: Path, game_id: str, seat: str, email: str | None, key: str | None) -> Applied:
    """R8.4: hand ``seat`` to a new player: an entry naming the seat and, where used, the new
    key (checked for that seat's moves from this entry on); the address goes to host.yaml."""
    path = game_dir(games, game_id)
    with locked(path):
        read = cached_game(path)
        game = read.game
        check_replace(game, seat, key)
        settings = load_settings(path)
        if email is not None:
            settings.emails[seat] = check_address(email, seat)
        elif seat in settings.emails:
            del settings.emails[seat]  # the old player's address must not get the new player's mail
        save_settings(path, settings)  # before the log: a crash leaves at worst no entry
        return _recorded(path, read, record(path, game, [Replace.new(seat, key)]))


# --- the end ------------------------------------------------------------------------

def reveal(games: Path, game_id: str) -> Applied:
    """P6: when the game is over, publish the secret in a final entry."""
    path = game_dir(games, game_id)
    with locked(path):
        read = cached_game(path)
        game = read.game
        if not game.over:
            raise StateError(Msg("the secret is revealed only when the game is over"), "P6")
        if game.secret is not None:
            raise StateError(Msg("the secret has already been revealed"), "P6")
        secret = secret_for(game, path)
        return _recorded(path, read, record(path, game, [Reveal.new(secret)]))
