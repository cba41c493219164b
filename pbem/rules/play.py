"""A whole move: a player's actions applied all or nothing (R7.3), decided on public facts (R7.4).

One function, :func:`play`, runs a move in two modes over the same code:

* ``faces=None`` (the **check**): nothing hidden is consulted.  This is the
  verdict on the move, given by the host before it looks at any face, by
  ``pbem check`` offline, and by anyone replaying the log.  It raises
  :class:`RuleError` or returns the public state up to the outbreak.
* with a face seam (the **resolution**): the same actions are played again,
  the outbreak is resolved with the faces.  After a check that passed it
  cannot refuse (PROTOCOL.md P10).

The outbreak ends the turn (R7.4), so a move's last segment is the plague's
move, its spreads, the Knight's neutral cubes and the flip order; anything
after the outbreak begins is refused before any rat is turned.  A named flip
order is a preference (R4.2): named rats go first, in that order, then the
rest oldest first, and a named rat the outbreak never reaches stays face down.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from pbem.i18n import Msg, Name
from pbem.rules.actions import Action, EndTurn, Flip, KnightCubes, Spread
from pbem.rules.data import Token
from pbem.rules.engine import apply_in_place
from pbem.rules.errors import RuleError
from pbem.rules.events import Event, PlagueMoved
from pbem.rules.faces import Faces, FaceUnknown
from pbem.rules.plague import outbreak_pending
from pbem.rules.state import Phase, Stage, State

__all__ = ["NoFaces", "apply_all", "check", "default_flips", "play"]


class NoFaces:
    """The check's face seam (and a bot's or a player's): a look shows nothing, a flip
    cannot be told."""

    def face(self, token: str) -> Token:
        raise FaceUnknown(token)

    def look(self, token: str) -> str | None:
        return None


_NO_FACES = NoFaces()


def _in_outbreak(state: State, player: str) -> bool:
    return (
        state.phase is Phase.TURN
        and state.turn.stage is Stage.OUTBREAK
        and state.players[state.current] == player
    )


def _spreading(state: State, player: str) -> bool:
    return (
        state.phase is Phase.TURN
        and state.turn.stage is Stage.SPREAD
        and state.players[state.current] == player
    )


def _after_end(index: int, action: Action, state: State, spread: int | None = None) -> RuleError:
    if isinstance(action, Spread) and spread is not None:
        return _spread_too_many(index, spread)
    if state.to_move is None:
        return RuleError(Msg("action {index} ({kind}): your turn ended with the action before it (the game is "
                             "over); a move file holds the actions of one player's turn only",
                             index=index, kind=Name.action(action.kind)), "R7.4")
    return RuleError(Msg("action {index} ({kind}): your turn ended with the action before it ({player} is to "
                         "move); a move file holds the actions of one player's turn only",
                         index=index, kind=Name.action(action.kind), player=state.to_move), "R7.4")


def _closing_without_outbreak(
    state: State, tail: Sequence[Action], first: int, knight: bool, spread: int | None
) -> None:
    """R4.2 ruling, R7.4: the Knight's neutral cubes and a flip order may close any turn.

    Where the plague's move ended the turn with no outbreak (no rat or no player cube in
    the plague region, both public), they have no effect; they are still checked for
    their form: the cubes first, by the Knight's holder, and no rat named twice.
    ``spread``: the rats this move's plague move drew (None: it moved in an earlier move)."""
    named: set[str] = set()
    for offset, action in enumerate(tail):
        index = first + offset
        if isinstance(action, KnightCubes) and offset == 0:
            if not knight:
                raise RuleError(Msg("action {index} (knight cubes): you do not hold the Knight card",
                                    index=index), "R5.4")
            continue
        if isinstance(action, KnightCubes):
            raise _knight_late(index)
        if not isinstance(action, Flip):
            raise _after_end(index, action, state, spread)
        if action.token in named:
            raise _named_twice(index, action.token)
        named.add(action.token)


def _knight_late(index: int) -> RuleError:
    return RuleError(Msg("action {index} (knight cubes): the Knight declares the neutral cubes before the flip "
                         "order, right after the spreads", index=index), "R5.4")


def _named_twice(index: int, token: str) -> RuleError:
    return RuleError(Msg("action {index} (flip): {token} is named twice in the flip order",
                         index=index, token=token), "R4.2")


def _spread_too_many(index: int, spread: int) -> RuleError:
    """R4.1: a spread line more than the rats drawn (a public count)."""
    if not spread:
        return RuleError(Msg("action {index} (spread): no rat was drawn when the plague moved, and each spread "
                             "line places one drawn rat: remove this spread line", index=index), "R4.1")
    return RuleError(Msg.plural(
        "action {index} (spread): only {n} rat was drawn when the plague moved, and each spread line places "
        "one drawn rat: remove this spread line",
        "action {index} (spread): only {n} rats were drawn when the plague moved, and each spread line places "
        "one drawn rat: remove this spread line", spread, index=index), "R4.1")


def _spread_in_outbreak(index: int, spread: int, plague: str) -> RuleError:
    """R7.4: a spread line more than the rats drawn, once the outbreak has begun."""
    where = Name.region(plague)
    if not spread:
        return RuleError(Msg("action {index} (spread): no rat was drawn when the plague moved, and the outbreak "
                             "in {plague} has begun: remove this spread line", index=index, plague=where), "R7.4")
    return RuleError(Msg.plural(
        "action {index} (spread): only {n} rat was drawn when the plague moved, and the outbreak in {plague} "
        "has begun: remove this spread line",
        "action {index} (spread): only {n} rats were drawn when the plague moved, and the outbreak in {plague} "
        "has begun: remove this spread line", spread, index=index, plague=where), "R7.4")


