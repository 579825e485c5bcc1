"""Which way derivatives are taken: Taylor mode where it applies, else backprop.

``Derivatives`` runs one request (orders 0..N of y by x, a series' coefficients,
or a large array block by block) by the method asked for ("auto", "taylor" or
"backprop") and keeps what a user should be told about it as ``notes``: codes
with neutral sentences that name no shell's flags (a shell words the hints).
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from ..errors import NumericWarning
from ..limits import METHODS
from ..record import Record
from .backend import as_numpy, get_array_module
from .derivatives import BACKPROP_MAX_NODES, higher_derivatives, mixed_warning, summed_warning
from .graph import Variable

ACCURATE_ORDER = 30
"""Orders up to this agree with 50-digit mpmath to 1e-6 on the benchmark formulas."""


class Note(Record):
    """Something about a computation the user should hear: a ``code`` for
    programs, a neutral ``message``, and a hint ``template`` where a shell
    may word its own flags into it."""

    code: str
    message: str
    template: str | None = None


def _taylor() -> Any:
    """core.taylor, imported on first use (most statements need no derivatives)."""
    from . import taylor

    return taylor


class Derivatives:
    """Derivatives by one method for one statement; ``notes`` and ``method``
    (the one that ran: "taylor" or "backprop") are read after."""

    def __init__(self, method: str = "auto") -> None:
        if method not in METHODS:
            raise ValueError(f"unknown method {method!r}")
        self.method = method
        self.notes: list[Note] = []
        self.used: str | None = None

    def note(self, code: str, message: str, template: str | None = None) -> None:
        self.notes.append(Note(code, message, template))

    def orders(self, y: Variable, x: Variable, order: int) -> list[Any]:
        """[y, dy/dx, ..., d^order y/dx^order] as arrays."""
        if order:
            self.warn_if_summed(y, x)
        if y is x or y.creator is None:
            xp = get_array_module(x.data)
            zero = xp.zeros_like(x.data)
            first = xp.ones_like(x.data) if y is x else zero
            return ([y.data, first] + [zero] * order)[: order + 1]
        if self.method != "backprop":
            taylor = _taylor()
            result = self._resolved(taylor.taylor_derivatives(y, x, order), order,
                                    lambda n: taylor.taylor_derivatives(y, x, n))
            if result is not None:
                self.used = "taylor"
                return undefined_where_nan(list(result))
            if self.method == "taylor":
                self.note("taylor-fallback",
                          "Taylor mode does not apply to this expression (it mixes the elements "
                          "of an array variable); derivatives were taken by backprop")
        self.used = "backprop"
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", NumericWarning)
            ds = higher_derivatives(y, x, order, max_nodes=BACKPROP_MAX_NODES)
        for w in caught:
            self.note("backprop", str(w.message), getattr(w.message, "template", None))
        return undefined_where_nan(_distinct([y.data] + [d.data for d in ds]))

    def coefficients(self, y: Variable, x: Variable, n: int) -> list[Any] | None:
        """Taylor mode's coefficients f^(k)/k! to order n, for a series (None where it
        does not apply or backprop is asked for): f^(k) overflows long before
        f^(k)/k! does (1/(1-x) at 0.9 has c_117 = 1e118, its derivative 1e311)."""
        if self.method == "backprop" or y is x or y.creator is None:
            return None
        taylor = _taylor()
        cs = self._resolved(taylor.taylor_coefficients(y, x, n), n,
                            lambda m: taylor.taylor_coefficients(y, x, m))
        if cs is None:
            return None
        self.used = "taylor"
        return undefined_where_nan(list(cs))

    def at_values(self, y: Variable, x: Variable, values: Any, order: int) -> list[Any] | None:
        """Orders 0..order of y, recorded on a sample of x, at each of ``values``
        (a large array, block by block); None where Taylor mode does not apply."""
        if self.method == "backprop":
            return None
        taylor = _taylor()
        ds = self._resolved(taylor.taylor_derivatives_at(y, x, values, order), order,
                            lambda n: taylor.taylor_derivatives_at(y, x, values, n))
        if ds is None:
            return None
        self.used = "taylor"
        return undefined_where_nan(ds)

    def _resolved(self, ds: list[Any] | None, order: int, again: Any) -> list[Any] | None:
        """``ds``, or those of ``again`` at a higher order where ``ds`` left some
        unknown: a power of a base that is 0 there can need more of the base's
        series than asked for ((x^4)^0.5 at 0)."""
        taylor = _taylor()
        if ds is None or not taylor.unknown_at_zero():
            return ds
        with taylor.more_orders(order):
            more = again(min(taylor.MAX_ORDER, 2 * order + 4))
        if taylor.unknown_at_zero():
            self.note("unknown-at-zero",
                      "a power whose base is 0 here needs more terms of the base than Taylor "
                      "mode reached; the derivatives it left unknown are nan")
        return ds if more is None else more[: order + 1]

    def warn_if_summed(self, y: Variable, x: Variable) -> None:
        """Note where the derivatives are those of the sum of y's elements (DeZero's
        rule), which a user may not expect: y of another shape than x's, or of
        x's shape but mixing its elements."""
        message = summed_warning(y, x) or mixed_warning(y, x)
        if message is not None:
            self.note("summed", message)

    def warn_if_cancelling(self, y: Variable, x: Variable, top: int, row: Any) -> None:
        """Past ACCURATE_ORDER, a product of two series in x loses digits."""
        if top > ACCURATE_ORDER and bool(np.any(as_numpy(row) != 0)) \
                and _taylor().multiplies_two_series(y, x):
            self.note("cancellation",
                      f"derivatives of order above {ACCURATE_ORDER} of a product of two "
                      "expressions in the variable can lose many digits to cancellation in "
                      "floating point (sin(x)*exp(x) at order 100 is off by 5%); check them "
                      "with a high-precision tool")


def blockwise(values: Any) -> bool:
    """Whether ``values`` is an array large enough to take block by block."""
    return _taylor().blockwise(values)


def sample(values: Any) -> Any:
    """The first block of ``values``, on which a blockwise graph is recorded."""
    return _taylor().sample(values)


def _distinct(rows: list[Any]) -> list[Any]:
    """``rows`` with a copy where an array repeats: folded backprop gives sin(x)'s
    fourth derivative as the node sin(x) itself, and a caller may write to a row."""
    seen: set[int] = set()
    out = []
    for row in rows:
        if id(row) in seen:
            row = row.copy()
        seen.add(id(row))
        out.append(row)
    return out


def undefined_where_nan(ds: list[Any]) -> list[Any]:
    """Derivatives nan where the value is nan: outside a function's domain (log of
    a negative number) its derivatives are undefined too, though the formula
    for them (1/x) may give a number. A derivative of another shape than the
    value (by a scalar, of an array: the derivative of its sum) is nan whole."""
    y = ds[0]
    xp = get_array_module(y)
    bad = xp.isnan(y)
    if not bool(bad.any()):
        return ds
    return [y] + [xp.where(bad, xp.nan, d) if d.shape == y.shape else xp.full_like(d, xp.nan)
                  for d in ds[1:]]


__all__ = ["ACCURATE_ORDER", "METHODS", "Derivatives", "Note", "blockwise", "sample",
           "undefined_where_nan"]
