"""The result of ``hessian(...)`` and ``jacobian(...)``: a matrix with its rows
and columns named, as numbers or as formulas; plain data for any renderer.

It rides on a ``Result`` of kind "matrix" (``Result.matrix``); the numbers are
``Result.value``, an (m, n) NumPy array, so what reads a result's arrays (JSON
in pieces, the non-finite check) reads them as any value's.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .record import Record


class Matrix(Record):
    """``form``: "hessian" or "jacobian"; ``rows``: what each row is the
    derivative of (a Hessian's are its variables, a Jacobian's its components as
    written); ``columns``: the variables, by element for an array (``v[0]``);
    ``formulas``: rows of formula.Expr where the variables have no value."""

    form: str
    rows: tuple[str, ...]
    columns: tuple[str, ...]
    formulas: tuple[tuple[Any, ...], ...] | None = None

    def cells(self, value: Any, number: Callable[[Any], str]) -> list[list[str]]:
        """Each entry as text: its formula (gradcli's syntax), or ``number(entry)``."""
        if self.formulas is not None:
            from .formula import plain  # only results with formulas

            return [[plain(f) for f in row] for row in self.formulas]
        return [[number(v) for v in row] for row in value]

    def to_dict(self, value: Any, conv: Callable[[Any], Any]) -> dict[str, Any]:
        """The JSON keys: ``wrt`` (the columns), ``of`` (a Jacobian's rows) and
        ``value``, numbers or formulas as strings."""
        out: dict[str, Any] = {"wrt": list(self.columns)}
        if self.form == "jacobian":
            out["of"] = list(self.rows)
        if self.formulas is not None:
            out["value"] = self.cells(value, str)
        else:
            out["value"] = conv(value)
        return out


__all__ = ["Matrix"]
