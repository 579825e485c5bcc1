"""Tidying a canonical formula: common factors out, and sums over a common
denominator, wherever that makes the formula shorter.

The canonical constructors (expr.py) already fold numbers, collect like terms
and merge powers. What they leave is the shape of a sum. Each sum here is
compared in three forms and the shortest kept (ties keep it as it is):

- as it is:                   ``exp(x)*sin(x) + exp(x)*cos(x)``;
- its common factors taken out: ``exp(x)*(sin(x) + cos(x))``;
- over a common denominator:  ``cos(x)/x - sin(x)/x^2`` -> ``(x*cos(x) - sin(x))/x^2``.

"Shortest" counts operations much as SymPy's ``count_ops`` does on the
printed text. Nothing is expanded, so nothing blows up.
"""

from __future__ import annotations

import math
from fractions import Fraction

from .expr import ADD, CALL, MUL, NUM, ONE, Add, Expr, Num, add, call, mul, power
from .printing import ordered_terms

_MEMO: dict[Expr, Expr] = {}
_COST: dict[Expr, int] = {}
_SHORT: dict[Expr, Expr] = {}


def forget() -> None:
    """Empty the memos (a benchmark times the work itself)."""
    for memo in (_MEMO, _COST, _SHORT):
        memo.clear()


def cost(x: Expr) -> int:
    """About how many operations the printed ``x`` holds (SymPy's count_ops)."""
    got = _COST.get(x)
    if got is not None:
        return got
    k = x.kind
    if k == NUM:
        v = x.value  # type: ignore[attr-defined]
        out = (v < 0) + (v.denominator != 1 and not x.decimal)  # type: ignore[attr-defined]
    elif k == CALL:
        out = 1 + cost(x.arg)  # type: ignore[attr-defined]
    elif k == ADD:
        order = ordered_terms(x)
        parts = [cost(Num(abs(c.value), c.decimal) if t is None else _abs_term(c, t))
                 for c, t in order]
        out = sum(parts) + len(parts) - 1
        if order[0][0].value < 0:
            out += 1  # a leading minus
    elif k == MUL:
        c = x.coeff.value  # type: ignore[attr-defined]
        top = (abs(c.numerator) != 1 or x.coeff.decimal) + 0  # type: ignore[attr-defined]
        bottom = c.denominator != 1 and not x.coeff.decimal  # type: ignore[attr-defined]
        ops = int(c < 0)
        for b, e in x.factors:  # type: ignore[attr-defined]
            ops += cost(b)
            if e.kind == NUM:
                v = e.value  # type: ignore[attr-defined]
                bottom += v < 0
                top += v > 0
                if abs(v) != 1:
                    ops += 1 + (abs(v).denominator != 1 and abs(v) != Fraction(1, 2))
            else:
                top += 1
                ops += 1 + cost(e)
        ops += max(top - 1, 0) + (bottom > 0) + max(bottom - 1, 0)
        out = ops
    else:
        out = 0
    if len(_COST) > 50000:
        _COST.clear()
    _COST[x] = out
    return out


def _abs_term(c: Num, t: Expr) -> Expr:
    return mul(Num(abs(c.value), c.decimal), t)


def tidy(x: Expr) -> Expr:
    """``x`` with every sum in its shortest form (see the module's note)."""
    got = _MEMO.get(x)
    if got is not None:
        return got
    k = x.kind
    if k == CALL:
        out = call(x.name, tidy(x.arg))  # type: ignore[attr-defined]
    elif k == MUL:
        out = _product(x.coeff, tuple((tidy(b), tidy(e)) for b, e in x.factors))  # type: ignore[attr-defined]
    elif k == ADD:
        out = add(x.const, *(mul(c, tidy(t)) for t, c in x.terms))  # type: ignore[attr-defined]
        if type(out) is Add:
            out = _shortest(out)
    else:
        out = x
    if len(_MEMO) > 50000:
        _MEMO.clear()
    _MEMO[x] = out
    _MEMO[out] = out
    return out


def _primitive(b: Expr, e: Expr) -> list[Expr]:
    """``b^e`` as factors, a sum's numeric content taken out: ``(4 - 4*x^2)``
    is ``[4, 1 - x^2]``, for an integer power. The caller multiplies them all
    at once (a number times one sum alone would be distributed again)."""
    if b.kind != ADD or e.kind != NUM or e.value.denominator != 1:  # type: ignore[attr-defined]
        return [power(b, e)]
    coeffs = [c for _, c in b.terms] + ([b.const] if b.const.value else [])  # type: ignore[attr-defined]
    if any(c.decimal for c in coeffs):
        return [power(b, e)]
    num = math.gcd(*(c.value.numerator for c in coeffs))
    den = math.lcm(*(c.value.denominator for c in coeffs))
    sign = -1 if all(c.value < 0 for c in coeffs) else 1
    g = Fraction(sign * num, den)
    if g == 1:
        return [power(b, e)]
    inner = add(*(mul(Num(c.value / g), t) for t, c in b.terms),  # type: ignore[attr-defined]
                Num(b.const.value / g))  # type: ignore[attr-defined]
    return [power(Num(g), e), power(inner, e)]


def _product(coeff: Num, factors: tuple[tuple[Expr, Expr], ...]) -> Expr:
    parts: list[Expr] = []
    for b, e in factors:
        parts.extend(_primitive(b, e))
    return mul(coeff, *parts)


