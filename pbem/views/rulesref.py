"""The rules reference shipped with pbem (``pbem/data/rules.md``): look a rule up by its
number (``R3.2``, ``P7``) or by a word, and quote its sentence in a refusal.

The text is pbem's own wording of the project's rules, numbered like them (R1-R8, and
the protocol's P1-P10), so every number a refusal cites leads somewhere.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

from pbem.errors import UnknownError
from pbem.log.notation import LINES

RULES_FILE = Path(__file__).parent.parent / "data" / "rules.md"
_ITEM = re.compile(r"^- ((?:R\d+\.\d+)|(?:P\d+)) (.*)$")
_HEAD = re.compile(r"^## (R\d+|P) (.*)$")


@cache
def rules() -> dict[str, str]:
    """Rule number -> its text (one paragraph), in the reference's order; a section's own
    number (``R3``) maps to its title and introduction."""
    out: dict[str, str] = {}
    current: str | None = None
    begun: set[str] = set()
    for line in RULES_FILE.read_text(encoding="utf-8").splitlines():
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


def sentence(rule: str) -> str | None:
    """The first sentence of ``rule`` (what a refusal quotes), or None if there is none."""
    text = rules().get(rule)
    if text is None:
        return None
    end = re.search(r"(?<=\.)\s", text)
    return text[: end.start()] if end else text


def notation_help() -> list[str]:
    """``pbem rules notation``: how to write a move in plain text, a line per action."""
    width = max(len(form) for form, _what, _rule in LINES)
    out = [
        "Writing a move: one action a line, names in any case, '#' starts a comment.",
        "A move holds the rest of your turn (R7.5); it may stop early only right after a 'look'.",
        "The first two lines come from your template (or from the host's mail you reply to).",
        "",
    ]
    out += [f"  {form:<{width}}  {what}" + (f" ({rule})" if rule else "") for form, what, rule in LINES]
    out += ["", "For example:", "", "  game spring-1347 red", "  after 12 3fa4c1d2e0b9a871", "  take monk",
            "  place gallia 2", "  monk t07 hispania", "  plague italia", "  spread hispania", "  spread gallia"]
    return out


def lookup(query: str | None) -> list[str]:
    """``pbem rules``: everything (``all``: the notation too), one rule (and its sub-rules),
    the notation (``notation``), or the rules naming a word."""
    table = rules()
    if not query or query.strip().lower() == "all":
        rest = ["", *notation_help()] if query else []
        return [f"{k}  {v}" for k, v in table.items()] + rest
    if query.strip().lower() in ("notation", "orders", "syntax"):
        return notation_help()
    key = query.strip().upper()
    if key in table:
        return [f"{k}  {v}" for k, v in table.items() if k == key or k.startswith(key + ".")]
    word = query.strip().lower()
    found = [f"{k}  {v}" for k, v in table.items() if word in v.lower()]
    if not found:
        raise UnknownError(f"no rule is numbered or mentions {query!r}; 'pbem rules' lists them all, "
                           "'pbem rules notation' shows how to write a move", "R7.3")
    return found
