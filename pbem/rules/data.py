"""The game's data: the board (regions, shades, neighbours) and the 49 rat tokens.

These are the pure types (no file is read here: the loaders of the data pbem
ships are :mod:`pbem.data`'s).  Both are *data that a game carries with it* (RULES.md preamble, PROTOCOL.md P3):
the package ships a default copy in ``pbem/data/``, every new game records the
copy it was created with, and a replay or audit rebuilds these objects from
that record, never from the package.  Nothing here is a rule constant.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import cache
from typing import Any

from pbem.i18n import CARDS
from pbem.record import Record

CLASSES: tuple[str, ...] = CARDS
"""The six class cards (R1.5), in the rulebook's order (their ids are declared with the names
players read, :data:`pbem.i18n.CARDS`; each card's rule in :data:`pbem.rules.cards.DECK`)."""

SYMBOLS: frozenset[str] = frozenset(CLASSES) | {"M", "A"}
"""Every symbol a token face may show (R1.4)."""

WORD_RE = re.compile(r"^[a-z][a-z0-9_-]{0,31}\Z")
"""P2/P3: a region id, a shade or a link kind of custom data (as a player name): it is drawn
(SVG ``data-`` attributes) and used as a key, so it is held to this pattern on the way in."""
WORD_RULE = "1-32 characters of a-z 0-9 _ -, starting with a letter (P2: ^[a-z][a-z0-9_-]{0,31}$)"

TOKEN_ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,31}\Z")
"""P2/P3: a token id (the shipped ``S01``, ``N37``)."""
TOKEN_ID_RULE = ("1-32 characters of A-Z a-z 0-9 _ -, starting with a letter or digit "
                 "(P2: ^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$)")

NAME_LIMIT = 40
"""P2/P3: at most this many characters in a region's display name (free text, escaped when drawn)."""
_NONCHARACTERS = "\ufdd0-\ufdef" + "".join(f"{chr(p * 0x10000 + 0xFFFE)}{chr(p * 0x10000 + 0xFFFF)}"
                                             for p in range(17))
_NOT_PRINTABLE_ASCII = re.compile("[\x00-\x1f\x7f]")
_NOT_PRINTABLE = f"[\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff{_NONCHARACTERS}]"
"""P2: what text does not admit (as :mod:`pbem.log.yamlio`, which this pure layer cannot import).
For start-up speed the whole class (slow to compile) is compiled only for a name
that is not ASCII; an ASCII name is searched for the class's ASCII part, the same matches."""


@cache
def _not_printable() -> re.Pattern[str]:
    return re.compile(_NOT_PRINTABLE)


N_TOKENS = 49
"""R1.4: rat tokens in a game."""

N_STARTING = 12
"""R1.4: of them, starting rats."""


class GameDataError(ValueError):
    """The map or token catalogue is malformed (a value check of the data types; every
    reader turns it into the error of its own kind: malformed input, or a tampered log)."""


def check_word(value: Any, field: str, pattern: re.Pattern[str] = WORD_RE, rule: str = WORD_RULE) -> str:
    """An identifier of the game data (P2/P3), or :class:`GameDataError` naming the field and the rule."""
    if not isinstance(value, str) or not pattern.match(value):
        raise GameDataError(f"{field} {value!r} is not allowed: an id must be {rule}")
    return value


def check_name(value: Any, field: str) -> str:
    """A display name (free text, P2): 1-40 printable characters, none of them whitespace at an end."""
    if not isinstance(value, str) or not 1 <= len(value) <= NAME_LIMIT or value != value.strip():
        raise GameDataError(f"{field} {value!r} is not allowed: a name must be 1-{NAME_LIMIT} characters, "
                            "with no space at either end (P2)")
    bad = (_NOT_PRINTABLE_ASCII if value.isascii() else _not_printable()).search(value)
    if bad is not None:
        raise GameDataError(f"{field} {value!r} is not allowed: the character U+{ord(bad.group()):04X} is not "
                            "printable; text admits printable Unicode only (P2)")
    return value


class Token(Record):
    """One rat token's face (R1.4)."""

    id: str
    start: bool
    threshold: int
    symbols: tuple[str, ...]


SYMBOL_WORDS = {"M": "majority", "A": "all"}


def face_words(token: Token) -> str:
    """A face in words, as shown to whoever may see it (R1.4): ``threshold 3: majority, merchant, monk``."""
    return f"threshold {token.threshold}: " + ", ".join(SYMBOL_WORDS.get(s, s) for s in token.symbols)


