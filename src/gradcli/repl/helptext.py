"""The text of ``:help``: the language, the commands, and the built-ins from the registry.

Sections are (title, [(left, right), ...]) so either display can lay them out.
The built-ins are read from the core's registry, never listed here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import UsageError
from ..lang import namespace

if TYPE_CHECKING:
    from ..session import Session

Section = tuple[str, list[tuple[str, str]]]

# name: (usage, one line); completion and :help read this table.
COMMANDS: dict[str, tuple[str, str]] = {
    ":help": (":help [NAME]", "the language, commands and built-ins; :help sin for one"),
    ":vars": (":vars", "variables and their values"),
    ":funcs": (":funcs", "defined functions"),
    ":d": (":d [N] EXPR [wrt X]",
           "derivatives of orders 0..N (default 1) by X (the only variable) at its value"),
    ":check": (":check EXPR [wrt X]", "autodiff against numerical estimates (orders 1, 2)"),
    ":plot": (":plot [N] EXPR FILE", "graph of EXPR (or its N-th derivative): .png .svg .pdf .dot"),
    ":curve": (":curve EXPR [A B] [N]",
               "EXPR and its derivatives 1..N over A..B (default -5 5), drawn here"),
    ":clear": (":clear [NAME...]", "forget every variable and function, or the ones named"),
    ":quit": (":quit", "leave (Ctrl-D on an empty line too)"),
}
ALIASES = {":q": ":quit", ":exit": ":quit", ":h": ":help", ":?": ":help"}
KEYS = [
    ("Tab", "complete a name or :command"),
    ("Up, Down", "history that starts with what is typed"),
    ("Ctrl-R", "search the history"),
    ("Enter", "run; with a bracket open it starts a new line"),
    ("Esc Enter", "run even with a bracket open"),
    ("Ctrl-C", "cancel the line (or a long computation)"),
    ("Ctrl-D", "leave, on an empty line"),
]

LANGUAGE: list[tuple[str, str]] = [
    ("x**4 - 2*x**2", "an expression: its value"),
    ("x = 2   v = [1, 2, 3]", "bind a name (A = [[1, 2], [3, 4]] is a matrix)"),
    ("f(x) = x**4 - 2*x**2", "define a function; g(x, y) = x*y has two parameters"),
    ("a; b   # note", "several statements on a line; a comment"),
    ("+  -  *  /  @", "sum, difference, product, quotient, matrix product"),
    ("**  ^", "power, right-associative: 2**3**2 is 512"),
    ("2x  3(x + 1)  2pi", "implicit product, tighter than * and /: 1/2x is 1/(2x)"),
    ("v[0]  A[1, 0]", "indexing"),
    ("f'(a)  f''(a)", "derivatives of a one-argument function"),
    ("ans", "the last result"),
]


def _builtins() -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    from ..render.numbers import format_value

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
    from ..render.numbers import format_value

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


def one_line(text: str) -> str:
    """A definition written over several lines, on one: comments dropped, and
    each line break with the indentation around it a single space."""
    return " ".join(" ".join(line.split("#", 1)[0].split()) for line in text.split("\n")
                    ).replace("( ", "(").replace("[ ", "[").strip()


def body_of(source: str) -> str:
    """``"f(x) = x**2"`` -> ``"x**2"`` (the definition's right side)."""
    return source.split("=", 1)[1].strip() if "=" in source else source
