"""The host's one step: every recorded entry, and then the game brought to the
next human decision, in the game's lock.

Whatever records an entry (a move, a commitment, a nonce, a waiver, a timeout, a
resignation, a new player, the end) calls :func:`record` while it holds the game's
lock; :func:`record` chains and writes the entry and then adds, in the same lock:

* P4: the start entry once the last nonce is revealed (or waived);
* R8.4: the stand-in's turns for a resigned seat to move, turn after turn;
* the bot seats' decisions (entry 0 ``options.bots``): commitments, nonces and
  moves, each an ordinary entry admitted by the referee (:mod:`pbem.host.botseat`),
  until a human seat is awaited or the game is over;
* P6: once the game is over, the secret revealed in a final entry, when the host chose
  so at ``pbem new`` (``--reveal-secret auto``, kept in host.yaml; else the host's ``pbem reveal``).

So no path can leave a bot seat, a stand-in or the start waiting for a deadline.
The log is written last, atomically, for each decision; a private file (R5.6) first.
"""

from __future__ import annotations

from pathlib import Path

from pbem.errors import InternalError, PbemError, StateError, TamperError
from pbem.fair import protocol
from pbem.fair.dealing import HostFaces
from pbem.host.marks import mark, unmark
from pbem.host.private import write_private
from pbem.host.secret import secret_for
from pbem.host.settings import RevealWhen, load_settings
from pbem.i18n import Msg
from pbem.log.clock import stamp
from pbem.log.game import Game
from pbem.log.logfile import LOG_NAME, append, link
from pbem.log.records import Draft, Entry, Played, Reveal, TurnMove, as_sent, parse_entry
from pbem.log.records.sent import MoveFile
from pbem.record import Record
from pbem.referee.admit import Judgement, judge
from pbem.referee.audit import host_faces, start_entry
from pbem.referee.replay import apply_entry
from pbem.referee.seats import resigned_to_move, standin_entry
from pbem.rules import play
from pbem.rules.events import Event

MAX_BOT_MOVES = 10_000


class Applied(Record):
    """What an accepted input added: entries (as records), events, and private files written."""

    entries: list[Entry]
    events: list[Event]
    private: list[Path]
    game: Game


def resolve(game: Game, verdict: Judgement, move: TurnMove, faces: HostFaces) -> tuple[Draft, list[Event]]:
    """An admitted turn resolved with the faces, as its log entry (P10: this cannot refuse)."""
    assert game.state is not None  # the referee admits moves of a started game only
    try:
        _state, events = play(game.state, move.player, verdict.actions, faces)
    except Exception as err:  # pragma: no cover - a bug in pbem, never a refusal
        raise InternalError(f"an admitted move did not resolve: {err}") from err
    return Played.played_as(move, events, faces.salt), events


def judged(path: Path, game: Game, move: MoveFile) -> tuple[list[Draft], list[Event], HostFaces | None]:
    """The referee's judgement of ``move`` (P10: on public facts only), then, if admitted, its
    entry: resolved with the faces for a move (P4, P7, R1-R7), as sent for the opening's."""
    verdict = judge(game, move)
    move = verdict.move  # a text move as the game's own map reads it (P3)
    if not isinstance(move, TurnMove):
        return [as_sent(move)], [], None
    faces = host_faces(game, secret_for(game, path))
    entry, events = resolve(game, verdict, move, faces)
    return [entry], events, faces


def record(
    path: Path, game: Game, entries: list[Draft],
    events: list[Event] | None = None, faces: HostFaces | None = None,
) -> Applied:
    """Under the game's lock: write ``entries``, then the host's step (see the module).
    With no entries, the step alone (a game just created: its bot seats commit, P4)."""
    seconds = _bot_seconds(path, game)  # before the entry: a damaged host.yaml changes nothing
    log = path / LOG_NAME
    before = log.stat().st_size if log.exists() else None
    marked = mark(path)  # the host's index: this game is read again if the process dies before its row is updated
    try:
        written = _write(path, game, entries, events, faces) if entries else Applied([], [], [], game)
    except PbemError:
        if marked and (log.stat().st_size if log.exists() else None) == before:
            unmark(path)  # refused before the log was written: every file as it was
        raise
    return _answer(path, written, seconds)


def _bot_seconds(path: Path, game: Game) -> float:
    if not game.bots:
        return 0.0
    from pbem.host.botseat import bot_seconds  # start-up speed: a game without bot seats never loads a bot

    return bot_seconds(path)


def _reveals_at_once(path: Path) -> bool:
    """P6: the game's host.yaml says the step reveals the secret at the game's end (a
    damaged host.yaml raises here, before the log is written: nothing changes)."""
    return load_settings(path).reveal is RevealWhen.AUTO


def _answer(path: Path, applied: Applied, seconds: float) -> Applied:
    """The bot seats' decisions until a human seat is awaited."""
    if not applied.game.bots:
        return applied
    from pbem.host.botseat import next_bot_move  # start-up speed: a game without bot seats never loads a bot

    steps = [applied]
    game = applied.game
    for _ in range(MAX_BOT_MOVES):
        move = next_bot_move(path, game, seconds)
        if move is None:
            return Applied([e for a in steps for e in a.entries], [e for a in steps for e in a.events],
                           [p for a in steps for p in a.private], game)
        try:
            found = judged(path, game, move)
        except PbemError as err:  # pragma: no cover - a bot's move refused would be a bug in pbem
            raise InternalError(f"the host's bot for {move.player} made a move the "
                                f"referee refused ({err}); the moves before it are recorded") from err
        steps.append(_write(path, game, *found))
        game = steps[-1].game
    raise StateError(Msg("the bot seats did not hand the turn back"), "R3")  # pragma: no cover


def _write(
    path: Path,
    game: Game,
    entries: list[Draft],
    events: list[Event] | None = None,
    faces: HostFaces | None = None,
) -> Applied:
    """Chain the new entries, and the start or the stand-in's turns they call for, replay
    them as any reader would, then write: the private files first, the log last."""
    chained, records = [], []
    first = seq = game.last_seq
    prev = game.last_hash
    sealer = None
    if game.keys.host:  # P8: entry 0 names a host key: the host signs every entry
        from pbem.host.sealer import game_sealer  # start-up speed: a game without a host key never loads it

        sealer = game_sealer(path, game)
    pending = list(entries)
    while pending:
        seq += 1
        entry = link(pending.pop(0).to_raw(), seq, prev, stamp(game.last_at))
        if sealer is not None:
            entry = sealer.seal(entry)
        prev = protocol.entry_hash(entry)
        try:  # the same reading and the same check every reader will make
            parsed = parse_entry(entry, seq)
            apply_entry(game, parsed, prev)
        except TamperError as err:  # pragma: no cover - would be a bug in pbem itself
            raise InternalError(f"the new entry does not replay: {err}") from err
        chained.append(entry)
        records.append(parsed)
        if game.ready_to_start and not pending:  # P4: the last reveal (or waiver) starts the game
            pending.append(start_entry(game, secret_for(game, path)))
        elif game.resigned and not pending and resigned_to_move(game) is not None:
            # R8.4: a resigned seat is played by the stand-in at once, turn after turn
            faces = faces or host_faces(game, secret_for(game, path))
            pending.append(standin_entry(game, faces))
        elif game.over and game.secret is None and not pending and _reveals_at_once(path):
            pending.append(Reveal.new(secret_for(game, path)))  # P6
    # R5.6: ``events`` are the first entry's (the move's), so its looks are filed under it
    private = write_private(path, game, events or [], faces, first + 1, first)
    append(path / LOG_NAME, chained)
    return Applied(records, events or [], private, game)
