"""The rules reference shipped with pbem (``pbem/data/rules.md``): look a rule up by its
number (``R3.2``, ``P7``) or by a word, and quote its sentence in a refusal.

The text is pbem's own wording of the project's rules, numbered like them (R1-R8, and
the protocol's P1-P10), so every number a refusal cites leads somewhere.  It is written
in each language pbem speaks (``rules.hu.md``, ``rules.el.md``, ``rules.uk.md`` beside
it: the project's own text, with the same numbers), and so is the notation's help.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

from pbem.errors import UnknownError
from pbem.i18n import LANGS, N_, Msg, translator
from pbem.i18n.names import is_game_name, stem_match
from pbem.log.notation import LINES
from pbem.rules.data import CLASSES

RULES_FILE = Path(__file__).parent.parent / "data" / "rules.md"
RULES_FILES = {lang: RULES_FILE if lang == "en" else RULES_FILE.with_name(f"rules.{lang}.md") for lang in LANGS}
"""The reference in each language: the same rules, numbered alike."""
_ITEM = re.compile(r"^- ((?:R\d+\.\d+)|(?:P\d+)) (.*)$")
_HEAD = re.compile(r"^## (R\d+|P) (.*)$")


@cache
def rules(lang: str = "en") -> dict[str, str]:
    """Rule number -> its text (one paragraph) in ``lang``, in the reference's order; a
    section's own number (``R3``) maps to its title and introduction."""
    out: dict[str, str] = {}
    current: str | None = None
    begun: set[str] = set()
    for line in RULES_FILES[lang].read_text(encoding="utf-8").splitlines():
        head, item = _HEAD.match(line), _ITEM.match(line)
        if head:
            current = head.group(1)
            out[current] = head.group(2)
        elif item:
            current = item.group(1)
            out[current] = item.group(2)
        elif line.startswith("  ") and current is not None:
            out[current] += " " + line.strip()
        elif line.strip() and current is not None and not line.startswith("#"):  # a section's introduction
            out[current] += (" " if current in begun else ": ") + line.strip()
            begun.add(current)
    return out


def sentence(rule: str, lang: str = "en") -> str | None:
    """The first sentence of ``rule`` (what a refusal quotes) in ``lang``, or None if there is none."""
    text = rules(lang).get(rule)
    if text is None:
        return None
    end = re.search(r"(?<=\.)\s", text)
    return text[: end.start()] if end else text


_HELP = (
    N_("Writing a move: one action a line, names in any case, '#' starts a comment."),
    N_("A move holds the rest of your turn (R7.5); it may stop early only right after a 'look'."),
    N_("The first two lines come from your template (or from the host's mail you reply to)."),
)


def notation_help(lang: str = "en") -> list[str]:
    """``pbem rules notation``: how to write a move in plain text, a line per action (in
    ``lang``: the forms and keywords stay as they are, the explanations are translated)."""
    said = translator(lang)
    width = max(len(form) for form, _what, _rule in LINES)
    out = [*(said.gettext(line) for line in _HELP), ""]
    cards = " ".join(CLASSES)  # R1.5, named where a line says {cards} ('take CARD')
    out += [f"  {form:<{width}}  {said.say(Msg(what, cards=cards))}" + (f" ({rule})" if rule else "")
            for form, what, rule in LINES]
    out += ["", said.gettext("For example:"), "", "  game spring-1347 red", "  after 12 3fa4c1d2e0b9a871",
            "  take monk", "  place gallia 2", "  monk t07 hispania", "  plague italia", "  spread hispania",
            "  spread gallia"]
    return out


def lookup(query: str | None, lang: str = "en") -> list[str]:
    """``pbem rules``: everything (``all``: the notation too), one rule (and its sub-rules),
    the notation (``notation``), or the rules naming a word, in ``lang``: a word as the
    text has it, or by its stem, without accents, as typed (``palota``, ``μαγισσα``:
    :func:`pbem.i18n.names.stem_match`); the game's name gives every rule."""
    table = rules(lang)
    if not query or query.strip().lower() == "all":
        rest = ["", *notation_help(lang)] if query else []
        return [f"{k}  {v}" for k, v in table.items()] + rest
    if query.strip().lower() in ("notation", "orders", "syntax"):
        return notation_help(lang)
    key = query.strip().upper()
    if key in table:
        return [f"{k}  {v}" for k, v in table.items() if k == key or k.startswith(key + ".")]
    if is_game_name(query.strip()):  # the game itself (Rattus, the Ukrainian rulebook's Епідемія): every rule
        return [f"{k}  {v}" for k, v in table.items()]
    word = query.strip().lower()
    found = [f"{k}  {v}" for k, v in table.items() if word in v.lower() or stem_match(query, v)]
    if not found:
        raise UnknownError(Msg("no rule is numbered or mentions {query}; 'pbem rules' lists them all, "
                               "'pbem rules notation' shows how to write a move", query=repr(query)), "R7.3")
    return found
