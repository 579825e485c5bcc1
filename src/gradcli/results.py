"""Result objects: plain data from the session, ready for any renderer.

Arrays here are always NumPy (copied back from the GPU when needed), so the
renderers never touch the core or CuPy.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from .errors import ExitStatus, GradcliError
from .record import Record, factory


class CheckEntry(Record, mutable=True):
    """One derivative compared with its numerical estimate (Ridders' method).

    ``est_error`` is the largest error the estimate claims for itself over the
    points compared; ``ok`` is whether autodiff lies within it everywhere
    (``core.check.agrees``), None where the estimate cannot tell (inconclusive,
    ``core.check.verdict``). ``est_errors`` and ``point_ok`` are each point's
    own (``point_ok``: 1 pass, 0 fail, nan inconclusive; None: as ``ok``)."""

    order: int
    autodiff: np.ndarray
    numerical: np.ndarray
    abs_error: float
    rel_error: float
    ok: bool | None
    est_error: float = math.nan
    variable: str | None = None  # --grad --check: the partial derivative's variable
    est_errors: Any = None
    point_ok: Any = None

    def to_dict(self, plain: Callable[[Any], Any] | None = None) -> dict[str, Any]:
        conv = plain or to_plain
        head = {} if self.variable is None else {"variable": self.variable}
        return {
            **head,
            "order": self.order,
            "autodiff": conv(self.autodiff),
            "numerical": conv(self.numerical),
            "abs_error": self.abs_error,
            "rel_error": self.rel_error,
            "est_error": self.est_error,
            "ok": self.ok,
        }


class Result(Record, mutable=True):
    """What one statement produced: a value, a binding, a definition or an error."""

    input: str
    line: int = 1
    kind: str = "value"  # value | assign | define | grad | formula | matrix | error
    value: Any = None  # np.ndarray, or {name: np.ndarray} for grad(...)
    name: str | None = None  # the bound name ("x") or defined signature ("f(x)")
    at: dict[str, np.ndarray] = factory(dict)
    wrt: str | None = None
    point: np.ndarray | None = None  # the value of wrt where derivatives were taken
    point_text: str | None = None  # that value as typed (--at x=pi), for a series
    derivatives: list[np.ndarray] | None = None  # orders 1..N
    gradient: dict[str, np.ndarray] | None = None
    check: list[CheckEntry] | None = None
    series: list[np.ndarray] | None = None
    method: str | None = None  # "taylor" or "backprop", when derivatives were taken
    formulas: list[Any] | None = None  # formula.Expr of orders 0..N (kind "formula", --formula)
    gradient_formulas: dict[str, Any] | None = None  # name -> formula.Expr
    series_formulas: list[Any] | None = None  # formula.Expr c_0..c_N: --series with free names
    matrix: Any = None  # matrices.Matrix: the labels (and formulas) of kind "matrix"
    steps: list[Any] | None = None  # formula.steps.Derivation of orders 1..N (--steps)
    warnings: list[str] = factory(list)
    error: GradcliError | None = None

    @property
    def ok(self) -> bool:
        return self.error is None

    @property
    def exit_status(self) -> ExitStatus:
        if self.error is not None:
            return self.error.exit_status
        if self.check and any(c.ok is False for c in self.check):  # None: inconclusive
            return ExitStatus.CHECK_FAILED
        return ExitStatus.OK

    def to_dict(self, plain: Callable[[Any], Any] | None = None) -> dict[str, Any]:
        """The JSON object of SPEC section 2 (non-finite numbers still floats)."""
        conv = plain or to_plain
        out: dict[str, Any] = {"input": self.input}
        if self.error is not None:
            err: dict[str, Any] = {"kind": self.error.kind, "message": self.error.message}
            if self.error.line is not None:
                err["line"] = self.error.line
                err["column"] = self.error.column
            out["error"] = err
            if self.kind == "formula":  # the formulas that fit before the error
                return {"input": self.input, **self.formula_dict(), "error": err}
            return out
        if self.kind == "formula":
            if self.series_formulas is not None:  # a series has a point, as a number's has
                out["at"] = {k: conv(v) for k, v in self.at.items()}
            return {**out, **self.formula_dict()}
        if self.kind == "matrix":
            at = {} if self.matrix.formulas is not None else {
                "at": {k: conv(v) for k, v in self.at.items()}}
            return {**out, **at, **self.matrix.to_dict(self.value, conv)}
        out["at"] = {k: conv(v) for k, v in self.at.items()}
        if self.kind == "define":
            out["defined"] = self.name
            return out
        if self.wrt is not None:
            out["wrt"] = self.wrt
        out["value"] = (
            {k: conv(v) for k, v in self.value.items()}
            if isinstance(self.value, dict)
            else conv(self.value)
        )
        if self.derivatives:
            out["derivatives"] = [conv(d) for d in self.derivatives]
        if self.gradient is not None:
            out["gradient"] = {k: conv(v) for k, v in self.gradient.items()}
        if self.check is not None:
            out["check"] = [c.to_dict(plain) for c in self.check]
        if self.series is not None:
            out["series"] = [conv(c) for c in self.series]
        out.update(self.formula_dict())
        return out

    def formula_dict(self) -> dict[str, Any]:
        """The formula keys: ``wrt`` (of a formula result), ``formula``,
        ``derivative_formulas`` (orders 1..N), ``gradient_formulas`` and
        ``series_formulas`` (the coefficients c_0..c_N)."""
        out: dict[str, Any] = {}
        if self.formulas is None and self.gradient_formulas is None:
            return out
        from .formula import plain  # only results with formulas

        if self.kind == "formula" and self.wrt is not None:
            out["wrt"] = self.wrt
        if self.formulas:
            out["formula"] = plain(self.formulas[0])
            if len(self.formulas) > 1:
                out["derivative_formulas"] = [plain(f) for f in self.formulas[1:]]
        if self.gradient_formulas is not None:
            out["gradient_formulas"] = {k: plain(f) for k, f in self.gradient_formulas.items()}
        if self.series_formulas is not None:
            out["series_formulas"] = [plain(c) for c in self.series_formulas]
        if self.steps is not None:
            from .formula.steps import records

            out["steps"] = records(self.steps)
        return out


def to_plain(a: Any) -> Any:
    """A float, or nested lists of floats, from an array (bools and ints stay)."""
    arr = np.asarray(a)
    if arr.dtype.kind == "b":
        return arr.tolist()
    if arr.dtype.kind in "iu":
        return arr.tolist()
    if arr.dtype.kind == "c":
        return str(arr.tolist())
    return arr.astype(np.float64).tolist()
