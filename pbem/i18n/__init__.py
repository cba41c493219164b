"""Players in their own language: English, Hungarian, Greek and Ukrainian.

A sentence a player reads is written once, in English, with named placeholders, as a
:class:`Msg`: a ``str`` holding the English text (so every English output stays what
it was) that also remembers its message id and its values, so that
:meth:`Translator.say` can write it again in another language, translating the whole
sentence first and filling the placeholders after (never a sentence assembled from
translated pieces).  A value that is itself a :class:`Msg` (a refusal inside "action 3
(place): ...") or a :class:`Name` (a region, a card) is said in the language too.

The translations are GNU gettext catalogs, ``locale/LANG/LC_MESSAGES/pbem.po``, compiled
to the ``.mo`` beside them by ``tools/make_catalogs.py`` and read with the standard
library's :mod:`gettext`.  A catalog is read the first time a sentence is said in its
language, never on import: English reads none (``pbem apply``'s start-up speed).

May import: the standard library only (the bottom layer).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pbem.errors import PbemError

LANGS: tuple[str, ...] = ("en", "hu", "el", "uk")
"""The languages a seat may read: English (the default), Hungarian, Greek, Ukrainian."""

LANG_NAMES: Mapping[str, str] = {"en": "English", "hu": "magyar", "el": "ελληνικά", "uk": "українська"}
"""Each language by its own name (what a player sees in a list of them)."""

DOMAIN = "pbem"
LOCALE_DIR = Path(__file__).parent / "locale"
KINDS = ("region", "card")
"""The kinds of :class:`Name` a move names (each the ``msgctxt`` of its names in the catalogs)."""

CARDS: tuple[str, ...] = ("peasant", "merchant", "monk", "knight", "witch", "king")
"""The six class cards' ids (R1.5), in the rulebook's order: the names a move writes and the
catalogs translate (context ``card``), declared here, below the rules, so that the catalogs and
the names a move reads have them without the rules; :data:`pbem.rules.data.CLASSES` is this tuple,
the deck of :mod:`pbem.rules.cards` holds each card's rule."""

SHIPPED: dict[str, frozenset[str]] = {
    "region": frozenset({"anglia", "scandia", "russia", "gallia", "germania", "polonia", "tartaria", "hispania",
                         "italia", "hungaria", "bulgaria", "turcia"}),  # pbem/data/map.yaml (tests/test_i18n.py)
    "card": frozenset(CARDS),  # R1.5
}
"""The ids the catalogs name: the shipped map's regions and the six class cards (here, not in
:mod:`pbem.i18n.names` with the words that name them: a text that names a region need not load those)."""

ACTION_WORDS: Mapping[str, str] = {
    "take_card": "take", "place": "place", "king": "king", "merchant": "merchant", "monk": "monk",
    "witch_look": "look", "witch_swap": "swap", "move_plague": "plague", "spread": "spread",
    "knight_cubes": "knight cubes", "knight_move": "knight", "flip": "flip", "end": "end",
}
"""Each kind of action by the notation's keyword a player writes for it (``pbem rules
notation``): what a refusal calls the action (``action 2 (take)``), never the log's id
(``take_card``); in another language the catalogs' context ``action`` says it."""


def N_(msgid: str) -> str:
    """Mark ``msgid`` for the catalogs (``tools/make_catalogs.py`` extracts it); returns it as is."""
    return msgid


class Name(str):
    """A region or a card in a sentence: the English text it shows, its kind and its id.

    ``Name.region("gallia")`` reads ``gallia`` (the notation's word, as English
    sentences have always shown it), ``Name.card("monk")`` reads ``Monk``; in another
    language each is the name its players know (``Γαλλία``, ``Szerzetes``)."""

    kind: str
    id: str

    def __new__(cls, text: str, kind: str, ident: str) -> Name:
        made = super().__new__(cls, text)
        made.kind, made.id = kind, ident
        return made

    def __reduce__(self) -> tuple[Any, ...]:
        return (Name, (str(self), self.kind, self.id))

    @classmethod
    def region(cls, region: str) -> Name:
        return cls(region, "region", region)

    @classmethod
    def card(cls, card: str) -> Name:
        return cls(card.capitalize(), "card", card)

    @classmethod
    def action(cls, kind: str) -> Name:
        """A kind of action as a refusal names it: the notation's keyword (``take``)."""
        return cls(ACTION_WORDS.get(kind, kind), "action", kind)


class Names(str):
    """Several names in a sentence, comma-separated (``gallia, italia``), each said in the language."""

    names: tuple[Name, ...]

    def __new__(cls, names: Iterable[Name]) -> Names:
        items = tuple(names)
        made = super().__new__(cls, ", ".join(items))
        made.names = items
        return made

    def __reduce__(self) -> tuple[Any, ...]:
        return (Names, (self.names,))

    @classmethod
    def regions(cls, regions: Iterable[str]) -> Names:
        return cls(Name.region(r) for r in regions)