def _shortest(x: Add, depth: int = 0) -> Expr:
    got = _SHORT.get(x)
    if got is not None:
        return got
    best, best_cost = x, cost(x)
    if depth > 2:  # a factor's cofactor over a denominator is as deep as it goes
        return best
    starts: list[Expr] = [x]
    expanded = _expand(x)
    if expanded is not None and expanded != x:
        starts.append(expanded)
        c = cost(expanded)
        if c < best_cost:
            best, best_cost = expanded, c
    for start in starts:
        if start.kind != ADD:
            continue
        for form in (_factored, _together):
            y = form(start, depth + 1)  # type: ignore[arg-type]
            if y is not None:
                c = cost(y)
                if c < best_cost:
                    best, best_cost = y, c
    if len(_SHORT) > 50000:
        _SHORT.clear()
    _SHORT[x] = best
    return best


# Expanding a product of sums into more terms than this is not tried.
_MAX_TERMS = 48


def _expand(x: Expr) -> Expr | None:
    """``x`` with products of sums multiplied out (integer powers up to 3),
    or None when that would make more than _MAX_TERMS terms."""
    if x.kind == ADD:
        parts = [x.const] if x.const.value else []  # type: ignore[attr-defined]
        for t, c in x.terms:  # type: ignore[attr-defined]
            e = _expand(t)
            if e is None:
                return None
            parts.append(mul(c, e))
        out = add(*parts)
        return None if out.kind == ADD and len(out.terms) > _MAX_TERMS else out  # type: ignore[attr-defined]
    if x.kind != MUL:
        return x
    terms: list[Expr] = [x.coeff]  # type: ignore[attr-defined]
    for b, e in x.factors:  # type: ignore[attr-defined]
        n = e.value if e.kind == NUM else 0  # type: ignore[attr-defined]
        if b.kind == ADD and n in (1, 2, 3):
            inner = _expand(b)
            if inner is None:
                return None
            if inner.kind != ADD:
                terms = [mul(t, power(inner, e)) for t in terms]
                continue
            pieces = _terms(inner)  # type: ignore[arg-type]
            for _ in range(int(n)):
                if len(terms) * len(pieces) > _MAX_TERMS:
                    return None
                terms = [mul(t, p) for t in terms for p in pieces]
        else:
            f = power(b, e)
            terms = [mul(t, f) for t in terms]
    return add(*terms)


def _parts(term: Expr) -> dict[Expr, Expr]:
    """The factors of a term without its coefficient: base -> exponent."""
    if term.kind == MUL:
        return dict(term.factors)  # type: ignore[attr-defined]
    return {term: ONE}


def _terms(x: Add) -> list[Expr]:
    out = [mul(c, t) for t, c in x.terms]
    if x.const.value != 0:
        out.append(x.const)
    return out


def _factored(x: Add, depth: int) -> Expr | None:
    """The sum with the factors all its terms share taken out, or None."""
    if x.const.value != 0:
        return None
    parts = [_parts(t) for t, _ in x.terms]
    common: dict[Expr, Expr] = {}
    for b, e in parts[0].items():
        exps = [p.get(b) for p in parts]
        if any(f is None for f in exps):
            continue
        if all(f.kind == NUM and f.value > 0 for f in exps):  # type: ignore[union-attr]
            common[b] = min(exps, key=lambda f: f.value)  # type: ignore[union-attr,return-value]
        elif e.kind != NUM:
            # x^x and x^(x - 1): the smaller, where they differ by a number
            steps = [add(f, -e) for f in exps]  # type: ignore[arg-type,operator]
            if all(d.kind == NUM for d in steps):
                low = min(steps, key=lambda d: d.value)  # type: ignore[attr-defined]
                common[b] = add(e, low)
    if not common:
        return None
    coeffs = [c for _, c in x.terms]
    g = ONE
    if not any(c.decimal for c in coeffs):
        num = math.gcd(*(c.value.numerator for c in coeffs))
        den = math.lcm(*(c.value.denominator for c in coeffs))
        sign = -1 if all(c.value < 0 for c in coeffs) else 1
        g = Num(Fraction(sign * num, den))
    shared = [power(b, e) for b, e in common.items()]
    inverse = mul(Num(1 / g.value), *(power(b, -e) for b, e in common.items()))
    inner = add(*(mul(t, inverse) for t in _terms(x)))
    if inner.kind == ADD:
        inner = _shortest(inner, depth)  # type: ignore[arg-type]
    return _polish(mul(g, *shared, inner))  # at once: 2*(a + b) would be distributed


def _together(x: Add, depth: int) -> Expr | None:
    """The sum over one denominator, or None when no term has one."""
    den: dict[Expr, Fraction] = {}
    for t, _ in x.terms:
        for b, e in _parts(t).items():
            if e.kind == NUM and e.value < 0:  # type: ignore[attr-defined]
                den[b] = min(den.get(b, Fraction(0)), e.value)  # type: ignore[attr-defined]
    if not den:
        return None
    lift = [power(b, Num(-v)) for b, v in den.items()]
    numer = add(*(mul(t, *lift) for t in _terms(x)))
    if numer.kind == ADD:
        numer = _shortest(numer, depth)  # type: ignore[arg-type]
    return _polish(mul(numer, *(power(b, Num(v)) for b, v in den.items())))


def _polish(x: Expr) -> Expr:
    """The numeric content out of the sums in a product just made."""
    if x.kind == MUL:
        return _product(x.coeff, x.factors)  # type: ignore[attr-defined]
    if x.kind == ADD:
        return add(x.const, *(mul(c, _polish(t)) for t, c in x.terms))  # type: ignore[attr-defined]
    return x


__all__ = ["cost", "tidy"]
