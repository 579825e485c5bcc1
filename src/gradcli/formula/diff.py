"""Symbolic derivatives of formulas.

Sums, products and powers follow the textbook rules here. A built-in's
derivative is the registry's own rule (``REGISTRY[name].derivative``, written
in core operations for backprop), called with formula nodes instead of
Variables: there is no second table of symbolic rules, and a function added to
the registry differentiates as a formula with nothing more written.
"""

from __future__ import annotations

from ..core.functions import REGISTRY  # (the module that fills the registry)
from ..errors import LimitError, MathError, literal
from .expr import (
    ADD,
    CALL,
    MUL,
    NUM,
    ONE,
    SYM,
    ZERO,
    Expr,
    add,
    as_expr,
    call,
    mul,
    power,
)
from .rewrite import free_names, variables
from .simplify import tidy

# A formula printed longer than this is refused: past it no one reads it,
# and the next order would be larger still.
SIZE_LIMIT = 2000


class FormulaTooLarge(LimitError):
    """A derivative's formula past the size limit; ``order`` and ``size`` say
    which and how large (in characters of its plain text)."""

    def __init__(self, order: int | str, size: int = 0, limit: int = SIZE_LIMIT) -> None:
        if isinstance(order, str):  # copy.copy rebuilds an error from its message
            super().__init__(order)
            self.order, self.size, self.limit = 0, size, limit
            return
        text = (f"the formula of order {order} has {size} characters (limit {limit}); "
                "ask for numbers at a point instead")
        super().__init__(text)
        self.template = literal(text) + "{numbers}"  # the shell says how to ask
        self.order, self.size, self.limit = order, size, limit


class _Differentiator:
    def __init__(self, var: str) -> None:
        self.var = var
        self.memo: dict[Expr, Expr] = {}
        self.names: dict[Expr, frozenset[str]] = {}

    def depends(self, x: Expr) -> bool:
        return self.var in free_names(x, self.names)

    def d(self, x: Expr) -> Expr:
        got = self.memo.get(x)
        if got is not None:
            return got
        k = x.kind
        if k == NUM or not self.depends(x):
            out = ZERO
        elif k == SYM:
            out = ONE
        elif k == ADD:
            out = add(*(mul(c, self.d(t)) for t, c in x.terms))  # type: ignore[attr-defined]
        elif k == MUL:
            out = self._product(x)
        elif k == CALL:
            out = self._call(x)
        else:  # pragma: no cover - every kind is handled above
            raise TypeError(x)
        self.memo[x] = out
        return out

    def _product(self, x: Expr) -> Expr:
        factors = x.factors  # type: ignore[attr-defined]
        powers = [power(b, e) for b, e in factors]
        terms = []
        for i, (b, e) in enumerate(factors):
            if not (self.depends(b) or self.depends(e)):
                continue
            if not self.depends(e):  # b^c: c * b^(c-1) * b'
                db = mul(e, power(b, add(e, -ONE)), self.d(b))
            else:  # b^e = exp(e*log(b)): b^e * (e'*log(b) + e*b'/b)
                db = mul(powers[i], add(mul(self.d(e), call("log", b)),
                                        mul(e, self.d(b), power(b, -ONE))))
            terms.append(mul(x.coeff, db, *powers[:i], *powers[i + 1:]))  # type: ignore[attr-defined]
        return add(*terms)

    def _call(self, x: Expr) -> Expr:
        name, u = x.name, x.arg  # type: ignore[attr-defined]
        entry = REGISTRY.get(name)
        if entry is None or entry.derivative is None:
            raise MathError(f"no derivative rule for '{name}'")
        du = self.d(u)
        if du == ZERO:
            return ZERO
        return mul(as_expr(entry.derivative(u, x)), du)


def diff(x: Expr, var: str, order: int = 1, limit: int = SIZE_LIMIT) -> Expr:
    """The ``order``-th derivative of ``x`` by the name ``var``, tidied;
    FormulaTooLarge past ``limit`` characters."""
    return derivatives(x, var, order, limit)[-1] if order else x


def derivatives(x: Expr, var: str, order: int, limit: int = SIZE_LIMIT) -> list[Expr]:
    """The derivatives of orders 1..order, each checked against the size
    limit as soon as it is made (so swell stops early, never a hang)."""
    from .printing import plain  # printing is only needed here

    out = []
    for k in range(1, order + 1):
        x = tidy(_Differentiator(var).d(x))
        size = len(plain(x))
        if size > limit:
            raise FormulaTooLarge(k, size, limit)
        out.append(x)
    return out


def gradient(x: Expr, names: list[str] | None = None,
             limit: int = SIZE_LIMIT) -> dict[str, Expr]:
    """The first partial derivatives by ``names`` (default: every variable of
    ``x``, alphabetically): ``x*y + sin(x)`` gives {x: y + cos(x), y: x}."""
    return {name: diff(x, name, 1, limit) for name in (names or variables(x))}


__all__ = ["SIZE_LIMIT", "FormulaTooLarge", "derivatives", "diff", "gradient"]
