#!/usr/bin/env python3
"""pbem's translation catalogs: extract the messages, merge them into each language's
``.po``, compile each ``.po`` to the ``.mo`` pbem ships, or check that nothing is stale.

    python tools/make_catalogs.py extract   # pbem/i18n/locale/pbem.pot, and new messages into each .po
    python tools/make_catalogs.py compile   # every .po to its .mo (what pbem reads, with gettext)
    python tools/make_catalogs.py check     # exit 1 if the .pot or a .mo is not what the sources give,
                                            # or a translation still needs a native reader
    python tools/make_catalogs.py pending LANG               # the translations that need a reader, and why
    python tools/make_catalogs.py approve LANG --by NAME [--match TEXT]   # record what a reader approved

The messages are found with :mod:`ast` (no module of pbem is imported); the catalogs are read
and written, and compiled to GNU gettext's ``.mo``, by polib (a test extra: the gettext formats'
escapes, plural forms and header are its job, not this file's), in a fixed order, so a fresh
compile is byte-for-byte the shipped file (tests/test_i18n.py checks it).  PyYAML, pbem's own
dependency, reads the map's region ids.

Each language keeps a ledger of what a native reader approved (``docs/reviews/LANG.tsv``): for
each message, the hash of the English text and of the translation the reader read. A message
needs a reader while its translation is fuzzy or empty, while its English has no approval (a
new or changed English text), or when its translation changed after the approval (a hand or a
machine replaced it): ``check`` lists them and fails, and so does tests/test_i18n.py.

What is a message: the first string of a call to ``Msg`` or ``N_`` (``pbem.i18n``), the two of
``Msg.plural``, the strings given to a translator's ``gettext``/``ngettext``/``pgettext``, the
``label`` of each kind of refusal (``pbem/errors.py``), and the names players read: every
region of the shipped map (context ``region``) and every class card (context ``card``), by id.
"""

from __future__ import annotations

import ast
import hashlib
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

import polib

ROOT = Path(__file__).resolve().parent.parent
PBEM = ROOT / "pbem"
LOCALE = PBEM / "i18n" / "locale"
POT = LOCALE / "pbem.pot"
LEDGERS = ROOT / "docs" / "reviews"  # LANG.tsv: what a native reader approved (not shipped)
LANGS = ("hu", "el", "uk")  # English is the messages themselves
PLURAL_FORMS = {
    "hu": "nplurals=2; plural=(n != 1);",
    "el": "nplurals=2; plural=(n != 1);",
    "uk": "nplurals=3; plural=(n%10==1 && n%100!=11 ? 0 : n%10>=2 && n%10<=4 && (n%100<10 || n%100>=20) ? 1 : 2);",
}
LANGUAGE_NAMES = {"hu": "Hungarian", "el": "Greek", "uk": "Ukrainian"}


def _declared(path: Path, name: str) -> tuple[str, ...]:
    """A tuple of strings (or a mapping's keys) assigned once at the top of ``path`` (read, not imported: this
    checkout's pbem, whatever pbem is installed)."""
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if (isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.target.id == name
                and node.value is not None):
            return tuple(ast.literal_eval(node.value))
    raise LookupError(f"{name} is not declared in {path}")


CARDS = _declared(PBEM / "i18n" / "__init__.py", "CARDS")  # R1.5: the class cards, declared once
ACTIONS = _declared(PBEM / "i18n" / "__init__.py", "ACTION_WORDS")  # the actions' words, declared once


class Message(NamedTuple):
    context: str | None
    msgid: str
    plural: str | None
    where: tuple[str, ...]  # file:line of each use


class Entry(NamedTuple):
    context: str | None
    msgid: str
    plural: str | None
    strings: tuple[str, ...]  # msgstr, or msgstr[0..n-1]
    fuzzy: bool


# --- extracting ---------------------------------------------------------------------------

def _text(node: ast.expr) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _found_in(path: Path) -> Iterator[tuple[str | None, str, str | None, int]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and path.name == "errors.py":
            for item in node.body:
                if (isinstance(item, ast.Assign) and len(item.targets) == 1 and isinstance(item.targets[0], ast.Name)
                        and item.targets[0].id == "label" and _text(item.value) is not None):
                    yield None, str(_text(item.value)), None, item.lineno
        if not isinstance(node, ast.Call) or not node.args:
            continue
        func, args = node.func, [_text(a) for a in node.args]
        name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
        if name in ("Msg", "N_", "gettext") and args[0] is not None:
            yield None, args[0], None, node.lineno
        elif name in ("plural", "ngettext") and len(args) >= 2 and args[0] is not None and args[1] is not None:
            if name == "ngettext" or (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)
                                      and func.value.id == "Msg"):
                yield None, args[0], args[1], node.lineno
        elif name == "pgettext" and len(args) >= 2 and args[0] is not None and args[1] is not None:
            yield args[0], args[1], None, node.lineno


