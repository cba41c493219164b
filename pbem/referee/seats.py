"""R8.2-R8.4 in the log: timeouts, stand-in turns, resignations and new players.

Four entry kinds (docs/protocol.md, schemas/entry.json):

* ``timeout`` ``{player, since, due, actions, outcome}``: the deadline of the turn
  that entry ``since`` began had passed (``due``, R8.1) and the stand-in played it
  (R8.2, R8.3);
* ``standin`` ``{player, actions, outcome}``: a resigned seat's turn, played by the
  stand-in at once (R8.4);
* ``resign`` ``{player, move}``: the player's move saying so (signed where the seat
  has a key, P8); it answers the log's last entry like any move (P7);
* ``replace`` ``{player, key?}``: the host hands the seat to a new player, whose moves
  are checked against ``key`` from this entry on (none: the seat's moves are unsigned).

Every reader checks a timeout from the entries' ``at`` alone, recomputes the
stand-in's actions from the public state (``pbem.rules.standin``) and compares,
and resolves them with the reveals the entry records, like any move.  Nothing
here consults a face still hidden (P10): whether a timeout or a stand-in turn is
admitted depends on the log only.
"""

from __future__ import annotations

from pbem.errors import StaleError, StateError, TamperError, UnknownError
from pbem.fair.dealing import HostFaces
from pbem.i18n import Msg
from pbem.log.clock import at_of, seconds
from pbem.log.game import Game
from pbem.log.records import Away, Draft, Replace, Resign, Standin, Timeout
from pbem.referee.absence import away_at, extended_due, moment_text
from pbem.referee.reveals import RevealFaces
from pbem.referee.signatures import check_one_key
from pbem.rules import FaceUnknown, RuleError, action_from_dict, play

SEAT_RECORDS = (Standin, Resign, Replace)
"""The entries about a seat rather than a player's move (a Timeout is a Standin)."""


def due_at(game: Game) -> str:
    """R8.1, R8.5: when the current turn is due, its deadline extended by the seat's absences."""
    assert game.deadline is not None and game.to_move is not None
    return extended_due(game, game.to_move, game.turn_since)


# --- the host: the entries ----------------------------------------------------------------

def standin_entry(game: Game, faces: HostFaces, timed_out: bool = False) -> Draft:
    """The ``timeout`` (``timed_out``) or ``standin`` entry for the player to move: R8.3's
    actions on the public state, resolved with the host's faces (P10: the choice never saw a face)."""
    state = game.state
    assert state is not None and state.to_move is not None
    player = state.to_move
    from pbem.rules.standin import standin_actions  # start-up speed: most commands play no stand-in turn

    actions = standin_actions(state)
    _after, events = play(state, player, actions, faces)
    written = [a.to_dict() for a in actions]
    if timed_out:
        return Timeout.timed_out(player, game.turn_since, due_at(game), written, events, faces.salt)
    return Standin.new(player, written, events, faces.salt)


def resigned_to_move(game: Game) -> str | None:
    """R8.4: the resigned seat the stand-in must play at once, if one is to move."""
    player = game.to_move
    return player if player is not None and player in game.resigned else None


# --- every reader: the checks ----------------------------------------------------------------

def replay_seat_entry(game: Game, entry: Standin | Replace) -> None:
    """Check a ``timeout``, ``standin`` or ``replace`` entry the way the host wrote it, and add it."""
    if isinstance(entry, Replace):
        check_replace(game, str(entry.player), entry.key)
        game.keys.hand_over(str(entry.player), entry.key)  # P8: its shape was read (entry.json)
        game.resigned.discard(str(entry.player))
    else:
        _replay_standin(game, entry)


def _check_timeout(game: Game, entry: Timeout) -> None:
    """R8.1-R8.2: a timeout names the turn the log gives, and comes after its deadline."""
    seq, player = entry.seq, entry.player
    if game.deadline is None:
        raise TamperError(Msg("entry {seq}: a timeout in a game without a deadline (entry 0)", seq=seq), "R8.1")
    if player in game.resigned:
        raise TamperError(Msg("entry {seq}: {player} resigned; their turns are 'standin' entries",
                              seq=seq, player=player), "R8.4")
    due = due_at(game)
    _check_absent(game, entry, due)
    if entry.since != game.turn_since or entry.due != due:
        raise TamperError(
            Msg("entry {seq}: the timeout names the turn begun at entry {since}, due "
                "{due_given}; the log gives entry {turn_since}, due {due} (R8.1)", seq=seq, since=repr(entry.since),
                due_given=repr(entry.due), turn_since=game.turn_since, due=due), "R8.1",
        )
    if entry.at < due:
        raise TamperError(
            Msg("entry {seq}: a timeout recorded at {at}, before {player}'s deadline {due} "
                "(the turn began at entry {turn_since}, {began})", seq=seq, at=entry.at, player=player, due=due,
                turn_since=game.turn_since, began=game.at_of(game.turn_since)), "R8.2",
        )


def _check_absent(game: Game, entry: Timeout, due: str) -> None:
    """R8.5: no timeout while the seat is away, nor before the deadline its absences extended."""
    seq, player = entry.seq, str(entry.player)
    away = away_at(game, player, entry.at)
    if away is not None:
        raise TamperError(Msg("entry {seq}: a timeout recorded at {at}, while {player} was away (declared at entry "
                              "{away_seq}, until {until}): no timeout is due for a seat while it is absent",
                              seq=seq, at=entry.at, player=player, away_seq=away.seq,
                              until=moment_text(away.end)), "R8.5")
    assert game.deadline is not None
    unextended = at_of(seconds(game.at_of(game.turn_since)) + game.deadline)
    if due != unextended and entry.at < due:
        raise TamperError(Msg("entry {seq}: a timeout recorded at {at}, before {player}'s deadline {due}: the "
                              "turn began at entry {turn_since} ({began}), and {player}'s absence extends its "
                              "deadline {unextended} by its overlap with the turn (R8.2)", seq=seq, at=entry.at,
                              player=player, due=due, turn_since=game.turn_since, began=game.at_of(game.turn_since),
                              unextended=unextended), "R8.5")


