"""Immutable scalar expressions in a canonical form, with exact constants.

Five kinds of node, each built only by the constructors below, which keep a
form close to SymPy's automatic one, so that equal expressions usually look
alike and the arithmetic of the derivative rules simplifies as it goes:

``Num``   an exact rational (``fractions.Fraction``); ``decimal`` marks a
          number the user typed as a decimal (``2.5``), printed as typed;
          it holds at most 17 significant digits, as a float would;
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

Exact arithmetic is bounded by its cost, not its digits: an integer or
rational result past ``MAX_BITS`` (numerator or denominator), a power that
would pass it, and a root whose index is past ``MAX_ROOT`` are folded in
floats instead, as is a decimal result outside the range of floats. A fold
that overflows is ``inf`` (the node ``INF``), with the value path's overflow
warning; ``inf - inf`` and ``0 * inf`` are refused.
"""

from __future__ import annotations

import math
import sys
from decimal import Context, Decimal, Inexact
from fractions import Fraction
from typing import Any

from ..core.running import operation
from ..errors import MathError

NUM, SYM, CALL, MUL, ADD = range(5)  # node kinds; a key's first item orders nodes
MAX_BITS = 8192
"""The most bits an exact numerator or denominator holds (about 2,466 digits,
more than a formula within the size limit prints): arithmetic on such numbers
costs microseconds; past it a result is folded in floats."""
MAX_ROOT = 64
"""The largest q for which b^(p/q) is tried as an exact root (8^(1/3) is 2);
a larger one (the 10^20 of 1e-20) is folded in floats."""
DIGITS = 17  # significant digits of a decimal number: a float's shortest repr needs no more
_FLOAT_MAX = Fraction(sys.float_info.max)
_FLOAT_TINY = Fraction(5e-324) / 2  # below it a float is 0
_DIGITS_CONTEXT = Context(prec=DIGITS, traps=[])


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
        if decimal:
            short = _short(value)
            if short != value and short.denominator == 1 and abs(short) < 2**53:
                decimal = False  # rounded to a whole number, as from_float has it
            value = short
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
INF = Sym("inf")
"""Infinity, where folding a constant overflowed (``2^1e5`` is ``inf``, as the
value path has it); printed ``inf``, which reads back as gradcli's constant."""
CONSTANTS = frozenset({"pi", "e", "inf"})
"""The names of a formula that are numbers, not variables."""


def _short(v: Fraction) -> Fraction:
    """A decimal number in at most DIGITS significant digits: kept exactly when
    it fits (``2.5``, ``1e-320``) or is a short fraction (``1/6``, printed so),
    else rounded as a float would be (``1e300 - 1`` is ``1e300``)."""
    n, d = v.numerator, v.denominator
    if d == 1 and -10**DIGITS < n < 10**DIGITS:
        return v
    ctx = _DIGITS_CONTEXT.copy()
    rounded = ctx.divide(Decimal(n), Decimal(d))
    if not ctx.flags[Inexact]:
        return v
    if n.bit_length() <= 64 and d.bit_length() <= 64 and not _terminates(d):
        return v
    if _FLOAT_TINY < abs(v) <= _FLOAT_MAX:
        return Fraction(repr(float(v)))
    return Fraction(rounded)


def _terminates(d: int) -> bool:
    """Whether 1/d has a finite decimal expansion (d a small int)."""
    d >>= (d & -d).bit_length() - 1
    while d % 5 == 0:
        d //= 5
    return d == 1


def num(value: int | Fraction, decimal: bool = False) -> Num:
    return Num(Fraction(value), decimal)


def _nmul(a: Num, b: Num) -> Num:
    if a.value == 1 and not a.decimal:
        return b
    if b.value == 1 and not b.decimal:
        return a
    return bounded(a.value * b.value, a.decimal or b.decimal, "'*'")


def _nadd(a: Num, b: Num) -> Num:
    return bounded(a.value + b.value, a.decimal or b.decimal, "'+'")


