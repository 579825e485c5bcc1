"""Formulas as text: gradcli's own input syntax, and LaTeX.

The plain text is valid gradcli input (``^`` for powers, ``*`` written out,
built-in names), so a printed derivative pasted back evaluates to it. Both
printers share one reading order: in a sum, terms by descending degree with
the constant last, and a negative term as a subtraction; in a product, the
number first, then names, calls and bracketed sums, and a quotient where an
exponent is negative (``(x*cos(x) - sin(x))/x^2``); ``u^(1/2)`` is ``sqrt(u)``.
"""

from __future__ import annotations

from decimal import Decimal, localcontext
from fractions import Fraction

from .expr import ADD, CALL, MUL, NUM, SYM, Expr, Mul, Num, mul

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
        return Fraction(0) if term.name in ("pi", "e") else Fraction(1)  # type: ignore[attr-defined]
    if term.kind == MUL:
        return sum((e.value for b, e in term.factors  # type: ignore[attr-defined]
                    if b.kind == SYM and e.kind == NUM and b.name not in ("pi", "e")),
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
        constant = b.kind == SYM and b.name in ("pi", "e")  # type: ignore[attr-defined]
        return (-1 if constant else _FACTOR_RANK[b.kind], -_degree(b))

    for b, e in sorted(factors, key=rank):
        if e.kind == NUM and e.value < 0:  # type: ignore[attr-defined]
            bottom.append((b, Num(-e.value, e.decimal)))  # type: ignore[attr-defined]
        else:
            top.append((b, e))
    return coeff, top, bottom


# --- plain -----------------------------------------------------------------------


def plain(x: Expr) -> str:
    """``x`` in gradcli's input syntax."""
    return _plain(x)[0]


def _plain(x: Expr) -> tuple[str, int]:
    k = x.kind
    if k == NUM:
        text = number_text(x)  # type: ignore[arg-type]
        if text.startswith("-"):
            return text, _NEG
        return text, (_MUL if "/" in text else _ATOM)
    if k == SYM:
        return x.name, _ATOM  # type: ignore[attr-defined]
    if k == CALL:
        return f"{x.name}({plain(x.arg)})", _ATOM  # type: ignore[attr-defined]
    if k == ADD:
        return _plain_sum(x), _ADD
    return _plain_product(x)


def _plain_sum(x: Expr) -> str:
    out = ""
    for c, t in ordered_terms(x):
        text = number_text(Num(abs(c.value), c.decimal)) if t is None else \
            _plain_product_abs(c, t)
        if not out:
            out = f"-{text}" if c.value < 0 else text
        else:
            out += f" - {text}" if c.value < 0 else f" + {text}"
    return out


def _plain_product_abs(c: Num, t: Expr) -> str:
    text, _ = _plain(mul(Num(abs(c.value), c.decimal), t))
    return text


def _plain_power(b: Expr, e: Expr) -> str:
    if e.kind == NUM and not e.decimal:  # type: ignore[attr-defined]
        v = e.value  # type: ignore[attr-defined]
        if v == 1:
            text, prec = _plain(b)
            return text if prec > _MUL else f"({text})"
        if v == Fraction(1, 2):
            return f"sqrt({plain(b)})"
    base, prec = _plain(b)
    if prec < _ATOM or (b.kind == NUM and b.value.denominator != 1):  # type: ignore[attr-defined]
        base = f"({base})"
    exp, eprec = _plain(e)
    if eprec < _ATOM or exp.startswith("-"):
        exp = f"({exp})"
    return f"{base}^{exp}"


def _plain_product(x: Expr) -> tuple[str, int]:
    coeff, top, bottom = product_parts(x)
    v = coeff.value
    nums = [_plain_power(b, e) for b, e in top]
    dens = [_plain_power(b, e) for b, e in bottom]
    text = number_text(Num(abs(v), coeff.decimal))
    if coeff.decimal and "/" not in text:
        if abs(v) != 1 or not nums:
            nums.insert(0, text)
    else:
        if abs(v.numerator) != 1 or not nums:
            nums.insert(0, str(abs(v.numerator)))
        if v.denominator != 1:
            dens.insert(0, str(v.denominator))
    text = "*".join(nums)
    if dens:
        den = dens[0] if len(dens) == 1 else "(" + "*".join(dens) + ")"
        text = f"{text}/{den}"
    if v < 0:
        return f"-{text}", _NEG
    return text, _MUL


# --- LaTeX -----------------------------------------------------------------------

_LATEX_CALLS = {
    "sin": r"\sin", "cos": r"\cos", "tan": r"\tan", "asin": r"\arcsin", "acos": r"\arccos",
    "atan": r"\arctan", "sinh": r"\sinh", "cosh": r"\cosh", "tanh": r"\tanh",
    "log": r"\log", "log2": r"\log_{2}", "log10": r"\log_{10}",
    "sec": r"\sec", "csc": r"\csc", "cot": r"\cot", "coth": r"\coth",
}
_LATEX_NAMES = {"pi": r"\pi"}


def latex(x: Expr) -> str:
    """``x`` as LaTeX: ``4 x^{3} - 4 x``, ``\\frac{..}{..}``, ``\\sin\\left(x\\right)``."""
    return _latex(x)[0]


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


def _latex(x: Expr) -> tuple[str, int]:
    k = x.kind
    if k == NUM:
        text = _latex_number(x)  # type: ignore[arg-type]
        return text, (_NEG if text.startswith("-") else _ATOM)
    if k == SYM:
        name = x.name  # type: ignore[attr-defined]
        return _LATEX_NAMES.get(name, name if len(name) == 1 else rf"\mathrm{{{name}}}"), _ATOM
    if k == CALL:
        name, arg = x.name, latex(x.arg)  # type: ignore[attr-defined]
        if name == "sqrt":
            return rf"\sqrt{{{arg}}}", _ATOM
        if name == "abs":
            return rf"\left|{arg}\right|", _ATOM
        if name == "exp":
            return rf"e^{{{arg}}}", _POW
        head = _LATEX_CALLS.get(name, rf"\operatorname{{{name}}}")
        return rf"{head}\left({arg}\right)", _ATOM
    if k == ADD:
        out = ""
        for c, t in ordered_terms(x):
            mag = Num(abs(c.value), c.decimal)
            text = _latex_number(mag) if t is None else _latex(mul(mag, t))[0]
            out += (("-" if c.value < 0 else "") + text) if not out else \
                (f" - {text}" if c.value < 0 else f" + {text}")
        return out, _ADD
    return _latex_product(x)


def _latex_power(b: Expr, e: Expr) -> str:
    if e.kind == NUM and not e.decimal:  # type: ignore[attr-defined]
        v = e.value  # type: ignore[attr-defined]
        if v == 1:
            text, prec = _latex(b)
            return text if prec > _MUL else rf"\left({text}\right)"
        if v == Fraction(1, 2):
            return rf"\sqrt{{{latex(b)}}}"
    base, prec = _latex(b)
    if prec < _ATOM or (b.kind == NUM and b.value.denominator != 1):  # type: ignore[attr-defined]
        base = rf"\left({base}\right)"
    return f"{base}^{{{latex(e)}}}"


def _latex_product(x: Expr) -> tuple[str, int]:
    coeff, top, bottom = product_parts(x)
    v = coeff.value
    nums = [_latex_power(b, e) for b, e in top]
    dens = [_latex_power(b, e) for b, e in bottom]
    mag = Num(abs(v), coeff.decimal)
    if coeff.decimal and "/" not in number_text(mag):
        if abs(v) != 1 or not nums:
            nums.insert(0, _latex_number(mag))
    else:
        if abs(v.numerator) != 1 or not nums:
            nums.insert(0, str(abs(v.numerator)))
        if v.denominator != 1:
            dens.insert(0, str(v.denominator))
    text = " ".join(nums)
    if dens:
        text = rf"\frac{{{text}}}{{{' '.join(dens)}}}"
    if v < 0:
        return f"-{text}", _NEG
    return text, _MUL


__all__ = ["decimal_text", "latex", "number_text", "plain", "scientific_latex"]
