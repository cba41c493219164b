"""A move written in the notation (:mod:`pbem.log.notation`): the lines a template, a signed move
file and the tests write, one action a line, each read back by :func:`pbem.log.notation.parse` to
the same move.  Every line is short enough for any mail client (a signature is two ``sig`` lines).
"""

from __future__ import annotations

from pbem.log.notation import Words
from pbem.log.records import AwayMove
from pbem.log.records.sent import CommitMove, MoveFile, NonceMove, ResignMove
from pbem.rules.actions import Action, Flip, KnightCubes, KnightMove, MovePlague
from pbem.rules.cards import DECK, action_from_dict
from pbem.rules.state import Deck


def action_line(action: Action, deck: Deck = DECK) -> str:
    """One action as its notation line, e.g. ``plague gallia italia``."""
    match action:
        case KnightCubes():
            return "knight cubes"
        case Flip(token=token):
            return f"flip {token}"
        case KnightMove(path=path) | MovePlague(path=path):
            return ("knight " if isinstance(action, KnightMove) else "plague ") + " ".join(path)
        case _:  # a kind whose line is its keyword, then its fields in order
            word, _form, fields = Words.of(deck).fixed[action.kind]
            return " ".join([word, *(str(getattr(action, f)) for f in fields)])


SIG_PART = 44
"""A signature (88 characters) is written as two ``sig`` lines, each short enough for any client."""


def header_lines(game: str, player: str, seq: int, hash_prefix: str) -> list[str]:
    return [f"game {game} {player}", f"after {seq} {hash_prefix}"]


def write(move: MoveFile) -> str:
    """A move as notation text (reads back to the same move: :func:`parse`)."""
    data = move.to_raw()
    lines: list[str] = []
    if "game" in data:
        lines.append(f"game {data['game']}" + (f" {data['player']}" if "player" in data else ""))
    elif "player" in data:
        lines.append(f"player {data['player']}")
    if "after" in data:
        lines.append(f"after {data['after']['seq']} {data['after']['hash']}")
    if isinstance(move, CommitMove | NonceMove):  # P4's lines: 'commit HEX', 'nonce HEX'
        lines.append(f"{move.KIND} {move.nonce_commitment if isinstance(move, CommitMove) else move.nonce}")
    elif isinstance(move, ResignMove | AwayMove):  # R8.4's 'resign', R8.5's 'away DAYS'
        lines.append(f"away {move.days}" if isinstance(move, AwayMove) else "resign")
    if "key" in data:
        lines.append(f"key {data['key']}")
    flips: list[str] = []  # a run of flips is one line: 'flip TOKEN TOKEN'
    for action in [*(action_from_dict(a) for a in data.get("actions", ())), None]:
        if isinstance(action, Flip):
            flips.append(action.token)
            continue
        lines += ["flip " + " ".join(flips)] if flips else []
        lines += [action_line(action)] if action is not None else []
        flips = []
    for note in str(data.get("comment", "")).splitlines() if "comment" in data else ():
        lines.append(f"note {note}".rstrip())
    signature = data.get("signature")
    if isinstance(signature, str):
        lines.extend(f"sig {signature[i:i + SIG_PART]}" for i in range(0, len(signature), SIG_PART))
    return "\n".join(lines) + "\n"
