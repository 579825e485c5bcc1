"""Floating-point warnings for a GPU session, and which of them a result shows.

CuPy has no floating-point error flags, so a GPU session learns which
operation made a nan or an infinity, and how to word it, by running the
statement that made it again on a NumPy copy of itself: the copy's results are
dropped, and nothing of the GPU session changes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np

from ..core.backend import as_numpy
from ..core.fpe import DERIVATIVE_UNDEFINED, INF_RESULT, NAN_RESULT, capture_fp_errors
from ..errors import GradcliError, UsageError
from ..results import Result

S = TypeVar("S")


def on_cpu(copy: Callable[[], S], work: Callable[[S], object]) -> list[str]:
    """The floating-point warnings of ``work`` done again by ``copy()``, a NumPy
    copy of the session (``Session.on_cpu``)."""
    with capture_fp_errors() as fp_messages:
        try:
            work(copy())
        except GradcliError:
            pass
    return fp_messages


def shown(messages: list[str], res: Result) -> list[str]:
    """The floating-point warnings about a kind of number the statement's results
    hold: a nan or an infinity met midway and gone by the end (backprop's
    inf - inf in a third derivative of sqrt at 0, which is inf) is no result's.
    A failed statement keeps them all, but one that asked wrongly (several
    variables and no --wrt): it has no number for them to be about."""
    if isinstance(res.error, UsageError):  # no number was computed for the user: none to warn of
        return []
    if res.error is not None or not messages:
        return messages
    if _nan_where_the_value_is(res):  # the value's own warning says why
        messages = [m for m in messages if not m.endswith(DERIVATIVE_UNDEFINED)]
    values = [a for a in result_arrays(res) if a.dtype.kind in "fc"]
    has_nan = any(bool(np.isnan(a).any()) for a in values)
    has_inf = any(bool(np.isinf(a).any()) for a in values) or _infinite_formula(res)
    return [m for m in messages
            if (has_nan or not m.endswith(NAN_RESULT)) and (has_inf or not m.endswith(INF_RESULT))]


def _nan_where_the_value_is(res: Result) -> bool:
    """Whether the derivatives are nan only where the value is (cos(x)/x -
    sin(x)/x^2 at 0): a derivative's nan there follows from the value's (a
    value that is nan has no derivatives), and backprop's "cos: a derivative
    is undefined" would blame an operation that is defined."""
    value = res.value
    rows = [*(res.derivatives or ()), *(res.series or [])[1:]]
    if not isinstance(value, np.ndarray) or value.dtype.kind not in "fc" or not rows \
            or not bool(np.isnan(value).any()):
        return False
    bad = np.isnan(value)
    return all(np.shape(r) == value.shape and not bool((np.isnan(r) & ~bad).any())
               for r in rows)


def _infinite_formula(res: Result) -> bool:
    """Whether a formula of the result holds inf (a constant fold overflowed)."""
    formulas = [*(res.formulas or ()), *(res.gradient_formulas or {}).values()]
    if not formulas:
        return False
    from ..formula import infinite  # only results with formulas

    return any(infinite(f) for f in formulas)


def result_arrays(res: Result) -> list[np.ndarray]:
    """Every number a statement's result holds, as NumPy arrays."""
    arrays = [res.value, res.derivatives, res.series, res.gradient,
              [c.autodiff for c in res.check or ()]]
    flat = []
    for a in arrays:
        if isinstance(a, dict):
            flat.extend(a.values())
        elif isinstance(a, list):
            flat.extend(a)
        elif a is not None:
            flat.append(a)
    return [np.asarray(a) for a in flat]


def non_finite(arrays: list[Any]) -> bool:
    return any(a.dtype.kind in "fc" and not bool(np.isfinite(a).all())
               for a in map(as_numpy, arrays))