def _replay_standin(game: Game, entry: Standin) -> None:
    seq, player, state = entry.seq, entry.player, game.state
    timeout = isinstance(entry, Timeout)
    if state is None or state.to_move is None:
        raise TamperError(Msg("entry {seq}: a timeout entry, but no turn is being played (R8.2)", seq=seq)
                          if timeout else
                          Msg("entry {seq}: a stand-in entry, but no turn is being played (R8.2)", seq=seq), "R8.2")
    if player != state.to_move:
        params = {"seq": seq, "player": repr(player), "to_move": state.to_move}
        raise TamperError(Msg("entry {seq}: a timeout entry for {player}, but it is {to_move}'s turn", **params)
                          if timeout else
                          Msg("entry {seq}: a stand-in entry for {player}, but it is {to_move}'s turn", **params),
                          "R8.2")
    if isinstance(entry, Timeout):
        _check_timeout(game, entry)
    elif player not in game.resigned:
        raise TamperError(Msg("entry {seq}: a stand-in turn for {player}, who has not resigned",
                              seq=seq, player=player), "R8.4")
    from pbem.rules.standin import standin_actions  # start-up speed: most commands replay no stand-in turn

    expected = [a.to_dict() for a in standin_actions(state)]
    if [a.to_dict() for a in entry.actions] != expected:
        raise TamperError(
            Msg("entry {seq}: the stand-in's actions are not R8.3's on the public state: the log says "
                "{logged}, R8.3 gives {expected}", seq=seq, logged=repr([a.to_dict() for a in entry.actions]),
                expected=repr(expected)), "R8.3",
        )
    faces = RevealFaces(game, entry)
    try:
        after, events = play(state, str(player), [action_from_dict(a) for a in expected], faces)
    except FaceUnknown as err:
        raise TamperError(
            Msg("entry {seq}: the replay flips {face}, whose reveal the entry does not record", seq=seq,
                face=err.args[0]), "P6"
        ) from None
    except RuleError as err:  # pragma: no cover - R8.3's actions are legal by construction
        raise TamperError(Msg("entry {seq}: the stand-in's actions break {rule}: {message}", seq=seq,
                              rule=err.rule, message=err.message), err.rule) from None
    if entry.difference(events, faces.salt) is not None:
        raise TamperError(Msg("entry {seq}: the recorded outcome differs from the replay of the stand-in's turn",
                              seq=seq), "P7")
    game.state = after


def check_replace(game: Game, player: str, key: str | None = None) -> None:
    """R8.4: a seat of a game in play may be handed to a new player (with a key of its own, P8)."""

    if player not in game.players:
        raise UnknownError(Msg("{player} is not a seat of game {game} (seats: {seats})", player=repr(player),
                               game=repr(game.game_id), seats=", ".join(game.players)), "R8.4")
    if game.state is None:
        raise StateError(Msg("a seat is handed over once the game has started (before it, waive the "
                             "seat or abandon the game, P4)"), "R8.4")
    if game.over:
        raise StateError(Msg("the game is over: its seats are no longer handed over"), "R8.4")
    if key is not None:
        check_one_key(game, player, key)


def check_resign(game: Game, player: str) -> None:
    """R8.4: a player of a game in play may resign, once."""

    if game.state is None:
        raise StateError(Msg("the game has not started: a player resigns from a game in play "
                             "(before the start, the host may waive the seat, P4)"), "R8.4")
    if game.over:
        raise StateError(Msg("the game is over: there is nothing to resign from"), "R8.4")
    if player in game.resigned:
        raise StaleError(Msg("{player} has already resigned; the stand-in plays the seat (R8.3)", player=player),
                         "R8.4")


# --- what changed, for show, verify and audit -------------------------------------------------

def record_lines(game: Game) -> list[Msg]:
    """Every timeout, stand-in turn, resignation, absence and change of hands, with its time (each a
    :class:`pbem.i18n.Msg`: its English as it was, said in the reader's language by the caller)."""
    out: list[Msg] = []
    for entry in game.entries:
        seq, who, at = entry.seq, entry.player, entry.at.replace("T", " ").replace("Z", " UTC")
        match entry:
            case Timeout():
                out.append(Msg("entry {seq} ({at}): timeout: {player}'s turn (due {due}) "
                               "played by the stand-in (R8.2-R8.3)", seq=seq, at=at, player=who, due=entry.due))
            case Standin():
                out.append(Msg("entry {seq} ({at}): stand-in turn for {player}, who resigned (R8.4)",
                               seq=seq, at=at, player=who))
            case Resign():
                out.append(Msg("entry {seq} ({at}): {player} resigned; the stand-in plays the seat (R8.4)",
                               seq=seq, at=at, player=who))
            case Away():
                out.append(Msg.plural("entry {seq} ({at}): {player} declared an absence of {n} day (R8.5)",
                                      "entry {seq} ({at}): {player} declared an absence of {n} days (R8.5)",
                                      entry.days, seq=seq, at=at, player=who))
            case Replace():
                out.append(Msg("entry {seq} ({at}): seat {player} handed to a new player, key {key}... (R8.4)",
                               seq=seq, at=at, player=who, key=entry.key[8:20]) if entry.key else
                           Msg("entry {seq} ({at}): seat {player} handed to a new player, no key (R8.4)",
                               seq=seq, at=at, player=who))
    return out
