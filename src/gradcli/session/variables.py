"""Which variables a statement has, and which one it is differentiated by.

Asked by the expression statement, the formula statements and the graph
plotter alike; it evaluates nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..errors import LimitError, UsageError
from ..lang.ast import free_names
from ..lang.evaluate import CONSTANTS, MAX_ORDER

if TYPE_CHECKING:
    from .context import Bindings as Session


def order_limit(what: str, n: int) -> None:
    """A LimitError for an order past MAX_ORDER (the CLI checks its options
    before: these are the REPL's words)."""
    if not 0 <= n <= MAX_ORDER:
        raise LimitError(f"the {what} {n} is outside 0..{MAX_ORDER}")


def default_wrt(session: Session, node: Any) -> str | None:
    """The only variable written in ``node``, bound or not, not counting
    constants (``f(x)`` is by x, whatever f's body uses besides its
    parameter); with none written, the only one the functions it calls use
    (``g(2)`` with ``g(t) = t*a`` is by a); None when it has none."""
    through = ""
    names = variable_names(session, free_names(node))
    if not names:
        names = variable_names(session, free_names(node, session.functions))
        through = " through the functions it calls"
    if len(names) == 1:
        return names[0]
    if not names:
        return None
    listed = ", ".join(names)
    raise UsageError.hinted(
        f"the expression has several variables{through} ({listed}); {{wrt}}")


def variable_names(session: Session, names: list[str]) -> list[str]:
    return [n for n in names if (n not in CONSTANTS or n in session.values) and n != "ans"]


def variables_of(session: Session, node: Any) -> list[str]:
    """The bound variables ``node`` reads, itself or through its functions."""
    return [n for n in free_names(node, session.functions)
            if n in session.values and n != "ans"]
