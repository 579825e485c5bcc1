"""A Hessian or Jacobian (a Result of kind "matrix"): its cells as text, one
line in brackets (plain, CSV), or a LaTeX ``pmatrix``. The table format labels
its rows and columns by variable (render/table.py)."""

from __future__ import annotations

from ..results import Result
from .numbers import format_value

TABLE_COLUMNS = 16
"""A matrix with more columns than this is no table to read: the table format
and the REPL print it in brackets instead (summarised on a terminal)."""


def cells(res: Result, digits: int | None = None, latex: bool = False) -> list[list[str]]:
    """Each entry's text: its number, or its formula (LaTeX with ``latex``)."""
    if latex and res.matrix.formulas is not None:
        from ..formula import latex as write  # only results with formulas

        return [[write(f) for f in row] for row in res.matrix.formulas]
    return res.matrix.cells(res.value, lambda v: format_value(v, digits))


def matrix_line(res: Result, digits: int | None = None) -> str:
    """``[[16, 24], [24, 12]]``: the rows in brackets on one line."""
    return "[" + ", ".join("[" + ", ".join(row) + "]" for row in cells(res, digits)) + "]"


def matrix_latex(res: Result, digits: int | None = None) -> str:
    """``\\begin{pmatrix} 16 & 24 \\\\ 24 & 12 \\end{pmatrix}``."""
    body = r" \\ ".join(" & ".join(row) for row in cells(res, digits, latex=True))
    return rf"\begin{{pmatrix}} {body} \end{{pmatrix}}"


__all__ = ["TABLE_COLUMNS", "cells", "matrix_latex", "matrix_line"]
