"""Numerical differentiation by central differences, and gradient checks.

``numerical_diff`` and ``gradient_check`` keep DeZero's names and defaults;
``central_difference`` is the step rule the CLI's ``--check`` documents:
h = eps**(1/3) * max(1, |a|) for order 1 and eps**(1/4) * max(1, |a|) for
order 2, which balance truncation error against rounding error.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..record import Record
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
            f"gradient check failed at index {i}: backprop {self.analytic[i]!r}, "
            f"central difference {self.numerical[i]!r} "
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
