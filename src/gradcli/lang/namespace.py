"""What a name is: the one place the evaluator, the parser's hints, and the REPL's
lexer, completer and help ask.

A name is one of: a built-in function (the core's registry), a special form
(``diff``, ``grad``), a constant (pi, e, inf, nan), another tool's spelling of
one of those (an alias: ``ln``, ``π``), the user's variable or function, or
``ans``. The constants and aliases are known here without loading anything;
the built-ins are read from the core's registry only when first asked about,
so importing this module costs nothing at start-up.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any

__all__ = [
    "ANS", "BUILTIN", "CONSTANT", "CONSTANTS", "CONSTANT_ALIASES", "FUNCTION", "SPECIAL",
    "SPECIAL_FORMS",
    "UNKNOWN", "VARIABLE", "Namespace", "alias_of", "builtin_function", "builtins", "is_builtin",
    "special_forms",
]

CONSTANTS: dict[str, float] = {"pi": math.pi, "e": math.e, "inf": math.inf, "nan": math.nan}

CONSTANT_ALIASES = {"π": "pi", "PI": "pi", "Pi": "pi", "Inf": "inf", "NaN": "nan"}
"""Other tools' spellings of the constants, for "did you mean" hints (not names
of their own: ``PI = 3`` stays the user's)."""

# What Namespace.kind answers.
FUNCTION = "function"  # the user's: f(x) = ...
BUILTIN = "builtin"  # the core's registry: sin, exp ...
SPECIAL = "special"  # diff, grad: they differentiate by names
VARIABLE = "variable"  # the user's value (ans too, once it has one, for help)
CONSTANT = "constant"  # pi, e, inf, nan while not rebound
ANS = "ans"  # the last result, not yet there
UNKNOWN = "unknown"


def builtins() -> dict[str, Any]:
    """The built-in functions: the core's registry, name -> entry (with its
    ``signature`` and ``doc``), loaded on first use."""
    from ..core import functions  # noqa: F401 - importing it fills the registry
    from ..core.registry import REGISTRY

    return REGISTRY


_registry = builtins


def builtin_function(name: str) -> Any:
    """The core's registry entry for ``name``, or None."""
    return _registry().get(name)


SPECIAL_FORMS: dict[str, tuple[str, str]] = {
    "diff": ("diff(expr, x[, n[, a]])", "n-th derivative of expr by x (at x = a)"),
    "grad": ("grad(expr[, x, y...])", "all partial derivatives, as name: value"),
    "hessian": ("hessian(expr[, [x, y...]])", "matrix of second partial derivatives"),
    "jacobian": ("jacobian([f, g...][, [x, y...]])",
                 "matrix of partial derivatives, a row per component"),
    "laplacian": ("laplacian(expr[, [x, y...]])", "sum of the second partial derivatives"),
    "roots": ("roots(expr, x, a, b)", "every real root of expr in x on [a, b], sorted"),
}
"""The forms that bind or differentiate by names: name -> (signature, one line)."""


def special_forms() -> dict[str, tuple[str, str]]:
    """``diff`` and ``grad``: name -> (signature, one line)."""
    return SPECIAL_FORMS


def is_builtin(name: str) -> bool:
    """A built-in function or a special form: names a user cannot bind."""
    return name in _registry() or name in special_forms()


def alias_of(name: str) -> str | None:
    """gradcli's name for another tool's spelling (``ln`` -> ``log``, ``π`` -> ``pi``)."""
    from ..core.registry import ALIASES

    _registry()
    return CONSTANT_ALIASES.get(name) or ALIASES.get(name)


class Namespace:
    """The names of one session (or none: the built-ins and constants alone)."""

    def __init__(self, values: Mapping[str, Any] | None = None,
                 functions: Mapping[str, Any] | None = None) -> None:
        self.values: Mapping[str, Any] = values if values is not None else {}
        self.functions: Mapping[str, Any] = functions if functions is not None else {}

    def kind(self, name: str) -> str:
        """What ``name`` is here, the first that applies of: the user's function,
        a built-in, a special form, a variable (``ans`` with a value, a rebound
        constant), a constant, ``ans`` without a value, unknown."""
        if name in self.functions:
            return FUNCTION
        if name in _registry():
            return BUILTIN
        if name in special_forms():
            return SPECIAL
        if name in self.values:
            return VARIABLE
        if name in CONSTANTS:
            return CONSTANT
        if name == "ans":
            return ANS
        return UNKNOWN

    def call_kind(self, name: str) -> str:
        """What ``name(...)`` calls: FUNCTION, SPECIAL, BUILTIN or UNKNOWN."""
        if name in self.functions:
            return FUNCTION
        if name in special_forms():
            return SPECIAL
        return BUILTIN if name in _registry() else UNKNOWN

    def is_function(self, name: str) -> bool:
        """A name that must be called: the user's function or a built-in."""
        return name in self.functions or name in _registry()

    def known(self, extra: Iterable[str] = ()) -> list[str]:
        """Every name with a meaning here (and ``extra``), sorted: what a
        "did you mean" hint chooses from."""
        names = set(self.values) | set(CONSTANTS) | set(self.functions)
        names |= set(_registry()) | set(special_forms()) | set(extra)
        return sorted(names)
