"""A Taylor polynomial written as mathematics: ``x + x^2 + x^3/3 - x^5/30``.

The coefficients come as floats (from Taylor mode). One that is a simple
rational within rounding is written exactly: p/q with q at most
MAX_DENOMINATOR, or such a rational over k! for the k-th coefficient (the
1/362880 of sin's x^9). One that is no simple rational and below NOISE times
its larger neighbour is rounding noise (cos about pi gives 1.2e-16 for its
odd terms) and is left out. The expansion point is written as the caller gives it: ``(x - pi)``.
The text is gradcli input: pasted back, it evaluates to the polynomial.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any

from ..errors import GradcliError

NOISE = 1e-14
TOLERANCE = 2e-14  # about a hundred roundings; a typed 12-digit decimal is farther
MAX_DENOMINATOR = 1000
_MAX_FACTORIAL = 10**15  # k! beyond this no longer holds every digit in a float
_POINT_ROUNDING = 2.0**-52  # twice the point's relative rounding, 2^-53


def exact_coefficient(c: float, k: int = 0, tolerance: float = TOLERANCE) -> Fraction | None:
    """``c`` as a simple rational (see the module's note), or None."""
    if not math.isfinite(c):
        return None
    if c == 0:
        return Fraction(0)
    mults = [1]
    factorial = math.factorial(k)
    if 1 < factorial <= _MAX_FACTORIAL:
        mults.append(factorial)
    for m in mults:
        scaled = c * m
        if abs(scaled) > 1e15:
            continue
        r = Fraction(scaled).limit_denominator(MAX_DENOMINATOR)
        if r != 0 and abs(float(r) - scaled) <= tolerance * abs(scaled):
            return r / m
    return None


def _base(var: str, point: str | float | None) -> str:
    text = "0" if point is None else (point if isinstance(point, str) else repr(float(point)))
    text = text.strip()
    try:
        if float(text) == 0:
            return var
    except ValueError:
        pass
    if _is_sum(text):  # x=1+1: (x - (1+1)), not (x - 1+1)
        return f"({var} - ({text}))"
    if text.startswith("-"):
        return f"({var} + {text[1:].strip()})"
    if text.startswith("+"):
        text = text[1:].strip()
    return f"({var} - {text})"


_EXPONENT = re.compile(r"(?:^|[^\w.])(?:[0-9]+\.?[0-9]*|\.[0-9]+)[eE]$")


def _is_sum(text: str) -> bool:
    """Whether ``text`` has a '+' or '-' between terms outside brackets (not a
    sign, nor an exponent's, as in 1e-3)."""
    depth = 0
    for i, char in enumerate(text):
        if char in "([":
            depth += 1
        elif char in ")]":
            depth -= 1
        elif char in "+-" and depth == 0 and i:
            before = text[:i].rstrip()
            if before and (before[-1].isalnum() or before[-1] in "._)]'") \
                    and not (len(before) == i and _EXPONENT.search(before)):
                return True
    return False


def _is_noise(cs: list[float], k: int, noise: float, at: float | None,
              tolerance: float = TOLERANCE, point_rounding: float = _POINT_ROUNDING) -> bool:
    """Whether c_k is rounding noise: far below both its neighbours (cos about
    pi has -1.2e-16 between -1 and 1/2), and no simple rational. Against the
    largest coefficient instead, exp's 1/20! and the x of 1e15 + x were lost.
    The value c_0 is computed directly, so it is noise only if the point's own
    rounding (at most |a| 2^-53, times the slope c_1; twice that allowed)
    explains it: sin about pi gives 1.2e-16, noise; sin(x) + 1e-15 about pi
    and sin about 1e-20 keep theirs."""
    c = cs[k]
    if not math.isfinite(c) or exact_coefficient(c, k, tolerance) is not None:
        return False
    near = [abs(cs[j]) for j in (k - 1, k + 1) if 0 <= j < len(cs) and math.isfinite(cs[j])]
    if not near or abs(c) >= noise * min(near):  # below both neighbours
        return False
    if k == 0 and at is not None and len(cs) > 1:
        return abs(c) <= point_rounding * abs(at) * abs(cs[1])
    return True


_FLOAT64_EPS = 2.0**-52


def _precision(coefficients: Sequence[Any]) -> float:
    """The machine epsilon of the coarsest floating type among ``coefficients``
    (float64's for Python floats)."""
    eps = _FLOAT64_EPS
    for c in coefficients:
        dtype = getattr(c, "dtype", None)
        if dtype is not None and dtype.kind == "f" and dtype.itemsize < 8:
            eps = max(eps, 2.0**-23 if dtype.itemsize == 4 else 2.0**-10)
    return eps


def series_text(coefficients: Sequence[float], var: str = "x",
                point: str | float | None = None,
                number: Callable[[float], str] | None = None,
                noise: float = NOISE, at: float | None = None, latex: bool = False) -> str:
    """``c0 + c1*(x - a) + c2*(x - a)^2 + ...`` as mathematics.

    ``point``: the expansion point as the user wrote it (``"pi"``), or a
    number, or None for 0. ``number`` writes a coefficient that is not a
    simple rational (default: its shortest repr). ``at``: the point's value
    when ``point`` is text, for judging the value c_0 (see _is_noise); without
    it the value is judged as the other coefficients are. An all-zero series
    is "0". ``latex``: as LaTeX, ``\\frac{\\left(x - \\pi\\right)^{3}}{6}``.
    """
    write = number or (lambda v: repr(float(v)))
    # noise is judged in units of the coefficients' own precision (float32's
    # is 2^29 times float64's: its sin about pi has -8.7e-08); a simple
    # rational is not, as float32's rounding is wider than the rationals'
    # spacing (its sin(1) is within 1e-5 of 775/921)
    coarser = _precision(coefficients) / _FLOAT64_EPS
    tolerance, noise, rounding = TOLERANCE, noise * coarser, _POINT_ROUNDING * coarser
    cs = [float(c) for c in coefficients]
    base = _base_latex(var, point) if latex else _base(var, point)
    if at is None and not isinstance(point, str):
        at = 0.0 if point is None else float(point)
    terms: list[tuple[bool, str]] = []  # (negative, text of the magnitude)
    for k, c in enumerate(cs):
        if c == 0 or _is_noise(cs, k, noise, at, tolerance, rounding):
            continue
        power = "" if k == 0 else base if k == 1 else f"{base}^{{{k}}}" if latex \
            else f"{base}^{k}"
        exact = exact_coefficient(c, k, tolerance)
        if exact is not None:
            p, q = abs(exact.numerator), exact.denominator
            top = str(p) if not power else power if p == 1 else \
                f"{p} {power}" if latex else f"{p}*{power}"
            text = top if q == 1 else f"\\frac{{{top}}}{{{q}}}" if latex else f"{top}/{q}"
            terms.append((exact < 0, text))
            continue
        shown = write(c) if math.isnan(c) else write(abs(c))
        if latex:
            shown = _latex_number(shown)
        negative = c < 0  # -inf too: "- inf*x^2"
        terms.append((negative, shown if not power else
                      f"{shown} {power}" if latex else f"{shown}*{power}"))
    if not terms:
        return "0"
    neg, text = terms[0]
    out = f"-{text}" if neg else text
    for neg, text in terms[1:]:
        out += f" - {text}" if neg else f" + {text}"
    return out


def formula_series_text(coefficients: Sequence[Any], var: str = "x",
                        point: str | None = None, latex: bool = False) -> str:
    """``c0 + c1*(x - a) + ...`` whose coefficients are formulas (``Expr``), in
    the formula printer's style: each term is the product c_k*x^k as that
    printer writes it (``x^2*y``, ``a^2*x^2/2``, ``x^3*(1 - y/6)``), with the
    variable written as ``(x - a)`` about a point a (``point``: as the user
    wrote it; None for 0). Zero terms are left out; all zero is "0"."""
    import copy

    from .expr import ZERO, Sym, num, power
    from .printing import LATEX, PLAIN, write

    style = LATEX if latex else PLAIN
    base = _base_latex(var, point) if latex else _base(var, point)
    if base != var:  # the variable itself is written as the base (the coefficients have none)
        name = style.name
        style = copy.copy(style)
        style.name = lambda n: base if n == var else name(n)
    x = Sym(var)
    out = ""
    for k, c in enumerate(coefficients):
        if c == ZERO:
            continue
        text = write(c if k == 0 else c * power(x, num(k)), style)[0]
        if out:
            out += f" - {text[1:]}" if text.startswith("-") else f" + {text}"
        else:
            out = text
    return out or "0"


def _latex_number(text: str) -> str:
    """A number as the plain format writes it, in LaTeX: 1.5 \\cdot 10^{-10}."""
    from .printing import scientific_latex

    if text in ("inf", "nan"):
        return r"\infty" if text == "inf" else r"\mathrm{NaN}"
    return scientific_latex(text)


def _base_latex(var: str, point: str | float | None) -> str:
    """``\\left(x - \\pi\\right)``: the point as its formula's LaTeX."""
    plain = _base(var, point)
    if plain == var:
        return var
    text = point if isinstance(point, str) else repr(float(point))  # type: ignore[arg-type]
    try:
        from ..lang.parser import parse
        from .expr import ADD
        from .from_ast import from_ast
        from .printing import latex

        statements = parse(text)
        formula = from_ast(statements[0].node) if len(statements) == 1 else None
    except GradcliError:  # too large a formula, say: the point as written
        formula = None
    if formula is None:
        return rf"\left({plain[1:-1]}\right)"
    value = latex(formula)
    if formula.kind == ADD:  # pi - 3: x - (pi - 3)
        return rf"\left({var} - \left({value}\right)\right)"
    if value.startswith("-"):
        return rf"\left({var} + {value[1:]}\right)"
    return rf"\left({var} - {value}\right)"


__all__ = ["MAX_DENOMINATOR", "NOISE", "TOLERANCE", "exact_coefficient", "formula_series_text",
           "series_text"]
