"""The plain format: bare values, one per line, ASCII only, never wrapped.

What a shell script reads, in the spirit of bc:

- an expression prints its value; with ``--order N`` the orders 0..N follow as
  N + 1 lines;
- ``--grad`` and ``grad(...)`` print one ``d/dNAME: value`` line per variable;
- ``hessian(...)`` and ``jacobian(...)`` print their rows in brackets on one
  line, ``[[16, 24], [24, 12]]`` (formulas too, where the variables are unbound);
- ``--series N`` prints the Taylor polynomial on one line,
  ``8 + 24*(x - 2) + 22*(x - 2)^2``, and without ``--order`` only that line;
- ``--check`` prints one ``check order K: ...`` line per checked order;
- assignments, definitions and failed statements print nothing here (errors
  go to standard error).

``RenderOptions`` lives here because every text renderer shares it.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

import numpy as np

from ..asked import EvalOptions
from ..results import CheckEntry, Result
from .numbers import format_number, format_value, value_pieces


class RenderOptions(EvalOptions, mutable=False):
    """What the user asked for, as the renderers need it: the session's flags
    (one list, ``asked.EvalOptions``) and the digits to print."""

    order: int = 0  # an order of 0 and none ask for the same columns
    digits: int | None = None

    wants_wrt = EvalOptions.wants_derivatives

    @classmethod
    def of(cls, asked: EvalOptions, digits: int | None = None) -> RenderOptions:
        return cls(asked.wrt, asked.order or 0, asked.grad, asked.check, asked.series,
                   asked.formula, asked.steps, digits)


def series_text(coefficients: list[Any], var: str, point: Any,
                digits: int | None = None, point_text: str | None = None,
                latex: bool = False) -> str:
    """The Taylor polynomial ``c0 + c1*(x - a) + c2*(x - a)^2 + ...`` on one line.

    About 0 the powers are plain ``x``, ``x^2``; about a negative point they
    read ``(x + 0.5)``. Zero terms are left out, a coefficient of 1 is not
    written and -1 is a bare minus; an all-zero series is ``0``. When the point
    is an array the coefficients are arrays: the value is always written, a
    term whose coefficients are all 0 is left out and one whose are all 1 is
    its bare power.
    """
    a = np.asarray(point if point is not None else 0.0)
    scalar = a.ndim == 0 and all(np.asarray(c).ndim == 0 for c in coefficients)
    if not scalar:
        base = f"({var} - {format_value(a, digits)})"
        terms = [format_value(coefficients[0], digits)] if coefficients else []
        for k, c in enumerate(coefficients[1:], start=1):
            c = np.asarray(c)
            if not c.any():  # nan counts as nonzero
                continue
            power = base if k == 1 else f"{base}^{k}"
            terms.append(power if bool(np.all(c == 1)) else f"{format_value(c, digits)}*{power}")
        return " + ".join(terms) if terms else "0"

    from ..formula.series_text import series_text as as_mathematics

    # simple rationals exact, rounding noise left out, the point as typed
    text = point_text or format_number(float(a), digits)
    # numpy scalars, not floats: their dtype sets the rounding allowed
    return as_mathematics([np.asarray(c)[()] for c in coefficients], var, text,
                          number=lambda v: format_number(v, digits), at=float(a), latex=latex)


def check_line(entry: CheckEntry, digits: int | None = None) -> str:
    return "".join(check_line_pieces(entry, digits))


def check_line_pieces(entry: CheckEntry, digits: int | None = None) -> Iterator[str]:
    verdict = verdict_word(entry.ok)
    what = f"order {entry.order}" if entry.variable is None else f"d/d{entry.variable}"
    yield f"check {what}: autodiff "
    yield from value_pieces(entry.autodiff, digits)
    yield " numerical "
    yield from value_pieces(entry.numerical, digits)
    yield (f" abs_error {format_number(entry.abs_error, digits)}"
           f" rel_error {format_number(entry.rel_error, digits)}"
           f" est_error {format_number(entry.est_error, digits)} {verdict}")


def verdict_word(ok: bool | None) -> str:
    """A check's verdict as the plain and table formats write it."""
    return "inconclusive" if ok is None else "pass" if ok else "FAIL"