class Msg(str):
    """A sentence: its English text, with the message id and the named values it was made from.

    ``Msg("{region} has no rats", region=Name.region("gallia"))`` is the ``str``
    ``"gallia has no rats"``; :meth:`plural` picks the English form by ``n`` and lets each
    language pick its own (``ngettext``)."""

    msgid: str
    plural_id: str | None
    n: int
    params: dict[str, Any]

    def __new__(cls, msgid: str, /, **params: Any) -> Msg:
        return cls._make(msgid, None, 0, params)

    @classmethod
    def plural(cls, singular: str, plural: str, n: int, /, **params: Any) -> Msg:
        """The sentence in the form ``n`` asks for (``n`` is also the placeholder ``{n}``)."""
        return cls._make(singular, plural, n, params)

    @classmethod
    def _make(cls, msgid: str, plural_id: str | None, n: int, params: dict[str, Any]) -> Msg:
        english = msgid if plural_id is None or n == 1 else plural_id
        made = super().__new__(cls, english.format(n=n, **params))
        made.msgid, made.plural_id, made.n, made.params = msgid, plural_id, n, params
        return made

    def __reduce__(self) -> tuple[Any, ...]:
        return (Msg._make, (self.msgid, self.plural_id, self.n, self.params))


def fold(word: str) -> str:
    """A name as the notation compares it: case folded, without accents or diacritics
    (``Γαλλία`` -> ``γαλλια``, ``Itália`` -> ``italia``, ``Відьма`` -> ``відьма``)."""
    import unicodedata  # lazily: only a name read from a text move is folded (pbem apply's start-up)

    decomposed = unicodedata.normalize("NFD", word.casefold())
    kept = "".join(c for c in decomposed if not unicodedata.combining(c))
    return unicodedata.normalize("NFC", kept)


class Translator:
    """gettext, ngettext and pgettext for one language, and :meth:`say` for a :class:`Msg`.

    The catalog is read on first use; English is the identity and reads nothing."""

    def __init__(self, lang: str) -> None:
        if lang not in LANGS:
            raise ValueError(f"no such language {lang!r}: pbem speaks {', '.join(LANGS)}")
        self.lang = lang
        self._catalog: Any = None

    def _tables(self) -> Any:
        if self._catalog is None:
            import gettext  # lazily: a catalog is read only when a sentence is said in it (start-up)

            if self.lang == "en":
                self._catalog = gettext.NullTranslations()
            else:
                with mo_path(self.lang).open("rb") as source:
                    self._catalog = gettext.GNUTranslations(source)
        return self._catalog

    def gettext(self, msgid: str) -> str:
        return msgid if self.lang == "en" else str(self._tables().gettext(msgid))

    def ngettext(self, singular: str, plural: str, n: int) -> str:
        if self.lang == "en":
            return singular if n == 1 else plural
        return str(self._tables().ngettext(singular, plural, n))

    def pgettext(self, context: str, msgid: str) -> str:
        return msgid if self.lang == "en" else str(self._tables().pgettext(context, msgid))

    def name(self, name: Name) -> str:
        """A region's or card's name in this language (its English text if the catalog has none)."""
        if self.lang == "en":
            return str(name)
        said = self.pgettext(name.kind, name.id)
        return str(name) if said == name.id else said

    def say(self, text: str) -> str:
        """``text`` in this language: a :class:`Msg` translated whole, then filled; a
        :class:`Name` named; any other text as it is."""
        if self.lang == "en" or not isinstance(text, Msg | Name | Names):
            return str(text)
        if isinstance(text, Name):
            return self.name(text)
        if isinstance(text, Names):
            return ", ".join(self.name(n) for n in text.names)
        pattern = (self.gettext(text.msgid) if text.plural_id is None
                   else self.ngettext(text.msgid, text.plural_id, text.n))
        values = {k: self.say(v) if isinstance(v, str) else v for k, v in text.params.items()}
        return pattern.format(n=text.n, **values)


def mo_path(lang: str) -> Path:
    """The compiled catalog of ``lang`` shipped with pbem."""
    return LOCALE_DIR / lang / "LC_MESSAGES" / f"{DOMAIN}.mo"


@cache
def translator(lang: str) -> Translator:
    """The :class:`Translator` of ``lang`` (one of :data:`LANGS`; ``ValueError`` otherwise)."""
    return Translator(lang)


def say(text: str, lang: str) -> str:
    """``text`` (a :class:`Msg`, a :class:`Name` or plain text) in ``lang``."""
    return translator(lang).say(text)


def error_text(err: PbemError, lang: str) -> str:
    """A refusal's paragraph in ``lang``, as ``str(err)`` writes it in English: its kind,
    its rule's number (kept as it is: ``R4.2``) and its sentence."""
    said = translator(lang)
    where = f" ({err.rule})" if err.rule else ""
    return f"{said.gettext(err.label)}{where}: {said.say(err.words)}"