def _region_ids() -> list[str]:
    import yaml  # pbem's own dependency: the shipped map's region ids

    data = yaml.safe_load((PBEM / "data" / "map.yaml").read_text(encoding="utf-8"))
    return [str(region["id"]) for region in data["regions"]]


def extract() -> list[Message]:
    """Every message of pbem, in the order of the sources (file by file), each once."""
    found: dict[tuple[str | None, str], Message] = {}

    def add(context: str | None, msgid: str, plural: str | None, where: str) -> None:
        key = (context, msgid)
        old = found.get(key)
        if old is not None and where in old.where:
            return
        found[key] = Message(context, msgid, plural, (*old.where, where) if old else (where,))

    for path in sorted(PBEM.rglob("*.py")):
        for context, msgid, plural, _line in sorted(_found_in(path), key=lambda found: found[3]):
            add(context, msgid, plural, f"{path.relative_to(ROOT)}")  # the file, not the line: an
            # edit that moves a message down a file must not make the catalogs stale
    for region in _region_ids():
        add("region", region, None, "pbem/data/map.yaml")
    for card in CARDS:
        add("card", card, None, "pbem/i18n/__init__.py")
    for kind in ACTIONS:
        add("action", kind, None, "pbem/i18n/__init__.py")
    return list(found.values())


# --- the .po and .mo formats (polib: GNU gettext's formats, read and written) --------------

def read_po(text: str) -> list[Entry]:
    """The messages of a ``.po`` catalog's text (its header aside)."""
    out = []
    for e in polib.pofile(text):
        strings = (tuple(e.msgstr_plural[i] for i in sorted(e.msgstr_plural)) if e.msgid_plural
                   else (e.msgstr,))
        out.append(Entry(e.msgctxt, e.msgid, e.msgid_plural or None, strings, e.fuzzy))
    return out


def _metadata(lang: str | None) -> dict[str, str]:
    fields = {"Project-Id-Version": "pbem", "MIME-Version": "1.0", "Content-Type": "text/plain; charset=UTF-8",
              "Content-Transfer-Encoding": "8bit", "Last-Translator": "the pbem project",
              "Language-Team": "the pbem project"}
    if lang is not None:
        fields |= {"Language": lang, "Plural-Forms": PLURAL_FORMS[lang]}
    return fields


def write_po(messages: list[Message], lang: str | None, old: list[Entry]) -> str:
    """The catalog of ``lang`` (``None``: the template) for ``messages``, keeping ``old``'s
    translations of the messages still there.  No line is wrapped (wrapwidth 0): a message is
    one line in the catalog, however long, so that a diff shows the message that changed."""
    kept = {(e.context, e.msgid): e for e in old if e.msgid}
    title = "pbem's messages" if lang is None else f"pbem's messages in {LANGUAGE_NAMES[lang]}"
    po = polib.POFile(wrapwidth=0)
    po.header = f"{title} (tools/make_catalogs.py extract; translations by the project)"
    po.metadata = _metadata(lang)
    forms = 1 if lang is None else int(PLURAL_FORMS[lang].split(";")[0].split("=")[1])
    for m in messages:
        had = kept.get((m.context, m.msgid))
        blank = ("",) * (forms if m.plural is not None else 1)
        strings = had.strings if had is not None and lang is not None else blank
        flags = (["fuzzy"] if had is not None and had.fuzzy else []) + (["python-brace-format"] if "{" in m.msgid
                                                                          else [])
        entry = polib.POEntry(msgctxt=m.context, msgid=m.msgid, occurrences=[(w, "") for w in m.where], flags=flags)
        if m.plural is not None:
            entry.msgid_plural = m.plural
            entry.msgstr_plural = dict(enumerate(strings))
        else:
            entry.msgstr = strings[0] if strings else ""
        po.append(entry)
    return str(po)


def po_path(lang: str) -> Path:
    return LOCALE / lang / "LC_MESSAGES" / "pbem.po"


def compiled(lang: str) -> bytes:
    """The ``.mo`` pbem reads for ``lang``: its translated, non-fuzzy messages and the header, as
    GNU msgfmt writes it (polib), the same bytes for the same catalog."""
    return bytes(polib.pofile(po_path(lang).read_text(encoding="utf-8")).to_binary())


# --- the reviewed ledger: what a native reader approved -------------------------------------

def ledger_path(lang: str) -> Path:
    return LEDGERS / f"{lang}.tsv"


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def english_hash(entry: Entry) -> str:
    """The English a reader approved a translation for: context, message and plural."""
    return _digest(f"{entry.context or ''}\x04{entry.msgid}\x00{entry.plural or ''}")


def translation_hash(entry: Entry) -> str:
    return _digest("\x00".join(entry.strings))


def read_ledger(lang: str) -> dict[str, tuple[str, str]]:
    """English hash -> (translation hash, reviewer) of every approval in ``lang``'s ledger."""
    path = ledger_path(lang)
    approved: dict[str, tuple[str, str]] = {}
    for line in path.read_text(encoding="utf-8").splitlines() if path.exists() else []:
        if line and not line.startswith("#"):
            english, translation, reviewer = line.split("\t")[:3]
            approved[english] = (translation, reviewer)
    return approved


