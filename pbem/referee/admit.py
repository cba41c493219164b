"""The one referee: whether a submitted move is admitted, decided in one order (PROTOCOL.md P10).

Every entry point asks this module and none re-orders its checks: ``pbem apply``
and ``pbem mail`` (the host), ``pbem check`` (a player, offline) and the replay
of every recorded move (``pbem verify``, and the host before each write).
The order is fixed:

1. size, encoding, YAML and schema (:func:`read`);
2. the game and the player;
3. the signature (P8);
4. freshness: the entry the move answers, and not sent before (P7);
5. the whole move under the rules on public information (P4 for the opening,
   R1-R7 for a turn).

No step consults a face still hidden: whether a move is admitted, its exit
code and every word of a refusal depend only on the public log and the move
(the rules never need a Witch's look to decide legality).  Resolving the
admitted move with the faces comes after, and cannot refuse
(:func:`pbem.rules.play`).
"""

from __future__ import annotations

import hashlib
import json
from typing import Any, assert_never

from pbem.errors import AlreadyApplied, FormatError, RulesError, SignatureError, StaleError, StateError, UnknownError
from pbem.fair import protocol
from pbem.i18n import N_, Msg
from pbem.log.clock import now
from pbem.log.game import Game, Opening
from pbem.log.moves import parse_move, read_again
from pbem.log.records import OPENING_MOVES, Away, AwayMove, CommitMove, NonceMove, ResignMove, SentMove, TurnMove
from pbem.log.records.sent import MoveFile
from pbem.log.records.values import Edition
from pbem.record import Record
from pbem.referee.signatures import check_move as check_signature
from pbem.referee.signatures import check_one_key
from pbem.rules import (
    Action,
    ActionFormatError,
    EndTurn,
    Event,
    Faces,
    Phase,
    State,
    WitchLook,
    action_from_dict,
    play,
)
from pbem.rules.state import Stage


class Judgement(Record):
    """The referee's judgement of an admitted move: its actions, and the state they lead to.

    After the check (no faces) ``state`` stops at the outbreak and ``events`` are
    the public ones up to there; after a resolution both are complete.
    ``complete`` says whether the mover's turn (or part of the final round) is
    finished by this move; a move may stop early, e.g. after a Witch's look."""

    move: MoveFile
    key: str  # P7: what makes it the same move as another (sent_key)
    actions: tuple[Action, ...]
    state: State | None
    events: tuple[Event, ...]
    complete: bool


def read(data: bytes, what: str = "move file") -> MoveFile:
    """Step 1: size, UTF-8, strict YAML and the move schema (P2, P7)."""
    return parse_move(data, what)


def judge(game: Game, move: MoveFile, faces: Faces | None = None, signatures: bool = True,
          at: str | None = None) -> Judgement:
    """Steps 2-5 on a read move; raises the refusal (a :class:`pbem.errors.PbemError`).

    ``faces`` is for replays only: the recorded reveals resolve the move in the
    same pass, and cannot change the verdict (P10).  ``signatures=False`` leaves
    P8 to a whole-log check (``pbem.referee.signatures.require_valid``).  ``at`` is when the move
    is recorded (a replay's entry; the clock's now otherwise): an absence starts then (R8.5)."""
    if move.game != game.game_id:
        raise UnknownError(Msg("the move is for game {move}, but this is game {game}",
                               move=repr(move.game), game=repr(game.game_id)), "P1")
    if move.player not in game.players:
        raise UnknownError(Msg("{player} is not a player in game {game} (players: {players})", player=repr(move.player),
                               game=repr(game.game_id), players=", ".join(game.players)), "R2.1")
    sent, move = move, read_names(game, move)
    if signatures and (game.keys or move.signed or move.carries_key):
        _signed(game, move, sent)  # P8 (cryptography is imported only when a key is used)
    key = check_fresh(game, move)
    match move:
        case CommitMove():
            _commit(game, move)
        case NonceMove():
            _nonce(game, move)
        case ResignMove():
            from pbem.referee.seats import check_resign  # lazily: R8.4, rare (apply's start-up speed)

            check_resign(game, move.player)
        case AwayMove():
            from pbem.referee.absence import check_away  # lazily: R8.5, rare (apply's start-up speed)

            check_away(game, move.player, move.days, at or now())
        case TurnMove():
            return _turn(game, move, key, faces)
        case _:
            assert_never(move)
    return Judgement(move, key, (), None, (), True)


def own_regions(game: Game) -> dict[str, str] | None:
    """P3: the game's own map (region id -> name), where its data is not pbem's standard data;
    None for a standard game, whose map is the shipped one."""
    return None if game.edition == Edition.STANDARD else {region.id: region.name for region in game.board.regions}


