"""Formulas as text: gradcli's own input syntax, and LaTeX.

The plain text is valid gradcli input (``^`` for powers, ``*`` written out,
built-in names), so a printed derivative pasted back evaluates to it. Both
printers share one reading order: in a sum, terms by descending degree with
the constant last, and a negative term as a subtraction; in a product, the
number first, then names, calls and bracketed sums, and a quotient where an
exponent is negative (``(x*cos(x) - sin(x))/x^2``); ``u^(1/2)`` is ``sqrt(u)``.
They are one printer (``write``); a ``Style`` says how each piece is written.
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal, localcontext
from fractions import Fraction

from .expr import ADD, CALL, CONSTANTS, MUL, NUM, SYM, Expr, Mul, Num, mul

_ATOM, _POW, _MUL, _NEG, _ADD = 5, 4, 3, 2, 1


def decimal_text(v: Fraction) -> str | None:
    """The exact decimal digits of ``v``, or None if they never end."""
    d = v.denominator
    for p in (2, 5):
        while d % p == 0:
            d //= p
    if d != 1:
        return None
    with localcontext() as ctx:
        ctx.prec = 400
        dec = (Decimal(v.numerator) / Decimal(v.denominator)).normalize()
    if -8 <= dec.adjusted() <= 16:
        text = format(dec, "f")
    else:
        text = format(dec, "e").replace("e+", "e")
    return text


def number_text(n: Num) -> str:
    v = n.value
    if v.denominator == 1 and not (n.decimal and abs(v) >= 10**16):
        return str(v.numerator)
    if n.decimal:
        text = decimal_text(v)
        if text is not None:
            return text
    return f"{v.numerator}/{v.denominator}"


def _degree(term: Expr) -> Fraction:
    """The total degree of a term in its names (pi and e are numbers)."""
    if term.kind == SYM:
        return Fraction(0) if term.name in CONSTANTS else Fraction(1)  # type: ignore[attr-defined]
    if term.kind == MUL:
        return sum((e.value for b, e in term.factors  # type: ignore[attr-defined]
                    if b.kind == SYM and e.kind == NUM and b.name not in CONSTANTS),
                   Fraction(0))
    return Fraction(0)


def _total(term: Expr) -> Fraction:
    """The sum of a term's numeric exponents: tan(x)^4 before tan(x)^2."""
    if term.kind == MUL:
        return sum((e.value for _, e in term.factors if e.kind == NUM),  # type: ignore[attr-defined]
                   Fraction(0))
    return Fraction(1)


def ordered_terms(x: Expr) -> list[tuple[Num, Expr | None]]:
    """The terms of a sum in reading order, as (coefficient, rest): by
    descending degree, the constant (rest None) last, except that a
    positive constant goes first where every term is negative (``1 - x^2``)."""
    terms = sorted(x.terms, key=lambda tc: (-_degree(tc[0]), -_total(tc[0])))  # type: ignore[attr-defined]
    out: list[tuple[Num, Expr | None]] = [(c, t) for t, c in terms]
    if x.const.value != 0:  # type: ignore[attr-defined]
        out.append((x.const, None))  # type: ignore[attr-defined]
    if out[-1][1] is None and out[-1][0].value > 0 and all(c.value < 0 for c, _ in out[:-1]):
        out.insert(0, out.pop())
    return out


_FACTOR_RANK = {SYM: 0, NUM: 1, CALL: 2, MUL: 3, ADD: 4}


def product_parts(x: Expr) -> tuple[Num, list[tuple[Expr, Expr]], list[tuple[Expr, Expr]]]:
    """A product as (coefficient, numerator factors, denominator factors);
    each factor is (base, exponent), the denominator's exponents made positive."""
    top: list[tuple[Expr, Expr]] = []
    bottom: list[tuple[Expr, Expr]] = []
    coeff = x.coeff if type(x) is Mul else Num(Fraction(1))  # type: ignore[attr-defined]
    factors = x.factors if type(x) is Mul else ((x, Num(Fraction(1))),)  # type: ignore[attr-defined]
    def rank(be: tuple[Expr, Expr]) -> tuple[int, Fraction]:
        b = be[0]
        constant = b.kind == SYM and b.name in CONSTANTS  # type: ignore[attr-defined]
        return (-1 if constant else _FACTOR_RANK[b.kind], -_degree(b))

    for b, e in sorted(factors, key=rank):
        if e.kind == NUM and e.value < 0:  # type: ignore[attr-defined]
            bottom.append((b, Num(-e.value, e.decimal)))  # type: ignore[attr-defined]
        else:
            top.append((b, e))
    return coeff, top, bottom


# --- one printer, two styles ----------------------------------------------------


class Style:
    """How a printer writes each piece; ``PLAIN`` and ``LATEX`` are the two."""

    def __init__(self, number: Callable[[Num], str], number_rank: Callable[[str], int],
                 name: Callable[[str], str], call: Callable[[str, str], tuple[str, int]],
                 paren: str, sqrt: str, power: Callable[[str, str, int], str], times: str,
                 quotient: Callable[[str, list[str]], str]) -> None:
        self.number, self.number_rank, self.name, self.call = number, number_rank, name, call
        self.paren, self.sqrt, self.power, self.times = paren, sqrt, power, times
        self.quotient = quotient


def _plain_rank(text: str) -> int:
    return _NEG if text.startswith("-") else (_MUL if "/" in text else _ATOM)


def _plain_power(base: str, exp: str, eprec: int) -> str:
    if eprec < _ATOM or exp.startswith("-"):
        exp = f"({exp})"
    return f"{base}^{exp}"