def bounded(v: Fraction, decimal: bool, op: str) -> Num:
    """The number ``v`` that the operation ``op`` made: exact while it is
    cheap (see MAX_BITS) and, for a decimal, within the range of floats;
    else folded in floats (``INF`` past their range, with the warning)."""
    if v.numerator.bit_length() <= MAX_BITS and v.denominator.bit_length() <= MAX_BITS and (
            not decimal or v == 0 or _FLOAT_TINY < abs(v) <= _FLOAT_MAX):
        return Num(v, decimal)
    if abs(v) <= _FLOAT_MAX:
        return from_float(float(v)) if abs(v) > _FLOAT_TINY else ZERO
    raise Overflow(op, v < 0)


class Overflow(ArithmeticError):
    """A fold's result past the range of floats: the constructors catch it and
    make ``INF`` (see ``infinity``)."""

    def __init__(self, op: str, negative: bool) -> None:
        super().__init__(op)
        self.op, self.negative = op, negative


def infinity(err: Overflow) -> Expr:
    """``inf`` (or ``-inf``) for an overflowing fold, warned of as the value
    path warns of one: NumPy reports it to the session's capture (core/fpe.py)."""
    import numpy as np  # only an overflowing fold needs it

    if np.geterr()["over"] == "call":  # inside the session's capture of fp errors
        with operation(err.op):
            np.multiply(np.float64(sys.float_info.max), np.float64(2.0))
    return Mul(MINUS_ONE, ((INF, ONE),)) if err.negative else INF


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


def typed(text: str) -> Expr:
    """A number as the user typed it (``2.5``, ``1e-320``): exact, a decimal if
    written with ``.`` or ``e``; past MAX_BITS, as its float (``1e999999`` is
    ``inf``, whose exact value would take seconds to build)."""
    mantissa, _, exponent = text.lower().partition("e")
    digits = len(mantissa) + abs(int(exponent or 0)) if len(exponent) < 12 else math.inf
    if digits * 3.33 > MAX_BITS:
        f = float(text)
        return infinity(Overflow("number", False)) if math.isinf(f) else from_float(f)
    return Num(Fraction(text), any(c in text for c in ".eE"))


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
            const = _plus(const, x, stack)
        elif t is Add:
            const = _plus(const, x.const, stack)
            for term, c in x.terms:
                _collect(terms, term, c, stack)
        else:
            c, term = split(x)
            _collect(terms, term, c, stack)
    inf = terms.get(INF)
    if inf is not None:
        if inf.value == 0:
            raise MathError("inf - inf is undefined in a formula")
        terms[INF] = ONE if inf.value > 0 else MINUS_ONE
        const = ZERO
    items = [(t, c) for t, c in terms.items() if c.value != 0]
    if not items:
        return const
    if len(items) == 1 and const.value == 0:
        t, c = items[0]
        return _scale(c, t)
    items.sort(key=_sort_key)
    return Add(const, tuple(items))


def _plus(const: Num, c: Num, stack: list[Expr]) -> Num:
    """A sum's constant plus ``c``; past the floats, zero, with inf to add."""
    try:
        return _nadd(const, c)
    except Overflow as err:
        stack.append(infinity(err))
        return ZERO


def _collect(terms: dict[Expr, Num], term: Expr, c: Num, stack: list[Expr]) -> None:
    """Add ``c`` to the coefficient of ``term``; past the floats, inf*term to add."""
    old = terms.get(term)
    if old is None:
        terms[term] = c
        return
    try:
        terms[term] = _nadd(old, c)
    except Overflow as err:
        del terms[term]
        stack.append(mul(infinity(err), term))


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
            coeff = _times(coeff, x, factors)
        elif t is Mul:
            coeff = _times(coeff, x.coeff, factors)
            for b, e in x.factors:
                old = factors.get(b)
                factors[b] = e if old is None else add(old, e)
        else:
            old = factors.get(x)
            factors[x] = ONE if old is None else add(old, ONE)
    inf = factors.get(INF)
    if type(inf) is Num:
        if inf.value < 0:  # u/inf
            return ZERO
        if coeff.value == 0:
            raise MathError("0 * inf is undefined in a formula")
        factors[INF] = ONE
        coeff = ONE if coeff.value > 0 else MINUS_ONE
    if coeff.value == 0:
        return ZERO
    return _finish(coeff, factors)


