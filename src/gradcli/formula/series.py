"""Taylor series of a formula about a point, with formulas for coefficients.

``x^2*y`` by x about 0 is ``x^2*y``; ``exp(a*x)`` is ``1 + a*x + a^2*x^2/2 + ...``.
The k-th coefficient is the k-th derivative's formula at the point over k!
(exact, then tidied), so the size limit of derivatives applies as it does to
``--order``. Where a derivative divides by zero at the point (``y*sin(x)/x``
at 0) the coefficients are the limits instead: the series is then built from
the formula's parts, a truncated power series each, the quotients divided as
l'Hôpital does (their common leading zeros taken off, as Taylor mode does with
numbers in core/taylor/singular.py). That costs order^3 operations on
formulas, so it is bounded by ``LIMIT_ORDER``; a point that is no removable
singularity (a pole, ``log(x)`` at 0) has no series, and says so.
"""

from __future__ import annotations

import math
from fractions import Fraction

from ..errors import LimitError, MathError
from ..limits import SERIES_LIMIT_ORDER as LIMIT_ORDER  # order^3 work on formulas
from .diff import SIZE_LIMIT, FormulaTooLarge, derivatives
from .expr import (
    ADD,
    CALL,
    CONSTANTS,
    MUL,
    NUM,
    ONE,
    PI,
    SYM,
    ZERO,
    Expr,
    Mul,
    Num,
    Sym,
    add,
    call,
    mul,
    power,
)
from .rewrite import free_names, substitute
from .simplify import tidy

_MORE_ORDERS = 12  # orders a quotient's common leading zeros may take off, in all
_PART = " u"  # the argument of a built-in expanded on its own (no user name has a space)

Series = list[Expr]


class NoSeries(MathError):
    """The formula has no Taylor series about the point (undefined there, and
    no removable singularity); or its limit is past what formulas can find."""


def series_coefficients(f: Expr, var: str, point: Expr, order: int,
                        point_text: str | None = None, limit: int = SIZE_LIMIT) -> list[Expr]:
    """The coefficients c_0 .. c_order of ``f`` about ``var`` = ``point``,
    formulas in the other names (see the module). ``point_text``: the point
    as the user wrote it, for messages."""
    at = f"{var} = {point_text if point_text is not None else _text(point)}"
    out: list[Expr] = []
    d = f
    try:
        for k in range(order + 1):
            if k:  # one order at a time: a 0/0 at the point needs none of the rest
                try:
                    d = derivatives(d, var, 1, limit)[0]
                except FormulaTooLarge as err:
                    raise FormulaTooLarge(k, err.size, err.limit) from None
            out.append(_at_point(d, var, point, k))
    except MathError as err:  # 0/0 at the point: the limits, if it is a removable singularity
        if isinstance(err, FormulaTooLarge):
            raise
        if order > LIMIT_ORDER:
            raise LimitError(
                f"a series of formulas about {at}, where the expression itself is "
                f"undefined, is taken up to order {LIMIT_ORDER} (asked: {order}); "
                "ask for a lower order, or give the other names values") from None
        out = _through_limits(f, var, point, order, at)
    from .printing import plain

    for k, c in enumerate(out):
        _check_defined(c, at)
        size = len(plain(c))
        if size > limit:
            raise FormulaTooLarge(k, size, limit)
    return out


def _at_point(d: Expr, var: str, point: Expr, k: int) -> Expr:
    c = substitute(d, var, point)
    if point.kind != NUM:  # about pi: sin(pi) is 0
        c = _at_multiples_of_pi(c)
    return tidy(mul(c, Num(Fraction(1, math.factorial(k)))))


def _at_multiples_of_pi(x: Expr) -> Expr:
    """``x`` with sin, cos and tan of a multiple of pi/2 (pi/4 for tan) folded
    to their exact values: a series about pi reads ``-(x - pi)*y``, not
    ``(x - pi)*y*cos(pi)``."""
    memo: dict[Expr, Expr] = {}

    def go(n: Expr) -> Expr:
        got = memo.get(n)
        if got is None:
            k = n.kind
            if k == CALL:
                arg = go(n.arg)  # type: ignore[attr-defined]
                got = _trig_at(n.name, arg)  # type: ignore[attr-defined]
                if got is None:
                    got = call(n.name, arg)  # type: ignore[attr-defined]
            elif k == MUL:
                got = mul(n.coeff, *(power(go(b), go(e))  # type: ignore[attr-defined]
                                     for b, e in n.factors))  # type: ignore[attr-defined]
            elif k == ADD:
                got = add(n.const, *(mul(c, go(t)) for t, c in n.terms))  # type: ignore[attr-defined]
            else:
                got = n
            memo[n] = got
        return got

    return go(x)


