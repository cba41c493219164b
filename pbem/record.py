"""pbem's two record bases, in one place: :class:`Record` (immutable: actions, events,
data) and :class:`Slots` (mutable: the game state).

They give what ``@dataclass(frozen=True)`` and ``@dataclass(slots=True)`` give, at an
import-time cost near zero.  ``pbem apply`` runs as a fresh process for every mailed
move, so import time is most of its cost (bench/bench.py, limit 1.3 times the import
floor); creating a dataclass takes time at import, and the core's record classes made
as dataclasses would alone take ``pbem apply`` past its limit.
A :class:`Record` subclass lists its fields as annotations; its ``__init__`` is
one small generated function (as a dataclass's is, but one instead of five), and
``dataclass_transform`` tells type checkers about it.  ARCHITECTURE.md, "Start-up
speed", lists every such choice.
"""

from __future__ import annotations

from typing import Any, ClassVar, dataclass_transform

_INITS: dict[tuple[str, ...], Any] = {}  # fields -> the generated __init__ (start-up speed)


@dataclass_transform(frozen_default=True)
class Record:
    _fields: ClassVar[tuple[str, ...]] = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        own = tuple(
            name
            for name, note in cls.__dict__.get("__annotations__", {}).items()  # noqa: RUF063 - own only
            if not str(note).startswith(("ClassVar", "typing.ClassVar"))
        )
        cls._fields = fields = cls._fields + own
        # A plain __init__ of this class's fields (see _init), made when the class is first
        # instantiated: most record classes a command loads are never made in it.
        cls.__init__ = _INITS.get(fields) or _first_init(cls)  # type: ignore[method-assign]

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable")

    def __copy__(self) -> Record:
        return self  # immutable: a copy is the record itself

    def __deepcopy__(self, memo: dict[int, Any]) -> Record:
        return self  # immutable, whatever it holds (a record's mappings are never changed)

    def _values(self) -> tuple[Any, ...]:
        return tuple(getattr(self, f) for f in self._fields)

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self._values() == other._values()

    def __hash__(self) -> int:
        return hash((type(self), self._values()))

    def __repr__(self) -> str:
        inner = ", ".join(f"{f}={getattr(self, f)!r}" for f in self._fields)
        return f"{type(self).__name__}({inner})"


def _init(fields: tuple[str, ...]) -> Any:
    """A plain __init__ of ``fields``: a few microseconds to build, as fast to call as a
    dataclass's.  Compiling it is most of a class's cost, so classes with the same fields (a
    subclass that adds none: most entry kinds) share one."""
    init = _INITS.get(fields)
    if init is None:
        params = "".join(f", {name}" for name in fields)
        body = "".join(f"    d[{name!r}] = {name}\n" for name in fields) or "    pass\n"
        namespace: dict[str, Any] = {}
        exec(f"def __init__(self{params}):\n    d = self.__dict__\n{body}", namespace)
        init = _INITS[fields] = namespace["__init__"]
    return init


def _first_init(cls: type[Record]) -> Any:
    """``cls``'s __init__ until it is first called: then its own is made (start-up speed: a
    class never instantiated compiles nothing), put in its place, and called."""

    def __init__(self: Record, *args: Any, **kwargs: Any) -> None:
        init = _init(cls._fields)
        cls.__init__ = init  # type: ignore[method-assign]
        init(self, *args, **kwargs)

    return __init__


class Slots:
    """A mutable record (the game state): equality and repr over ``__slots__``, as a
    ``@dataclass(slots=True)`` would give, without its import-time cost (see above)."""

    __slots__: tuple[str, ...] = ()

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return all(getattr(self, n) == getattr(other, n) for n in self.__slots__)

    def __repr__(self) -> str:
        inner = ", ".join(f"{n}={getattr(self, n)!r}" for n in self.__slots__)
        return f"{type(self).__name__}({inner})"

    __hash__ = None  # type: ignore[assignment]  # mutable
