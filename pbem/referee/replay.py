"""Replaying a public log: anyone, any time, with no secret (PROTOCOL.md P3-P7).

:func:`replay` rebuilds the game from its log alone: the game's own map and
catalogue from entry 0, the public setup from the start entry, then every
move through the rules core.  Each flipped token's face comes from the reveal
recorded in that entry, checked against its commitment (P6) before it is
used; the recomputed outcome must equal the recorded one exactly.  Any
difference is a :class:`TamperError` naming the entry.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from pbem.data import STANDARD_DATA_HASHES
from pbem.errors import FormatError, PbemError, TamperError
from pbem.fair import protocol
from pbem.log.clock import is_at
from pbem.log.game import Game, Opening
from pbem.log.moves import Move, validate
from pbem.referee.admit import check_abandon, check_waive, judge
from pbem.referee.reveals import RevealFaces, outcome_dicts
from pbem.referee.seats import replay_seat_entry
from pbem.rules import FaceUnknown, State, new_state
from pbem.rules.data import N_TOKENS, Board, Catalogue, GameDataError

SaltOf = Callable[[str], str]


def _setup_state(game: Game, entry: dict[str, Any], seq: int) -> State:
    """Rebuild R2.1-R2.4 from the start entry's public setup, checking its shape."""
    try:
        setup = entry["setup"]
        board_names: Mapping[str, str] = setup["board"]
        supply, removed = list(setup["supply"]), list(setup["removed"])
        regions = game.board.regions_in_use(len(game.players))
        if list(board_names) != list(regions):
            raise ValueError("the board does not list the regions in use in map order")
        names = [*board_names.values(), *supply, *removed]
        if names != [protocol.Deal.name(i) for i in range(1, len(names) + 1)] or len(names) != N_TOKENS:
            raise ValueError("token positions must run t01..t49: board, supply, removed (P6)")
        commitments = entry["commitments"]
        if len(commitments) != N_TOKENS or not all(_hex(c, 64, 64) for c in commitments):
            raise ValueError(f"there must be {N_TOKENS} commitments of 64 lowercase hex digits (P2, P6)")
        game.commitments = list(commitments)
        return new_state(
            players=game.players,
            first=setup["first_player"],
            regions=regions,
            neighbours=game.board.adjacency(regions),
            board={r: [n] for r, n in board_names.items()},
            rat_supply=supply,
            removed=removed,
            plague=setup["plague"],
            catalogue=game.catalogue,
        )
    except (KeyError, TypeError, ValueError, AttributeError, GameDataError) as err:
        raise TamperError(f"entry {seq}: the start entry is malformed: {err}", "P6") from None


def game_from_first(first: dict[str, Any], first_hash: str) -> Game:
    """Entry 0 (P3): the players, the secret's commitment and the game's own data."""
    try:
        if first.get("kind") != "create" or first.get("protocol") != protocol.PROTOCOL:
            raise ValueError(f"it must be a 'create' entry of protocol {protocol.PROTOCOL}")
        if not is_at(first.get("at")):
            raise ValueError("its 'at' is not a time like 2026-11-30T09:15:00Z (P7)")
        data = first["data"]
        recorded = first["data_hash"]
        if protocol.sha256_hex(protocol.checked_json({"map": data["map"], "tokens": data["tokens"]})) != recorded:
            # (entry 0 was checked for P2's values when its own hash was computed)
            raise ValueError("its data_hash is not the hash of its map and token catalogue")
        edition = first["edition"]
        if edition == "standard" and recorded not in STANDARD_DATA_HASHES:
            raise ValueError(
                "it claims the standard edition, but its map or token catalogue differ from "
                "the data pbem ships (a custom game must say 'custom')"
            )
        if edition not in ("standard", "custom"):
            raise ValueError(f"edition {edition!r} is neither 'standard' nor 'custom'")
        if not _hex(first["secret"]["commitment"], 64, 64):
            raise ValueError("its secret commitment is not 64 lowercase hex digits (P2)")
        made = first["secret"]["made"]
        if made not in ("os-csprng", "supplied"):
            raise ValueError(f"secret.made {made!r} is neither 'os-csprng' nor 'supplied'")
        game = Game(
            game_id=first["game"],
            players=tuple(first["players"]),
            board=Board.from_data(data["map"]),
            catalogue=Catalogue.from_data(data["tokens"]),
            entries=[first],
            hashes=[first_hash],
            first_named=first["options"].get("first"),
            secret_commitment=first["secret"]["commitment"],
            made=made,
            edition=edition,
            data_hash=recorded,
            keys=dict(first.get("keys", {})),
            bots=dict(first["options"].get("bots", {})),
        )
        game.board.regions_in_use(len(game.players))
        game.deadline, game.reminder = _deadline_options(first["options"])
        if not set(game.bots) <= set(game.players) or not all(isinstance(v, str) for v in game.bots.values()):
            raise ValueError("options.bots names a seat that is not a player")
        return game
    except (KeyError, TypeError, ValueError, AttributeError, GameDataError) as err:
        raise TamperError(f"entry 0: the first entry is malformed: {err}", "P3") from None