def _excerpt(entry: Entry) -> str:
    text = (f"[{entry.context}] " if entry.context else "") + entry.msgid
    text = " ".join(text.split())
    return text if len(text) <= 70 else text[:69] + "…"


def pending(lang: str) -> list[tuple[Entry, str]]:
    """Each message of ``lang``'s catalog that needs a native reader, with the reason."""
    approved = read_ledger(lang)
    out = []
    for e in read_po(po_path(lang).read_text(encoding="utf-8")):
        if not e.msgid:
            continue
        had = approved.get(english_hash(e))
        if e.fuzzy:
            out.append((e, "fuzzy"))
        elif not e.strings or not all(e.strings):
            out.append((e, "not translated"))
        elif had is None:
            out.append((e, "English new or changed since a reader approved a translation"))
        elif had[0] != translation_hash(e):
            out.append((e, f"translation changed after {had[1]} approved it"))
    return out


def approve(lang: str, reviewer: str, match: str | None) -> int:
    """Record ``reviewer``'s approval of every pending translation (containing ``match`` in its
    English, if given) that is translated and not fuzzy; the ledger keeps only messages still in
    the catalog, in the catalog's order. The number approved."""
    approved = read_ledger(lang)
    count = 0
    for e, reason in pending(lang):
        if reason not in ("fuzzy", "not translated") and (match is None or match in e.msgid):
            approved[english_hash(e)] = (translation_hash(e), reviewer)
            count += 1
    lines = ["# what a native reader approved: English hash, translation hash, reader, the English"
             " (tools/make_catalogs.py approve)"]
    for e in read_po(po_path(lang).read_text(encoding="utf-8")):
        had = approved.get(english_hash(e)) if e.msgid else None
        if had is not None:
            lines.append("\t".join((english_hash(e), *had, _excerpt(e))))
    ledger_path(lang).parent.mkdir(parents=True, exist_ok=True)
    ledger_path(lang).write_text("\n".join(lines) + "\n", encoding="utf-8")
    return count


def _review(argv: list[str]) -> int | None:
    """``pending LANG`` and ``approve LANG --by NAME [--match TEXT]``; None for other commands."""
    if len(argv) < 2 or argv[1] not in ("pending", "approve"):
        return None
    if len(argv) < 3 or argv[2] not in LANGS:
        print(f"{argv[1]} LANG: LANG is one of {', '.join(LANGS)} (English is the messages themselves)",
              file=sys.stderr)
        return 2
    lang, options = argv[2], dict(zip(argv[3::2], argv[4::2], strict=False))
    if argv[1] == "pending":
        for e, reason in pending(lang):
            print(f"{lang}: {_excerpt(e)!r}: {reason}")
        return 1 if pending(lang) else 0
    if "--by" not in options or set(options) - {"--by", "--match"} or len(argv) % 2 == 0:
        print("approve LANG --by NAME [--match TEXT]: NAME is the native reader who read them", file=sys.stderr)
        return 2
    print(f"{lang}: {approve(lang, options['--by'], options.get('--match'))} approved by {options['--by']}")
    return 0


def main(argv: list[str]) -> int:
    review = _review(argv)
    if review is not None:
        return review
    command = argv[1] if len(argv) == 2 else ""
    if command == "extract":
        messages = extract()
        POT.parent.mkdir(parents=True, exist_ok=True)
        POT.write_text(write_po(messages, None, []), encoding="utf-8")
        for lang in LANGS:
            path = po_path(lang)
            old = read_po(path.read_text(encoding="utf-8")) if path.exists() else []
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(write_po(messages, lang, old), encoding="utf-8")
        print(f"{len(messages)} messages: {POT.relative_to(ROOT)} and {len(LANGS)} catalogs")
        return 0
    if command == "compile":
        for lang in LANGS:
            po_path(lang).with_suffix(".mo").write_bytes(compiled(lang))
        print(f"compiled {', '.join(LANGS)}")
        return 0
    if command == "check":
        stale = [str(POT)] if POT.read_text(encoding="utf-8") != write_po(extract(), None, []) else []
        stale += [str(po_path(lang).with_suffix(".mo")) for lang in LANGS
                  if po_path(lang).with_suffix(".mo").read_bytes() != compiled(lang)]
        for name in stale:
            print(f"stale: {name} (run tools/make_catalogs.py extract, then compile)")
        unread = [(lang, e, reason) for lang in LANGS for e, reason in pending(lang)]
        for lang, e, reason in unread:
            print(f"needs a reader: {lang}: {_excerpt(e)!r}: {reason}")
        if unread:
            print(f"{len(unread)} translations need a native reader (docs/translating.md; then"
                  " tools/make_catalogs.py approve LANG --by NAME)")
        return 1 if stale or unread else 0
    print(__doc__.split("\n\n")[1], file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
