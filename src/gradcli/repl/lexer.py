"""Syntax highlighting of the input line: numbers, names, functions, operators, commands.

A small regular-expression lexer (no Pygments). Names are told apart by what
follows them and by what the Session knows: a name before ``(`` or a prime is a
call (a built-in, ``diff``/``grad``, or the user's function), other names are
constants or variables. Until the Session has loaded, the lexer never waits
for it: calls are still coloured as calls, only the finer classes are missing.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from prompt_toolkit.document import Document
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.lexers import Lexer
from prompt_toolkit.styles import Style

from ..lang.names import SUPERSCRIPT_MINUS
from ..lang.namespace import BUILTIN, CONSTANT, FUNCTION, SPECIAL, VARIABLE, Namespace
from ..limits import SUPERSCRIPT_DIGITS

if TYPE_CHECKING:
    from .loader import SessionLoader

_POWER = f"{re.escape(SUPERSCRIPT_MINUS)}?[{re.escape(SUPERSCRIPT_DIGITS)}]+"
"""A typeset exponent (x², x⁻¹): a power, as the language reads it."""

TOKEN = re.compile(
    r"""
    (?P<comment>\#.*)
  | (?P<number>(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)
  | (?P<name>[A-Za-z_][A-Za-z_0-9]*)(?P<primes>'*)(?P<call>(?=\s*\())?
  | (?P<operator>\*\*|[-+*/^@=;,])
  | (?P<power>""" + _POWER + r""")
  | (?P<bracket>[()\[\]])
  | (?P<space>\s+)
  | (?P<other>.)
    """,
    re.VERBOSE,
)
COMMAND = re.compile(r"^(\s*)(:[^\s]*)")

STYLE = Style.from_dict(
    {
        "number": "ansicyan",
        "builtin": "ansigreen",
        "special": "ansimagenta bold",
        "function": "ansigreen bold",
        "call": "ansigreen",
        "constant": "ansiyellow",
        "variable": "ansiblue",
        "name": "",
        "operator": "ansired",
        "power": "ansired",
        "bracket": "bold",
        "comment": "ansibrightblack italic",
        "command": "ansimagenta bold",
        "other": "ansired underline",
        # The completion menu and auto-suggestion.
        "auto-suggestion": "ansibrightblack",
    }
)


class Names:
    """What the lexer needs to know, read from the Session only once it is there."""

    def __init__(self, loader: SessionLoader | None = None) -> None:
        self.loader = loader

    def classify(self, name: str, call: bool) -> str:
        session = self.loader.peek() if self.loader is not None else None
        if session is None:
            return "call" if call else "name"
        names = Namespace(session.values, session.functions)
        if call:
            return _CALL_STYLES.get(names.call_kind(name), "call")
        if name == "ans":  # the last result, whether or not it is there yet
            return "constant"
        return _NAME_STYLES.get(names.kind(name), "name")


_CALL_STYLES = {FUNCTION: "function", SPECIAL: "special", BUILTIN: "builtin"}
_NAME_STYLES = {VARIABLE: "variable", CONSTANT: "constant"}


def tokens(line: str, classify: Callable[[str, bool], str],
           first: bool = True) -> StyleAndTextTuples:
    """The (style, text) pieces of one line (a ``:command`` only on the ``first``)."""
    out: StyleAndTextTuples = []
    pos = 0
    m = COMMAND.match(line) if first else None
    if m is not None:
        out.append(("", m.group(1)))
        out.append(("class:command", m.group(2)))
        pos = m.end()
    for t in TOKEN.finditer(line, pos):
        kind = t.lastgroup
        if t.group("name") is not None:
            name, primes = t.group("name"), t.group("primes")
            style = classify(name, bool(primes) or t.group("call") is not None)
            out.append((f"class:{style}", name + primes))
        elif kind == "space":
            out.append(("", t.group(0)))
        else:
            out.append((f"class:{kind}", t.group(0)))
    return out


class GradcliLexer(Lexer):
    def __init__(self, loader: SessionLoader | None = None) -> None:
        self.names = Names(loader)

    def lex_document(self, document: Document) -> Callable[[int], StyleAndTextTuples]:
        lines = document.lines

        def get_line(lineno: int) -> StyleAndTextTuples:
            if lineno >= len(lines):
                return []
            return tokens(lines[lineno], self.names.classify, first=lineno == 0)

        return get_line
