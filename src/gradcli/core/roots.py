"""Every real root of a function on an interval, and its extrema and inflection points.

The finder needs one thing: ``derivatives(xs, n) -> [f, f', ..., f^(n)]`` at an
array of points, which Taylor mode gives in one pass (the session passes its
evaluator). It never sees an expression.

How it decides it has found every root (``analyse``):

1. Sample f and its derivatives up to order ``depth + 2`` on a grid of
   ``points`` evenly spaced points of [a, b]: one Taylor pass.
2. Work upwards from the deepest derivative f^(depth) to f. The roots of
   f^(depth) are its sign changes between neighbouring grid points (and exact
   zeros). For k < depth, the roots of f^(k+1), already found, cut the grid
   further: between two neighbouring cuts f^(k) is monotone, so it has a root
   there exactly when it changes sign (or vanishes at a cut). This is what
   finds a pair of roots closer than the grid: ``x^3 - 1e-6*x`` has three roots
   inside one grid cell, and f'' = 6x, then f' = 3x^2 - 1e-6, cut that cell
   where f changes sign.
3. Each sign change is a bracket; Halley steps with the exact derivatives,
   replaced by bisection whenever a step leaves the bracket, shrink it to a
   point within an ulp or two.
4. A bracket whose function does not get small at the converged point holds
   a pole or a jump, not a root (tan on [1, 2]): it is dropped when |f| there
   is not below POLE times |f| at the bracket's ends.
5. A root of f at a cut (a root of f') where |f| is below ZERO times f's scale
   is a root of even multiplicity (x^2 at 0), found without a sign change.
   The multiplicity counts the derivatives that vanish at the same point: a
   root of f that is also a root of f' and f'' (x^3 at 0) has multiplicity 3.

Where it can miss a root: two roots of f^(depth) closer than the grid with no
sign change of f^(depth) between grid points, and so no cut that separates
them; with depth 3 that takes four roots of f (or poles) within one grid cell.
A zero of f^(k) that is flat on a run of grid points (f''' of a quadratic) is
no root: f^(k) vanishes on an interval there.

Extrema (``extrema``): a root of f' of odd multiplicity inside (a, b) is a
minimum or maximum (by the sign of the first derivative that does not vanish),
one of even multiplicity is not (x^3 at 0); a root of f'' of odd multiplicity
is an inflection point. An end of the interval is listed with kind ``end``
where f takes its smallest or largest value on the interval there.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..limits import ROOT_POINTS as GRID
from ..record import Record

__all__ = ["DEPTH", "GRID", "POLE", "ZERO", "Analysis", "Derivatives", "Point", "Root",
           "analyse", "extrema", "find_roots"]

Derivatives = Callable[[np.ndarray, int], Sequence[Any]]
"""``derivatives(xs, n) -> [f, f', ..., f^(n)]`` at the points ``xs`` (each an
array of xs's shape or a scalar; nan or inf where undefined)."""

DEPTH = 3
"""The deepest derivative whose sign changes on the grid start the search."""
ZERO = 1e-12
"""f^(k) vanishes at a cut where |f^(k)| is below this times its scale (a high
percentile of |f^(k)| on the grid): a root of even multiplicity."""
POLE = 1e-3
"""A sign change is a root where |f| at the converged point is below this times
|f| at the bracket's ends; otherwise it is a pole or a jump."""
MAX_STEPS = 100
"""Halley/bisection steps per bracket (bisection alone needs about 60 to an ulp)."""


class Root(Record):
    x: float
    multiplicity: int


class Point(Record):
    """A local minimum, maximum, inflection point, or an extreme end of the interval."""

    kind: str  # min | max | inflection | end
    x: float
    value: float


class Analysis(Record):
    """The roots of f, f', ..., f^(depth) on [a, b]: ``levels[k]`` holds those of f^(k)."""

    a: float
    b: float
    grid: np.ndarray
    values: np.ndarray  # f on the grid (nan where undefined)
    levels: list[list[Root]]
    flat: list[tuple[float, float]]  # runs of the grid where f is 0


def _orders(derivatives: Derivatives, xs: np.ndarray, n: int) -> list[np.ndarray]:
    """[f, ..., f^(n)] at xs as float64 arrays of xs's shape, non-finite values nan."""
    got = list(derivatives(xs, n))[: n + 1]
    out = []
    for d in got:
        arr = np.broadcast_to(np.asarray(d, dtype=np.float64), xs.shape)
        out.append(np.where(np.isfinite(arr), arr, np.nan))
    while len(out) < n + 1:  # orders past what the caller computes: unknown
        out.append(np.full(xs.shape, np.nan))
    return out


def _scale(values: np.ndarray) -> float:
    finite = np.abs(values[np.isfinite(values)])
    return float(np.percentile(finite, 90)) if finite.size else 0.0


def analyse(derivatives: Derivatives, a: float, b: float, points: int = GRID,
            depth: int = DEPTH) -> Analysis:
    """The roots of f and of its first ``depth`` derivatives on [a, b] (see the
    module's text for how, and where a root can be missed)."""
    if not a < b:
        raise ValueError(f"the interval [{a:g}, {b:g}] is empty")
    n = depth + 2
    grid = np.linspace(a, b, points)
    on_grid = _orders(derivatives, grid, n)
    tol = [ZERO * _scale(v) for v in on_grid]
    levels: list[list[Root]] = [[] for _ in range(depth + 1)]
    flat: list[tuple[float, float]] = []
    for k in range(depth, -1, -1):
        above = {r.x: r.multiplicity for r in levels[k + 1]} if k < depth else {}
        cuts = np.array(sorted(x for x in above if a < x < b and x not in set(grid.tolist())))
        xs, vals = grid, on_grid[k]
        special = np.zeros(grid.shape, dtype=bool)
        special[[0, -1]] = True
        if cuts.size:
            at_cuts = _orders(derivatives, cuts, n)[k]
            xs = np.concatenate([grid, cuts])
            vals = np.concatenate([vals, at_cuts])
            special = np.concatenate([special, np.ones(cuts.shape, dtype=bool)])
            order = np.argsort(xs, kind="stable")
            xs, vals, special = xs[order], vals[order], special[order]
        special |= np.isin(xs, list(above))
        zero = (vals == 0) | (special & (np.abs(vals) <= tol[k]))
        runs = _runs(zero)
        if k == 0:
            flat = [(float(xs[i]), float(xs[j])) for i, j in runs]
        for i, j in runs:
            zero[i:j + 1] = False
            vals = vals.copy()
            vals[i:j + 1] = np.nan  # no sign change into or out of a flat run
        sign = np.where(zero, 0.0, np.sign(vals))
        with np.errstate(invalid="ignore"):
            change = np.flatnonzero(sign[:-1] * sign[1:] < 0)
        found = _refine(derivatives, k, n, xs[change], xs[change + 1],
                        vals[change], vals[change + 1])
        xs_found = sorted(set(xs[zero].tolist()) | set(found))
        levels[k] = [Root(x, 1 + above.get(x, 0)) for x in xs_found]
    return Analysis(float(a), float(b), grid, on_grid[0], levels, flat)


def _runs(zero: np.ndarray) -> list[tuple[int, int]]:
    """(first, last) index of each run of three or more consecutive True."""
    edges = np.diff(np.concatenate([[0], zero.astype(np.int8), [0]]))
    starts, ends = np.flatnonzero(edges == 1), np.flatnonzero(edges == -1) - 1
    return [(int(s), int(e)) for s, e in zip(starts, ends) if e - s >= 2]


def _refine(derivatives: Derivatives, k: int, n: int, lo: np.ndarray, hi: np.ndarray,
            flo: np.ndarray, fhi: np.ndarray) -> list[float]:
    """The root of f^(k) in each bracket [lo, hi] (f^(k) of opposite signs flo,
    fhi at its ends) by safeguarded Halley steps, all brackets at once; those
    where |f^(k)| stays large (a pole or a jump) are left out."""
    if lo.size == 0:
        return []
    lo, hi, flo, fhi = lo.copy(), hi.copy(), flo.copy(), fhi.copy()
    bound = POLE * np.maximum(np.abs(flo), np.abs(fhi))
    with np.errstate(all="ignore"):
        x = lo - flo * (hi - lo) / (fhi - flo)  # secant start
    x = np.where((x > lo) & (x < hi), x, (lo + hi) / 2)
    best = np.where(np.abs(flo) < np.abs(fhi), lo, hi)
    fbest = np.minimum(np.abs(flo), np.abs(fhi))
    wild = np.zeros(lo.shape, dtype=bool)
    active = np.arange(lo.size)
    for _ in range(MAX_STEPS):
        if active.size == 0:
            break
        ds = _orders(derivatives, x[active], min(k + 2, n))
        f, f1, f2 = ds[k], ds[k + 1], ds[k + 2] if k + 2 < len(ds) else np.zeros_like(ds[k])
        i = active
        better = np.abs(f) < fbest[i]
        best[i] = np.where(better, x[i], best[i])
        fbest[i] = np.where(better, np.abs(f), fbest[i])
        left = np.sign(f) == np.sign(flo[i])
        lo[i] = np.where(left, x[i], lo[i])
        flo[i] = np.where(left, f, flo[i])
        right = ~left & (f != 0)
        hi[i] = np.where(right, x[i], hi[i])
        fhi[i] = np.where(right, f, fhi[i])
        with np.errstate(all="ignore"):
            den = 2 * f1 * f1 - f * f2
            step = np.where(np.isfinite(den) & (den != 0), 2 * f * f1 / den, f / f1)
            nxt = x[i] - step
        inside = np.isfinite(nxt) & (nxt > lo[i]) & (nxt < hi[i])
        width = hi[i] - lo[i]
        ulp = np.spacing(np.maximum(np.abs(lo[i]), np.abs(hi[i])))
        # within a monotone piece |f| never exceeds its ends': far above them is a pole
        wild[i] = ~(np.abs(f) <= bound[i] / (POLE * POLE))
        # a step to within an ulp or two of an end: the end (kept in best) is the root
        at_end = ~inside & ((np.abs(nxt - lo[i]) <= 2 * ulp) | (np.abs(nxt - hi[i]) <= 2 * ulp))
        done = (f == 0) | wild[i] | at_end | (width <= 2 * ulp) | (np.abs(step) <= ulp)
        x[i] = np.where(inside, nxt, (lo[i] + hi[i]) / 2)
        active = i[~done]
    keep = (fbest <= bound) & ~wild
    return [float(v) for v in best[keep]]


def find_roots(derivatives: Derivatives, a: float, b: float, points: int = GRID,
               depth: int = DEPTH) -> list[Root]:
    """The real roots of f on [a, b], sorted, each once with its multiplicity."""
    return analyse(derivatives, a, b, points, depth).levels[0]


def extrema(derivatives: Derivatives, a: float, b: float, points: int = GRID,
            depth: int = DEPTH) -> list[Point]:
    """The local minima, maxima and inflection points of f inside (a, b), and
    the ends of [a, b] where f is smallest or largest, sorted by x."""
    found = analyse(derivatives, a, b, points, max(depth, 2))
    return points_of(derivatives, found)


def points_of(derivatives: Derivatives, found: Analysis) -> list[Point]:
    """The extrema and inflection points that ``found`` (an ``analyse``) shows."""
    a, b = found.a, found.b
    stationary = [r for r in found.levels[1] if a < r.x < b and r.multiplicity % 2]
    bends = [r for r in found.levels[2] if a < r.x < b and r.multiplicity % 2]
    xs = np.array([r.x for r in stationary + bends] + [a, b])
    top = max([r.multiplicity for r in stationary], default=0) + 1
    ds = _orders(derivatives, xs, top)
    points = []
    for i, r in enumerate(stationary):
        kind = "min" if ds[r.multiplicity + 1][i] > 0 else "max"
        points.append(Point(kind, r.x, float(ds[0][i])))
    for i, r in enumerate(bends, start=len(stationary)):
        points.append(Point("inflection", r.x, float(ds[0][i])))
    finite = np.concatenate([found.values[np.isfinite(found.values)],
                             ds[0][np.isfinite(ds[0])]])
    if finite.size:
        lowest, highest = finite.min(), finite.max()
        for x, v in ((a, ds[0][-2]), (b, ds[0][-1])):
            if np.isfinite(v) and (v <= lowest or v >= highest):
                points.append(Point("end", x, float(v)))
    return sorted(points, key=lambda p: (p.x, p.kind))
