"""Replaying a public log: anyone, any time, with no secret (PROTOCOL.md P3-P7).

:func:`replay` rebuilds the game from its log alone: the game's own map and
catalogue from entry 0, the public setup from the start entry, then every
move through the rules core.  Each flipped token's face comes from the reveal
recorded in that entry, checked against its commitment (P6) before it is
used; the recomputed outcome must equal the recorded one exactly.  Any
difference is a :class:`TamperError` naming the entry.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, assert_never

from pbem import ENGINE_NAME
from pbem.errors import FormatError, PbemError, TamperError
from pbem.fair import protocol
from pbem.i18n import Msg
from pbem.log.game import Facts, Game, Keys, Opening
from pbem.log.moves import validate
from pbem.log.records import (
    Abandon,
    AwayMove,
    CommitMove,
    Create,
    Difference,
    Edition,
    Entry,
    NonceMove,
    Played,
    Replace,
    ResignMove,
    Reveal,
    Sent,
    Standin,
    Start,
    TurnMove,
    Waive,
    kinded,
)
from pbem.log.records.sent import MoveFile
from pbem.referee.admit import check_abandon, check_waive, judge
from pbem.referee.reveals import RevealFaces
from pbem.referee.seats import replay_seat_entry
from pbem.rules import FaceUnknown, State, new_state
from pbem.rules.data import N_TOKENS, Board, Catalogue, GameDataError


def _setup_state(game: Game, entry: Start) -> State:
    """Rebuild R2.1-R2.4 from the start entry's public setup (its shape is entry.json's)."""
    seq, setup = entry.seq, entry.setup
    board_names: Mapping[str, str] = setup.board
    supply, removed = list(setup.supply), list(setup.removed)
    regions = game.board.regions_in_use(len(game.players))
    if list(board_names) != list(regions):
        raise TamperError(Msg("entry {seq}: the start entry's board does not list the regions in use in map "
                              "order", seq=seq), "P6")
    names = [*board_names.values(), *supply, *removed]
    if names != [protocol.Deal.name(i) for i in range(1, len(names) + 1)] or len(names) != N_TOKENS:
        raise TamperError(Msg("entry {seq}: token positions must run t01..t49: board, supply, removed", seq=seq),
                          "P6")
    game.commitments = list(entry.commitments)
    try:
        return new_state(
            players=game.players,
            first=setup.first_player,
            regions=regions,
            neighbours=game.board.adjacency(regions),
            board={r: [n] for r, n in board_names.items()},
            rat_supply=supply,
            removed=removed,
            plague=setup.plague,
            catalogue=game.catalogue,
        )
    except ValueError as err:  # new_state's refusals of a setup (R2): the start entry is at fault
        raise TamperError(Msg("entry {seq}: the start entry is malformed: {why}", seq=seq, why=str(err)),
                          "P6") from None


def game_from_first(first: Entry, first_hash: str) -> Game:
    """Entry 0 (P3): the players, the secret's commitment and the game's own data (its shape
    was checked when it was read: pbem.log.records)."""
    if not isinstance(first, Create):
        raise TamperError(Msg("entry 0: the first entry is malformed: it must be a 'create' entry"), "P3")
    try:
        facts = _facts(first)
    except (ValueError, GameDataError) as err:  # _facts' own refusals, and the data's (P3)
        raise TamperError(Msg("entry 0: the first entry is malformed: {why}", why=str(err)), "P3") from None
    keys = Keys(first.keys, first.host_key)
    clash = keys.clash()
    if clash is not None:
        raise TamperError(Msg("entry 0: one key per seat, and none the host's (P8): {clash}", clash=clash), "P8")
    return Game(facts=facts, entries=[first], hashes=[first_hash], keys=keys)


def _facts(first: Create) -> Facts:
    data, recorded, edition = first.data, first.data_hash, first.edition
    if protocol.sha256_hex(protocol.checked_json({"map": data["map"], "tokens": data["tokens"]})) != recorded:
        # (entry 0 was checked for P2's values when its own hash was computed)
        raise ValueError("its data_hash is not the hash of its map and token catalogue")
    from pbem.data import STANDARD_DATA_HASHES  # start-up speed: only a replay from entry 0 reads it

    if edition is Edition.STANDARD and recorded not in STANDARD_DATA_HASHES:
        raise ValueError(
            "it claims the standard edition, but its map or token catalogue differ from "
            "the data pbem ships (a custom game must say 'custom')"
        )
    options = first.options
    players, bots = first.players, options.bots
    if not set(bots) <= set(players):
        raise ValueError("options.bots names a seat that is not a player")
    deadline, reminder = options.deadline, options.reminder
    if reminder is not None and (deadline is None or reminder >= deadline):
        raise ValueError("options.reminder needs a deadline, and must be shorter than it (R8.1)")
    if options.absence is not None and deadline is None:
        raise ValueError("options.absence needs a deadline, which an absence extends (R8.5)")
    board = Board.from_data(data["map"])
    board.regions_in_use(len(players))
    return Facts(
        game_id=first.game_id, players=players, board=board, catalogue=Catalogue.from_data(data["tokens"]),
        first_named=options.first, secret_commitment=first.secret_commitment,
        made=first.made, edition=edition, data_hash=recorded, bots=bots,
        deadline=deadline, reminder=reminder, whole_turns=made_from(first.engine, WHOLE_TURNS_FROM),
        whole_first_turn=made_from(first.engine, RULINGS_FROM), absence=options.absence,
        absence_ruling=made_from(first.engine, RULINGS_FROM),
    )


WHOLE_TURNS_FROM = (0, 2)
"""R7.5 holds for games created by pbem 0.2 on; a log written before keeps its half turns."""

RULINGS_FROM = (0, 3)
"""The readings of pbem 0.3 hold for games created by pbem 0.3 on: R7.5 at the end of setup (a
0.2 host recorded the last placement with part of turn 1 as a whole move) and R8.5's ruling (no
absence once the seat's turn is overdue); a 0.2 game replays as it was played
(docs/rules-notes.md)."""


def made_from(engine: dict[str, Any], since: tuple[int, int]) -> bool:
    """Does the game's entry 0 (the engine that created it) name pbem ``since`` or later, so that
    the readings of that version hold?  Another engine's game, or a version pbem cannot read, is
    held to every reading."""
    parts = re.match(r"(\d+)\.(\d+)", str(engine.get("version", "")))
    if engine.get("name") != ENGINE_NAME or parts is None:
        return True
    return (int(parts.group(1)), int(parts.group(2))) >= since


def replay(entries: list[Entry], hashes: list[str]) -> Game:
    """The game as of the last entry; :class:`TamperError` naming the first bad entry."""
    game = game_from_first(entries[0], hashes[0])
    for seq in range(1, len(entries)):
        apply_entry(game, entries[seq], hashes[seq])
    return game


def _recorded_move(entry: Sent) -> MoveFile:
    """The move an entry records, in the shape the referee reads (move.json's shape was
    checked when the log was read; its player must be the entry's)."""
    move = entry.move
    if move.player != entry.player:
        raise TamperError(Msg("entry {seq}: the recorded move's player was changed", seq=entry.seq), "P7")
    return move


def apply_entry(game: Game, entry: Entry, entry_hash: str) -> None:
    """Check one more entry against the game so far, the way the host admitted it, and add it.

    The entry's shape was checked when it was read; here only what the host could not
    have admitted is a :class:`TamperError`.  Anything else raised is a bug in pbem."""
    seq, at, last_at = entry.seq, entry.at, game.last_at
    if seq != len(game.entries):
        raise TamperError(Msg("entry {seq}: replayed after entry {last}", seq=seq, last=game.last_seq), "P7")
    if last_at is not None and at < last_at:
        raise TamperError(Msg("entry {seq}: its 'at' ({at}) is earlier than the entry before ({last_at})",
                              seq=seq, at=at, last_at=last_at), "P7")
    if game.ready_to_start and not isinstance(entry, Start):
        raise TamperError(Msg("entry {seq}: every nonce is in, so the game must start with this entry (P4)", seq=seq),
                          "P4")
    turn_before = _turn_key(game)
    if not isinstance(entry, Standin) and game.resigned and game.to_move in game.resigned:
        raise TamperError(Msg("entry {seq}: {seat} resigned, so the stand-in plays their turn "
                              "at once, in this entry (R8.4)", seq=seq, seat=game.to_move), "R8.4")
    try:
        _apply(game, entry)
    except TamperError:
        raise
    except PbemError as err:  # the referee's refusal (admit, seats): never admitted by the host
        raise TamperError(Msg("entry {seq}: the host could not have admitted it: {why}", seq=seq, why=err.words),
                          err.rule) from None
    for flip in entry.reveals:
        game.revealed[flip.token] = flip.token_id
    game.entries.append(entry)
    game.hashes.append(entry_hash)
    if _turn_key(game) != turn_before:
        game.turn_since = seq  # R8.1: this entry made it the player to move's turn


def _apply(game: Game, entry: Entry) -> None:
    """How each kind of entry changes the game."""
    entry = kinded(entry)  # the closed set of kinds: a kind left out fails mypy below
    match entry:
        case Sent():
            _replay_move(game, entry)
        case Standin() | Replace():
            replay_seat_entry(game, entry)
        case Waive():
            check_waive(game, str(entry.player))
            game.waived.add(str(entry.player))
        case Abandon():
            check_abandon(game)
            game.p4.abandoned = True
        case Start():
            _replay_start(game, entry)
        case Reveal():
            _replay_reveal(game, entry)
        case Create():  # the reader takes one, as entry 0 (P3)
            raise TamperError(Msg("entry {seq}: a second {kind} entry", seq=entry.seq,
                                 kind=type(entry).__name__.lower()), "P3")
        case unknown:
            assert_never(unknown)


def _turn_key(game: Game) -> tuple[Any, ...] | None:
    """R8.1: what identifies the turn being played (a Witch look does not change it)."""
    state = game.state
    if state is None or state.to_move is None:
        return None
    return (state.phase.value, state.current, state.turn_number, len(state.queue))


def _replay_move(game: Game, entry: Sent) -> None:
    seq, move = entry.seq, _recorded_move(entry)
    if not isinstance(entry, Played):
        verdict = judge(game, move, signatures=False, at=entry.at)
        match move:
            case CommitMove():
                game.commits[move.player] = move.nonce_commitment
                if move.key is not None:
                    game.keys.register(move.player, move.key)  # P8: registered with the commitment
            case NonceMove():
                game.nonces[move.player] = move.nonce
            case ResignMove():
                game.resigned.add(move.player)  # R8.4: the stand-in plays the seat from now on
            case AwayMove():
                pass  # R8.5: every reader reads the absences from the entries (pbem.referee.absence)
            case TurnMove():
                pass  # a turn is recorded as a move entry, with its outcome (parse_entry checks)
            case _:
                assert_never(move)
    else:
        faces = RevealFaces(game, entry)
        try:
            verdict = judge(game, move, faces=faces, signatures=False)
        except FaceUnknown as err:
            raise TamperError(
                Msg("entry {seq}: the replay flips {token}, whose reveal the entry does not record",
                    seq=seq, token=err.args[0]), "P6",
            ) from None
        difference = entry.difference(list(verdict.events), faces.salt)
        if difference is not None:
            raise TamperError(_first_difference(seq, difference), "P7")
        game.state = verdict.state
    game.sent[verdict.key] = seq


def _replay_start(game: Game, entry: Start) -> None:
    seq = entry.seq
    if game.opening is not Opening.REVEAL or not game.ready_to_start:
        raise TamperError(
            Msg("entry {seq}: a start before every nonce was revealed (still awaited: "
                "{seats}); a partial start would let someone choose", seq=seq, seats=", ".join(game.awaited))
            if game.awaited else
            Msg("entry {seq}: a start before every nonce was revealed (still awaited: "
                "nothing); a partial start would let someone choose", seq=seq), "P4",
        )
    expected = {p: game.nonces.get(p, "") for p in game.players}
    if entry.nonces != expected:
        raise TamperError(Msg("entry {seq}: the nonces differ from the revealed ones", seq=seq), "P4")
    game.state = _setup_state(game, entry)


def _first_difference(seq: int, found: Difference) -> Msg:
    """The refusal of an entry whose outcome is not the replay's, naming the first difference."""
    if found.index:
        return Msg("entry {seq}: the recorded outcome differs from the replay at event {event}: "
                   "replay gives {ours}, log says {theirs}", seq=seq, event=found.index, ours=found.ours,
                   theirs=found.theirs)
    return Msg("entry {seq}: the recorded outcome differs from the replay (replay gives {ours} events, "
               "log has {theirs})", seq=seq, ours=int(found.ours), theirs=int(found.theirs))


def _replay_reveal(game: Game, entry: Reveal) -> None:
    seq = entry.seq
    if not game.over:
        raise TamperError(Msg("entry {seq}: the secret is revealed before the game is over", seq=seq), "P6")
    if game.secret is not None:
        raise TamperError(Msg("entry {seq}: a second reveal entry", seq=seq), "P6")
    secret = bytes.fromhex(entry.secret)  # 64 lowercase hex digits: its shape was read (P2)
    if protocol.secret_commitment(secret) != game.secret_commitment:
        raise TamperError(
            Msg("entry {seq}: the revealed secret does not match the commitment of entry 0", seq=seq), "P3"
        )
    game.secret = secret


def check_schema(entries: list[Entry]) -> None:
    """Every entry against ``schemas/entry.json`` by jsonschema itself (``pbem verify``: a
    second, independent reading; the records' reader is as strict, tests/test_records.py)."""
    for entry in entries:
        try:
            validate(entry.to_raw(), "entry.json", f"entry {entry.seq}")
        except FormatError as err:
            raise TamperError(err.message, "P7") from None