def _trig_at(name: str, arg: Expr) -> Expr | None:
    """sin, cos or tan of q*pi where its value is a whole number; else None."""
    if name not in ("sin", "cos", "tan"):
        return None
    if arg == PI:
        q = Fraction(1)
    elif arg.kind == MUL and arg.factors == ((PI, ONE),) and not arg.coeff.decimal:  # type: ignore[attr-defined]
        q = arg.coeff.value  # type: ignore[attr-defined]
    else:
        return None
    if name == "tan":
        if q.denominator == 1:
            return ZERO
        if q.denominator == 4:
            return Num(Fraction(1 if q.numerator % 4 == 1 else -1))
        return None
    if (2 * q).denominator != 1:
        return None
    half_turns = int(2 * q) % 4  # q*pi in quarter turns of pi/2
    sin = (0, 1, 0, -1)[half_turns]
    cos = (1, 0, -1, 0)[half_turns]
    return Num(Fraction(sin if name == "sin" else cos))


def _text(x: Expr) -> str:
    from .printing import plain

    return plain(x)


def _check_defined(c: Expr, at: str) -> None:
    """A coefficient holding ``log(0)``, ``(-1)^(1/3)`` or ``inf`` is no number
    (the value path's nan or inf): the point is one where the expression or a
    derivative is undefined (``y*log(x)`` about 0)."""
    from .printing import plain

    if "inf" in free_names(c):
        raise NoSeries(f"no Taylor series about {at}: a coefficient is infinite there")
    for part in _closed_parts(c):
        value = closed_value(part)
        if value is not None and not math.isfinite(value):
            raise NoSeries(f"no Taylor series about {at}: {plain(part)} is undefined")


def _closed_parts(x: Expr) -> list[Expr]:
    """The calls and powers of ``x`` that hold no variable (``log(0)``,
    ``(-1)^(1/3)``), outermost first."""
    out, stack, seen = [], [x], set()
    while stack:
        n = stack.pop()
        if n in seen:
            continue
        seen.add(n)
        if n.kind == CALL:
            if free_names(n) <= CONSTANTS:
                out.append(n)
            else:
                stack.append(n.arg)  # type: ignore[attr-defined]
        elif n.kind == MUL:
            for b, e in n.factors:  # type: ignore[attr-defined]
                if free_names(b) <= CONSTANTS and free_names(e) <= CONSTANTS:
                    out.append(Mul(ONE, ((b, e),)))
                else:
                    stack.extend((b, e))
        elif n.kind == ADD:
            stack.extend(t for t, _ in n.terms)  # type: ignore[attr-defined]
    return out


def closed_value(x: Expr) -> float | None:
    """The number ``x`` is, where it has no variables (``log(2)*pi``); None
    where it has. nan or inf where a built-in is undefined (``log(0)``)."""
    import numpy as np

    from ..core.registry import REGISTRY

    if free_names(x) - CONSTANTS:
        return None

    def value(n: Expr) -> float:
        k = n.kind
        if k == NUM:
            return float(n.value)  # type: ignore[attr-defined]
        if k == SYM:
            return {"pi": math.pi, "e": math.e}.get(n.name, math.inf)  # type: ignore[attr-defined]
        if k == CALL:
            return float(REGISTRY[n.name].call(np.array(value(n.arg))).data)  # type: ignore[attr-defined]
        if k == MUL:
            out = float(n.coeff.value)  # type: ignore[attr-defined]
            for b, e in n.factors:  # type: ignore[attr-defined]
                out *= math.pow(value(b), value(e))  # (-8)^(1/3): ValueError, not complex
            return out
        return float(n.const.value) + sum(  # type: ignore[attr-defined]
            float(c.value) * value(t) for t, c in n.terms)  # type: ignore[attr-defined]

    with np.errstate(all="ignore"):
        try:
            return value(x)
        except (OverflowError, ZeroDivisionError, ValueError):
            return math.nan


# --- through limits: truncated power series of formulas ------------------------------


def _through_limits(f: Expr, var: str, point: Expr, order: int, at: str) -> list[Expr]:
    """c_0 .. c_order of ``f`` where it is 0/0 at the point: its power series
    built from its parts (see the module), asked for more orders while its
    quotients' common leading zeros take some off."""
    extra = 0
    while True:
        got = _PowerSeries(var, point, order + extra, at).of(f)
        if len(got) > order:
            return [tidy(c) for c in got[: order + 1]]
        extra += order + 1 - len(got)
        if extra > _MORE_ORDERS:
            raise NoSeries(f"no Taylor series about {at} found: its limit there needs "
                           f"more than {_MORE_ORDERS} orders more")


