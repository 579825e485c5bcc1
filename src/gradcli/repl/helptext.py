"""The text of ``:help``: the language, the commands, and the built-ins from the registry.

Sections are (title, [(left, right), ...]) so either display can lay them out.
The built-ins are read from the core's registry, never listed here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import UsageError
from ..lang import namespace
from ..render.numbers import format_value
from .arguments import body_of
from .catalog import ALIASES, COMMANDS, KEYS

if TYPE_CHECKING:
    from ..session import Session

Section = tuple[str, list[tuple[str, str]]]

LANGUAGE: list[tuple[str, str]] = [
    ("x**4 - 2*x**2", "an expression: its value"),
    ("x = 2   v = [1, 2, 3]", "bind a name (A = [[1, 2], [3, 4]] is a matrix)"),
    ("f(x) = x**4 - 2*x**2", "define a function; g(x, y) = x*y has two parameters"),
    ("a; b   # note", "several statements on a line; a comment"),
    ("+  -  *  /  @", "sum, difference, product, quotient, matrix product"),
    ("**  ^", "power, right-associative: 2**3**2 is 512"),
    ("x²  x⁻¹  (x+1)³", "typeset powers: x² is x^2, x⁻¹ is x^-1; x²^3 is (x²)^3"),
    ("2x  3(x + 1)  2pi", "implicit product, tighter than * and /: 1/2x is 1/(2x)"),
    ("v[0]  A[1, 0]", "indexing"),
    ("f'(a)  f''(a)", "derivatives of a one-argument function"),
    ("ans", "the last result"),
]


def _builtins() -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:

    special = [(sig, doc) for sig, doc in namespace.special_forms().values()]
    builtins = [(b.signature, b.doc) for b in namespace.builtins().values()]
    constants = [(name, format_value(value)) for name, value in namespace.CONSTANTS.items()]
    return special + builtins, constants


def overview() -> list[Section]:
    functions, constants = _builtins()
    commands = [(usage, doc) for usage, doc in COMMANDS.values()]
    return [
        ("The language", LANGUAGE),
        ("Functions (all differentiable where the math is)", functions),
        ("Constants (a name may be rebound)", constants),
        ("Commands", commands),
        ("Keys", KEYS),
    ]


def help_for(name: str, session: Session) -> list[Section]:
    """Help on one name: a built-in, a command, a constant, or the user's own."""
    from ..core.registry import closest

    command = ALIASES.get(name, name)
    if command in COMMANDS or ":" + command in COMMANDS:
        usage, doc = COMMANDS.get(command) or COMMANDS[":" + command]
        return [("Command", [(usage, doc)])]
    values = dict(session.variables())
    names = namespace.Namespace(values, session.functions)
    kind = names.kind(name)
    if kind == namespace.FUNCTION:
        d = session.functions[name]
        return [("Your function", [(d.signature, body_of(d.source))])]
    if kind == namespace.BUILTIN:
        b = namespace.builtin_function(name)
        return [("Built-in function", [(b.signature, b.doc)])]
    if kind == namespace.SPECIAL:
        return [("Differentiation", [namespace.special_forms()[name]])]
    if kind == namespace.VARIABLE:
        return [("Variable", [(name, format_value(values[name]))])]
    if kind == namespace.CONSTANT:
        return [("Constant", [(name, format_value(namespace.CONSTANTS[name]))])]
    if kind == namespace.ANS:  # no value yet: what the name is for
        return [("The language", [row for row in LANGUAGE if row[0] == "ans"])]
    match = closest(name, names.known(COMMANDS), namespace.CONSTANT_ALIASES)
    hint = f"; did you mean {match}?" if match else ""
    raise UsageError(f"no help for '{name}'{hint}")
