"""Immutable scalar expressions in a canonical form, with exact constants.

Five kinds of node, each built only by the constructors below, which keep a
form close to SymPy's automatic one, so that equal expressions usually look
alike and the arithmetic of the derivative rules simplifies as it goes:

``Num``   an exact rational (``fractions.Fraction``); ``decimal`` marks a
          number the user typed as a decimal (``2.5``), printed as typed;
``Sym``   a name: a variable, or the constants ``pi`` and ``e``;
``Call``  a registry built-in applied to one argument: ``sin(x)``;
``Mul``   ``coeff * b1^e1 * b2^e2 ...``: like bases merged (``x*x^3`` is
          ``x^4``), numbers folded into the coefficient; a power alone is a
          Mul with coefficient 1;
``Add``   ``const + c1*t1 + c2*t2 ...``: like terms collected (``2*x + 3*x``
          is ``5*x``); a rational times a sum is distributed, as SymPy does.

Products of sums are never expanded, so common factors stay factored. Nodes
overload ``+ - * / **`` and unary minus, and a built-in given a node returns
one (``__gradcli_call__``): the registry's derivative rules run on them.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

from ..errors import MathError
from .roots import exact_root

NUM, SYM, CALL, MUL, ADD = range(5)  # node kinds; a key's first item orders nodes
_MAX_BITS = 4096  # an exact power past this many bits stays symbolic (2^100000)


class Expr:
    """A formula node. Equal keys mean equal expressions (structurally)."""

    __slots__ = ("key", "_hash")
    kind: int

    def __init__(self, key: tuple[Any, ...]) -> None:
        self.key = key
        self._hash = hash(key)

    # Keys hold the child nodes themselves, whose hashes are cached: hashing
    # and comparing a node costs its own size, not its whole tree's.
    def __eq__(self, other: object) -> bool:
        return self is other or (isinstance(other, Expr) and self._hash == other._hash
                                 and self.key == other.key)

    def __lt__(self, other: Expr) -> bool:
        return self.key < other.key

    def __hash__(self) -> int:
        return self._hash

    def __repr__(self) -> str:
        # structural: printing.plain gives the text (and imports this module)
        return f"{type(self).__name__}{self.key!r}"

    # --- the operators the registry's derivative rules use ---------------------
    def __add__(self, other: Any) -> Expr:
        return add(self, as_expr(other))

    def __radd__(self, other: Any) -> Expr:
        return add(as_expr(other), self)

    def __sub__(self, other: Any) -> Expr:
        return add(self, neg(as_expr(other)))

    def __rsub__(self, other: Any) -> Expr:
        return add(as_expr(other), neg(self))

    def __mul__(self, other: Any) -> Expr:
        return mul(self, as_expr(other))

    def __rmul__(self, other: Any) -> Expr:
        return mul(as_expr(other), self)

    def __truediv__(self, other: Any) -> Expr:
        return mul(self, power(as_expr(other), MINUS_ONE))

    def __rtruediv__(self, other: Any) -> Expr:
        return mul(as_expr(other), power(self, MINUS_ONE))

    def __pow__(self, other: Any) -> Expr:
        return power(self, as_expr(other))

    def __rpow__(self, other: Any) -> Expr:
        return power(as_expr(other), self)

    def __neg__(self) -> Expr:
        return neg(self)

    def __pos__(self) -> Expr:
        return self

    def __gradcli_call__(self, name: str) -> Expr:
        """What a registry wrapper returns when given a formula: the call node."""
        return call(name, self)


class Num(Expr):
    __slots__ = ("value", "decimal")
    kind = NUM

    def __init__(self, value: Fraction, decimal: bool = False) -> None:
        super().__init__((NUM, value.numerator, value.denominator, decimal))
        self.value = value
        self.decimal = decimal


class Sym(Expr):
    __slots__ = ("name",)
    kind = SYM

    def __init__(self, name: str) -> None:
        super().__init__((SYM, name))
        self.name = name


class Call(Expr):
    __slots__ = ("name", "arg")
    kind = CALL

    def __init__(self, name: str, arg: Expr) -> None:
        super().__init__((CALL, name, arg))
        self.name = name
        self.arg = arg


class Mul(Expr):
    __slots__ = ("coeff", "factors")
    kind = MUL

    def __init__(self, coeff: Num, factors: tuple[tuple[Expr, Expr], ...]) -> None:
        super().__init__((MUL, coeff, factors))
        self.coeff = coeff
        self.factors = factors


class Add(Expr):
    __slots__ = ("const", "terms")
    kind = ADD

    def __init__(self, const: Num, terms: tuple[tuple[Expr, Num], ...]) -> None:
        super().__init__((ADD, const, terms))
        self.const = const
        self.terms = terms


ZERO = Num(Fraction(0))
ONE = Num(Fraction(1))
MINUS_ONE = Num(Fraction(-1))
HALF = Num(Fraction(1, 2))
PI = Sym("pi")
E = Sym("e")


def num(value: int | Fraction, decimal: bool = False) -> Num:
    return Num(Fraction(value), decimal)


def _nmul(a: Num, b: Num) -> Num:
    if a.value == 1 and not a.decimal:
        return b
    if b.value == 1 and not b.decimal:
        return a
    return Num(a.value * b.value, a.decimal or b.decimal)


def _nadd(a: Num, b: Num) -> Num:
    return Num(a.value + b.value, a.decimal or b.decimal)


def as_expr(v: Any) -> Expr:
    """An Expr of a rule's operand: an Expr, an int, or a float. A float in a
    rule (``0.5 / y``, ``x ** -0.5``) is taken exactly; a constant that names
    itself (the registry's ``log(2)``) becomes that expression."""
    if isinstance(v, Expr):
        return v
    named = getattr(v, "formula", None)
    if named is not None:
        fname, argument = named
        if not fname:  # a constant by its name (pi)
            return Sym(argument)
        return call(fname, as_expr(argument))
    if isinstance(v, bool) or not isinstance(v, (int, float, Fraction)):
        if hasattr(v, "item") and getattr(v, "ndim", 1) == 0:  # a NumPy scalar
            return as_expr(v.item())
        raise MathError(f"formulas cover scalar expressions; got {type(v).__name__}")
    if isinstance(v, float):
        if not math.isfinite(v):
            raise MathError(f"formulas need finite numbers; got {v}")
        exact = Fraction(v)
        if exact.denominator > 1 << 20:  # not a short binary fraction: as written
            return Num(Fraction(repr(v)), True)
        return Num(exact)
    return Num(Fraction(v))


def from_float(v: float) -> Num:
    """A number the user gave as a float, exact to its shortest repr."""
    if not math.isfinite(v):
        raise MathError(f"formulas need finite numbers; got {v}")
    if v == int(v) and abs(v) < 2**53:
        return Num(Fraction(int(v)))
    return Num(Fraction(repr(v)), True)


def split(x: Expr) -> tuple[Num, Expr]:
    """``x`` as (numeric coefficient, the rest); the rest of a number is ONE."""
    if type(x) is Num:
        return x, ONE
    if type(x) is Mul and (x.coeff.value != 1 or x.coeff.decimal):
        f = x.factors
        rest = f[0][0] if len(f) == 1 and _is_one(f[0][1]) else Mul(ONE, f)
        return x.coeff, rest
    return ONE, x


def _is_one(e: Expr) -> bool:
    return type(e) is Num and e.value == 1


def _sort_key(item: tuple[Expr, Any]) -> tuple[Any, ...]:
    return item[0].key


def add(*xs: Expr) -> Expr:
    const = ZERO
    terms: dict[Expr, Num] = {}
    stack = list(xs)
    stack.reverse()
    while stack:
        x = stack.pop()
        t = type(x)
        if t is Num:
            const = _nadd(const, x)
        elif t is Add:
            const = _nadd(const, x.const)
            for term, c in x.terms:
                old = terms.get(term)
                terms[term] = c if old is None else _nadd(old, c)
        else:
            c, term = split(x)
            old = terms.get(term)
            terms[term] = c if old is None else _nadd(old, c)
    items = [(t, c) for t, c in terms.items() if c.value != 0]
    if not items:
        return const
    if len(items) == 1 and const.value == 0:
        t, c = items[0]
        return _scale(c, t)
    items.sort(key=_sort_key)
    return Add(const, tuple(items))


def _scale(c: Num, t: Expr) -> Expr:
    """``c * t`` for a term ``t`` of a sum (never a number or a sum)."""
    if c.value == 1 and not c.decimal:
        return t
    if type(t) is Mul:
        return Mul(c, t.factors)
    return Mul(c, ((t, ONE),))


def neg(x: Expr) -> Expr:
    return mul(MINUS_ONE, x)


def mul(*xs: Expr) -> Expr:
    coeff = ONE
    factors: dict[Expr, Expr] = {}
    for x in xs:
        t = type(x)
        if t is Num:
            coeff = _nmul(coeff, x)
        elif t is Mul:
            coeff = _nmul(coeff, x.coeff)
            for b, e in x.factors:
                old = factors.get(b)
                factors[b] = e if old is None else add(old, e)
        else:
            old = factors.get(x)
            factors[x] = ONE if old is None else add(old, ONE)
    if coeff.value == 0:
        return ZERO
    return _finish(coeff, factors)


def _finish(coeff: Num, factors: dict[Expr, Expr]) -> Expr:
    items: list[tuple[Expr, Expr]] = []
    redo: list[tuple[Expr, Expr]] = []
    for b, e in factors.items():
        if type(e) is Num:
            if e.value == 0:
                continue
            if e.value.denominator == 1:
                if type(b) is Num:  # 2^(1/2) * 2^(1/2) made 2^1
                    coeff = _nmul(coeff, _num_pow(b, e))  # type: ignore[arg-type]
                    continue
                n = e.value.numerator
                if type(b) is Call and b.name == "sqrt" and (
                        n not in (1, -1) or type(factors.get(b.arg)) is Num):
                    # sqrt(u)^2 = u, sqrt(u)^3 = u^(3/2) and sqrt(u)*u = u^(3/2) where real
                    redo.append((b.arg, Num(Fraction(n, 2))))
                    continue
                if type(b) is Call and b.name == "abs" and abs(n) > 1:
                    # abs(u)^2 = u^2; abs(u)^3 = u^2*abs(u)
                    odd = n % 2 if n > 0 else -(n % 2)
                    redo.append((b.arg, Num(Fraction(n - odd))))
                    if odd:
                        items.append((b, Num(Fraction(odd))))
                    continue
        items.append((b, e))
    if redo:
        extra = mul(*(power(b, e) for b, e in redo))
        rest = Mul(coeff, tuple(sorted(items, key=_sort_key))) if items else coeff
        return mul(rest, extra)
    if not items:
        return coeff
    if len(items) == 1:
        b, e = items[0]
        if _is_one(e):
            if coeff.value == 1 and not coeff.decimal:
                return b
            if type(b) is Add:  # a rational times a sum: distributed
                return add(*(mul(_nmul(coeff, c), t) for t, c in b.terms),
                           _nmul(coeff, b.const))
    items.sort(key=_sort_key)
    return Mul(coeff, tuple(items))


def _num_pow(b: Num, e: Num) -> Expr | None:
    """``b^e`` as a number when it is exactly one, else None."""
    p, q = e.value.numerator, e.value.denominator
    v = b.value
    if v == 0:
        if p < 0:
            raise MathError("division by zero in a formula")
        return ZERO
    if abs(p) * max(v.numerator.bit_length(), v.denominator.bit_length()) > _MAX_BITS:
        return None
    if q != 1:
        if v < 0:
            return None
        rn, rd = exact_root(v.numerator, q), exact_root(v.denominator, q)
        if rn is None or rd is None:
            return None
        v = Fraction(rn, rd)
    return Num(v**p, b.decimal or e.decimal)


def power(b: Expr, e: Expr) -> Expr:
    if type(e) is Num:
        if e.value == 0:
            return ONE
        if e.value == 1 and not e.decimal:
            return b
        tb = type(b)
        if tb is Num:
            folded = _num_pow(b, e)
            if folded is not None:
                return folded
        elif tb is Mul and e.value.denominator == 1:
            c = _num_pow(b.coeff, e)
            parts = [power(fb, mul(fe, e)) for fb, fe in b.factors]
            if c is None:
                parts.append(Mul(ONE, ((b.coeff, e),)))
                c = ONE
            return mul(c, *parts)
    elif type(b) is Num and b.value == 1:
        return ONE
    return _finish(ONE, {b: e}) if not _is_one(e) else b


_AT_ZERO = {"sin": 0, "tan": 0, "asin": 0, "atan": 0, "sinh": 0, "tanh": 0, "asinh": 0,
            "atanh": 0, "sqrt": 0, "cos": 1, "cosh": 1, "exp": 1}


def call(name: str, arg: Expr) -> Expr:
    """``name(arg)``, folded where the value is exact (``sin(0)``, ``log(1)``)."""
    if type(arg) is Num:
        v = arg.value
        if v == 0 and name in _AT_ZERO:
            return Num(Fraction(_AT_ZERO[name]))
        if name == "abs":
            return Num(abs(v), arg.decimal)
        if name == "sqrt" and v >= 0:
            folded = _num_pow(arg, HALF)
            if folded is not None:
                return folded
        if v == 1 and name in ("log", "log2", "log10", "acosh"):
            return ZERO
    elif arg == E and name == "log":
        return ONE
    elif type(arg) is Call and name == "abs" and arg.name == "abs":
        return arg
    return Call(name, arg)
