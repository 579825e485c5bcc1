"""Derivatives as formulas: exact, readable, from the registry's own rules.

    >>> from gradcli.formula import sym, diff, plain
    >>> x = sym("x")
    >>> plain(diff(x**4 - 2*x**2, "x"))
    '4*x^3 - 4*x'
"""

from __future__ import annotations

from .diff import SIZE_LIMIT, FormulaTooLarge, derivatives, diff, gradient
from .expr import INF, PI, E, Expr, Sym, as_expr, from_float, num
from .from_ast import from_ast
from .printing import latex, plain
from .rewrite import free_names, substitute, variables
from .simplify import tidy
from .steps import derivation


def sym(name: str) -> Expr:
    """The formula of a name: a variable, or the constant pi or e."""
    return Sym(name)


def infinite(x: Expr) -> bool:
    """Whether ``x`` holds inf (where folding a constant overflowed)."""
    return INF.name in free_names(x)


__all__ = [
    "E", "PI", "SIZE_LIMIT", "Expr", "FormulaTooLarge", "as_expr", "derivation", "derivatives",
    "diff",
    "free_names", "from_ast", "from_float", "gradient", "infinite", "latex", "num", "plain",
    "substitute", "sym", "tidy", "variables",
]