def _plain_quotient(top: str, dens: list[str]) -> str:
    den = dens[0] if len(dens) == 1 else "(" + "*".join(dens) + ")"
    return f"{top}/{den}"


PLAIN = Style(
    number=number_text, number_rank=_plain_rank, name=lambda name: name,
    call=lambda name, arg: (f"{name}({arg})", _ATOM), paren="({})", sqrt="sqrt({})",
    power=_plain_power, times="*", quotient=_plain_quotient,
)

_LATEX_CALLS = {
    "sin": r"\sin", "cos": r"\cos", "tan": r"\tan", "asin": r"\arcsin", "acos": r"\arccos",
    "atan": r"\arctan", "sinh": r"\sinh", "cosh": r"\cosh", "tanh": r"\tanh",
    "log": r"\log", "log2": r"\log_{2}", "log10": r"\log_{10}",
    "sec": r"\sec", "csc": r"\csc", "cot": r"\cot", "coth": r"\coth",
}
_LATEX_NAMES = {"pi": r"\pi", "inf": r"\infty"}


def _latex_number(n: Num) -> str:
    v = n.value
    text = number_text(Num(abs(v), n.decimal))
    if "/" in text:
        text = rf"\frac{{{v.numerator.__abs__()}}}{{{v.denominator}}}"
    return ("-" if v < 0 else "") + scientific_latex(text)


def scientific_latex(text: str) -> str:
    """A number written ``1.5e-10`` as LaTeX, ``1.5 \\cdot 10^{-10}``; others as given."""
    mantissa, e, exponent = text.partition("e")
    return rf"{mantissa} \cdot 10^{{{int(exponent)}}}" if e else text


def _latex_call(name: str, arg: str) -> tuple[str, int]:
    if name == "sqrt":
        return rf"\sqrt{{{arg}}}", _ATOM
    if name == "abs":
        return rf"\left|{arg}\right|", _ATOM
    if name == "exp":
        return rf"e^{{{arg}}}", _POW
    head = _LATEX_CALLS.get(name, rf"\operatorname{{{name}}}")
    return rf"{head}\left({arg}\right)", _ATOM


LATEX = Style(
    number=_latex_number, number_rank=lambda text: _NEG if text.startswith("-") else _ATOM,
    name=lambda name: _LATEX_NAMES.get(name, name if len(name) == 1 else rf"\mathrm{{{name}}}"),
    call=_latex_call, paren=r"\left({}\right)", sqrt=r"\sqrt{{{}}}",
    power=lambda base, exp, eprec: f"{base}^{{{exp}}}", times=" ",
    quotient=lambda top, dens: rf"\frac{{{top}}}{{{' '.join(dens)}}}",
)


def plain(x: Expr) -> str:
    """``x`` in gradcli's input syntax."""
    return write(x, PLAIN)[0]


def latex(x: Expr) -> str:
    """``x`` as LaTeX: ``4 x^{3} - 4 x``, ``\\frac{..}{..}``, ``\\sin\\left(x\\right)``."""
    return write(x, LATEX)[0]


def write(x: Expr, style: Style) -> tuple[str, int]:
    """``x`` in ``style``, with its precedence (how tightly it binds)."""
    k = x.kind
    if k == NUM:
        text = style.number(x)  # type: ignore[arg-type]
        return text, style.number_rank(text)
    if k == SYM:
        return style.name(x.name), _ATOM  # type: ignore[attr-defined]
    if k == CALL:
        return style.call(x.name, write(x.arg, style)[0])  # type: ignore[attr-defined]
    if k == ADD:
        return _sum(x, style), _ADD
    return _product(x, style)


def _sum(x: Expr, style: Style) -> str:
    out = ""
    for c, t in ordered_terms(x):
        mag = Num(abs(c.value), c.decimal)
        text = style.number(mag) if t is None else write(mul(mag, t), style)[0]
        if not out:
            out = f"-{text}" if c.value < 0 else text
        else:
            out += f" - {text}" if c.value < 0 else f" + {text}"
    return out


def _power(b: Expr, e: Expr, style: Style) -> str:
    if e.kind == NUM and not e.decimal:  # type: ignore[attr-defined]
        v = e.value  # type: ignore[attr-defined]
        if v == 1:
            text, prec = write(b, style)
            return text if prec > _MUL else style.paren.format(text)
        if v == Fraction(1, 2):
            return style.sqrt.format(write(b, style)[0])
    base, prec = write(b, style)
    if prec < _ATOM or (b.kind == NUM and b.value.denominator != 1):  # type: ignore[attr-defined]
        base = style.paren.format(base)
    exp, eprec = write(e, style)
    return style.power(base, exp, eprec)


def _product(x: Expr, style: Style) -> tuple[str, int]:
    coeff, top, bottom = product_parts(x)
    v = coeff.value
    nums = [_power(b, e, style) for b, e in top]
    dens = [_power(b, e, style) for b, e in bottom]
    mag = Num(abs(v), coeff.decimal)
    if coeff.decimal and "/" not in number_text(mag):
        if abs(v) != 1 or not nums:
            nums.insert(0, style.number(mag))
    else:
        if abs(v.numerator) != 1 or not nums:
            nums.insert(0, str(abs(v.numerator)))
        if v.denominator != 1:
            dens.insert(0, str(v.denominator))
    text = style.times.join(nums)
    if dens:
        text = style.quotient(text, dens)
    if v < 0:
        return f"-{text}", _NEG
    return text, _MUL


__all__ = ["LATEX", "PLAIN", "Style", "decimal_text", "latex", "number_text", "plain",
           "scientific_latex", "write"]