def _flip_order(state: State, tail: Sequence[Action], first: int, spread: int = 0) -> list[str]:
    """R7.4, R4.2, R5.4: what may follow the start of the outbreak, checked with no face.

    Returns the named flip order.  The Knight's neutral cubes may come first."""
    named: list[str] = []
    here = state.rats[state.plague]
    for offset, action in enumerate(tail):
        index = first + offset
        if isinstance(action, KnightCubes) and offset == 0:
            continue  # checked by the engine, on the public state
        if isinstance(action, KnightCubes):
            raise _knight_late(index)
        if isinstance(action, Spread):  # one spread line too many (R4.1); the outbreak has begun
            raise _spread_in_outbreak(index, spread, state.plague)
        if not isinstance(action, Flip):
            raise RuleError(Msg(
                "action {index} ({kind}): the outbreak in {plague} has begun, and the outbreak ends the turn; "
                "after the plague's move and its spreads a move may only name the Knight's neutral cubes and "
                "the order of the flips", index=index, kind=Name.action(action.kind),
                plague=Name.region(state.plague)), "R7.4")
        if action.token not in here:
            raise RuleError(Msg("action {index} (flip): {token} is not a face-down rat in the plague region "
                                "{plague} (there: {there})", index=index, token=action.token,
                                plague=Name.region(state.plague), there=", ".join(here)), "R4.2")
        if action.token in named:
            raise _named_twice(index, action.token)
        named.append(action.token)
    return named


def play(
    state: State, player: str, actions: Sequence[Action], faces: Faces | None = None
) -> tuple[State, list[Event]]:
    """``player``'s move on a copy of ``state``: the new state and the events.

    With ``faces=None`` it is the check (no face consulted, the outbreak left
    unresolved); with faces it is the resolution.  Both raise the same
    :class:`RuleError` for the same move, whatever the faces (P10).
    """
    new = state.copy()
    seam: Faces = _NO_FACES if faces is None else faces
    events: list[Event] = []
    ended = False
    spread: int | None = None  # R4.1: the rats drawn by this move's plague move, once it is made
    # R4.2: a move that goes on from the plague's move of an earlier one (its spreads, in a game
    # whose move files may stop anywhere, R7.5) closes the turn as the plague's own move would
    plagued = _spreading(state, player)
    for index, action in enumerate(actions, start=1):
        if ended or new.to_move != player:
            if index == 1:  # not this player's turn at all: the engine says whose it is
                _step(new, player, action, seam, index)
            if (spread is not None or plagued) and not ended:  # the plague has moved; no outbreak began
                knight = new.cards.get("knight") == player  # R5.4, R5.7: a Knight taken this turn counts
                _closing_without_outbreak(new, actions[index - 1 :], index, knight, spread)
                return new, events
            raise _after_end(index, action, new, spread)
        if _in_outbreak(new, player):
            tail = actions[index - 1 :]
            if isinstance(tail[0], KnightCubes):
                events.extend(_step(new, player, tail[0], seam, index))
            order = _flip_order(new, tail, index, spread or 0)
            if faces is not None:
                events.extend(_preferred_flips(new, player, order, faces))
            return new, events
        try:
            done = _step(new, player, action, seam, index)
            events.extend(done)
            spread = next((e.spread for e in done if isinstance(e, PlagueMoved)), spread)
        except FaceUnknown:
            if faces is not None or not isinstance(action, EndTurn):
                raise
            ended = True  # the check stops at the final sweep (R6.4), which cannot refuse
    if faces is not None:
        events.extend(default_flips(new, player, faces))
    return new, events


def _step(state: State, player: str, action: Action, faces: Faces, index: int) -> list[Event]:
    try:
        return apply_in_place(state, player, action, faces)
    except RuleError as err:
        raise RuleError(Msg("action {index} ({kind}): {reason}", index=index, kind=Name.action(action.kind),
                            reason=err.words),
                        err.rule) from None


def _preferred_flips(state: State, player: str, order: list[str], faces: Faces) -> list[Event]:
    """R4.2 ruling: the named rats first, while the outbreak lasts; then oldest first."""
    events: list[Event] = []
    for token in order:
        if not _in_outbreak(state, player):
            break
        events.extend(apply_in_place(state, player, Flip(token), faces))
    events.extend(default_flips(state, player, faces))
    return events


def default_flips(state: State, player: str, faces: Faces) -> list[Event]:
    """R4.2 ruling: rats left unflipped by ``player``'s outbreak go oldest first."""
    events: list[Event] = []
    while _in_outbreak(state, player) and outbreak_pending(state, state.plague):
        events.extend(apply_in_place(state, player, Flip(state.rats[state.plague][0]), faces))
    return events


def check(state: State, player: str, actions: Sequence[Action]) -> State:
    """The verdict on a move from public facts alone (R7.3, R7.4, P10); the state it
    leads to, up to the outbreak."""
    return play(state, player, actions)[0]


def apply_all(
    state: State, player: str, actions: Iterable[Action], faces: Faces
) -> tuple[State, list[Event]]:
    """Check and resolve a move in one pass (replays, simulations): :func:`play` with faces."""
    return play(state, player, list(actions), faces)