def read_names(game: Game, move: MoveFile) -> MoveFile:
    """P3: a text move's region words read through the game's own map (:func:`own_regions`):
    its own ids and names first, the shipped languages' names only for a shipped region it
    keeps (:func:`pbem.i18n.names.canonical`).  A standard game's map is the shipped one,
    through which every text move was read already."""
    regions = own_regions(game)
    return read_again(move, regions) if regions is not None else move


def _signed(game: Game, move: MoveFile, sent: MoveFile) -> None:
    """P8 on the move as the game reads it; a text move whose words this game's map reads
    otherwise than the shipped names was signed over the shipped reading: say how to sign it."""
    try:
        check_signature(game, move)
    except SignatureError:
        if move.to_raw() == sent.to_raw():
            raise
        raise SignatureError(Msg(
            "the move names regions by words that this game's own map reads otherwise than pbem's "
            "shipped map does, and its signature does not verify over this map's reading: sign it with "
            "'pbem sign MOVE --key YOUR_KEY --log LOG', giving the game's log, so that the words are read "
            "as the host reads them (P3); nothing was changed"), "P8") from None


# --- P7: freshness -----------------------------------------------------------------

def sent_key(move: SentMove) -> str:
    """What makes two moves the same move: their data without the signature (P7, P8).

    Sorted-key JSON of data already checked to be JSON's (by the schema, or by the
    log's hashing), as a string: the replay computes one per recorded move."""
    return _SENT_KEY.encode(move.unsigned())


_SENT_KEY = json.JSONEncoder(sort_keys=True, ensure_ascii=False)
"""``json.dumps(..., sort_keys=True, ensure_ascii=False)``'s encoder, made once instead of
once a recorded move (start-up speed)."""


def check_fresh(game: Game, move: MoveFile) -> str:
    """P7: refuse a move sent twice, or written against any entry but the one it must answer;
    returns the move's :func:`sent_key`."""
    key = sent_key(move)
    earlier = game.sent.get(key)
    if earlier is not None:
        raise AlreadyApplied(Msg("this move was already applied, as entry {seq}; nothing was changed", seq=earlier),
                             "P7", earlier)
    seq, prefix = move.after_seq, move.after_hash
    target = 0 if isinstance(move, OPENING_MOVES) else game.last_seq  # P4's answer entry 0
    target_hash = game.hashes[target]
    if seq == target and target_hash.startswith(prefix):
        return key
    if target and seq in others_away(game, move.player) and game.hashes[seq].startswith(prefix):
        return key  # R8.5: another seat's absence recorded since changes nothing in this seat's turn
    owner = next((i for i, h in enumerate(game.hashes) if h.startswith(prefix)), None)
    facts = {"seq": seq, "prefix": prefix[:16], "target": target, "hash": target_hash[:16], "last": game.last_seq,
             "owner": owner, "found": game.hashes[seq][:16] if seq < len(game.hashes) else ""}
    if seq > target and target == 0 and seq < len(game.hashes) and game.hashes[seq].startswith(prefix):
        why = _OPENING
    elif seq < len(game.hashes) and game.hashes[seq].startswith(prefix):
        why = _MOVED_ON
    elif owner is not None and seq < len(game.hashes):
        why = _SEQ_CHANGED_LAST if owner == target else _SEQ_CHANGED
    elif seq < len(game.hashes):
        why = _OTHER_LOG
    else:  # the log is shorter than the move says: a count of entries, said in each language's plural
        raise StaleError(Msg("{why}; {fix}", why=Msg.plural(
            "the move was written against entry {seq} ({prefix}), but the log has only {n} entry",
            "the move was written against entry {seq} ({prefix}), but the log has only {n} entries", len(game.hashes),
            **facts), fix=Msg(_FIX_OLDER if seq < target else _FIX_OTHER, **facts)), "P7")
    fix = _FIX_OLDER if seq < target else _FIX_OTHER
    raise StaleError(Msg("{why}; {fix}", why=Msg(why, **facts), fix=Msg(fix, **facts)), "P7")


def others_away(game: Game, player: str) -> range:
    """R8.5, P7: the entries a move of ``player`` may answer besides the log's last: those
    before a run of absences other seats declared at the log's end (an absence changes no
    position, and another seat's changes nothing in this seat's turn)."""
    seq = game.last_seq
    while seq > 0 and isinstance(game.entries[seq], Away) and game.entries[seq].player != player:
        seq -= 1
    return range(seq, game.last_seq)


# P7's refusals of a move written against the wrong entry: why (one whole clause) and what to do
# (another), joined by the frame "{why}; {fix}"
_OPENING = N_("the move was written against entry {seq} ({prefix}), but every move of the opening (a commitment "
              "or a nonce) answers entry 0, the game's creation, whatever was recorded since (P4)")
_MOVED_ON = N_("the move was written against entry {seq} ({prefix}), but the log has moved on to entry {last} "
               "since")
