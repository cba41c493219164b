"""Reading untrusted YAML safely, and writing pbem's own YAML.

Input is capped in size before it is parsed, must be UTF-8, may not use
anchors, aliases, merge keys or tags, and may hold only what JSON holds
(PROTOCOL.md P2): strings, whole numbers within +-2^53, booleans, null, lists
and mappings with string keys.  Plain (unquoted) scalars are read with the YAML
1.2 core schema: ``true``/``false``, ``null``/``~``/empty and decimal integers;
everything else plain is a string (``no``, ``010``, ``1:00``, ``1e3``).  Text
admits printable Unicode only (:mod:`pbem.log.characters`).  Anything else is a
:class:`FormatError` naming where it is.

Log entries are written as JSON documents in a YAML stream: still YAML (each
``---`` document is a JSON object, which YAML reads as a flow mapping), but
readable back with :func:`json.loads`, which keeps replaying a long log fast.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import yaml

from pbem.errors import FormatError
from pbem.i18n import N_, Msg
from pbem.log.characters import BAD_RAW_IN_JSON, char_name, check_source

MOVE_LIMIT = 256 * 1024  # a move file or mail body
LOG_LIMIT = 64 * 1024 * 1024  # a public log
MAX_DEPTH = 32
MAX_INT = 2**53


class _StrictLoader(yaml.SafeLoader):
    """SafeLoader that refuses anchors, aliases and explicit tags."""

    def compose_node(self, parent: Any, index: Any) -> Any:
        event = self.peek_event()  # type: ignore[no-untyped-call]
        if isinstance(event, yaml.AliasEvent):
            raise FormatError(_said(event, N_("line {line}: YAML aliases (*name) are not allowed"),
                                    N_("YAML aliases (*name) are not allowed")), "P2")
        anchor = getattr(event, "anchor", None)
        if anchor is not None:
            raise FormatError(_said(event, N_("line {line}: YAML anchors (&name) are not allowed"),
                                    N_("YAML anchors (&name) are not allowed")), "P2")
        tag = getattr(event, "tag", None)
        if tag is not None:  # any explicit tag, "!" included (P2), on a scalar or on a collection
            raise FormatError(_said(event, N_("line {line}: YAML tags ({tag}) are not allowed"),
                                    N_("YAML tags ({tag}) are not allowed"), tag=tag), "P2")
        return super().compose_node(parent, index)

    def construct_mapping(self, node: Any, deep: bool = False) -> Any:
        """Refuse a key given twice: PyYAML would keep the last, other readers the first."""
        seen: set[tuple[str, str]] = set()
        for key_node, _value in node.value:
            if isinstance(key_node, yaml.ScalarNode):
                key = (key_node.tag, key_node.value)
                if key in seen:
                    raise FormatError(Msg("line {line}: the key {key} appears twice",
                                          line=key_node.start_mark.line + 1, key=repr(key_node.value)), "P2")
                seen.add(key)
        return super().construct_mapping(node, deep)


class _CoreLoader(_StrictLoader):
    """The strict loader with the YAML 1.2 core schema for plain scalars (P2).

    PyYAML's SafeLoader follows YAML 1.1, where ``no`` is false, ``010`` is 8 and
    ``1:00`` is 60; here only ``true``/``false`` (three spellings each), ``null``,
    ``~`` and the empty scalar, and decimal integers are not strings."""

    # PyYAML keeps resolvers in a class-level dict; a fresh one, so SafeLoader's is untouched.
    yaml_implicit_resolvers: dict[Any, list[tuple[str, re.Pattern[str]]]] = {}  # noqa: RUF012

    def construct_mapping(self, node: Any, deep: bool = False) -> Any:
        for key_node, _value in node.value:
            if isinstance(key_node, yaml.ScalarNode) and key_node.value == "<<" and key_node.style is None:
                raise FormatError(Msg("line {line}: YAML merge keys (<<) are not allowed",
                                      line=key_node.start_mark.line + 1), "P2")
        return super().construct_mapping(node, deep)


_CORE_SCALARS: tuple[tuple[str, str, str], ...] = (
    ("tag:yaml.org,2002:bool", r"(?:true|True|TRUE|false|False|FALSE)\Z", "tTfF"),
    ("tag:yaml.org,2002:null", r"(?:null|Null|NULL|~|)\Z", "nN~"),
    ("tag:yaml.org,2002:int", r"-?(?:0|[1-9][0-9]*)\Z", "-0123456789"),
)
for _tag, _pattern, _first in _CORE_SCALARS:
    _CoreLoader.add_implicit_resolver(_tag, re.compile(_pattern), list(_first))
_CoreLoader.add_implicit_resolver("tag:yaml.org,2002:null", re.compile(r"\Z"), [""])  # the empty scalar


def _said(event: Any, with_line: str, without: str, **params: Any) -> Msg:  # the line named if the event knows it
    mark = getattr(event, "start_mark", None)
    return Msg(with_line, line=mark.line + 1, **params) if mark is not None else Msg(without, **params)


def decode(data: bytes, what: str) -> str:
    head = data[:64]
    if head[:2] in (b"\xff\xfe", b"\xfe\xff") or (len(head) >= 8 and head.count(0) * 3 >= len(head)):
        raise FormatError(Msg("{what} is UTF-16 text, not UTF-8: save it again as UTF-8 (in most editors: "
                              "Save As, Encoding: UTF-8)", what=what), "P2")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise FormatError(Msg("{what} is not UTF-8 text (bad byte at offset {offset})", what=what,
                                  offset=err.start), "P2") from None


def _plain(value: Any, depth: int) -> bool:
    kind = type(value)
    if kind is str or kind is bool or value is None:
        return True
    if kind is int:
        return bool(-MAX_INT <= value <= MAX_INT)
    if depth >= MAX_DEPTH:
        return False
    if kind is list:
        return all(_plain(item, depth + 1) for item in value)
    if kind is dict:
        return all(type(k) is str and _plain(v, depth + 1) for k, v in value.items())
    return False


def check_plain(value: Any, where: str = "", depth: int = 0) -> None:
    """Refuse anything JSON cannot hold exactly (P2)."""
    if depth == 0 and _plain(value, 0):  # the common case, without building paths
        return
    if depth > MAX_DEPTH:
        raise FormatError(Msg.plural("{where}: nested more than {n} level deep", "{where}: nested more than {n} levels "
                                     "deep", MAX_DEPTH, where=_doc(where)), "P2")
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return
    if isinstance(value, int):
        if abs(value) > MAX_INT:
            raise FormatError(Msg("{where}: the number {number} is too large", where=_doc(where), number=value), "P2")
        return
    if isinstance(value, list):
        for i, item in enumerate(value):
            check_plain(item, f"{where}[{i}]", depth + 1)
        return
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                raise FormatError(Msg("{where}: key {key} must be text (quote it)", where=_doc(where),
                                      key=repr(key)), "P2")
            check_plain(item, f"{where}.{key}" if where else key, depth + 1)
        return
    kind = type(value).__name__
    said = (N_("{where}: a {kind} value is not allowed; quote it if it is meant as text")
            if kind in ("float", "date", "datetime") else N_("{where}: a {kind} value is not allowed"))
    raise FormatError(Msg(said, where=_doc(where), kind=kind), "P2")


def _doc(where: str) -> str:  # where in a document a refusal points, or the document itself
    return where or Msg("document")


def load_one(text: str, what: str) -> Any:
    """Exactly one YAML document, strictly loaded and checked."""
    check_source(text, what)
    try:
        docs = list(yaml.load_all(text, Loader=_CoreLoader))
    except FormatError:
        raise
    except RecursionError:
        raise FormatError(Msg("{what} is nested too deeply", what=what), "P2") from None
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        if mark is not None and "\t" in (text.splitlines()[mark.line:mark.line + 1] or [""])[0]:
            raise FormatError(Msg("{what} is not valid YAML: line {line} holds a tab; YAML indents "
                                  "with spaces only: replace the tab with spaces", what=what,
                                  line=mark.line + 1), "P2") from None
        raise FormatError(_yaml_problem(err, what), "P2") from None
    except ValueError as err:  # a scalar YAML cannot convert: a 5000-digit number, 2024-13-45
        raise FormatError(Msg("{what} holds a value that cannot be read: {problem}", what=what,
                              problem=str(err)[:200]), "P2") from None
    docs = [d for d in docs if d is not None]
    if len(docs) != 1:
        raise FormatError(Msg("{what} must hold exactly one YAML document, not {count}", what=what,
                              count=len(docs)), "P2")
    check_plain(docs[0])
    return docs[0]


def _yaml_problem(err: yaml.YAMLError, what: str) -> Msg:
    """The refusal of text YAML cannot parse: PyYAML's own words (English), where it stopped."""
    mark = getattr(err, "problem_mark", None)
    problem = str(getattr(err, "problem", None) or str(err).splitlines()[0])
    if mark:
        return Msg("{what} is not valid YAML: {problem} at line {line}, column {column}", what=what,
                   problem=problem, line=mark.line + 1, column=mark.column + 1)
    return Msg("{what} is not valid YAML: {problem}", what=what, problem=problem)


