#!/usr/bin/env python3
"""The JSON schemas' card, action and event parts, written from the rules' one declaration.

    python tools/make_schemas.py write   # pbem/schemas/ (schemas/ links to it): move.json and entry.json
    python tools/make_schemas.py check   # exit 1, naming each file, if one is not what it would write

``move.json``'s ``$defs/card`` and ``$defs/action`` and ``entry.json``'s ``$defs/event`` are
made from :data:`pbem.rules.cards.DECK` by :mod:`pbem.log.schemaparts`, each spliced into the
hand-written rest of the file in place of the old part; every other line stays as it is.
The package's copy is what pbem validates with; ``schemas/``, the one a reader of the
repository finds, is a link to it (were it a folder of its own, it would be written alike).
``tests/test_declared_once.py`` runs the check.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # this checkout's pbem, whatever pbem is installed

from pbem.log.moves import SCHEMA_NAMES  # noqa: E402 - after the path above
from pbem.log.schemaparts import generated  # noqa: E402
from pbem.rules.cards import DECK  # noqa: E402

FOLDERS = (ROOT / "schemas", ROOT / "pbem" / "schemas")


def made() -> dict[Path, str]:
    """Each schema file's text as the declaration gives it (from the package's copy)."""
    texts = generated(((n, (FOLDERS[1] / n).read_text(encoding="utf-8")) for n in SCHEMA_NAMES), DECK)
    return {(folder / name).resolve(): text for folder in FOLDERS for name, text in texts.items()}


def stale() -> list[Path]:
    return [path for path, text in made().items() if path.read_text(encoding="utf-8") != text]


def main(argv: list[str]) -> int:
    if argv == ["write"]:
        for path, text in made().items():
            if path.read_text(encoding="utf-8") != text:
                path.write_text(text, encoding="utf-8")
                print(f"wrote {path.relative_to(ROOT)}")
        return 0
    if argv == ["check"]:
        old = stale()
        for path in old:
            print(f"{path.relative_to(ROOT)} is not what the declaration gives: run "
                  "'python tools/make_schemas.py write'", file=sys.stderr)
        return 1 if old else 0
    print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
