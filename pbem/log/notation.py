"""Orders in plain text: a turn in a few short lines, one action a line (R7.3, R7.5).

A move in the notation reads as a Judge's orders or chess's SAN::

    game spring-1347 red
    after 12 3fa4c1d2e0b9a871
    take monk
    place gallia 2
    monk t07 hispania
    plague italia
    spread hispania
    spread gallia

Every line is short (no mail client wraps it), names are in any case, ``#`` starts a
comment, blank lines are nothing.  The two header lines name the game, the seat and the
entry the move answers (P7); a mail may leave them out and take them from the report it
answers (:mod:`pbem.mail.message`).

The text is read whole or not at all: a line that is not one of the lines below (a wrapped
line's tail, half a word, a stray sentence) refuses the whole move, naming the line, and
nothing is recorded.  What the text says is then the same move dict a YAML move file gives
(``schemas/move.json``), so the log records the same canonical actions, and a signature
covers that parsed move (P8), never the text's bytes: a signed text move works as a YAML one.

:data:`LINES` is the notation's own reference (``pbem rules notation``); its forms and
keywords are the same in every language, its explanations are translated (``N_``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from pbem.errors import FormatError
from pbem.i18n import N_, Msg
from pbem.log.records import AwayMove
from pbem.log.records.sent import CommitMove, NonceMove, ResignMove, SentMove, TurnMove, kind_name, written
from pbem.record import Record
from pbem.rules.cards import DECK
from pbem.rules.state import Deck

HEADER_WORDS = ("game", "player", "after")
_SPECIAL = ("plague", "knight", "flip")  # lines with readers of their own (below); every other action's
# line is its keyword and then its fields in order, read and written from its declaration (pbem.rules.actions)

LINES: tuple[tuple[str, str, str], ...] = (
    ("game GAME SEAT", N_("the game and your seat (P7)"), ""),
    ("after SEQ HASH", N_("the entry your move answers: its number and hash (P7)"), ""),
    *(line for cls in DECK.action_types.values() for line in cls.lines),
    ("resign", N_("leave the game; the stand-in plays your seat"), "R8.4"),
    ("away DAYS", N_("an absence of whole days: your deadlines wait"), "R8.5"),
    ("commit HEX", N_("opening, round 1: your nonce's commitment (64 hex)"), "P4"),
    ("nonce HEX", N_("opening, round 2: the nonce itself"), "P4"),
    ("key ed25519:...", N_("with the commitment: register your public key"), "P8"),
    ("sig BASE64", N_("your signature; a long one may take two sig lines"), "P8"),
    ("note TEXT", N_("a free comment kept with the move"), ""),
)
KEYWORDS = frozenset(form.split()[0] for form, _what, _rule in LINES) | {"player"}

_WORD = re.compile(r"[a-z][a-z0-9_-]{0,31}\Z")
_TOKEN = re.compile(r"t\d{1,2}\Z")
_HEX = re.compile(r"[0-9a-f]+\Z")
_B64 = re.compile(r"[A-Za-z0-9+/=]+\Z")
_NUMBER = re.compile(r"\d{1,4}\Z")
_HASH = re.compile(r"[0-9a-f]{16,64}\Z")
_COMMENT = re.compile(r"\s#|^#")
MAX_LINE = 200  # a longer line is not a move line (the notation's longest, a nonce, is 135)


class NotationError(FormatError):
    """A line of a text move that is not a move line (R7.3: the move is refused whole)."""


def is_notation(text: str) -> bool:
    """Does ``text`` hold a move in the notation (rather than a YAML move file)?  Its first
    line that is not blank or a comment starts with a keyword and has no ``key:`` form."""
    return next((_moves(line) for line in map(_strip_comment, text.splitlines()) if line.strip()), False)


def first_move_line(lines: list[str]) -> int | None:
    """The index of the first line that starts with a keyword (a mail's greeting before it
    is not the move), or None."""
    return next((index for index, raw in enumerate(lines) if _moves(_strip_comment(raw))), None)


def _moves(line: str) -> bool:
    line = line.strip()
    return bool(line) and line.split(None, 1)[0].lower() in KEYWORDS and not re.match(r"[A-Za-z_]+\s*:", line)


def _strip_comment(line: str) -> str:
    match = _COMMENT.search(line)
    return line if match is None else line[: match.start()]


def parse(text: str, what: str = "the move", deck: Deck = DECK) -> dict[str, Any]:
    """The move a text holds, as a move file's dict (its header fields only where written).

    Every line must be a move line (:data:`LINES`); the first that is not refuses the
    whole move, quoting it with its number (R7.3).  Checks of the values themselves
    (a region's name, a count's range) are the schema's and the rules', as for YAML.
    ``what`` names the text in a refusal (a :class:`pbem.i18n.Msg`, said in the reader's language)."""
    if what == "the move" and not isinstance(what, Msg):
        what = Msg("the move")
    reading = _Reading(what, Words.of(deck).readers)
    for number, raw in enumerate(text.replace("\r\n", "\n").replace("\r", "\n").split("\n"), start=1):
        body = _strip_comment(raw.replace("\u00a0", " ")).strip()
        if body:
            reading.line(Msg("{what}, line {number} ({line})", what=what, number=number, line=_quote(raw)), body)
    return reading.move()


def joined(items: list[str]) -> str:
    """``a and b`` (``a and b and c``): a value of a sentence, said whole in each language."""
    if len(items) == 1:
        return items[0]
    return Msg("{first} and {second}", first=joined(items[:-1]), second=items[-1])


class _Reading:
    """One text move being read, line by line (:func:`parse`)."""

    def __init__(self, what: str, readers: dict[str, LineReader]) -> None:
        self.what = what
        self.readers = readers
        self.fields: dict[str, Any] = {}
        self.actions: list[dict[str, Any]] = []
        self.kinds: list[type[SentMove]] = []  # the kinds of move its lines make (one is allowed)
        self.sig: list[str] = []
        self.notes: list[str] = []
        self.last = ""

    def line(self, where: str, body: str) -> None:
        if len(body) > MAX_LINE:
            raise NotationError(Msg("{where}: the line is too long to be a move line", where=where), "R7.3")
        words = body.replace(",", " ").split()
        word, rest = words[0].lower(), words[1:]
        if word in self.readers:
            self.actions.extend(self.readers[word](where, rest))  # each field folds its case (a name: as typed)
            self._kind(TurnMove)
        elif word in _OPENING:
            _arity(where, f"{word} HEX", rest, 1)
            value = rest[0].lower()
            if not _HEX.match(value):
                raise NotationError(Msg("{where}: {word} takes hex digits (0-9, a-f)", where=where, word=word), "P4")
            self._kind(_OPENING[word][0])
            _set(self.fields, _OPENING[word][1], value, where)
        elif word in HEADER_WORDS:
            _header(self.fields, word, [w.lower() for w in rest], where)
        elif word in _OTHER:
            _OTHER[word](self, where, body, rest)
        else:
            raise NotationError(Msg(
                "{where} is not a move line: a line starts with one of {keywords} (see 'pbem rules "
                "notation'); nothing was applied, the move is read whole or not at all",
                where=where, keywords=", ".join(sorted(KEYWORDS))), "R7.3",
            )
        self.last = word

    def _kind(self, kind: type[SentMove]) -> None:
        if kind not in self.kinds:
            self.kinds.append(kind)

    def note(self, where: str, body: str, rest: list[str]) -> None:
        self.notes.append(body[4:].strip())

    def signature(self, where: str, body: str, rest: list[str]) -> None:
        _arity(where, "sig BASE64", rest, 1)
        if not _B64.match(rest[0]):
            raise NotationError(Msg("{where}: a signature is base64 text ('pbem sign' writes it)", where=where), "P8")
        if self.sig and self.last != "sig":
            raise NotationError(Msg("{where}: the signature's lines must follow each other", where=where), "P8")
        self.sig.append(rest[0])

    def key(self, where: str, body: str, rest: list[str]) -> None:
        _arity(where, "key ed25519:...", rest, 1)
        _set(self.fields, "key", rest[0], where)

    def resign(self, where: str, body: str, rest: list[str]) -> None:
        _arity(where, "resign", rest, 0)
        self._kind(ResignMove)

    def away(self, where: str, body: str, rest: list[str]) -> None:  # R8.5: the days' range is the schema's
        _arity(where, "away DAYS", rest, 1)
        _set(self.fields, "days", int(rest[0]) if _NUMBER.match(rest[0]) else rest[0], where)
        self._kind(AwayMove)

    def move(self) -> dict[str, Any]:
        if len(self.kinds) > 1:
            raise NotationError(Msg(
                "{what} mixes {kinds}: one move file is one kind of move "
                "(a turn, a commitment, a nonce or a resignation)", what=self.what,
                kinds=joined(sorted(kind_name(k) for k in self.kinds))),
                "P7",
            )
        if not self.kinds:
            raise NotationError(Msg(
                "{what} holds no action, commitment, nonce or resignation: write your lines "
                "below the 'game' and 'after' lines, one action a line (a commitment: 'commit' and "
                "its 64 hex digits; 'pbem rules notation')", what=self.what), "R7.3",
            )
        move = written(self.kinds[0], self.fields)
        if self.actions:
            move["actions"] = self.actions
        if self.sig:
            move["signature"] = "".join(self.sig)
        if self.notes:
            move["comment"] = "\n".join(self.notes)
        return move


_OPENING = {"commit": (CommitMove, "nonce_commitment"), "nonce": (NonceMove, "nonce")}  # P4's kinds, fields
_OTHER: dict[str, Callable[[_Reading, str, str, list[str]], None]] = {
    "note": _Reading.note, "sig": _Reading.signature, "key": _Reading.key, "resign": _Reading.resign,
    "away": _Reading.away,
}


def _quote(raw: str) -> str:
    shown = raw.strip()
    return repr(shown if len(shown) <= 60 else shown[:57] + "...")


def _arity(where: str, form: str, rest: list[str], count: int) -> None:
    if len(rest) != count:
        raise NotationError(Msg("{where}: the line is '{form}'", where=where, form=form), "R7.3")


def _set(move: dict[str, Any], field: str, value: Any, where: str) -> None:
    if field in move and move[field] != value:
        raise NotationError(Msg("{where}: {field} is given twice, differently", where=where, field=field), "P7")
    move[field] = value


def _header(move: dict[str, Any], word: str, rest: list[str], where: str) -> None:
    if word == "game":
        if len(rest) not in (1, 2):
            raise NotationError(Msg("{where}: the line is '{form}'", where=where, form="game GAME SEAT"), "P7")
        _set(move, "game", rest[0], where)
        if len(rest) == 2:
            _set(move, "player", rest[1], where)
    elif word == "player":
        _arity(where, "player SEAT", rest, 1)
        _set(move, "player", rest[0], where)
    else:
        if len(rest) == 1 and ":" in rest[0]:
            rest = rest[0].split(":", 1)
        if len(rest) != 2 or not _NUMBER.match(rest[0]) or not _HASH.match(rest[1]):
            raise NotationError(Msg(
                "{where}: the line is 'after SEQ HASH', the entry's number and at least 16 hex "
                "digits of its hash, as the template gives them", where=where), "P7",
            )
        _set(move, "after", {"seq": int(rest[0]), "hash": rest[1]}, where)


def _name(where: str, value: str, what: str = "region") -> str:
    """A region or card: its id, also when named in a player's language (``Γαλλία``, ``Papság``,
    without accents too): the move records the id; a word that names none is refused ("did you mean")."""
    from pbem.i18n.names import canonical, unknown_name  # start-up speed: a move file in YAML names no word
    found = canonical(value, what)
    if found is not None:
        return found
    if what == "card" or not _WORD.match(value.lower()):
        raise NotationError(unknown_name(where, value, what), "R7.3")
    return value.lower()


def _token(where: str, value: str) -> str:
    value = value.lower()
    if not _TOKEN.match(value):
        raise NotationError(Msg("{where}: {value} is not a rat's public name (t01 to t49)", where=where,
                                value=repr(value)), "R7.2")
    return f"t{int(value[1:]):02d}"


def _count(where: str, value: str) -> int:
    if not _NUMBER.match(value):
        raise NotationError(Msg("{where}: {value} is not a number of cubes", where=where, value=repr(value)), "R7.3")
    return int(value)


_READ: dict[str, Callable[[str, str], Any]] = {
    "region": _name, "source": _name, "target": _name, "card": lambda w, v: _name(w, v, "card"),
    "token": _token, "count": _count,
}
LineReader = Callable[[str, list[str]], list[dict[str, Any]]]


class Words(Record):
    """A deck's words (:data:`pbem.rules.cards.DECK`'s: the notation's own): each keyword's
    reader, and each action's keyword and form (the kinds whose line is its keyword, then its fields)."""

    readers: dict[str, LineReader]
    fixed: dict[str, tuple[str, str, tuple[str, ...]]]  # action kind: (keyword, form, fields)

    @classmethod
    def of(cls, deck: Deck) -> Words:
        made = _MADE.get(id(deck))
        if made is None or made[0] is not deck:  # built once a deck (it is kept: its id stays its own)
            fixed = {kind: (a.lines[0][0].split()[0], a.lines[0][0], a._fields) for kind, a in deck.action_types.items()
                     if a.lines and a.lines[0][0].split()[0] not in _SPECIAL}
            readers = {word: _fixed(kind, form, fields, deck.cards) for kind, (word, form, fields) in fixed.items()}
            made = _MADE[id(deck)] = (deck, cls({**readers, "plague": _plague, "knight": _knight, "flip": _flip},
                                                fixed))
        return made[1]


_MADE: dict[int, tuple[Deck, Words]] = {}


def _fixed(action: str, form: str, fields: tuple[str, ...], cards: tuple[str, ...]) -> LineReader:
    def field(where: str, name: str, value: str) -> Any:
        if name == "card" and value.lower() in cards:  # a card's id (a deck's own card has only its id)
            return value.lower()
        return _READ[name](where, value)

    def read(where: str, rest: list[str]) -> list[dict[str, Any]]:
        _arity(where, form, rest, len(fields))
        return [{"action": action, **{f: field(where, f, v) for f, v in zip(fields, rest, strict=True)}}]
    return read


def _plague(where: str, rest: list[str]) -> list[dict[str, Any]]:
    if len(rest) not in (1, 2):
        raise NotationError(Msg("{where}: the line is 'plague REGION' (with the Knight: 'plague VIA REGION')",
                                where=where), "R3.3")
    return [{"action": "move_plague", "path": [_name(where, r) for r in rest]}]


def _knight(where: str, rest: list[str]) -> list[dict[str, Any]]:
    if [w.lower() for w in rest] == ["cubes"]:
        return [{"action": "knight_cubes"}]
    if len(rest) not in (1, 2):
        raise NotationError(Msg("{where}: the line is 'knight cubes', or in the final round "
                                "'knight REGION' (two steps: 'knight VIA REGION')", where=where), "R5.4")
    return [{"action": "knight_move", "path": [_name(where, r) for r in rest]}]


def _flip(where: str, rest: list[str]) -> list[dict[str, Any]]:
    if not rest:
        raise NotationError(Msg("{where}: the line is 'flip TOKEN ...', the rats in your order", where=where), "R4.2")
    return [{"action": "flip", "token": _token(where, t)} for t in rest]