def _deadline_options(options: dict[str, Any]) -> tuple[int | None, int | None]:
    """R8.1: entry 0's deadline and reminder, in seconds (both absent: no deadline)."""
    deadline, reminder = options.get("deadline"), options.get("reminder")
    for name, value in (("deadline", deadline), ("reminder", reminder)):
        if value is not None and (type(value) is not int or value < 60):
            raise ValueError(f"options.{name} must be a whole number of seconds, at least 60 (R8.1)")
    if reminder is not None and (deadline is None or reminder >= deadline):
        raise ValueError("options.reminder needs a deadline, and must be shorter than it (R8.1)")
    return deadline, reminder


def replay(entries: list[dict[str, Any]], hashes: list[str]) -> Game:
    """The game as of the last entry; :class:`TamperError` naming the first bad entry."""
    game = game_from_first(entries[0], hashes[0])
    for seq in range(1, len(entries)):
        apply_entry(game, entries[seq], hashes[seq])
    return game


def _recorded_move(entry: dict[str, Any], seq: int) -> Move:
    """The move an entry records, in the shape the referee reads (its schema was checked
    when it was admitted; a tampered one must still not crash the replay)."""
    move, player = entry.get("move"), entry.get("player")
    after = move.get("after") if isinstance(move, dict) else None
    if (
        not isinstance(move, dict)
        or not isinstance(after, dict)
        or type(after.get("seq")) is not int
        or not isinstance(after.get("hash"), str)
        or len(after["hash"]) < protocol.HASH_PREFIX_MIN
        or move.get("player") != player
        or move.get("kind") != entry.get("kind")
        or not isinstance(move.get("game"), str)
    ):
        raise TamperError(
            f"entry {seq}: the recorded move is malformed, or its player, kind or 'after' "
            "field was changed", "P7",
        )
    if entry["kind"] == "commit" and not _hex(move.get("nonce_commitment"), 64, 64):
        raise TamperError(f"entry {seq}: the recorded nonce commitment is not 64 hex digits", "P4")
    if entry["kind"] == "nonce" and not _hex(move.get("nonce"), 32, 128):
        raise TamperError(f"entry {seq}: the recorded nonce is not 16-64 bytes of hex", "P4")
    return Move(move["game"], str(player), entry["kind"], move)


def _hex(value: object, shortest: int, longest: int) -> bool:
    return (
        isinstance(value, str)
        and shortest <= len(value) <= longest
        and len(value) % 2 == 0
        and all(c in "0123456789abcdef" for c in value)
    )


def apply_entry(game: Game, entry: dict[str, Any], entry_hash: str) -> None:
    """Check one more entry against the game so far, the way the host admitted it, and add it."""
    seq = len(game.entries)
    at, last_at = entry.get("at"), game.last_at
    if not is_at(at):
        raise TamperError(f"entry {seq}: its 'at' is not a time like 2026-11-30T09:15:00Z", "P7")
    assert isinstance(at, str)
    if last_at is not None and at < last_at:
        raise TamperError(f"entry {seq}: its 'at' ({at}) is earlier than the entry before ({last_at})", "P7")
    kind = entry.get("kind")
    if game.ready_to_start and kind != "start":
        raise TamperError(f"entry {seq}: every nonce is in, so the game must start with this entry (P4)", "P4")
    turn_before = _turn_key(game)
    if kind != "standin" and game.resigned and game.to_move() in game.resigned:
        raise TamperError(f"entry {seq}: {game.to_move()} resigned, so the stand-in plays their turn "
                          "at once, in this entry (R8.4)", "R8.4")
    try:
        if kind in ("commit", "nonce", "move", "resign"):
            _replay_move(game, entry, seq)
        elif kind in ("timeout", "standin", "replace"):
            replay_seat_entry(game, entry, seq)
        elif kind == "waive":
            player = entry.get("player")
            check_waive(game, str(player))
            game.waived.add(str(player))
        elif kind == "abandon":
            check_abandon(game)
            game.abandoned = True
        elif kind == "start":
            _replay_start(game, entry, seq)
        elif kind == "reveal":
            _replay_reveal(game, entry, seq)
        else:
            raise TamperError(f"entry {seq}: unknown entry kind {kind!r}", "P7")
    except TamperError:
        raise
    except PbemError as err:
        raise TamperError(f"entry {seq}: the host could not have admitted it: {err.message}", err.rule) from None
    game.entries.append(entry)
    game.hashes.append(entry_hash)
    if _turn_key(game) != turn_before:
        game.turn_since = seq  # R8.1: this entry made it the player to move's turn


