"""Walking a formula: the names it depends on, and substituting for one."""

from __future__ import annotations

from .expr import CONSTANTS, Call, Expr, Mul, Num, Sym, add, call, mul, power


def free_names(x: Expr, memo: dict[Expr, frozenset[str]] | None = None) -> frozenset[str]:
    """The names ``x`` depends on (pi and e included)."""
    memo = {} if memo is None else memo
    got = memo.get(x)
    if got is not None:
        return got
    t = type(x)
    if t is Num:
        out: frozenset[str] = frozenset()
    elif t is Sym:
        out = frozenset((x.name,))  # type: ignore[attr-defined]
    elif t is Call:
        out = free_names(x.arg, memo)  # type: ignore[attr-defined]
    elif t is Mul:
        out = frozenset().union(*(free_names(b, memo) | free_names(e, memo)
                                  for b, e in x.factors))  # type: ignore[attr-defined]
    else:
        out = frozenset().union(*(free_names(term, memo)
                                  for term, _ in x.terms))  # type: ignore[attr-defined]
    memo[x] = out
    return out


def substitute(x: Expr, name: str, value: Expr) -> Expr:
    """``x`` with every ``name`` replaced by ``value``, rebuilt canonically."""
    return substitute_all(x, {name: value})


def substitute_all(x: Expr, values: dict[str, Expr]) -> Expr:
    """``x`` with each name of ``values`` replaced by its value at once (one
    after the other, x*y^-1 with x = 0 would be 0 before y = 0 divides by 0)."""
    memo: dict[Expr, Expr] = {}

    def go(n: Expr) -> Expr:
        got = memo.get(n)
        if got is not None:
            return got
        t = type(n)
        if t is Num:
            out = n
        elif t is Sym:
            out = values.get(n.name, n)  # type: ignore[attr-defined]
        elif t is Call:
            out = call(n.name, go(n.arg))  # type: ignore[attr-defined]
        elif t is Mul:
            out = mul(n.coeff, *(power(go(b), go(e)) for b, e in n.factors))  # type: ignore[attr-defined]
        else:
            out = add(n.const, *(mul(c, go(term)) for term, c in n.terms))  # type: ignore[attr-defined]
        memo[n] = out
        return out

    return go(x)


def variables(x: Expr) -> list[str]:
    """The variables of ``x`` in alphabetical order (the constants pi and e
    are not variables): ``x*y + pi`` has ["x", "y"]."""
    return sorted(free_names(x) - CONSTANTS)