_SEQ_CHANGED_LAST = N_(
    "the move was written against entry {seq} ({prefix}), but {prefix} is the hash of entry {owner}, not of "
    "entry {seq}: the move was written against entry {owner} and its seq changed by hand; it is the log's last "
    "entry: write seq {owner}")
_SEQ_CHANGED = N_(
    "the move was written against entry {seq} ({prefix}), but {prefix} is the hash of entry {owner}, not of "
    "entry {seq}: the move was written against entry {owner} and its seq changed by hand; the log has moved "
    "on since")
_OTHER_LOG = N_(
    "the move was written against entry {seq} ({prefix}), but entry {seq} of this log has hash {found}: the "
    "move was written against another copy of this game's log (a different game, or a rewritten log)")
_FIX_OLDER = N_("this move answers an older entry; it must answer entry {target} ({hash}): ask for a new template "
                "(mail 'template' to the host, or run 'pbem template')")
_FIX_OTHER = N_("this move answers another entry; it must answer entry {target} ({hash}): ask for a new template "
                "(mail 'template' to the host, or run 'pbem template')")


# --- P4: the opening -----------------------------------------------------------------

_STARTED = {  # P4: what is taken only before the start, each refusal one whole sentence
    "commitments": N_("the game has started: nonce commitments are taken only before the start"),
    "nonces": N_("the game has started: nonces are taken only before the start"),
    "waivers": N_("the game has started: waivers are taken only before the start"),
    "abandonments": N_("the game has started: abandonments are taken only before the start"),
}


def _opening(game: Game, what: str) -> Opening:
    """P4: the opening, if ``what`` (a key of :data:`_STARTED`) may still come."""
    opening = game.opening
    if opening is Opening.STARTED:
        raise StateError(Msg(_STARTED[what]), "P4")
    if opening is Opening.ABANDONED:
        raise StateError(Msg("the host abandoned this game before it started: no more moves"), "P4")
    return opening


def _commit(game: Game, move: CommitMove) -> None:
    _opening(game, "commitments")
    player = move.player
    if player in game.waived:
        raise StateError(_waived(player), "P4")
    if player in game.commits:
        raise RulesError(Msg("{player} has already committed to a nonce; a commitment cannot be changed "
                             "(otherwise a player could choose it after seeing others)", player=player), "P4")
    if game.nonces:
        raise StateError(Msg("the reveal round has begun: no more commitments are taken"), "P4")
    key = move.key
    if key is not None:
        check_one_key(game, player, key)


def _nonce(game: Game, move: NonceMove) -> None:
    player = move.player
    check_reveal(game, player)
    nonce = move.nonce
    if protocol.nonce_commitment(bytes.fromhex(nonce)) != game.commits[player]:
        text = nonce.encode("ascii")
        if protocol.nonce_commitment(text) == game.commits[player] and len(text) <= 64:
            raise RulesError(Msg(  # the text's bytes are a nonce P4 takes (16-64 bytes): the game goes on
                "{player}'s commitment is the hash of the nonce's hex text, not of its bytes; that text is a "
                "nonce too, as P4 hashes the bytes it is given: send this line instead of the 'nonce' line, and "
                "the reveal is recorded: nonce {line}", player=player, line=text.hex()), "P4")
        if game.commits[player] in (hashlib.sha256(text).hexdigest(),  # 'printf %s HEX | sha256sum'
                                    hashlib.sha256(text + b"\n").hexdigest()):  # 'echo HEX | sha256sum'
            raise RulesError(
                Msg("{player}'s commitment is the SHA-256 of the nonce's hex digits alone, without the text "
                    "'pbem-rattus/v1/nonce' before the nonce's bytes, so it can never match: P4 opens only "
                    "H('pbem-rattus/v1/nonce' || nonce). The game cannot start with this seat: ask the host to "
                    "abandon it and start a new one, and make the fingerprint with the invitation's three lines "
                    "(or 'pbem nonce', or the page)", player=player), "P4")
        if protocol.nonce_commitment(text) == game.commits[player]:
            raise RulesError(
                Msg("{player}'s commitment is the hash of the nonce's hex text, not of its bytes, so it "
                    "can never match: P4 hashes 'pbem-rattus/v1/nonce' and the nonce's raw bytes (as 'pbem "
                    "nonce' and the move page compute it); the game cannot start with this seat, so ask the "
                    "host to abandon it and start a new one", player=player), "P4",
            )
        raise RulesError(Msg("this nonce does not match {player}'s commitment ({commitment}...): a nonce cannot "
                             "be changed after its commitment; send the nonce you committed to",
                             player=player, commitment=game.commits[player][:16]), "P4")


