"""Players who act on the mail they receive, and nothing else.

Each seat reads only the mails addressed to it: the templates attached (the opening's
commitment and nonce, each move's), the log attached (the public game, for a random
legal move, as any player may read it), and the last mail of the game.  So a game
played through a host by these players is a game played by mail, end to end: nothing
reaches them but what the host mailed.
"""

from __future__ import annotations

import gzip
import random
import re
from dataclasses import dataclass, field
from email.message import EmailMessage
from email.utils import make_msgid, parseaddr
from typing import Any

from pbem.bots.randombot import bot_actions
from pbem.fair import protocol
from pbem.log.game import Game
from pbem.log.logfile import parse_log
from pbem.log.yamlio import dump_yaml, load_stream
from pbem.referee.replay import replay

HOST = "rattus@host.example"
THREE = {"red": "red@example.org", "green": "green@example.com", "blue": "blue@example.net"}


def read_game(log_bytes: bytes) -> Game:
    return replay(*parse_log(load_stream(log_bytes.decode(), "log")))


def attachments(msg: EmailMessage) -> dict[str, bytes]:
    out = {}
    for part in msg.iter_attachments():
        data = part.get_payload(decode=True)
        if isinstance(data, bytes):
            out[part.get_filename() or ""] = data
            if (part.get_filename() or "").endswith("log.yaml.gz"):  # a report's copy, inflated
                out["log.yaml"] = gzip.decompress(data)
    return out


def player_mail(sender: str, text: str, subject: str = "my move", msgid: str | None = None) -> bytes:
    """A message as a player's client sends it: the move as the text of a plain mail."""
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = HOST
    msg["Subject"] = subject
    msg["Message-ID"] = msgid or make_msgid(domain=sender.split("@")[1])
    msg.set_content(f"Here it is:\n\n{text}\n-- \nA player\n")
    return bytes(msg)


@dataclass
class Seat:
    player: str
    address: str
    nonce: bytes
    log: bytes | None = None  # the latest log this seat received
    final: EmailMessage | None = None  # the game's last mail
    template: dict[str, Any] | None = None  # a template received and not yet answered
    got: list[EmailMessage] = field(default_factory=list)


_GAME = re.compile(r"^game (\S+) (\S+)$", re.MULTILINE)
_AFTER = re.compile(r"^after (\d+) ([0-9a-f]+)$", re.MULTILINE)


def template_move(text: str) -> dict[str, Any] | None:
    """The move a template asks for, from its two header lines ('game G PLAYER', 'after SEQ
    HASH', pbem.log.notation_write.header_lines); None when there is nothing to send."""
    game, after = _GAME.search(text), _AFTER.search(text)
    if game is None or after is None:  # "nothing to send now", or not this seat's turn
        return None
    kind = "commit" if "Round 1 of 2" in text else "nonce" if "Round 2 of 2" in text else "move"
    return {"game": game.group(1), "player": game.group(2), "kind": kind,
            "after": {"seq": int(after.group(1)), "hash": after.group(2)}}


class Table:
    """The players of one game, each answering only what was mailed to them."""

    def __init__(self, addresses: dict[str, str], seed: int = 7) -> None:
        self.seats = {p: Seat(p, a, bytes([i + 1]) * 32) for i, (p, a) in enumerate(addresses.items())}
        self.rng = random.Random(seed)

    def seat_of(self, msg: EmailMessage) -> Seat:
        address = parseaddr(str(msg["To"]))[1]
        return next(s for s in self.seats.values() if s.address == address)

    def receive(self, messages: list[EmailMessage]) -> None:
        for msg in messages:
            seat = self.seat_of(msg)
            seat.got.append(msg)
            files = attachments(msg)
            if "log.yaml" in files:
                if seat.log is None or len(files["log.yaml"]) >= len(seat.log):
                    seat.log = files["log.yaml"]
            if "] the end: " in str(msg["Subject"]):
                seat.final = msg
            for name, data in files.items():
                if name.endswith((f"-{seat.player}.txt", f"-{seat.player}.yaml")) and "-private-" not in name:
                    seat.template = template_move(data.decode())

    def answers(self) -> list[bytes]:
        """Every seat with a template answers it: a nonce's commitment, the nonce, or a move
        (from the log that template was written against: asked for by mail if not at hand)."""
        out = []
        for seat in self.seats.values():
            data, seat.template = seat.template, None
            if not isinstance(data, dict):  # "nothing to send now"
                continue
            if data["kind"] == "commit":
                data["nonce_commitment"] = protocol.nonce_commitment(seat.nonce)
            elif data["kind"] == "nonce":
                data["nonce"] = seat.nonce.hex()
            else:
                game = read_game(seat.log) if seat.log is not None else None
                if game is None or game.last_seq < data["after"]["seq"]:
                    seat.template = data  # kept until the log it answers arrives
                    out.append(player_mail(seat.address, "log", subject="log"))
                    continue
                if game.last_seq > data["after"]["seq"]:  # an old template: ask for the current one
                    out.append(player_mail(seat.address, "template", subject="template"))
                    continue
                assert game.state is not None
                if game.state.to_move != seat.player:  # not this seat's turn: nothing to send
                    continue
                data["actions"] = [a.to_dict() for a in bot_actions(game.state, self.rng)]
            out.append(player_mail(seat.address, dump_yaml(data)))
        return out

    def ask_templates(self) -> list[bytes]:
        """Every seat asks for its template by mail (a player who waited too long)."""
        return [player_mail(s.address, "template", subject="template") for s in self.seats.values()
                if s.final is None]
