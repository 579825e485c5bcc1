"""Sweeps as tidy tables: a result over an array of ``--at`` points, one row a point.

``--at "x=linspace(0, 1, 5)"`` makes every result an array of 5 values (and
its derivatives arrays of 5). The CSV renderer (and JSON with ``--rows``)
writes such a result as one row per point, with a column for each ``--at``
variable: the long form pandas, spreadsheets and gnuplot read. This module
decides which results are per point and lays their numbers out flat.

A result is per point when its ``--at`` values broadcast to one shape of at
least one element and every number it holds (value, derivatives, series,
gradient, check) is either of that shape or a scalar (repeated on each
row). Anything else (a definition, an error, ``x = 5`` rebinding x, a sum
over the points, a matrix of another shape) is one row, as before.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from ..results import Result


def sweep_names(at: dict[str, Any]) -> list[str]:
    """The ``--at`` names, in order, when any of their values is an array (the
    tidy columns); [] when all are scalars (CSV as before)."""
    if any(np.ndim(v) > 0 for v in at.values()):
        return list(at)
    return []


def point_shape(res: Result, names: Sequence[str]) -> tuple[int, ...] | None:
    """The shape of the points ``res`` has a row for each of, or None when it
    is one row (see the module's text)."""
    if res.error is not None or res.kind not in ("value", "assign"):
        return None
    shapes = [np.shape(res.at[n]) for n in names if n in res.at]
    try:
        shape = np.broadcast_shapes(*shapes) if shapes else ()
    except ValueError:
        return None
    if shape == () or 0 in shape:
        return None
    shapes = [np.shape(a) for a in _numbers(res)]
    if shape in shapes and all(s in ((), shape) for s in shapes):
        return shape
    return None  # a scalar statement (2 + 3) is one row, as is any other shape


def flat(a: Any, shape: tuple[int, ...]) -> np.ndarray:
    """``a`` (a scalar or an array of ``shape``) as one value a point, C order."""
    return np.broadcast_to(np.asarray(a), shape).reshape(-1)


def _numbers(res: Result) -> Iterator[Any]:
    if isinstance(res.value, dict):
        yield from res.value.values()
    else:
        yield res.value
    yield from res.derivatives or ()
    yield from res.series or ()
    yield from (res.gradient or {}).values()
    for entry in res.check or ():
        yield entry.autodiff
        yield entry.numerical


__all__ = ["flat", "point_shape", "sweep_names"]


def point_errors(entry: Any) -> tuple[np.ndarray, np.ndarray]:
    """A check entry's absolute and relative error at each point: |autodiff -
    numerical| and that over |autodiff| (0 where they agree exactly)."""
    auto = np.asarray(entry.autodiff, dtype=np.float64)
    num = np.asarray(entry.numerical, dtype=np.float64)
    with np.errstate(all="ignore"):
        err = np.abs(auto - num)
        rel = np.where(err == 0, 0.0, err / np.abs(auto))
    return err, rel