def check_reveal(game: Game, player: str) -> None:
    """P4 round 2: may ``player`` reveal their nonce now? Only once every seat has committed or
    been waived (the host's check, and `pbem nonce --reveal`'s before it writes anything)."""
    opening = _opening(game, "nonces")
    if player in game.waived:
        raise StateError(_waived(player), "P4")
    if player not in game.commits:
        raise StateError(Msg("{player} has not committed to a nonce: send the commitment first", player=player), "P4")
    if opening is Opening.COMMIT:
        raise StateError(Msg("the nonces are revealed only when every seat has committed or been waived; still to "
                             "commit: {awaited}", awaited=", ".join(game.awaited)), "P4")
    if player in game.nonces:
        raise StaleError(Msg("{player} has already revealed their nonce", player=player), "P4")


def _waived(player: str) -> Msg:
    return Msg("{player}'s seat was waived: it adds no nonce to the seed", player=player)


def check_waive(game: Game, player: str) -> None:
    """P4: the host may waive only a seat that has not committed, and only before the first reveal."""
    if player not in game.players:
        raise UnknownError(Msg("{player} is not a player in game {game}", player=repr(player), game=repr(game.game_id)),
                           "R2.1")
    _opening(game, "waivers")
    if player in game.waived:
        raise StaleError(Msg("{player}'s seat is already waived", player=player), "P4")
    if game.nonces:
        raise StateError(
            Msg("a seat can be waived only before the first nonce is revealed: after it, a waiver "
                "would let the host choose among seeds"), "P4",
        )
    if player in game.commits:
        raise StateError(
            Msg("{player} has committed to a nonce, so their seat cannot be waived: a waiver is only "
                "for a seat that has not committed (a host holding mailed nonces could otherwise choose "
                "among seeds by waiving the seats of its choice)", player=player), "P4",
        )


def check_abandon(game: Game) -> None:
    """P4: a game that cannot start (a nonce never revealed) can only be abandoned."""
    _opening(game, "abandonments")


# --- R1-R7: a turn ---------------------------------------------------------------------

def parse_actions(raw: Any) -> list[Action]:
    if not isinstance(raw, list):
        raise FormatError(Msg("'actions' must be a list"), "P7")
    out = []
    for index, item in enumerate(raw, start=1):
        try:
            out.append(action_from_dict(item))
        except ActionFormatError as err:  # numbered from 1, as every message numbers actions
            raise ActionFormatError(Msg("action {index}: {why}", index=index, why=err.words), err.rule) from None
    return out


def _turn(game: Game, move: TurnMove, key: str, faces: Faces | None) -> Judgement:
    state = game.state
    if state is None:
        opening = game.opening
        if opening is Opening.ABANDONED:
            raise StateError(Msg("the host abandoned this game before it started: no more moves"), "P4")
        if opening is Opening.COMMIT:
            raise StateError(Msg("the game has not started yet: it waits for {awaited} to commit to a nonce",
                                 awaited=", ".join(game.awaited)), "P4")
        raise StateError(Msg("the game has not started yet: it waits for {awaited} to reveal a nonce",
                             awaited=", ".join(game.awaited)), "P4")
    if state.to_move is None:
        raise StateError(Msg("the game is over: no more moves are taken"), "R6.5")
    if move.player in game.resigned:
        raise RulesError(Msg("{player} resigned: the stand-in plays the seat (R8.3) until the host hands it to a "
                             "new player ('pbem replace')", player=move.player), "R8.4")
    if state.to_move != move.player:
        raise RulesError(Msg("it is {current}'s turn, not {player}'s", current=state.to_move, player=move.player),
                         "R3")
    actions = parse_actions(move.actions)
    after, events = play(state, move.player, actions, faces)  # a RuleError is the refusal (R7.3)
    complete = (
        after.to_move != move.player
        or (after.turn.stage is Stage.OUTBREAK and after.players[after.current] == move.player)
        or (bool(actions) and isinstance(actions[-1], EndTurn))  # the final sweep follows (R6.4)
        # a move that ends with a setup placement ends with a go (R2.5), also when the snake gives the
        # seat the next go: two placements in a row, or the last placement and turn 1 (R2.6); a move
        # that goes on into turn 1 is held to the rest of that turn (R7.5) in games from pbem 0.3 on
        or (state.phase is Phase.SETUP and (not after.turn.begun() or not game.facts.whole_first_turn))
    )
    if not complete and game.facts.whole_turns and not (actions and isinstance(actions[-1], WitchLook)):
        from pbem.referee.owed import owed  # lazily: only a refusal needs it (start-up speed)

        raise RulesError(Msg(
            "the move stops before the end of {player}'s turn, so it is refused whole and nothing was recorded: "
            "a move holds the rest of the turn, and may stop early only right after a Witch's look; {owed}",
            player=move.player, owed=owed(after, move.player, game.board.name_of)), "R7.5")
    return Judgement(move, key, tuple(actions), after, tuple(events), complete)
