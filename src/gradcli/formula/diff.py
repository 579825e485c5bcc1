"""Symbolic derivatives of formulas.

Sums, products and powers follow the textbook rules here. A built-in's
derivative is the registry's own rule (``REGISTRY[name].derivative``, written
in core operations for backprop), called with formula nodes instead of
Variables: there is no second table of symbolic rules, and a function added to
the registry differentiates as a formula with nothing more written.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

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

# What a rule gives: the derivative, the rule's name, its form (the terms of the
# derivative with each part's own left as d/dx(part), in the order the part's
# pieces print, for the steps; None where nothing records) and the function of
# a chain or elementary rule.
_Applied = tuple[Expr, str, "tuple[Expr, ...] | None", "str | None"]

# A formula printed longer than this is refused: past it no one reads it,
# and the next order would be larger still.
SIZE_LIMIT = 2000


class FormulaTooLarge(LimitError):
    """A derivative's formula past the size limit; ``order`` and ``size`` say
    which and how large (in characters of its plain text)."""

    def __init__(self, order: int | str, size: int = 0, limit: int = SIZE_LIMIT,
                 free: tuple[str, ...] = ()) -> None:
        if isinstance(order, str):  # copy.copy rebuilds an error from its message
            super().__init__(order)
            self.order, self.size, self.limit = 0, size, limit
            return
        text = f"the formula of order {order} has {size} characters (limit {limit}); "
        if free:
            # a series of formulas: its variable may have its value, the others have none
            names = " and ".join((", ".join(free[:-1]), free[-1])) if len(free) > 1 \
                else free[0]
            text += (f"{names} {'have' if len(free) > 1 else 'has'} no value, so the "
                     f"coefficients are formulas: give {'each' if len(free) > 1 else 'it'} "
                     "a value for numbers")
            slot = "{free_numbers}"
        else:
            text += "ask for numbers at a point instead"
            slot = "{numbers}"
        super().__init__(text)
        self.template = literal(text) + slot  # the shell says how to ask
        self.hint_name = free[0] if free else ""
        self.order, self.size, self.limit, self.free = order, size, limit, free


class _Differentiator:
    """One derivative by ``var``. With a ``recorder`` (formula/steps.py) each
    rule it applies is reported as it is applied: the steps of a derivation
    are this differentiator's own work, never a second one's."""

    def __init__(self, var: str, recorder: Any = None) -> None:
        self.var = var
        self.memo: dict[Expr, Expr] = {}
        self.names: dict[Expr, frozenset[str]] = {}
        self.recorder = recorder

    def depends(self, x: Expr) -> bool:
        return self.var in free_names(x, self.names)

    def d(self, x: Expr) -> Expr:
        got = self.memo.get(x)
        if got is not None:
            return got
        return self._apply(x, self._rule)

    def _apply(self, x: Expr, rule: Callable[[Expr], _Applied]) -> Expr:
        """``rule`` applied to ``x``, remembered (a repeated part is
        differentiated, and shown, once) and reported to the recorder."""
        recorder = self.recorder
        slot = recorder.open() if recorder is not None else 0
        out, name, form, function = rule(x)
        self.memo[x] = out
        if recorder is not None:
            recorder.close(slot, name, x, out, form, function)
        return out

    def shown(self, u: Expr) -> Expr:
        """``d/dx(u)`` as a rule's form shows it: 1 and 0 written as such."""
        if u.kind == SYM and u.name == self.var:  # type: ignore[attr-defined]
            return ONE
        if not self.depends(u):
            return ZERO
        return call(self.recorder.placeholder, u)

    def _rule(self, x: Expr) -> _Applied:
        k = x.kind
        if k == NUM or not self.depends(x):
            return ZERO, "constant", None, None
        if k == SYM:
            return ONE, "variable", None, None
        if k == ADD:
            form = None
            if self.recorder is not None:
                from .printing import ordered_terms  # as the sum prints

                shown = [(c, t) for c, t in ordered_terms(x) if t is not None]
                for _, t in shown:  # the parts' steps in the order the parts print
                    self.d(t)
                form = tuple(mul(c, self.shown(t)) for c, t in shown)
            out = add(*(mul(c, self.d(t)) for t, c in x.terms))  # type: ignore[attr-defined]
            return out, "sum", form, None
        if k == MUL:
            return self._product(x)
        if k == CALL:
            return self._call(x)
        raise TypeError(x)  # pragma: no cover - every kind is handled above

    def _product(self, x: Expr) -> _Applied:
        factors = x.factors  # type: ignore[attr-defined]
        coeff = x.coeff  # type: ignore[attr-defined]
        if len(factors) == 1 and coeff == ONE:  # a power alone: b^e
            return self._power(*factors[0])
        powers = [power(b, e) for b, e in factors]
        varying = [i for i, (b, e) in enumerate(factors) if self.depends(b) or self.depends(e)]
        form = None
        if self.recorder is not None:
            from .printing import product_parts  # the parts in the order they print

            _, top, bottom = product_parts(x)
            where = {b: k for k, (b, _) in enumerate(top + bottom)}
            shown = sorted(varying, key=lambda i: where.get(factors[i][0], 0))
            for i in shown:  # the parts' steps in that order
                self._factor(*factors[i], powers[i])
            form = tuple(mul(coeff, self.shown(powers[i]), *powers[:i], *powers[i + 1:])
                         for i in shown)
        terms = [mul(coeff, self._factor(*factors[i], powers[i]), *powers[:i], *powers[i + 1:])
                 for i in varying]
        if len(varying) == 1:
            rule = "constant multiple"
        elif any(factors[i][1].kind == NUM and factors[i][1].value < 0  # type: ignore[attr-defined]
                 for i in varying):
            rule = "quotient"  # a product with a factor 1/g: the quotient rule
        else:
            rule = "product"
        return add(*terms), rule, form, None

    def _factor(self, b: Expr, e: Expr, p: Expr) -> Expr:
        """The derivative of the factor ``p = b^e`` of a product: ``p`` is
        remembered as a part of its own (x^2 in x^2*sin(x))."""
        if p == b:
            return self.d(b)
        got = self.memo.get(p)
        return got if got is not None else self._apply(p, lambda _: self._power(b, e))

    def _power(self, b: Expr, e: Expr) -> _Applied:
        shown = self.shown if self.recorder is not None else None
        if not self.depends(e):  # b^c: c * b^(c-1) * b'
            out = mul(e, power(b, add(e, -ONE)), self.d(b))
            form = (mul(e, power(b, add(e, -ONE)), shown(b)),) if shown else None
            return out, "power", form, None
        # b^e = exp(e*log(b)): b^e * (e'*log(b) + e*b'/b)
        be = power(b, e)
        out = mul(be, add(mul(self.d(e), call("log", b)), mul(e, self.d(b), power(b, -ONE))))
        form = None
        if shown:
            form = (mul(be, add(mul(shown(e), call("log", b)),
                                mul(e, shown(b), power(b, -ONE)))),)
        return out, "power", form, None

    def _call(self, x: Expr) -> _Applied:
        name, u = x.name, x.arg  # type: ignore[attr-defined]
        entry = REGISTRY.get(name)
        if entry is None or entry.derivative is None:
            raise MathError(f"no derivative rule for '{name}'")
        rule = "elementary" if u.kind == SYM else "chain"  # (u depends: it is the variable)
        du = self.d(u)
        if du == ZERO:
            return ZERO, rule, None, name
        outer = as_expr(entry.derivative(u, x))
        form = None
        if self.recorder is not None and rule == "chain":
            form = (mul(outer, self.shown(u)),)
        return mul(outer, du), rule, form, name


def diff(x: Expr, var: str, order: int = 1, limit: int = SIZE_LIMIT) -> Expr:
    """The ``order``-th derivative of ``x`` by the name ``var``, tidied;
    FormulaTooLarge past ``limit`` characters."""
    return derivatives(x, var, order, limit)[-1] if order else x


def derivatives(x: Expr, var: str, order: int, limit: int = SIZE_LIMIT,
                recorder: Any = None) -> list[Expr]:
    """The derivatives of orders 1..order, each checked against the size
    limit as soon as it is made (so swell stops early, never a hang).
    ``recorder``: a ``steps.Recorder`` told each rule applied, and each
    order's derivative before and after tidying."""
    from .printing import plain  # printing is only needed here

    out = []
    for k in range(1, order + 1):
        raw = _Differentiator(var, recorder).d(x)
        if recorder is not None:
            recorder.finish(k, x, raw, tidy(raw))
        x = tidy(raw)
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