class _PowerSeries:
    """The first ``n`` + 1 coefficients of formulas in powers of (var - point);
    a quotient knows fewer where it takes common leading zeros off."""

    def __init__(self, var: str, point: Expr, n: int, at: str) -> None:
        self.var, self.point, self.n, self.at = var, point, n, at
        self.memo: dict[Expr, Series] = {}
        self.parts: dict[str, list[Expr]] = {}

    def of(self, x: Expr) -> Series:
        got = self.memo.get(x)
        if got is None:
            got = self._of(x)
            self.memo[x] = got
        return got

    def _of(self, x: Expr) -> Series:
        k = x.kind
        if k == NUM or (k == SYM and x.name != self.var):  # type: ignore[attr-defined]
            return self._constant(x)
        if k == SYM:
            return [self.point, ONE, *([ZERO] * (self.n - 1))][: self.n + 1]
        if k == ADD:
            parts = [self._scaled(self.of(t), c) for t, c in x.terms]  # type: ignore[attr-defined]
            out = _sum(parts)
            out[0] = add(out[0], x.const)  # type: ignore[attr-defined]
            return out
        if k == CALL:
            return self._call(x.name, self.of(x.arg))  # type: ignore[attr-defined]
        top: Series = self._constant(x.coeff)  # type: ignore[attr-defined]
        bottom: Series | None = None
        for b, e in x.factors:  # type: ignore[attr-defined]
            if e.kind == NUM and e.value.denominator == 1:  # type: ignore[attr-defined]
                p = e.value.numerator  # type: ignore[attr-defined]
                s = self._integer_power(self.of(b), abs(p))
                if p > 0:
                    top = _product(top, s)
                else:
                    bottom = s if bottom is None else _product(bottom, s)
            elif e.kind == NUM:
                top = _product(top, self._power(self.of(b), e))
            else:  # b^e = exp(e*log(b))
                top = _product(top, self.of(call("exp", mul(e, call("log", b)))))
        return top if bottom is None else self._quotient(top, bottom)

    def _constant(self, x: Expr) -> Series:
        return [x, *([ZERO] * self.n)]

    @staticmethod
    def _scaled(s: Series, c: Num) -> Series:
        return [mul(c, t) for t in s]

    def _integer_power(self, s: Series, p: int) -> Series:
        out = [ONE, *([ZERO] * (len(s) - 1))]
        base = s
        while p:
            if p & 1:
                out = _product(out, base)
            p >>= 1
            if p:
                base = _product(base, base)
        return out

    def _power(self, s: Series, e: Num) -> Series:
        """s^e for a fraction e: J. C. P. Miller's recurrence, from s_0^e."""
        s0 = s[0]
        if s0 == ZERO:
            raise NoSeries(f"no Taylor series about {self.at}: a fractional power of 0 "
                           "has none")
        p = e.value
        g = [power(s0, e)]
        inv = power(s0, Num(Fraction(-1)))
        for k in range(1, len(s)):
            terms = [mul(Num(p * j - k + j), s[j], g[k - j]) for j in range(1, k + 1)]
            g.append(mul(Num(Fraction(1, k)), inv, add(*terms)))
        return g

    def _quotient(self, a: Series, b: Series) -> Series:
        """a / b, with their common leading zeros taken off (l'Hôpital's rule)."""
        k = next((i for i, c in enumerate(b) if c != ZERO), None)
        if k is None or any(c != ZERO for c in a[:k]):
            raise NoSeries(f"no Taylor series about {self.at}: it divides by zero there, "
                           "and no limit was found")
        a, b = a[k:], b[k:]
        if closed_value(b[0]) == 0:  # a zero the formulas do not see as one
            raise NoSeries(f"no Taylor series about {self.at} found: {_text(b[0])} is 0 "
                           "there, and the formulas cannot take that limit")
        m = min(len(a), len(b))
        inv = power(b[0], Num(Fraction(-1)))
        q: Series = []
        for j in range(m):
            rest = add(a[j], *(mul(Num(Fraction(-1)), q[i], b[j - i]) for i in range(j)))
            q.append(mul(rest, inv))
        return q

    def _call(self, name: str, u: Series) -> Series:
        """name(u): the sum over m of name^(m)(u_0)/m! (u - u_0)^m."""
        ds = self.parts.get(name)
        if ds is None or len(ds) < len(u):
            part = call(name, Sym(_PART))
            ds = [part, *derivatives(part, _PART, len(u) - 1)]
            self.parts[name] = ds
        try:
            at = [_at_multiples_of_pi(substitute(d, _PART, u[0])) for d in ds[: len(u)]]
        except MathError:
            raise NoSeries(f"no Taylor series about {self.at}: {name} has none at "
                           f"{_text(u[0])}") from None
        for c in at:
            _check_defined(c, self.at)
        du = [ZERO, *u[1:]]
        out = self._constant(at[0])[: len(u)]
        term = [ONE, *([ZERO] * (len(u) - 1))]
        for m in range(1, len(u)):
            term = _product(term, du)
            scale = mul(at[m], Num(Fraction(1, math.factorial(m))))
            out = _sum([out, [mul(scale, t) for t in term]])
        return out


def _sum(parts: list[Series]) -> Series:
    m = min(len(p) for p in parts)
    return [add(*(p[i] for p in parts)) for i in range(m)]


def _product(a: Series, b: Series) -> Series:
    m = min(len(a), len(b))
    return [add(*(mul(a[i], b[k - i]) for i in range(k + 1)
                  if a[i] != ZERO and b[k - i] != ZERO)) for k in range(m)]


__all__ = ["NoSeries", "closed_value", "series_coefficients"]