def _times(a: Num, b: Num, factors: dict[Expr, Expr]) -> Num:
    """The coefficient ``a*b``; past the floats, its sign, with inf a factor."""
    try:
        return _nmul(a, b)
    except Overflow as err:
        infinity(err)  # (the warning)
        factors[INF] = ONE
        return MINUS_ONE if err.negative else ONE


def _finish(coeff: Num, factors: dict[Expr, Expr]) -> Expr:
    items: list[tuple[Expr, Expr]] = []
    redo: list[tuple[Expr, Expr]] = []
    for b, e in factors.items():
        if type(e) is Num:
            if e.value == 0:
                continue
            if e.value.denominator == 1:
                if type(b) is Num:  # 2^(1/2) * 2^(1/2) made 2^1
                    redo.append((b, e))
                    continue
                n = e.value.numerator
                if type(b) is Call and b.name == "sqrt" and n % 2 and (
                        n not in (1, -1) or type(factors.get(b.arg)) is Num):
                    # sqrt(u)^3 = u^(3/2) and sqrt(u)*u = u^(3/2), undefined where sqrt(u)
                    # is (u < 0); an even power stays, as sqrt(u)^2 = u would define it there
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
                return add(*(mul(coeff, c, t) for t, c in b.terms), mul(coeff, b.const))
    items.sort(key=_sort_key)
    return Mul(coeff, tuple(items))


def exact_root(n: int, q: int) -> int | None:
    """The exact q-th root of n >= 0, or None (8^(1/3) is 2)."""
    if n < 2:
        return n
    if q > n.bit_length() or n.bit_length() >= 1000:  # c^q > n for every c >= 2
        return None
    r = round(n ** (1.0 / q))
    for c in (r - 1, r, r + 1):
        if c >= 0 and c**q == n:
            return c
    return None


def _num_pow(b: Num, e: Num) -> Expr | None:
    """``b^e`` as a number: exact while that is cheap, else folded in floats
    (``INF`` past them); None where it stays a power (``2^(1/3)``, ``(-8)^0.5``)."""
    p, q = e.value.numerator, e.value.denominator
    v = b.value
    decimal = b.decimal or e.decimal
    if v == 0:
        if p < 0:
            raise MathError("division by zero in a formula")
        return ZERO
    bits = max(v.numerator.bit_length(), v.denominator.bit_length())
    if q != 1:
        if v < 0:
            return None
        if q > MAX_ROOT or bits > MAX_BITS:
            return _float_pow(v, e.value)
        rn, rd = exact_root(v.numerator, q), exact_root(v.denominator, q)
        if rn is None or rd is None:
            return None
        v = Fraction(rn, rd)
        bits = max(rn.bit_length(), rd.bit_length())
    size = max(_log2(v.numerator), _log2(v.denominator))
    if size and abs(p) > MAX_BITS / size:  # p itself may be past the floats
        return _float_pow(v, Fraction(p))
    try:
        return bounded(v**p, decimal, "'**'")
    except Overflow as err:
        return infinity(err)


def _log2(n: int) -> float:
    return math.log2(abs(n)) if n else 0.0


def _float_pow(v: Fraction, e: Fraction) -> Expr:
    """``v^e`` in floats (v > 0, or e a whole number)."""
    negative = v < 0 and e.denominator == 1 and e.numerator % 2 == 1
    try:
        return from_float(float(v) ** float(e))
    except (OverflowError, ZeroDivisionError):  # the float of v, or the power
        pass
    # v or the power is past the floats: by logarithms
    a = abs(v)
    scale = math.log(a.numerator) - math.log(a.denominator)
    try:
        log = scale * float(e)
    except OverflowError:  # an exponent past the floats: only its sign counts
        log = math.copysign(math.inf, scale) * (1 if e > 0 else -1) if scale else 0.0
    if log < math.log(5e-324) - math.log(2):
        return ZERO
    if log <= math.log(sys.float_info.max):
        f = math.exp(log)
        return from_float(-f if negative else f)
    return infinity(Overflow("'**'", negative))


def power(b: Expr, e: Expr) -> Expr:
    if type(e) is Num:
        if e.value == 0:
            return ONE
        if e.value == 1 and not e.decimal:
            return b
        tb = type(b)
        if b == INF:
            return INF if e.value > 0 else ZERO
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
