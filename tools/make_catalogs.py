#!/usr/bin/env python3
"""pbem's translation catalogs: extract the messages, merge them into each language's
``.po``, compile each ``.po`` to the ``.mo`` pbem ships, or check that nothing is stale.

    python tools/make_catalogs.py extract   # pbem/i18n/locale/pbem.pot, and new messages into each .po
    python tools/make_catalogs.py compile   # every .po to its .mo (what pbem reads, with gettext)
    python tools/make_catalogs.py check     # exit 1 if the .pot or a .mo is not what the sources give,
                                            # or a translation still needs a native reader
    python tools/make_catalogs.py pending LANG               # the translations that need a reader, and why
    python tools/make_catalogs.py approve LANG --by NAME [--match TEXT]   # record what a reader approved

Standard library only but for PyYAML (pbem's own dependency, for the map's region ids): the
messages are found with :mod:`ast` (no module of pbem is imported), and the ``.mo`` is written
with the few lines of GNU msgfmt's format it needs, in a fixed order, so a fresh compile is
byte-for-byte the shipped file (tests/test_i18n.py checks it).

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
import re
import struct
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

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


# --- the .po format -----------------------------------------------------------------------

def quote(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t")
    return f'"{escaped}"'


def _unquote(text: str) -> str:
    body = text.strip()
    if not (body.startswith('"') and body.endswith('"')):
        raise ValueError(f"not a quoted string: {text!r}")
    return re.sub(r'\\(.)', lambda m: {"n": "\n", "t": "\t"}.get(m.group(1), m.group(1)), body[1:-1])


def read_po(text: str) -> list[Entry]:
    """The entries of a ``.po`` file (the header is the entry with msgid ``""``)."""
    entries: list[Entry] = []
    fields: dict[str, str] = {}
    flags: set[str] = set()
    current = ""

    def close() -> None:
        if "msgid" in fields:
            strings = tuple(fields[k] for k in sorted(fields, key=lambda k: (len(k), k)) if k.startswith("msgstr"))
            entries.append(Entry(fields.get("msgctxt"), fields["msgid"], fields.get("msgid_plural"), strings,
                                 "fuzzy" in flags))
        fields.clear()
        flags.clear()

    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("#,"):
            if "msgid" in fields and any(k.startswith("msgstr") for k in fields):
                close()
            flags.update(flag.strip() for flag in line[2:].split(","))
        elif line.startswith("#") or not line:
            if not line and any(k.startswith("msgstr") for k in fields):
                close()
        elif line.startswith('"'):
            fields[current] += _unquote(line)
        else:
            key, _, value = line.partition(" ")
            if key in ("msgctxt", "msgid") and any(k.startswith("msgstr") for k in fields):
                close()
            current = key
            fields[key] = _unquote(value)
    close()
    return entries


def _po_entry(context: str | None, msgid: str, plural: str | None, strings: tuple[str, ...],
              where: tuple[str, ...] = (), fuzzy: bool = False) -> str:
    lines = [f"#: {w}" for w in where]
    flags = (["fuzzy"] if fuzzy else []) + (["python-brace-format"] if "{" in msgid else [])
    if flags:
        lines.append("#, " + ", ".join(flags))
    if context is not None:
        lines.append(f"msgctxt {quote(context)}")
    lines.append(f"msgid {quote(msgid)}")
    if plural is not None:
        lines.append(f"msgid_plural {quote(plural)}")
        lines += [f"msgstr[{i}] {quote(s)}" for i, s in enumerate(strings)]
    else:
        lines.append(f"msgstr {quote(strings[0] if strings else '')}")
    return "\n".join(lines) + "\n"


def _header(lang: str | None) -> str:
    fields = ["Project-Id-Version: pbem", "MIME-Version: 1.0", "Content-Type: text/plain; charset=UTF-8",
              "Content-Transfer-Encoding: 8bit", "Last-Translator: the pbem project",
              "Language-Team: the pbem project"]
    if lang is not None:
        fields += [f"Language: {lang}", f"Plural-Forms: {PLURAL_FORMS[lang]}"]
    return "".join(f"{f}\\n" for f in fields)


def write_po(messages: list[Message], lang: str | None, old: list[Entry]) -> str:
    """The catalog of ``lang`` (``None``: the template) for ``messages``, keeping ``old``'s
    translations of the messages still there."""
    kept = {(e.context, e.msgid): e for e in old if e.msgid}
    title = "pbem's messages" if lang is None else f"pbem's messages in {LANGUAGE_NAMES[lang]}"
    out = [f"# {title} (tools/make_catalogs.py extract; translations by the project)\n"
           f'msgid ""\nmsgstr "{_header(lang)}"\n']
    forms = 1 if lang is None else int(PLURAL_FORMS[lang].split(";")[0].split("=")[1])
    for m in messages:
        had = kept.get((m.context, m.msgid))
        blank = ("",) * (forms if m.plural is not None else 1)
        strings = had.strings if had is not None and lang is not None else blank
        out.append(_po_entry(m.context, m.msgid, m.plural, strings, m.where, had.fuzzy if had else False))
    return "\n".join(out)


# --- the .mo format (GNU gettext's, as msgfmt writes it, little-endian) ----------------------

def mo_bytes(entries: list[Entry]) -> bytes:
    """The compiled catalog: translated, non-fuzzy entries (and the header), keys sorted."""
    table: dict[bytes, bytes] = {}
    for e in entries:
        if e.fuzzy and e.msgid or not any(e.strings):
            continue
        key = e.msgid if e.plural is None else f"{e.msgid}\0{e.plural}"
        if e.context is not None:
            key = f"{e.context}\x04{key}"
        table[key.encode("utf-8")] = "\0".join(e.strings).encode("utf-8")
    keys = sorted(table)
    start = 7 * 4
    ids_at, strs_at = start, start + len(keys) * 8
    data_at = strs_at + len(keys) * 8
    ids, strs, blob = [], [], b""
    for k in keys:
        ids.append((len(k), data_at + len(blob)))
        blob += k + b"\0"
    for k in keys:
        strs.append((len(table[k]), data_at + len(blob)))
        blob += table[k] + b"\0"
    head = struct.pack("<7I", 0x950412DE, 0, len(keys), ids_at, strs_at, 0, data_at)
    pairs = b"".join(struct.pack("<2I", *p) for p in ids + strs)
    return head + pairs + blob


def po_path(lang: str) -> Path:
    return LOCALE / lang / "LC_MESSAGES" / "pbem.po"


def compiled(lang: str) -> bytes:
    return mo_bytes(read_po(po_path(lang).read_text(encoding="utf-8")))


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
