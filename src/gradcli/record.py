"""Record: small value classes declared like dataclasses, built without them.

``@dataclass`` writes each class's ``__init__``, ``__eq__`` and ``__repr__``
as source text and compiles it when the class is created: about 1 ms a class
on the development box, and gradcli's start-up path declares some two dozen
(the syntax tree, statements, results, options). A shell script calling
``gradcli eval`` paid that on every run. Record gives the same declarations
the few features gradcli uses, with shared methods and no code generation:

    class Num(Record):
        text: str
        line: int = 0

- fields are the class's annotated names, in order, after those of its
  bases (one declared again there only takes a new default); names
  starting with '_' and ClassVar annotations are not fields;
- ``__init__`` takes them positionally or by keyword; a class attribute
  value is the default, and ``factory(f)`` a default made fresh per instance;
- records are frozen and slotted; ``class R(Record, mutable=True)`` makes
  fields assignable (and records unhashable, as a mutable dataclass is);
- ``==`` and ``hash`` compare the fields not named in ``_uncompared``;
  ``repr`` shows every field.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["Record", "factory", "fields"]

_set = object.__setattr__
_MISSING = object()


class factory:  # reads as a function at the declaration site
    """A default made by calling ``make()`` for each new record."""

    __slots__ = ("make",)

    def __init__(self, make: Callable[[], Any]) -> None:
        self.make = make


class _RecordType(type):
    def __new__(mcs, name: str, bases: tuple[type, ...], namespace: dict[str, Any],
                mutable: bool | None = None) -> _RecordType:
        annotations = namespace.get("__annotations__", {})
        own = tuple(
            field for field, hint in annotations.items()
            if not field.startswith("_") and "ClassVar" not in str(hint)
        )
        defaults = {field: namespace.pop(field) for field in own if field in namespace}
        inherited_fields: tuple[str, ...] = ()
        inherited_defaults: dict[str, Any] = {}
        inherited_mutable = False
        for base in bases:
            inherited_fields += getattr(base, "_fields", ())
            inherited_defaults.update(getattr(base, "_defaults", {}))
            inherited_mutable = inherited_mutable or getattr(base, "_mutable", False)
        # a field declared again (a new default) keeps its place and its slot
        namespace["__slots__"] = tuple(f for f in own if f not in inherited_fields)
        cls = super().__new__(mcs, name, bases, namespace)
        cls._fields = inherited_fields + tuple(f for f in own if f not in inherited_fields)
        cls._defaults = {**inherited_defaults, **defaults}
        cls._mutable = inherited_mutable if mutable is None else mutable
        cls._compare = tuple(f for f in cls._fields if f not in cls._uncompared)
        cls.__match_args__ = cls._fields
        if cls._mutable:
            cls.__hash__ = None  # type: ignore[assignment]
        seen_default = False
        for field in cls._fields:
            if field in cls._defaults:
                seen_default = True
            elif seen_default:
                raise TypeError(f"{name}: field {field!r} without a default follows one with")
        return cls


class Record(metaclass=_RecordType):
    """A value object with declared fields; see the module's docstring."""

    _fields: tuple[str, ...] = ()
    _defaults: dict[str, Any] = {}
    _mutable = False
    _uncompared: tuple[str, ...] = ()
    _compare: tuple[str, ...] = ()

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        names = self._fields
        if not kwargs and len(args) == len(names):
            # The common case, and the parser's: every field, in order.
            for name, value in zip(names, args):
                _set(self, name, value)
            return
        if len(args) > len(names):
            raise TypeError(f"{type(self).__name__} takes {len(names)} fields, got {len(args)}")
        given = dict(zip(names, args))
        for name, value in kwargs.items():
            if name not in names or name in given:
                problem = "an unexpected" if name not in names else "a repeated"
                raise TypeError(f"{type(self).__name__} got {problem} field {name!r}")
            given[name] = value
        for name in names:
            value = given.get(name, _MISSING)
            if value is _MISSING:
                value = self._defaults.get(name, _MISSING)
                if value is _MISSING:
                    raise TypeError(f"{type(self).__name__} needs the field {name!r}")
                if type(value) is factory:
                    value = value.make()
            _set(self, name, value)

    def __setattr__(self, name: str, value: Any) -> None:
        if not self._mutable:
            raise AttributeError(f"{type(self).__name__} is immutable: cannot set {name!r}")
        _set(self, name, value)

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"{type(self).__name__} fields cannot be deleted")

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return all(getattr(self, f) == getattr(other, f) for f in self._compare)

    def __hash__(self) -> int:
        return hash((type(self).__name__, *[getattr(self, f) for f in self._compare]))

    def __repr__(self) -> str:
        shown = ", ".join(f"{f}={getattr(self, f)!r}" for f in self._fields)
        return f"{type(self).__name__}({shown})"


def fields(record: Record | type[Record]) -> tuple[str, ...]:
    """The field names of a record or record class, in order."""
    return record._fields
