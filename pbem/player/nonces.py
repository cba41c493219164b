"""A player's side of the opening (PROTOCOL.md P4): make a nonce, commit to it, reveal it.

``pbem nonce GAME --player P`` makes 32 random bytes (or, with ``--from-words``, the secret
number of the secret words the player types and a code it makes: :mod:`pbem.fair.words`),
keeps them in a local file (mode 0600, never sent; with the code) and writes the commitment
move; once every seat has committed, ``pbem nonce GAME --player P --reveal`` writes the move
that reveals the kept nonce (or the words and code's number again, on any device).  ``pbem
verify LOG --nonce FILE`` / ``--words SEAT`` (and ``--code``) check that
the log holds exactly that nonce for the seat: its commitment before the start, the
start's nonce after it.  Nothing here reads a secret of the host.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path
from typing import Any

from pbem.errors import FormatError, StateError, TamperError, UnknownError
from pbem.fair import protocol
from pbem.fair.words import secret_number, shown_code, words_nonce
from pbem.files import read_limited
from pbem.i18n import Msg
from pbem.log.game import Game
from pbem.log.moves import after_of, parse_move
from pbem.log.notation import is_notation
from pbem.log.records import Commit, CommitMove, NonceMove, Start
from pbem.log.yamlio import MOVE_LIMIT, decode, dump_yaml, load_one

NONCE_BYTES = 32


def keep_path(game_id: str, player: str, folder: Path) -> Path:
    """Where a player keeps their nonce by default: ``nonce-GAME-PLAYER.yaml``."""
    return folder / f"nonce-{game_id}-{player}.yaml"


def commit_move(game: Game, player: str, nonce: bytes) -> dict[str, Any]:
    """P4 round 1: the move that records ``H(tag || nonce)``; answers entry 0 (P7)."""
    return CommitMove.write(game.game_id, player, after_of(game, opening=True),
                            protocol.nonce_commitment(nonce)).to_raw()


def reveal_move(game: Game, player: str, nonce: bytes) -> dict[str, Any]:
    """P4 round 2: the move that reveals the nonce; answers entry 0 (P7)."""
    return NonceMove.write(game.game_id, player, after_of(game, opening=True), nonce.hex()).to_raw()


def keep(path: Path, game: Game, player: str, nonce: bytes | None = None, code: str | None = None) -> bytes:
    """A new nonce (random, or ``nonce``: the secret number of the player's words and ``code``),
    written to ``path`` (mode 0600) with the code; refuses to replace a kept one."""
    made = "random" if nonce is None else "words+code"
    nonce = secrets.token_bytes(NONCE_BYTES) if nonce is None else nonce
    kept: dict[str, str] = {"game": game.game_id, "player": player, "entry0": game.hashes[0], "nonce": nonce.hex(),
                            "made": made}
    if code is not None:
        kept["code"] = shown_code(code)
    text = (
        "# Your nonce for the game's seed (PROTOCOL P4). Keep this file to yourself until\n"
        "# every seat has committed; then 'pbem nonce ... --reveal' sends the nonce itself.\n"
        + dump_yaml(kept)
    )
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        raise StateError(
            Msg("{path} already holds a nonce for this game: a commitment cannot be changed (P4); "
                "use --reveal to send it, or --keep to name another file", path=str(path)), "P4",
        ) from None
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(text)
    return nonce


def _read_kept(path: Path) -> dict[str, Any]:
    if not path.exists():
        raise UnknownError(Msg("no kept nonce at {path}: run 'pbem nonce' without --reveal first", path=str(path)),
                           "P4")
    data = load_one(decode(read_limited(path, 4096, Msg("nonce file")), str(path)), str(path))
    if not isinstance(data, dict) or not all(isinstance(data.get(k), str) for k in ("game", "player", "nonce")):
        raise FormatError(Msg("{path} is not a nonce file written by 'pbem nonce'", path=str(path)), "P4")
    return data


def kept(path: Path, game: Game, player: str) -> bytes:
    """The nonce kept in ``path`` for this game (entry 0) and player."""
    data = _read_kept(path)
    if data.get("game") != game.game_id or data.get("player") != player or data.get("entry0") != game.hashes[0]:
        raise StateError(
            Msg("{path} holds a nonce for {player} in another game (or another entry 0 "
                "of game {game}: the game was created again)", path=str(path), player=repr(data.get("player")),
                game=repr(game.game_id)), "P4",
        )
    try:
        return bytes.fromhex(data["nonce"])
    except ValueError:
        raise FormatError(Msg("{path}: the nonce is not hex", path=str(path)), "P4") from None


def _page_nonce(path: Path, raw: bytes, game: Game) -> tuple[str, bytes]:
    """The seat and nonce of a nonce move file (the one the composer page downloads, or
    'pbem nonce --reveal' wrote), once it answers this game's entry 0 (P4, P7)."""
    move = parse_move(raw, Msg("nonce file {name}", name=path.name))
    if not isinstance(move, NonceMove):
        raise FormatError(
            Msg("{path} is {player}'s {kind} move, not a nonce: give the nonce move (round 2: the page's "
                "'Download the nonce move'), the file 'pbem nonce' kept, or check your words with "
                "--words SEAT", path=str(path), player=move.player, kind=move.KIND), "P4")
    if move.game != game.game_id or move.after_seq != 0 or not game.hashes[0].startswith(move.after_hash):
        raise StateError(
            Msg("{path} holds a nonce for {player} in another game (or another entry 0 "
                "of game {game}: the game was created again)", path=str(path), player=repr(move.player),
                game=repr(game.game_id)), "P4",
        )
    return move.player, bytes.fromhex(move.nonce)


def nonce_file(path: Path, game: Game) -> tuple[str, bytes, bool]:
    """The seat and nonce of ``path`` and whether the player's own program made it: the file
    'pbem nonce' kept (True), or a nonce move file, such as the composer page downloads
    (False: it shows what the log holds, not who made the nonce)."""
    if not path.exists():
        raise UnknownError(Msg("no kept nonce at {path}: run 'pbem nonce' without --reveal first", path=str(path)),
                           "P4")
    raw = read_limited(path, MOVE_LIMIT, Msg("nonce file"))
    text = decode(raw, str(path))
    if is_notation(text) or (isinstance(doc := load_one(text, str(path)), dict) and "kind" in doc):
        return (*_page_nonce(path, raw, game), False)
    player = str(_read_kept(path)["player"])
    return player, kept(path, game, player), True


def check_kept(path: Path, game: Game) -> tuple[Msg, str, bool]:
    """P4, a player's own check: does the log hold exactly the nonce kept in ``path`` for its
    seat (the commitment before the start, the start's nonce after)?  Raises TamperError when
    it holds another (a host may record nonces of its own for an unsigned seat: only the
    player's kept file shows it).  Returns what was found, the seat, and whether the file was
    the player's own program's (:func:`nonce_file`)."""
    player, nonce, own = nonce_file(path, game)
    source = Msg("the nonce {player} kept in {file}", player=player, file=path.name)
    return check_nonce(game, player, nonce, source), player, own


def words_number(game: Game, player: str, words: str, code: str) -> tuple[bytes, Msg]:
    """The nonce of ``player``'s secret words and ``code`` (:func:`pbem.fair.words.secret_number`),
    or, with no code, of the words alone (how games opened before codes made it), and which."""
    if player not in game.players:
        raise UnknownError(Msg("{player} is not a player in game {game}", player=repr(player),
                               game=repr(game.game_id)), "R2.1")
    if not code.strip():
        return (words_nonce(game.hashes[0], player, words),
                Msg("the nonce of {player}'s words alone (made as before codes: a dictionary of common "
                    "sentences can find weak words from the log)", player=player))
    return (secret_number(game.hashes[0], player, words, code),
            Msg("the secret number of {player}'s words and code (scrypt, 80 random bits)", player=player))


def check_words(game: Game, player: str, words: str, code: str) -> Msg:
    """P4, a player's own check against the secret words and the code they kept
    (:mod:`pbem.fair.words`): it rests on nothing the host sent, only on the log and what
    the player kept."""
    nonce, source = words_number(game, player, words, code)
    return check_nonce(game, player, nonce, source)


def check_nonce(game: Game, player: str, nonce: bytes, source: Msg) -> Msg:
    """The log's nonce for ``player`` is ``nonce``: the start's once started, else the commitment."""
    start = next((e for e in game.entries if isinstance(e, Start)), None)
    if start is not None:
        used = start.nonces.get(player, "")
        if used == nonce.hex():
            return Msg("the start (entry {seq}) used exactly {source} (P4)", seq=start.seq, source=source)
        raise TamperError(
            Msg("entry {seq}: the start used no nonce (the seat was waived) for {player}, not {source} "
                "({kept}...): this seed is not the one {player}'s nonce was to make", seq=start.seq,
                player=player, source=source, kept=nonce.hex()[:16])
            if not used else
            Msg("entry {seq}: the start used the nonce {used}... for {player}, not {source} ({kept}...): "
                "this seed is not the one {player}'s nonce was to make", seq=start.seq, used=used[:16],
                player=player, source=source, kept=nonce.hex()[:16]), "P4")
    commit = next((e for e in game.entries if isinstance(e, Commit) and e.move.player == player), None)
    if commit is None:
        raise StateError(Msg("{player} has not committed to a nonce yet: there is nothing to check (P4)",
                             player=player), "P4")
    sent = commit.move
    if isinstance(sent, CommitMove) and sent.nonce_commitment == protocol.nonce_commitment(nonce):
        return Msg("{player}'s commitment (entry {seq}) is to exactly {source} (P4)", player=player,
                   seq=commit.seq, source=source)
    raise TamperError(
        Msg("entry {seq}: {player}'s commitment is not to {source} ({kept}...): the page or program that made "
            "it, or the host, put another nonce there; do not reveal it, and tell the other players",
            seq=commit.seq, player=player, source=source, kept=nonce.hex()[:16]), "P4")
