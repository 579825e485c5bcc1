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
from ..core.fpe import INF_RESULT, NAN_RESULT, capture_fp_errors
from ..errors import GradcliError
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
    A failed statement keeps them all."""
    if res.error is not None or not messages:
        return messages
    values = [a for a in result_arrays(res) if a.dtype.kind in "fc"]
    has_nan = any(bool(np.isnan(a).any()) for a in values)
    has_inf = any(bool(np.isinf(a).any()) for a in values) or _infinite_formula(res)
    return [m for m in messages
            if (has_nan or not m.endswith(NAN_RESULT)) and (has_inf or not m.endswith(INF_RESULT))]


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
