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
6. A sign change of f^(k) (k >= 1) with no root, the brackets step 4 drops and
   one undefined grid point between opposite signs (sqrt(x^2)' at 0), is a
   ``Jump``: bisected on the sign of f^(k) to two neighbouring floats (or the
   float where f^(k) is 0 or undefined). It cuts the grid for f^(k-1) as a
   root of f^(k) does: f^(k-1) is monotone between them too.

Where it can miss a root: two roots of f^(depth) closer than the grid with no
sign change of f^(depth) between grid points, and so no cut that separates
them; with depth 3 that takes four roots of f (or poles) within one grid cell.
A zero of f^(k) that is flat on a run of grid points (f''' of a quadratic) is
no root: f^(k) vanishes on an interval there.

Extrema (``extrema``): a critical point inside (a, b), a root of f' or a jump
of f' (a kink of f: abs(x) at 0, where f' does not exist), is a minimum where
f' goes from negative to positive and a maximum where it goes from positive
to negative, read halfway to the next root or jump of f' on each side (at most
half a grid cell); where f' keeps its sign it is neither (x^3 at 0, abs(x) +
2*x at 0). Where a side's f' is 0 or undefined, a root of f' of odd
multiplicity is classified by the sign of the first derivative that does not
vanish. A kink is listed only where f is continuous (``_continuous``): not
where f jumps (abs(x) + floor(x) at 0) or has a pole (1/x^2). A root of f'' of
odd multiplicity, or a jump of f'' where f is continuous (x*abs(x) at 0), is
an inflection point. An end of the interval is listed with kind ``end`` where
f takes its smallest or largest value on the interval there.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..limits import ROOT_POINTS as GRID
from ..record import Record, factory

__all__ = ["DEPTH", "GRID", "POLE", "ZERO", "Analysis", "Derivatives", "Jump", "Point", "Root",
           "analyse", "extrema", "find_roots", "points_of"]

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


class Jump(Record):
    """A sign change of f^(k) with no root (a jump or a pole of f^(k), as at a
    kink of f^(k-1)), from the sign ``before`` to ``after``: bisected to two
    neighbouring floats ``lo`` < ``hi``, or to one float (lo == hi) where f^(k)
    is 0 or undefined."""

    lo: float
    hi: float
    before: float
    after: float


class Analysis(Record):
    """The roots of f, f', ..., f^(depth) on [a, b]: ``levels[k]`` holds those of f^(k)."""

    a: float
    b: float
    grid: np.ndarray
    values: np.ndarray  # f on the grid (nan where undefined)
    levels: list[list[Root]]
    flat: list[tuple[float, float]]  # runs of the grid where f is 0
    jumps: list[list[Jump]] = factory(list)  # jumps[k]: where f^(k) changes sign with no root


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
    jumps: list[list[Jump]] = [[] for _ in range(depth + 1)]
    flat: list[tuple[float, float]] = []
    for k in range(depth, -1, -1):
        above = {r.x: r.multiplicity for r in levels[k + 1]} if k < depth else {}
        # f^(k) is monotone between the roots of f^(k+1) and the points where it jumps
        kinks = _kink_cuts(derivatives, k, jumps[k + 1]) if k < depth else set()
        on_grid_set = set(grid.tolist())
        cuts = np.array(sorted(x for x in set(above) | kinks
                               if a < x < b and x not in on_grid_set))
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
        special |= np.isin(xs, list(above) + list(kinks))
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
        found, dropped = _refine(derivatives, k, n, xs[change], xs[change + 1],
                                 vals[change], vals[change + 1])
        xs_found = sorted(set(xs[zero].tolist()) | set(found))
        # a zero at a kink of f^(k) where f^(k) keeps its sign is a root of even multiplicity
        touch = {float(xs[i]) for i in np.flatnonzero(zero & np.isin(xs, list(kinks)))
                 if 0 < i < xs.size - 1 and sign[i - 1] * sign[i + 1] > 0}
        levels[k] = [Root(x, 1 + above.get(x, int(x in touch))) for x in xs_found]
        if k:
            # no root in a bracket, or f^(k) undefined at one grid point between opposite
            # signs (sqrt(x^2)' at 0): f^(k) jumps there, bisect to the jump
            with np.errstate(invalid="ignore"):
                gap = np.flatnonzero(np.isnan(vals[1:-1]) & (sign[:-2] * sign[2:] < 0)) + 1
            jumps[k] = _bisect(derivatives, k, xs[change[dropped]], xs[change[dropped] + 1],
                               np.sign(vals[change[dropped]]))
            jumps[k] += [Jump(float(xs[i]), float(xs[i]), float(sign[i - 1]), float(sign[i + 1]))
                         for i in gap]
    return Analysis(float(a), float(b), grid, on_grid[0], levels, flat, jumps)


def _runs(zero: np.ndarray) -> list[tuple[int, int]]:
    """(first, last) index of each run of three or more consecutive True."""
    edges = np.diff(np.concatenate([[0], zero.astype(np.int8), [0]]))
    starts, ends = np.flatnonzero(edges == 1), np.flatnonzero(edges == -1) - 1
    return [(int(s), int(e)) for s, e in zip(starts, ends) if e - s >= 2]


def _refine(derivatives: Derivatives, k: int, n: int, lo: np.ndarray, hi: np.ndarray,
            flo: np.ndarray, fhi: np.ndarray) -> tuple[list[float], np.ndarray]:
    """The root of f^(k) in each bracket [lo, hi] (f^(k) of opposite signs flo,
    fhi at its ends) by safeguarded Halley steps, all brackets at once; those
    where |f^(k)| stays large (a pole or a jump) are left out, and their
    indices returned beside the roots."""
    if lo.size == 0:
        return [], np.zeros(0, dtype=np.int64)
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
    # a root lies in the last bracket; a best point left outside it (an end of
    # the first bracket, beside a jump of f^(k) to large values) is none
    keep = (fbest <= bound) & ~wild & (best >= lo) & (best <= hi)
    return [float(v) for v in best[keep]], np.flatnonzero(~keep)


def _kink_cuts(derivatives: Derivatives, k: int, jumps: list[Jump]) -> set[float]:
    """One point a jump of f^(k+1): of its two floats the one where |f^(k)| is smaller."""
    if not jumps:
        return set()
    lo = np.array([j.lo for j in jumps])
    hi = np.array([j.hi for j in jumps])
    fk = _orders(derivatives, np.concatenate([lo, hi]), k)[k]
    flo, fhi = np.abs(fk[:lo.size]), np.abs(fk[lo.size:])
    return set(np.where(~(fhi < flo), lo, hi).tolist())


SIGN_BIT = np.int64(-2**63)


def _key(x: np.ndarray) -> np.ndarray:
    """Floats as int64 in the same order, neighbouring floats one apart (-0.0 is 0.0)."""
    bits = np.asarray(x, dtype=np.float64).view(np.int64)
    return np.where(bits < 0, -(bits & ~SIGN_BIT), bits)


def _unkey(k: np.ndarray) -> np.ndarray:
    return np.where(k < 0, (-k) | SIGN_BIT, k).astype(np.int64).view(np.float64)


def _bisect(derivatives: Derivatives, k: int, lo: np.ndarray, hi: np.ndarray,
            before: np.ndarray) -> list[Jump]:
    """Each bracket [lo, hi] where f^(k) changes sign from ``before`` bisected
    on the sign of f^(k) to neighbouring floats (midpoints of the floats'
    order, so at most 64 steps whatever the scale), or to the float where
    f^(k) is 0 or undefined."""
    if lo.size == 0:
        return []
    klo, khi = _key(lo), _key(hi)
    at = np.full(lo.shape, np.nan)
    active = np.arange(lo.size)
    for _ in range(70):
        i = active
        mid = (klo[i] >> 1) + (khi[i] >> 1) + (klo[i] & khi[i] & 1)
        done = (mid == klo[i]) | (mid == khi[i])
        i, mid = i[~done], mid[~done]
        if i.size == 0:
            break
        x = _unkey(mid)
        d = _orders(derivatives, x, k)[k]
        lost = np.isnan(d)
        if lost.any():
            # f^(k) overflows near a cusp (abs(x)^0.05 at 0): the sign of the step
            # of f^(k-1) to the next float stands in for it
            up = _orders(derivatives, _unkey(mid[lost] + 1), k - 1)[k - 1]
            d[lost] = up - _orders(derivatives, x[lost], k - 1)[k - 1]
        hit = ~(d != 0)  # 0 or undefined: the jump is at x
        at[i[hit]] = x[hit]
        left = ~hit & (np.sign(d) == before[i])
        klo[i[left]] = mid[left]
        khi[i[~hit & ~left]] = mid[~hit & ~left]
        active = i[~hit]
    xlo, xhi = _unkey(klo), _unkey(khi)
    xlo, xhi = np.where(np.isnan(at), xlo, at), np.where(np.isnan(at), xhi, at)
    return [Jump(float(p), float(q), float(s), float(-s)) for p, q, s in zip(xlo, xhi, before)]


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
    h = (b - a) / max(found.grid.size - 1, 1)
    finite_grid = found.values[np.isfinite(found.values)]
    scale = float(np.ptp(finite_grid)) if finite_grid.size else 0.0
    jumps = found.jumps + [[]] * (3 - len(found.jumps))
    # roots of f' (of any multiplicity: at a kink it counts nothing) and jumps of f'
    stationary = [r for r in found.levels[1] if a < r.x < b]
    kinks = [j for j in jumps[1] if a < j.lo and j.hi < b]
    bends = [r for r in found.levels[2] if a < r.x < b and r.multiplicity % 2]
    bent = [j for j in jumps[2] if a < j.lo and j.hi < b]
    breaks = np.array(sorted({a, b} | {r.x for r in found.levels[1]}
                             | {j.lo for j in jumps[1]} | {j.hi for j in jumps[1]}))
    kinds: list[str | None] = []
    xs_stat = np.array([r.x for r in stationary])
    top = max([r.multiplicity for r in stationary], default=0) + 1
    ds = _orders(derivatives, xs_stat, top)
    sides = _sides(derivatives, xs_stat, breaks, h)
    check = []  # classified otherwise than by the derivative test: a kink, f continuous?
    for i, r in enumerate(stationary):
        # the sign of f' either side decides, as the calculus texts do, also
        # where f' does not exist; the first derivative that does not vanish
        # where the sides say nothing
        first = ds[r.multiplicity + 1][i]
        by_test = (("min" if first > 0 else "max") if r.multiplicity % 2 and np.isfinite(first)
                   and first else None)
        by_sides = _kind(*sides[i])
        kind = by_sides if by_sides is not False else by_test
        kinds.append(kind)
        check.append(kind is not None and kind != by_test)
    cand = [(kind, r.x, r.x, c) for kind, r, c in zip(kinds, stationary, check) if kind]
    cand += [(_kind(j.before, j.after), j.lo, j.hi, True) for j in kinks]
    cand = [c for c in cand if c[0]]
    # at a jump the point of the two floats where f is more extreme
    lo = np.array([c[1] for c in cand])
    hi = np.array([c[2] for c in cand])
    flo, fhi = _orders(derivatives, lo, 0)[0], _orders(derivatives, hi, 0)[0]
    # on a tie the float nearer 0 (0, not -5e-324)
    tie = np.isnan(fhi) | ((flo == fhi) & (np.abs(lo) <= np.abs(hi)))
    lower = np.where(tie | (flo < fhi), lo, hi)
    upper = np.where(tie | (flo > fhi), lo, hi)
    at = np.array([lower[i] if c[0] == "min" else upper[i] for i, c in enumerate(cand)])
    checked = np.array([c[3] for c in cand], dtype=bool)
    at[checked] = _snap(derivatives, at[checked],
                        np.array([c[0] == "min" for c in cand], dtype=bool)[checked])
    fat = _orders(derivatives, at, 0)[0]
    ok = np.isfinite(fat)
    if checked.any():
        ok[checked] &= _continuous(derivatives, at[checked], a, b, h, scale)
    points = [Point(c[0], float(at[i]), float(fat[i])) for i, c in enumerate(cand) if ok[i]]
    # inflection points: roots of f'' of odd multiplicity, and jumps of f'' where f is continuous
    bend_x = np.array([r.x for r in bends] + [j.lo for j in bent])
    fb = _orders(derivatives, bend_x, 0)[0]
    ok_b = np.isfinite(fb)
    if bent:
        ok_b[len(bends):] &= _continuous(derivatives, bend_x[len(bends):], a, b, h, scale)
    points += [Point("inflection", float(x), float(v)) for x, v, k in zip(bend_x, fb, ok_b) if k]
    ends = _orders(derivatives, np.array([a, b]), 0)[0]
    inside = np.concatenate([ds[0], fb, [p.value for p in points], ends])
    finite = np.concatenate([finite_grid, inside[np.isfinite(inside)]])
    if finite.size:
        lowest, highest = finite.min(), finite.max()
        for x, v in ((a, ends[0]), (b, ends[1])):
            if np.isfinite(v) and (v <= lowest or v >= highest):
                points.append(Point("end", x, float(v)))
    return sorted(points, key=lambda p: (p.x, p.kind))


UNDERFLOW = float(np.sqrt(np.finfo(np.float64).tiny))
"""Below this |x|, x^2 underflows to 0."""


def _snap(derivatives: Derivatives, xs: np.ndarray, low: np.ndarray) -> np.ndarray:
    """Each of xs (a kink, where f is smallest if ``low`` else largest) moved to
    0 where it is below UNDERFLOW and f is as small (as large) at 0. Only there
    can f' overflow or f underflow before the kink (abs(x)^0.05, sqrt(x^2)), and
    the bisection stop at 5e-309, where f is already flat in floats."""
    if xs.size == 0:
        return xs
    f0 = _orders(derivatives, xs, 0)[0]
    f = _orders(derivatives, np.zeros(xs.shape), 0)[0]
    with np.errstate(invalid="ignore"):
        good = (np.abs(xs) < UNDERFLOW) & np.where(low, f <= f0, f >= f0)
    return np.where(good, 0.0, xs)


def _kind(before: float, after: float) -> str | None | bool:
    """min or max by the signs of f' before and after a point; None where they
    agree (no extremum), False where one is 0 or unknown."""
    if not (np.isfinite(before) and np.isfinite(after)) or before == 0 or after == 0:
        return False
    if (before < 0) == (after < 0):
        return None
    return "min" if before < 0 else "max"


def _sides(derivatives: Derivatives, xs: np.ndarray, breaks: np.ndarray,
           h: float) -> list[tuple[float, float]]:
    """f' just before and just after each of xs: halfway to the next point
    where f' may change sign (``breaks``), at most half a grid cell away."""
    if xs.size == 0:
        return []
    i = np.searchsorted(breaks, xs)
    prev = breaks[np.maximum(i - 1, 0)]
    nxt = breaks[np.minimum(np.searchsorted(breaks, xs, side="right"), breaks.size - 1)]
    left = xs - np.minimum(xs - prev, h) / 2
    right = xs + np.minimum(nxt - xs, h) / 2
    d1 = _orders(derivatives, np.concatenate([left, right]), 1)[1]
    return list(zip(d1[:xs.size].tolist(), d1[xs.size:].tolist()))


SETTLE = 0.5
"""f is continuous at a kink when, going towards it, f's steps from half a
grid cell away to the geometric mean of that and one float's distance, and
from there to the next float, shrink: the middle step at most this times the
outer one, the step into the point at most the middle one. A jump of f keeps a
last step as large as the jump; a pole or a log singularity keeps steps that
grow or stay as large (log: equal steps over equal ratios of distance)."""


def _continuous(derivatives: Derivatives, xs: np.ndarray, a: float, b: float, h: float,
                scale: float) -> np.ndarray:
    """Whether f is continuous at each of xs, a kink or a cusp and not a jump
    or a pole of f: see SETTLE."""
    k0 = _key(xs)
    rows = [xs]
    for end in (np.maximum(xs - h, a), np.minimum(xs + h, b)):
        far = end - xs
        near = _unkey(np.where(far != 0, k0 + np.sign(far).astype(np.int64), k0))
        # the geometric mean of the distances to the near and the far point
        # (square roots first: the product of a denormal spacing underflows)
        middle = xs + np.sign(far) * np.sqrt(np.abs(near - xs)) * np.sqrt(np.abs(far))
        rows += [near, middle, end]
    f = _orders(derivatives, np.concatenate(rows), 0)[0].reshape(len(rows), xs.size)
    ok = np.all(np.isfinite(f), axis=0)
    # as in _refine, far above the values half a cell away is a pole
    ok &= np.abs(f[0]) <= np.maximum(np.abs(f[3]), np.abs(f[6])) / (POLE * POLE) + ZERO * scale
    for s in (1, 4):
        f1, f2, f3 = f[s], f[s + 1], f[s + 2]
        noise = ZERO * scale + 8 * np.spacing(np.max(np.abs(f), axis=0))
        with np.errstate(invalid="ignore"):
            ok &= (np.abs(f1 - f[0]) <= np.abs(f2 - f1) + noise)
            ok &= (np.abs(f2 - f1) <= SETTLE * np.abs(f3 - f2) + noise)
    return ok
