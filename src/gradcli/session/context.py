"""What each part of the session reads of it: narrow interfaces, below them all.

The statement parts (expression, formulas, checking, variables, graphs,
curves) take one of these, never the Session class itself, so none of them
imports the module that imports them. ``Session`` satisfies each.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Any, Protocol

from ..lang.evaluate import Definition

__all__ = ["Bindings", "Context", "Grapher", "Runner"]


class Bindings(Protocol):
    """The names a statement reads: bound values and user definitions."""

    values: dict[str, Any]
    functions: dict[str, Definition]


class Context(Bindings, Protocol):
    """What a statement's parts need to evaluate and differentiate: the bindings,
    the array module and dtype, the derivative engine and method, and where
    warnings go. It is the evaluator's context too (``lang.evaluate.Context``)."""

    no_ans: str | None  # why ans has no value, when a result left none
    at_text: dict[str, str]  # an --at value as typed
    words: dict[str, str]  # how hints read in the shell at hand
    xp: Any  # numpy, or cupy on a GPU
    dtype_type: Any
    method: str
    engine: Any  # core.method.Derivatives

    def constant(self, value: float, text: str | None = None) -> Any: ...

    def derivatives(self, y: Any, x: Any, order: int) -> list[Any]: ...

    def warn(self, message: str) -> None: ...

    def replace_warnings(self, messages: list[str]) -> None: ...


class Runner(Bindings, Protocol):
    """A session as the curve's glue drives it: statements run, names bound for
    a while, a range's ends read as numbers."""

    at: dict[str, Any]
    at_text: dict[str, str]

    def run(self, text: str, options: Any = None, first_line: int = 1,
            whole: bool = False) -> list[Any]: ...

    def run_statement(self, st: Any, options: Any) -> Any: ...

    def scratch(self, name: str, value: Any) -> AbstractContextManager[None]: ...

    def bind_at(self, name: str, text: str) -> Any: ...



class Grapher(Context, Runner, Protocol):
    """A graph's maker: it runs the setup statements, then evaluates."""