class Catalogue(Record):
    """The 49 rat tokens, in catalogue order."""

    tokens: tuple[Token, ...]

    def by_id(self, token_id: str) -> Token:
        """The token of catalogue id ``token_id`` (the first, as a scan would find it); KeyError if none."""
        index: dict[str, Token] | None = self.__dict__.get("_by_id")
        if index is None:  # built once, beside the fields (not one: equality and hash ignore it)
            index = {}
            for token in self.tokens:
                index.setdefault(token.id, token)
            self.__dict__["_by_id"] = index
        return index[token_id]

    @property
    def starting(self) -> tuple[Token, ...]:
        return tuple(t for t in self.tokens if t.start)

    @property
    def normal(self) -> tuple[Token, ...]:
        return tuple(t for t in self.tokens if not t.start)

    def to_data(self) -> dict[str, Any]:
        return {
            "tokens": [
                {"id": t.id, "start": t.start, "threshold": t.threshold, "symbols": list(t.symbols)}
                for t in self.tokens
            ]
        }

    @classmethod
    def from_data(cls, raw: Any) -> Catalogue:
        if not isinstance(raw, Mapping) or not isinstance(raw.get("tokens"), list):
            raise GameDataError("token catalogue: expected a mapping with a 'tokens' list")
        tokens: list[Token] = []
        for item in raw["tokens"]:
            if not isinstance(item, Mapping):
                raise GameDataError("token catalogue: every token must be a mapping")
            tid, start, threshold = item.get("id"), item.get("start"), item.get("threshold")
            symbols = item.get("symbols")
            tid = check_word(tid, f"token catalogue: token {len(tokens) + 1}'s id", TOKEN_ID_RE, TOKEN_ID_RULE)
            if not isinstance(start, bool):
                raise GameDataError(f"token {tid}: 'start' must be true or false")
            if isinstance(threshold, bool) or not isinstance(threshold, int) or threshold < 0:
                raise GameDataError(f"token {tid}: 'threshold' must be a whole number >= 0")
            if (
                not isinstance(symbols, list)
                or not symbols
                or not all(isinstance(s, str) and s in SYMBOLS for s in symbols)
            ):
                raise GameDataError(f"token {tid}: 'symbols' must list symbols from {sorted(SYMBOLS)}")
            tokens.append(Token(tid, start, threshold, tuple(symbols)))
        ids = [t.id for t in tokens]
        if len(set(ids)) != len(ids):
            raise GameDataError("token catalogue: token ids must be unique")
        catalogue = cls(tuple(tokens))
        if len(tokens) != N_TOKENS or len(catalogue.starting) != N_STARTING:
            raise GameDataError(
                f"token catalogue: R1.4 needs {N_TOKENS} tokens, {N_STARTING} of them starting rats "
                f"(got {len(tokens)} with {len(catalogue.starting)} starting)"
            )
        return catalogue


class Region(Record):
    id: str
    name: str
    shade: str


class Board(Record):
    """The printed board: regions in map order, links, and shades per player count (R1.1-R1.2)."""

    regions: tuple[Region, ...]
    links: tuple[tuple[str, str, str], ...]
    shades_for: Mapping[int, tuple[str, ...]]

    def regions_in_use(self, n_players: int) -> tuple[str, ...]:
        """R1.2: the regions whose shade is used with ``n_players``, in map order."""
        try:
            shades = self.shades_for[n_players]
        except KeyError:
            raise GameDataError(f"the map has no regions for {n_players} players") from None
        return tuple(r.id for r in self.regions if r.shade in shades)

    def adjacency(self, in_use: tuple[str, ...]) -> dict[str, tuple[str, ...]]:
        """Neighbours among the regions in use only (R1.2 ruling), each list in map order."""
        used = set(in_use)
        near: dict[str, set[str]] = {r: set() for r in in_use}
        for a, b, _kind in self.links:
            if a in used and b in used:
                near[a].add(b)
                near[b].add(a)
        order = {r: i for i, r in enumerate(in_use)}
        return {r: tuple(sorted(ns, key=order.__getitem__)) for r, ns in near.items()}

    def name_of(self, region_id: str) -> str:
        for r in self.regions:
            if r.id == region_id:
                return r.name
        return region_id

    def to_data(self) -> dict[str, Any]:
        return {
            "regions": [{"id": r.id, "name": r.name, "shade": r.shade} for r in self.regions],
            "links": [list(link) for link in self.links],
            "players": {str(n): list(s) for n, s in sorted(self.shades_for.items())},
        }

    @classmethod
    def from_data(cls, raw: Any) -> Board:
        if not isinstance(raw, Mapping):
            raise GameDataError("map: expected a mapping")
        regions_raw, links_raw, players_raw = raw.get("regions"), raw.get("links"), raw.get("players")
        if not isinstance(regions_raw, list) or not isinstance(links_raw, list):
            raise GameDataError("map: expected 'regions' and 'links' lists")
        if not isinstance(players_raw, Mapping):
            raise GameDataError("map: expected a 'players' mapping from player count to shades")
        regions = [_region(i, item) for i, item in enumerate(regions_raw, 1)]
        ids = {r.id for r in regions}
        if len(ids) != len(regions):
            raise GameDataError("map: region ids must be unique")
        links: list[tuple[str, str, str]] = []
        for link in links_raw:
            if (
                not isinstance(link, list)
                or len(link) != 3
                or not all(isinstance(x, str) for x in link)
                or link[0] not in ids
                or link[1] not in ids
                or link[0] == link[1]
            ):
                raise GameDataError(f"map: bad link {link!r}")
            links.append((link[0], link[1], check_word(link[2], f"map: the kind of link {link[0]}-{link[1]}")))
        shades_for: dict[int, tuple[str, ...]] = {}
        for n, shades in players_raw.items():
            key = int(n) if isinstance(n, str) and n.isdigit() else n
            if (
                isinstance(key, bool)
                or not isinstance(key, int)
                or not isinstance(shades, list)
                or not all(isinstance(s, str) for s in shades)
            ):
                raise GameDataError(f"map: bad 'players' entry {n!r}")
            shades_for[key] = tuple(check_word(s, f"map: a shade for {key} players") for s in shades)
        return cls(tuple(regions), tuple(links), shades_for)


def _region(number: int, item: Any) -> Region:
    """One region of a map (P3): its id and shade held to :data:`WORD_RE`, its name printable text."""
    if not isinstance(item, Mapping) or not all(isinstance(item.get(k), str) for k in ("id", "name", "shade")):
        raise GameDataError("map: every region needs string 'id', 'name' and 'shade'")
    rid = check_word(item["id"], f"map: region {number}'s id")
    return Region(rid, check_name(item["name"], f"map: region {rid}'s name"),
                  check_word(item["shade"], f"map: region {rid}'s shade"))