_DOC_START = re.compile(r"^---(?:[ \t]+|(?=\r?$))", re.MULTILINE)


def iter_documents(text: str) -> Iterator[tuple[int, str]]:
    """Split a YAML stream at ``---`` lines: (line number of the marker, document text).

    Blank documents and documents of comments only are skipped."""
    line, counted = 1, 0  # line number at offset ``counted``
    doc_line, doc_start = 1, 0
    for mark in _DOC_START.finditer(text):
        doc = text[doc_start : mark.start()]
        if _has_content(doc):
            yield doc_line, doc
        line += text.count("\n", counted, mark.start())
        counted = mark.start()
        doc_line, doc_start = line, mark.end()
    doc = text[doc_start:]
    if _has_content(doc):
        yield doc_line, doc


def _has_content(doc: str) -> bool:
    stripped = doc.strip()
    if not stripped:
        return False
    if "#" not in stripped:
        return True
    return any(s.strip() and not s.lstrip().startswith("#") for s in stripped.splitlines())


def load_stream(text: str, what: str, check_later: bool = False) -> list[Any]:
    """All documents of a YAML stream: JSON documents fast, anything else strictly."""
    out: list[Any] = []
    for line, doc in iter_documents(text):
        stripped = doc.strip()
        value: Any
        if stripped.startswith("{"):
            try:
                # JSON holds only P2's types but for big numbers and depth; a log's entries
                # get those checks from hashing them (protocol.canonical_json), once.
                value = json.loads(
                    stripped, parse_float=no_float, parse_constant=no_float, object_pairs_hook=unique_keys
                )
                if not check_later:
                    check_plain(value, Msg("document at line {line}", line=line))
            except (ValueError, RecursionError):
                value = load_one(doc, Msg("{what}, document at line {line}", what=what, line=line))
        else:
            value = load_one(doc, Msg("{what}, document at line {line}", what=what, line=line))  # checked by load_one
        out.append(value)
    return out


def unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``json``'s hook for an object: its pairs as a dict, refused if a key appears twice (P2)."""
    out = dict(pairs)
    if len(out) != len(pairs):
        raise ValueError("a key appears twice")  # the strict YAML loader then names it
    return out


def no_float(text: str) -> Any:
    """``json``'s hook for a fraction or a constant (``1.5``, ``NaN``): refused (P2: whole numbers only)."""
    raise ValueError(f"not a whole number: {text}")


def dump_entry(entry: dict[str, Any]) -> str:
    """One log entry as a YAML document: a JSON object, one field a line and one list
    item a line (stable, diffable, and fast to read back)."""

    def one(value: Any) -> str:
        return json.dumps(value, ensure_ascii=False)

    fields = []
    for key, value in entry.items():
        if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
            items = ",\n  ".join(one(v) for v in value)
            fields.append(f"{one(key)}: [\n  {items}]")
        else:
            fields.append(f"{one(key)}: {one(value)}")
    text = "---\n{" + ",\n ".join(fields) + "}\n"
    bad = BAD_RAW_IN_JSON.search(text)
    if bad is not None:  # admission refuses these (check_text), so this is a bug of ours
        raise ValueError(f"a log entry may not hold the character {char_name(bad.group())} (P2)")
    return text


def dump_yaml(data: Any) -> str:
    """Human-facing YAML (move files, private reveals), strings quoted where YAML 1.1 bites."""
    return yaml.dump(data, Dumper=_QuotingDumper, sort_keys=False, allow_unicode=True, width=100)


class _QuotingDumper(yaml.SafeDumper):
    def ignore_aliases(self, data: Any) -> bool:
        return True


def _str_representer(dumper: yaml.SafeDumper, data: str) -> yaml.ScalarNode:
    plain = data.isidentifier() and data.lower() not in ("yes", "no", "on", "off", "true", "false", "null", "y", "n")
    return dumper.represent_scalar("tag:yaml.org,2002:str", data, style=None if plain else '"')


_QuotingDumper.add_representer(str, _str_representer)
