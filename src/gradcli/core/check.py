"""Numerical differentiation, and gradient checks.

``numerical_diff`` and ``gradient_check`` keep DeZero's names and defaults;
``central_difference`` is one central difference at a step that balances
truncation against rounding (h = eps**(1/3) * max(1, |a|) for order 1,
eps**(1/4) * max(1, |a|) for order 2). ``ridders`` is what the CLI's
``--check`` uses: an adaptive estimate with its own error estimate, and
``agrees`` the pass rule built on it (docs/check.md).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from ..record import Record
from ..rules import AUTODIFF_ULPS
from .backend import as_numpy, get_array_module
from .graph import Variable, as_variable, no_grad

RTOL = 1e-4
ATOL = 1e-5


def numerical_diff(f: Callable[[Variable], Variable], x: Variable, eps: float = 1e-4) -> Any:
    """(f(x + eps) - f(x - eps)) / 2 eps, as in DeZero step 4."""
    x = as_variable(x)
    xp = get_array_module(x.data)
    with no_grad():
        y0 = f(Variable(xp.asarray(x.data - eps)))
        y1 = f(Variable(xp.asarray(x.data + eps)))
    return (y1.data - y0.data) / (2 * eps)


def step_size(a: Any, order: int, dtype: Any = np.float64) -> Any:
    """The central-difference step for ``order`` 1 or 2 at point(s) ``a``."""
    eps = np.finfo(dtype).eps
    power = {1: 1 / 3, 2: 1 / 4}[order]
    xp = get_array_module(a)
    return eps**power * xp.maximum(1.0, xp.abs(a))


def central_difference(
    f: Callable[[Any], Any], a: Any, order: int, dtype: Any = np.float64
) -> Any:
    """Estimate the ``order``-th (1 or 2) derivative of elementwise ``f`` at ``a``.

    ``f`` maps an array to an array of the same shape; ``a`` may be an array,
    in which case each element gets its own step.
    """
    a = np.asarray(as_numpy(a), dtype=np.float64)
    h = step_size(a, order, dtype)
    # Make a +/- h exactly representable so the step in the formula is the step taken.
    hp = (a + h) - a
    hm = a - (a - h)
    fp, fm = np.asarray(f(a + hp), dtype=np.float64), np.asarray(f(a - hm), dtype=np.float64)
    if order == 1:
        return (fp - fm) / (hp + hm)
    f0 = np.asarray(f(a), dtype=np.float64)
    return 2 * (hm * fp - (hp + hm) * f0 + hp * fm) / (hp * hm * (hp + hm))


def within_tolerance(autodiff: Any, estimate: Any, rtol: float = RTOL, atol: float = ATOL) -> Any:
    """|autodiff - estimate| <= atol + rtol * |autodiff|, elementwise; neither NaN
    nor an infinite autodiff value passes (the bound would be infinite too)."""
    autodiff, estimate = np.asarray(autodiff), np.asarray(estimate)
    with np.errstate(invalid="ignore"):  # inf - inf
        close = np.abs(autodiff - estimate) <= atol + rtol * np.abs(autodiff)
    return close & np.isfinite(autodiff)


def numerical_grad(f: Callable[..., Variable], x: Any, *args: Any, eps: float = 1e-4,
                   **kwargs: Any) -> np.ndarray:
    """d sum(f(x)) / dx element by element, by central differences."""
    x_data = np.array(as_numpy(getattr(x, "data", x)), dtype=np.float64)
    grad = np.zeros_like(x_data)
    flat, gflat = x_data.reshape(-1), grad.reshape(-1)
    with no_grad():
        for i in range(flat.size):
            tmp = flat[i]
            flat[i] = tmp + eps
            y1 = float(np.sum(as_numpy(f(Variable(x_data.copy()), *args, **kwargs).data)))
            flat[i] = tmp - eps
            y0 = float(np.sum(as_numpy(f(Variable(x_data.copy()), *args, **kwargs).data)))
            flat[i] = tmp
            gflat[i] = (y1 - y0) / (2 * eps)
    return grad


class CheckResult(Record):
    """The outcome of ``gradient_check``: truthy exactly when the check passed."""

    ok: bool
    analytic: np.ndarray
    numerical: np.ndarray
    max_abs_error: float
    worst_index: tuple[int, ...]

    def __bool__(self) -> bool:
        return self.ok

    def __str__(self) -> str:
        if self.ok:
            return f"gradient check passed (max abs error {self.max_abs_error:.3g})"
        i = self.worst_index
        return (
            f"gradient check failed at index {i}: backprop {float(self.analytic[i])!r}, "
            f"central difference {float(self.numerical[i])!r} "
            f"(abs error {self.max_abs_error:.3g})"
        )


def gradient_check(
    f: Callable[..., Variable], x: Any, *args: Any, rtol: float = RTOL, atol: float = ATOL,
    **kwargs: Any,
) -> CheckResult:
    """Backprop's gradient of sum(f(x)) against central differences (DeZero's check)."""
    x = as_variable(x)
    x_data = np.asarray(as_numpy(x.data), dtype=np.float64)
    num = numerical_grad(f, x_data, *args, **kwargs)
    xv = Variable(x_data.copy())
    y = f(xv, *args, **kwargs)
    y.backward()
    analytic = (
        np.zeros_like(x_data) if xv.grad is None else np.asarray(as_numpy(xv.grad.data))
    )
    analytic = np.broadcast_to(analytic, num.shape)
    err = np.abs(analytic - num)
    bad = ~within_tolerance(analytic, num, rtol, atol)
    worst = np.unravel_index(int(np.argmax(np.where(np.isnan(err), np.inf, err))), err.shape)
    return CheckResult(
        ok=not bool(bad.any()),
        analytic=analytic,
        numerical=num,
        max_abs_error=float(np.nanmax(err)) if err.size else 0.0,
        worst_index=tuple(int(i) for i in worst),
    )


def _host(a: Any) -> np.ndarray:
    return np.asarray(as_numpy(a.data if isinstance(a, Variable) else a))


def array_equal(a: Any, b: Any) -> bool:
    """Whether two arrays or Variables hold the same numbers (DeZero's test helper)."""
    return bool(np.array_equal(_host(a), _host(b)))


def array_allclose(a: Any, b: Any, rtol: float = RTOL, atol: float = ATOL) -> bool:
    """Whether two arrays or Variables agree within DeZero's tolerances."""
    return bool(np.allclose(_host(a), _host(b), rtol=rtol, atol=atol))


# --- Ridders' method: the adaptive estimate --check uses ------------------------

RATIO = 2.0  # each step half the one before
MAX_DEPTH = 6  # Richardson levels: error terms h^2 ... h^12 removed
MAX_STEPS = 80  # |a| up to 2^69 keeps both ends (1e15: 60 steps)
SAFETY = 4.0  # est_error is four times the tableau's spread (see docs/check.md)
ULPS = 4.0  # the rounding error assumed of each value of f, in machine epsilons
STENCILS = {1: (-1.0, 1.0), 2: (-1.0, 0.0, 1.0), 3: (-2.0, -1.0, 1.0, 2.0)}


def _steps(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The first (largest) step at each point, and how many steps it takes:
    from half of max(1, |a|) down to min(1, |a|)/1024, so that both the scale 1
    (exp at 700) and the scale |a| (log at 1e-8, x^10 at 1e3) are passed
    through; at least 8 and at most MAX_STEPS."""
    mag = np.abs(a)
    hi = 0.5 * np.maximum(1.0, mag)
    lo = np.where(mag > 0, np.minimum(1.0, mag), 1.0) / 1024
    with np.errstate(all="ignore"):
        n = np.ceil(np.log2(hi / lo)) + 1
    return hi, np.clip(np.nan_to_num(n, nan=MAX_STEPS), 8, MAX_STEPS).astype(int)


def _difference(f: Callable[[Any], Any], a: np.ndarray, h: np.ndarray, order: int,
                dtype: Any, eps: float) -> tuple[np.ndarray, np.ndarray]:
    """order! times the divided difference of f over the stencil a + s*h, the
    points rounded to ``dtype`` and the offsets actually taken used; and the
    rounding error that difference can carry (ULPS eps of each |weight * value|)."""
    offsets, values = [], []
    for s in STENCILS[order]:
        p = np.asarray(a + s * h, dtype=dtype)
        offsets.append(p.astype(np.float64) - a)
        values.append(np.asarray(f(p), dtype=np.float64))
    est = np.zeros(np.broadcast(a, values[0]).shape)
    noise = np.zeros_like(est)
    fact = float(math.factorial(order))
    for i, (t, v) in enumerate(zip(offsets, values)):
        w = np.full_like(t, fact)
        for j, u in enumerate(offsets):
            if j != i:
                w = w / (t - u)
        est = est + w * v
        noise = noise + np.abs(w * v)
    return est, ULPS * eps * noise


def ridders(f: Callable[[Any], Any], a: Any, order: int,
            dtype: Any = np.float64) -> tuple[np.ndarray, np.ndarray]:
    """Ridders' estimate of the ``order``-th (1 to 3) derivative of elementwise
    ``f`` at each point of ``a``, and the error it claims for itself.

    Central differences at steps halving from max(1, |a|)/2 fill a Richardson
    tableau (Numerical Recipes' dfridr, with ratio 2): entry (j, i) removes
    the error terms in h^2 ... h^2j. Each entry's error is the largest of its
    distances to its two parents and to the entry of its depth one step
    larger, and the rounding error the differences carry,
    propagated through the extrapolation; each point takes the entry whose
    error is least, unless an entry made from smaller steps only contradicts
    it beyond both errors, and reports SAFETY times the error. Points where no step
    gives a finite entry are nan, with an infinite error.
    """
    if order not in STENCILS:
        raise ValueError(f"Ridders' estimate is for orders 1 to 3, not {order}")
    a = np.asarray(as_numpy(a), dtype=np.float64)
    eps = float(np.finfo(dtype).eps)
    h0, steps = _steps(a)
    count = int(steps.max(initial=8))
    prev: list[np.ndarray] = []
    prev_noise: list[np.ndarray] = []
    best = best_err = best_end = None
    active: np.ndarray | None = None  # the flat indices of points still stepping
    with np.errstate(all="ignore"):
        for i in range(count):
            # a point past its own smallest step keeps it: f sees finite points
            h = h0 / RATIO ** np.minimum(i, steps - 1)
            d, r = _difference(f, a, h, order, dtype, eps)
            if best is None:
                shape = d.shape
                best = np.full(d.size, np.nan)
                best_err = np.full(d.size, np.inf)
                best_end = np.full(d.size, -1)
                per_point = steps.reshape(-1) if d.shape == a.shape else np.full(d.size, count)
                active = np.arange(d.size)
            still = per_point[active] > i
            if not still.all():  # the tableau of points done no further
                active = active[still]
                prev = [p[still] for p in prev]
                prev_noise = [p[still] for p in prev_noise]
            row, noise = [d.reshape(-1)[active]], [r.reshape(-1)[active]]
            b, b_err, b_end = best[active], best_err[active], best_end[active]
            for j in range(1, min(i, MAX_DEPTH) + 1):
                fac = RATIO ** (2 * j)
                t = (fac * row[j - 1] - prev[j - 1]) / (fac - 1)
                n = (fac * noise[j - 1] + prev_noise[j - 1]) / (fac - 1)
                spread = np.maximum(np.abs(t - row[j - 1]), np.abs(t - prev[j - 1]))
                if j < len(prev):  # and the entry of the same depth one step larger
                    spread = np.maximum(spread, np.abs(t - prev[j]))
                err = np.maximum(spread, n)
                # the least error wins; so does an entry from steps all smaller
                # than the chosen one's that contradicts it (past the scale on
                # which f varies, as sin at 1e6 with h = 1e5, the differences
                # shrink like 1/h^k and agree on a false 0)
                below = (i - j > b_end) & (np.abs(t - b) > err + b_err)
                better = (err < b_err) | (below & np.isfinite(err))
                b = np.where(better, t, b)
                b_err = np.where(better, err, b_err)
                b_end = np.where(better, i, b_end)
                row.append(t)
                noise.append(n)
            best[active], best_err[active], best_end[active] = b, b_err, b_end
            prev, prev_noise = row, noise
    return best.reshape(shape), SAFETY * best_err.reshape(shape)


def agrees(autodiff: Any, estimate: Any, est_error: Any, dtype: Any = np.float64) -> Any:
    """The --check rule (rules.CHECK_PASS_RULE), elementwise: |autodiff - estimate| <= est_error +
    32 eps |autodiff|, eps the dtype's machine epsilon (the second term is
    autodiff's own rounding). nan never passes, nor an infinite autodiff value."""
    autodiff, estimate = np.asarray(autodiff, np.float64), np.asarray(estimate, np.float64)
    eps = float(np.finfo(dtype).eps)
    with np.errstate(invalid="ignore"):
        close = np.abs(autodiff - estimate) <= est_error + AUTODIFF_ULPS * eps * np.abs(autodiff)
    return close & np.isfinite(autodiff)


CONCLUSIVE = 0.1
"""An estimate settles a check only where its error estimate is at most this
fraction of the derivative's size (the larger of |autodiff| and |numerical|),
or negligible: at most the square root of the dtype's machine epsilon (a
derivative of 0, as x^2's at 0)."""


def conclusive(autodiff: Any, estimate: Any, est_error: Any, dtype: Any = np.float64) -> Any:
    """Elementwise, whether an estimate can tell: it is finite, and its error
    estimate is small against the value (CONCLUSIVE). Elsewhere the check is
    inconclusive, whatever autodiff says (abs(x) at 0, order 2: an estimate of
    2.5e3 with an error of 5e3 confirms nothing, and refutes nothing)."""
    autodiff, estimate = np.asarray(autodiff, np.float64), np.asarray(estimate, np.float64)
    est_error = np.asarray(est_error, np.float64)
    floor = math.sqrt(float(np.finfo(dtype).eps))
    with np.errstate(invalid="ignore"):
        size = np.fmax(np.abs(autodiff), np.abs(estimate))  # fmax: a nan autodiff is no size
        small = (est_error <= CONCLUSIVE * size) | (est_error <= floor)
    return np.isfinite(estimate) & small


def verdicts(autodiff: Any, estimate: Any, est_error: Any, dtype: Any = np.float64) -> Any:
    """Each point's verdict as a float: 1 pass, 0 fail, nan inconclusive
    (``conclusive``), pass or fail by ``agrees``."""
    passed = agrees(autodiff, estimate, est_error, dtype).astype(np.float64)
    return np.where(conclusive(autodiff, estimate, est_error, dtype), passed, np.nan)


def verdict(points: Any) -> bool | None:
    """The verdict over points (``verdicts``): False where any fails, else None
    (inconclusive) where any is inconclusive or there are none, else True."""
    points = np.asarray(points, np.float64)
    if (points == 0).any():
        return False
    if points.size == 0 or np.isnan(points).any():
        return None
    return True
