"""A public log entry by entry: the game as of each entry, for `pbem history`,
`pbem list`, `pbem show --at` and `pbem html`.

Every step is the replay's own (:func:`pbem.referee.replay.apply_entry`): the board at
entry N is computed from the public log's first N+1 entries, never stored.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from enum import StrEnum
from pathlib import Path
from typing import Any

from pbem.errors import PbemError, UnknownError
from pbem.i18n import Msg, translator
from pbem.log.clock import at_of
from pbem.log.game import Game, Opening
from pbem.log.logfile import LOG_NAME, read_log
from pbem.log.records import Entry, Reveal
from pbem.referee.absence import away_now
from pbem.referee.audit import audit
from pbem.referee.deadlines import when_text
from pbem.referee.replay import apply_entry, game_from_first, replay
from pbem.referee.signatures import log_has_signatures, require_valid
from pbem.views.narrate import entry_lines, status_line
from pbem.views.trust import notices, seed_line


def read_checked(log: Path) -> tuple[list[Entry], list[str]]:
    """A log's entries and hashes, its chain and (if any) its signatures checked (P7-P8);
    once the secret is revealed, the audit too (P6), as `pbem verify` runs it: a log whose
    secret does not give its deal does not verify, so no reader may tell it as a game."""
    return checked(*read_log(log))


def checked(entries: list[Entry], hashes: list[str]) -> tuple[list[Entry], list[str]]:
    """:func:`read_checked` of a log already read (``pbem.host.head``: of the bytes it hashed)."""
    if log_has_signatures(entries):  # P8; most games use no keys and skip the import
        require_valid(entries)
    if any(isinstance(e, Reveal) for e in entries):
        game = replay(entries, hashes)
        if game.secret is not None:
            audit(game)
    return entries, hashes


def steps(entries: list[Entry], hashes: list[str]) -> Iterator[Game]:
    """The game after entry 0, after entry 1, ...: one object, advanced in place (a
    caller that keeps a step must take what it needs before asking for the next)."""
    game = game_from_first(entries[0], hashes[0])
    yield game
    for seq in range(1, len(entries)):
        apply_entry(game, entries[seq], hashes[seq])
        yield game


def game_at(entries: list[Entry], hashes: list[str], seq: int) -> Game:
    """The game as of entry ``seq`` (P7: the replay of the log's first seq+1 entries)."""
    if not 0 <= seq < len(entries):
        raise UnknownError(
            Msg("the log has entries 0 to {last}; there is no entry {seq}", last=len(entries) - 1, seq=seq), "P7"
        )
    game = game_from_first(entries[0], hashes[0])
    for n in range(1, seq + 1):
        apply_entry(game, entries[n], hashes[n])
    return game


class GameStatus(StrEnum):
    """Where a game stands (`pbem list`); each value is its English words."""

    COMMITTING = "opening round 1 of 2"  # P4: the seats commit to their nonces
    REVEALING = "opening round 2 of 2"  # P4: the seats reveal them
    IN_PLAY = "in play"
    OVER = "over"  # the secret not yet revealed (P6)
    REVEALED = "over, secret revealed"
    ABANDONED = "abandoned"


def status(game: Game) -> GameStatus:
    """Where a game stands: for `pbem list`."""
    if game.abandoned:
        return GameStatus.ABANDONED
    if game.over:
        return GameStatus.REVEALED if game.secret is not None else GameStatus.OVER
    if game.started:
        return GameStatus.IN_PLAY
    return GameStatus.COMMITTING if game.opening is Opening.COMMIT else GameStatus.REVEALING


_STATUS_WORDS = {  # each status in words, said in the reader's language
    GameStatus.ABANDONED: Msg("abandoned"), GameStatus.REVEALED: Msg("over, secret revealed"),
    GameStatus.OVER: Msg("over"), GameStatus.IN_PLAY: Msg("in play"),
    GameStatus.COMMITTING: Msg("opening round 1 of 2"), GameStatus.REVEALING: Msg("opening round 2 of 2"),
}


def status_text(status: GameStatus, lang: str = "en") -> str:
    """A :func:`status` in ``lang``."""
    return translator(lang).say(_STATUS_WORDS[status])


def waiting_for(game: Game) -> tuple[str, ...]:
    """Who the game waits for: the player to move, or the seats the opening awaits (P4)."""
    if game.state is not None:
        return (game.state.to_move,) if game.state.to_move is not None else ()
    return game.awaited


class Summary:
    """One game for `pbem list`: its status, who is to move and since which entry."""

    def __init__(self, game: Game, since_seq: int, since_at: str) -> None:
        self.game = game  # as of its last entry (pbem.host.head reads its deadlines)
        self.game_id = game.game_id
        self.status = status(game)
        self.waiting = waiting_for(game)
        self.last_seq = game.last_seq
        self.since_seq = since_seq
        self.since_at = since_at
        self.players = game.players
        self.labels = [note.split(":", 1)[0] for note in notices(game)]  # TEST GAME, CUSTOM GAME, ...

    def line(self, lang: str = "en") -> str:
        said = translator(lang)
        who = ", ".join(self.waiting) if self.waiting else said.say(Msg("nobody"))
        values = {"game": self.game_id, "status": status_text(self.status, lang), "who": who, "at": self.since_at,
                  "since": self.since_seq, "last": self.last_seq}
        labels = f" [{'; '.join(self.labels)}]" if self.labels else ""  # TEST GAME, ...: fixed tokens
        if self.status is GameStatus.IN_PLAY:
            text = Msg("{game}: {status}; {who} to move since {at} (entry {since}); last entry {last}", **values)
            away = away_now(self.game, self.game.entries[-1].at)  # R8.5, as of the last entry (the line is kept)
            if away:
                text = Msg("{line}; away (R8.5): {seats}", line=text, seats=", ".join(
                    said.say(Msg("{player} until {until}", player=a.player, until=when_text(at_of(a.end), lang)))
                    for a in away))
        elif self.status is GameStatus.COMMITTING:
            text = Msg("{game}: {status}; {who} to commit to a nonce (P4) since {at} (entry {since}); "
                       "last entry {last}", **values)
        elif self.status is GameStatus.REVEALING:
            text = Msg("{game}: {status}; {who} to reveal their nonce (P4) since {at} (entry {since}); "
                       "last entry {last}", **values)
        else:
            text = Msg("{game}: {status} since {at} (entry {since}); last entry {last}", **values)
        return said.say(text) + labels


def summarize(entries: list[Entry], hashes: list[str]) -> Summary:
    """Replay step by step, noting the entry from which the game has waited as it waits now
    (the same player to move, or the same opening round): "since when"."""
    key: tuple[Any, ...] | None = None
    since = 0
    last: Game | None = None
    for game in steps(entries, hashes):
        now = (status(game), game.opening.value, game.to_move)
        if now != key:
            key, since = now, game.last_seq
        last = game
    assert last is not None
    return Summary(last, since, entries[since].at)


def list_lines(games: Path, line: Callable[[Path], str] | None = None) -> list[str]:
    """`pbem list`: one line per game folder under ``games``; a log that does not verify
    is listed as such, with the reason, and the other games still are."""

    try:
        folders = sorted(p for p in games.iterdir() if (p / LOG_NAME).is_file())
    except OSError as err:
        raise UnknownError(Msg("cannot read the games folder {folder}: {why}", folder=str(games), why=err.strerror),
                           "P1") from None
    if not folders:
        return [f"no games in {games.resolve()} (a game is a folder with a {LOG_NAME}; "
                "name the folder that holds them with --games)"]
    read = line or (lambda f: summarize(*read_checked(f / LOG_NAME)).line())
    return [folder_line(folder, read) for folder in folders]


def folder_line(folder: Path, line: Callable[[Path], str]) -> str:
    """One game's line of `pbem list`, or why its log does not verify."""
    try:
        return line(folder)
    except PbemError as err:
        return f"{folder.name}: does not verify: {err.message} ({err.rule})"


def history_lines(entries: list[Entry], hashes: list[str], lang: str = "en") -> list[str]:
    """The whole game told entry by entry (`pbem history`), each entry replayed before it is
    told, so a log that does not verify is refused at its first bad entry (P7)."""
    lines: list[str] = []
    game: Game | None = None
    for game in steps(entries, hashes):
        entry = game.entries[-1]
        told = entry_lines(game, entry, lang)
        told[0] += f"  [{entry.at}]"
        lines.extend(told)
    assert game is not None
    lines.append(translator(lang).say(Msg("now: {status}", status=status_line(game, lang))))
    seed = seed_line(game, lang)  # what every output of this game says about it (P3, P4, P7), first
    return [*notices(game, lang), *([seed] if seed else []), *lines]
