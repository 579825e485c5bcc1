"""What a name is, for the options and commands that take one outside an expression
(``--at x₁=2``, ``--wrt``): the grammar's NAME terminal, without loading the parser;
and what a number typed as another notation (1_000, 0x10) meant."""

from __future__ import annotations

import re

from ..limits import SUPERSCRIPT_DIGITS  # ⁰..⁹

SUPERSCRIPT_MINUS = "\u207b"  # ⁻, as in x⁻¹
"""With SUPERSCRIPT_DIGITS, the typeset exponents: x² is x^2 and x⁻¹ is x^-1
(as qalc reads them). The grammar's NAME and SUPERSCRIPT terminals spell the
same characters (a test holds them equal)."""

_SUPERSCRIPT_CLASS = r"\u2070\u00b9\u00b2\u00b3\u2074-\u2079"
NAME = re.compile(rf"[^\W\d{_SUPERSCRIPT_CLASS}][^\W{_SUPERSCRIPT_CLASS}]*")
"""The grammar's NAME (a test holds them equal): a letter or '_', then letters,
digits and '_', in any script, so x₁ and é are names ('x₁'.isidentifier() is
False: Python's identifiers stop at letters and Nd digits). Superscript digits
end a name: they are an exponent."""
SUPERSCRIPT = re.compile(rf"{SUPERSCRIPT_MINUS}?[{_SUPERSCRIPT_CLASS}]+")
"""The grammar's SUPERSCRIPT terminal: a typeset exponent."""


def is_name(text: str) -> bool:
    return NAME.fullmatch(text) is not None


_SUPERSCRIPTS = str.maketrans(SUPERSCRIPT_DIGITS + SUPERSCRIPT_MINUS, "0123456789-")


def exponent_meant(text: str) -> str:
    """'2' for '²', '-1' for '⁻¹': the exponent a typeset one writes."""
    return text.translate(_SUPERSCRIPTS)


def nonzero_digits(text: str) -> bool:
    """Whether a number's digits (before any exponent) are not all 0: 1e-400 is
    not 0, though float() gives 0."""
    return any(c in "123456789" for c in text.lower().partition("e")[0])


_RADIX = {"x": (16, "hexadecimal"), "o": (8, "octal"), "b": (2, "binary")}


def literal_meant(number: str, name: str) -> str | None:
    """What a Python user meant by a number against an unknown name that reads
    as the rest of a literal: ``1_000`` (grouped digits) or ``0x10``."""
    if re.fullmatch(r"_[\d_]*\d", name) and number.isdigit():
        return f"digits are not grouped with '_' here: write {number}{name.replace('_', '')}"
    radix = _RADIX.get(name[:1].lower())
    if number == "0" and radix is not None:
        base, what = radix
        try:
            return f"{what} literals are not supported: write {int(name[1:], base)}"
        except ValueError:
            return None
    return None