def _turn_key(game: Game) -> tuple[Any, ...] | None:
    """R8.1: what identifies the turn being played (a Witch look does not change it)."""
    state = game.state
    if state is None or state.to_move is None:
        return None
    return (state.phase.value, state.current, state.turn_number, len(state.queue))


def _replay_move(game: Game, entry: dict[str, Any], seq: int) -> None:
    move = _recorded_move(entry, seq)
    if entry["kind"] != "move":
        verdict = judge(game, move, signatures=False)
        if move.kind == "commit":
            game.commits[move.player] = move.data["nonce_commitment"]
            if isinstance(move.data.get("key"), str):
                game.keys.setdefault(move.player, move.data["key"])  # P8: registered with the commitment
        elif move.kind == "nonce":
            game.nonces[move.player] = move.data["nonce"]
        else:
            game.resigned.add(move.player)  # R8.4: the stand-in plays the seat from now on
    else:
        outcome = entry.get("outcome")
        if not isinstance(outcome, list):
            raise TamperError(f"entry {seq}: a move entry needs its outcome", "P7")
        faces = RevealFaces(game, outcome, seq)
        try:
            verdict = judge(game, move, faces=faces, signatures=False)
        except FaceUnknown as err:
            raise TamperError(
                f"entry {seq}: the replay flips {err.args[0]}, whose reveal the entry does not record", "P6"
            ) from None
        recomputed = outcome_dicts(list(verdict.events), faces.salt)
        if recomputed != outcome:
            raise TamperError(
                f"entry {seq}: the recorded outcome differs from the replay{_first_difference(recomputed, outcome)}",
                "P7",
            )
        game.state = verdict.state
    game.sent[verdict.key] = seq


def _replay_start(game: Game, entry: dict[str, Any], seq: int) -> None:
    if game.opening is not Opening.REVEAL or not game.ready_to_start:
        raise TamperError(
            f"entry {seq}: a start before every nonce was revealed (still awaited: "
            f"{', '.join(game.awaited) or 'nothing'}); a partial start would let someone choose", "P4",
        )
    expected = {p: game.nonces.get(p, "") for p in game.players}
    if entry.get("nonces") != expected:
        raise TamperError(f"entry {seq}: the nonces differ from the revealed ones", "P4")
    game.state = _setup_state(game, entry, seq)

def _first_difference(ours: list[Any], theirs: list[Any]) -> str:
    for i, (a, b) in enumerate(zip(ours, theirs, strict=False)):
        if a != b:
            return f" at event {i + 1}: replay gives {a}, log says {b}"
    return f" (replay gives {len(ours)} events, log has {len(theirs)})"


def _replay_reveal(game: Game, entry: dict[str, Any], seq: int) -> None:
    if not game.over:
        raise TamperError(f"entry {seq}: the secret is revealed before the game is over", "P6")
    if game.secret is not None:
        raise TamperError(f"entry {seq}: a second reveal entry", "P6")
    try:
        if not _hex(entry["secret"], 64, 64):  # bytes.fromhex would skip whitespace (P2)
            raise ValueError
        secret = bytes.fromhex(entry["secret"])
    except (KeyError, TypeError, ValueError):
        raise TamperError(f"entry {seq}: the reveal entry's secret is not 64 lowercase hex digits", "P6") from None
    if protocol.secret_commitment(secret) != game.secret_commitment:
        raise TamperError(
            f"entry {seq}: the revealed secret does not match the commitment of entry 0", "P3"
        )
    game.secret = secret


def check_schema(entries: list[dict[str, Any]]) -> None:
    """Every entry against ``schemas/entry.json`` (``pbem verify``: anyone's thorough check)."""
    for seq, entry in enumerate(entries):
        try:
            validate(entry, "entry.json", f"entry {seq}")
        except FormatError as err:
            raise TamperError(err.message, "P7") from None
