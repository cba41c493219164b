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
from dataclasses import dataclass, field
from typing import Any

from pbem import protocol
from pbem.errors import TamperError
from pbem.gamedata import Board, Catalogue, GameDataError, Token
from pbem.rules import (
    Action,
    ActionFormatError,
    Event,
    FaceUnknown,
    RuleError,
    State,
    action_from_dict,
    apply_all,
    new_state,
)
from pbem.rules.events import TokenFlipped

SaltOf = Callable[[str], str]


@dataclass
class Game:
    """A game as its public log shows it."""

    game_id: str
    players: tuple[str, ...]
    board: Board
    catalogue: Catalogue
    entries: list[dict[str, Any]]
    hashes: list[str]
    first_named: str | None
    secret_commitment: str
    nonces: dict[str, str] = field(default_factory=dict)
    keys: dict[str, str] = field(default_factory=dict)
    commitments: list[str] = field(default_factory=list)
    state: State | None = None
    secret: bytes | None = None  # once revealed (P6)

    @property
    def started(self) -> bool:
        return self.state is not None

    @property
    def over(self) -> bool:
        return self.state is not None and self.state.to_move is None

    @property
    def last_seq(self) -> int:
        return len(self.entries) - 1

    @property
    def last_hash(self) -> str:
        return self.hashes[-1]

    def to_move(self) -> str | None:
        return self.state.to_move if self.state is not None else None


class RevealFaces:
    """The faces recorded in one entry's outcome, each checked against its commitment."""

    def __init__(self, game: Game, outcome: list[Any], seq: int) -> None:
        self._game = game
        self._seq = seq
        self._reveals: dict[str, tuple[str, str]] = {}
        for item in outcome:
            if isinstance(item, dict) and item.get("event") == TokenFlipped.kind:
                token, token_id, salt = item.get("token"), item.get("token_id"), item.get("salt")
                if not all(isinstance(x, str) for x in (token, token_id, salt)):
                    raise TamperError(f"entry {seq}: a token_flipped event lacks its reveal", "P6")
                assert isinstance(token, str) and isinstance(token_id, str) and isinstance(salt, str)
                self._reveals[token] = (token_id, salt)

    def face(self, token: str) -> Token:
        if token not in self._reveals:
            raise FaceUnknown(token)
        token_id, salt = self._reveals[token]
        position = protocol.position_of(token)
        commit = self._game.commitments[position - 1]
        if not protocol.check_reveal(commit, position, salt, token_id):
            raise TamperError(
                f"entry {self._seq}: the reveal of {token} ({token_id}) does not match its "
                "commitment in the start entry",
                "P6",
            )
        try:
            return self._game.catalogue.by_id(token_id)
        except KeyError:
            raise TamperError(
                f"entry {self._seq}: {token} is revealed as {token_id!r}, "
                "which is not in the game's catalogue",
                "P6",
            ) from None

    def look(self, token: str) -> str | None:
        return None

    def salt(self, token: str) -> str:
        return self._reveals[token][1]


def outcome_dicts(events: list[Event], salt_of: SaltOf) -> list[dict[str, Any]]:
    """The public outcome of a move: each event's public form, flips with their salts."""
    out = []
    for event in events:
        data = event.to_dict()
        if isinstance(event, TokenFlipped):
            data["salt"] = salt_of(event.token)
        out.append(data)
    return out


def parse_actions(raw: Any, seq: int | None = None) -> list[Action]:
    where = f"entry {seq}: " if seq is not None else ""
    if not isinstance(raw, list):
        raise ActionFormatError(f"{where}'actions' must be a list")
    return [action_from_dict(item) for item in raw]


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
        if names != [protocol.Deal.name(i) for i in range(1, len(names) + 1)] or len(names) != 49:
            raise ValueError("token positions must run t01..t49: board, supply, removed (P6)")
        commitments = entry["commitments"]
        if len(commitments) != 49 or not all(isinstance(c, str) and len(c) == 64 for c in commitments):
            raise ValueError("there must be 49 commitments (P6)")
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
        )
    except (KeyError, TypeError, ValueError, AttributeError, GameDataError) as err:
        raise TamperError(f"entry {seq}: the start entry is malformed: {err}", "P6") from None


def game_from_first(entries: list[dict[str, Any]], hashes: list[str]) -> Game:
    first = entries[0]
    try:
        if first["kind"] != "create" or first["protocol"] != protocol.TAG:
            raise ValueError(f"it must be a 'create' entry of protocol {protocol.TAG}")
        players = tuple(first["players"])
        return Game(
            game_id=first["game"],
            players=players,
            board=Board.from_data(first["data"]["map"]),
            catalogue=Catalogue.from_data(first["data"]["tokens"]),
            entries=entries,
            hashes=hashes,
            first_named=first["options"].get("first"),
            secret_commitment=first["secret"]["commitment"],
            keys=dict(first.get("keys", {})),
        )
    except (KeyError, TypeError, ValueError, AttributeError, GameDataError) as err:
        raise TamperError(f"entry 0: the first entry is malformed: {err}", "P3") from None