def gradient_lines(gradient: dict[str, Any], digits: int | None = None) -> list[str]:
    return [f"d/d{name}: {format_value(v, digits)}" for name, v in gradient.items()]


def render_plain(res: Result, opts: RenderOptions, point: Any = None,
                 latex: bool = False) -> list[str]:
    """The lines ``res`` prints in plain format (none for bindings and errors);
    ``latex``: its series as LaTeX."""
    return ["".join(line) for line in plain_lines(res, opts, point, latex)]


def plain_pieces(res: Result, opts: RenderOptions, point: Any = None) -> Iterator[str]:
    """``render_plain``'s lines, each ended by a newline, as pieces to write one
    at a time: a line of a million numbers never exists whole."""
    for line in plain_lines(res, opts, point):
        yield from line
        yield "\n"


def plain_lines(res: Result, opts: RenderOptions, point: Any = None,
                latex: bool = False) -> Iterator[Iterable[str]]:
    """The lines of ``render_plain``, each as its pieces (made as they are read)."""
    if res.steps is not None and res.error is None:  # --steps: the derivation
        from ..formula.steps import plain_lines as derivation_lines

        yield from ([line] for line in derivation_lines(res.steps))
        return
    if res.kind == "formula":  # with an error, the orders that fit come before it
        yield from ([line] for line in formula_lines(res))
        return
    if res.error is not None or res.kind in ("assign", "define"):
        return
    digits = opts.digits
    if res.kind == "grad":
        for name, v in res.value.items():
            yield _labelled(f"d/d{name}: ", v, digits)
        return
    if res.kind == "formula":
        yield from ([line] for line in formula_lines(res))
        return
    if res.kind == "matrix":
        from .matrix import matrix_latex, matrix_line

        yield [matrix_latex(res, digits) if latex else matrix_line(res, digits)]
        return
    # With --series alone the polynomial is the answer (its c0 is the value).
    if res.series is None or opts.order:
        yield value_pieces(res.value, digits)
    for d in res.derivatives or ():
        yield value_pieces(d, digits)
    for name, v in (res.gradient or {}).items():
        yield _labelled(f"d/d{name}: ", v, digits)
    if res.series is not None:
        yield [series_text(res.series, res.wrt or "x", point, digits, res.point_text, latex)]
    for entry in res.check or ():
        yield check_line_pieces(entry, digits)
    if res.formulas or res.gradient_formulas:  # --formula: beside the numbers
        yield from ([f"formula {line}"] for line in formula_lines(res, labelled=True))


def _labelled(label: str, value: Any, digits: int | None) -> Iterator[str]:
    yield label
    yield from value_pieces(value, digits)


def formula_lines(res: Result, labelled: bool = False, write: Any = None) -> list[str]:
    """A formula result's lines: orders 0..N one a line, or ``d/dx: ...`` for
    each variable of a gradient (``labelled``: ``order K: ...`` for the orders);
    a series of formulas last (without --order, alone). ``write`` prints a
    formula (gradcli's own syntax by default; another writer is LaTeX's)."""
    from ..formula import plain  # only results with formulas

    write = write or plain
    formulas = res.formulas or []
    if res.series_formulas is not None and len(formulas) == 1:
        formulas = []  # --series alone: the polynomial is the answer, as with numbers
    lines = [f"order {k}: {write(f)}" if labelled else write(f)
             for k, f in enumerate(formulas)]
    lines.extend(f"d/d{name}: {write(f)}" for name, f in (res.gradient_formulas or {}).items())
    if res.series_formulas is not None:
        from ..formula.series_text import formula_series_text

        lines.append(formula_series_text(res.series_formulas, res.wrt or "x", res.point_text,
                                         latex=write is not plain))
    return lines


__all__ = ["RenderOptions", "check_line", "check_line_pieces", "formula_lines", "gradient_lines",
           "plain_lines", "plain_pieces", "render_plain", "series_text", "verdict_word"]
