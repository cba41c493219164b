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


def lookup(query: str | None) -> list[str]:
    """``pbem rules``: everything, one rule (and its sub-rules), or the rules naming a word."""
    table = rules()
    if not query:
        return [f"{k}  {v}" for k, v in table.items()]
    key = query.strip().upper()
    if key in table:
        return [f"{k}  {v}" for k, v in table.items() if k == key or k.startswith(key + ".")]
    word = query.strip().lower()
    found = [f"{k}  {v}" for k, v in table.items() if word in v.lower()]
    if not found:
        raise UnknownError(f"no rule is numbered or mentions {query!r}; 'pbem rules' lists them all", "R7.3")
    return found