def replay(entries: list[dict[str, Any]], hashes: list[str]) -> Game:
    """The game as of the last entry; :class:`TamperError` naming the first bad entry."""
    game = game_from_first(entries, hashes)
    for seq in range(1, len(entries)):
        apply_entry(game, entries[seq], seq)
    return game


def _check_answers(game: Game, entry: dict[str, Any], seq: int, target: int) -> None:
    """P7: a recorded move names the entry it answered, which must be ``target``."""
    move = entry.get("move")
    after = move.get("after") if isinstance(move, dict) else None
    if (
        not isinstance(after, dict)
        or after.get("seq") != target
        or not isinstance(after.get("hash"), str)
        or len(after["hash"]) < 8
        or not game.hashes[target].startswith(after["hash"])
        or move.get("player") != entry.get("player")  # type: ignore[union-attr]
        or move.get("game") != game.game_id  # type: ignore[union-attr]
    ):
        raise TamperError(
            f"entry {seq}: the recorded move does not answer entry {target} of this game "
            "(its game, player or 'after' field was changed)",
            "P7",
        )


def apply_entry(game: Game, entry: dict[str, Any], seq: int) -> None:
    kind = entry.get("kind")
    if kind in ("nonce", "move"):
        _check_answers(game, entry, seq, 0 if kind == "nonce" else seq - 1)
    if kind == "nonce":
        if game.started:
            raise TamperError(f"entry {seq}: a nonce after the game started", "P4")
        player, move = entry.get("player"), entry.get("move")
        if player not in game.players or player in game.nonces or not isinstance(move, dict):
            raise TamperError(f"entry {seq}: a nonce from an unknown or repeated player", "P4")
        game.nonces[player] = str(move.get("nonce", ""))
        if isinstance(move.get("key"), str):
            game.keys[player] = move["key"]
    elif kind == "start":
        if game.started:
            raise TamperError(f"entry {seq}: a second start entry", "P6")
        recorded = entry.get("nonces")
        expected = {p: game.nonces.get(p, "") for p in game.players}
        if recorded != expected:
            raise TamperError(f"entry {seq}: the nonces differ from the nonce entries", "P4")
        game.state = _setup_state(game, entry, seq)
    elif kind == "move":
        _replay_move(game, entry, seq)
    elif kind == "reveal":
        _replay_reveal(game, entry, seq)
    else:
        raise TamperError(f"entry {seq}: unknown entry kind {kind!r}", "P7")


def _replay_move(game: Game, entry: dict[str, Any], seq: int) -> None:
    if game.state is None:
        raise TamperError(f"entry {seq}: a move before the game started", "P6")
    player, move, outcome = entry.get("player"), entry.get("move"), entry.get("outcome")
    if not isinstance(move, dict) or not isinstance(outcome, list):  # player: _check_answers
        raise TamperError(f"entry {seq}: a move entry needs player, move and outcome", "P7")
    faces = RevealFaces(game, outcome, seq)
    try:
        actions = parse_actions(move.get("actions"), seq)
        state, events = apply_all(game.state, str(player), actions, faces)
    except (RuleError, ActionFormatError) as err:
        raise TamperError(f"entry {seq}: the recorded move is not legal: {err}", "R7.3") from None
    except FaceUnknown as err:
        raise TamperError(
            f"entry {seq}: the replay flips {err.args[0]}, whose reveal the entry does not record",
            "P6",
        ) from None
    recomputed = outcome_dicts(events, faces.salt)
    if recomputed != outcome:
        raise TamperError(
            f"entry {seq}: the recorded outcome differs from the replay{_first_difference(recomputed, outcome)}",
            "P7",
        )
    game.state = state


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
        secret = bytes.fromhex(entry["secret"])
    except (KeyError, TypeError, ValueError):
        raise TamperError(f"entry {seq}: the reveal entry's secret is not hex", "P6") from None
    if protocol.secret_commitment(secret) != game.secret_commitment:
        raise TamperError(
            f"entry {seq}: the revealed secret does not match the commitment of entry 0", "P3"
        )
    game.secret = secret


def log_has_signatures(entries: list[dict[str, Any]]) -> bool:
    """P8: does any entry or move carry a key or a signature (so pbem.signing must check)?"""
    first = entries[0]
    if first.get("host_key") or first.get("keys"):
        return True
    for entry in entries:
        move = entry.get("move")
        if "signature" in entry or (isinstance(move, dict) and ("signature" in move or "key" in move)):
            return True
    return False


def check_schema(entries: list[dict[str, Any]]) -> None:
    """Every entry against ``schemas/entry.json`` (``pbem verify``: anyone's thorough check)."""
    from pbem.errors import FormatError
    from pbem.moves import validate

    for seq, entry in enumerate(entries):
        try:
            validate(entry, "entry.json", f"entry {seq}")
        except FormatError as err:
            raise TamperError(err.message, "P7") from None
