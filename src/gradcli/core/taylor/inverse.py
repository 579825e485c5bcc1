"""Taylor rules of the inverse functions (asin ... atanh), which integrate
their derivative's series, and of abs."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..backend import get_array_module
from .powers import leading_term, pow_hi
from .rows import (
    binary,
    float_dtype,
    integrated,
)
from .series import div_hi, mul_hi


def _integral(u0: Any, U: Any, y0: Any, n: int, alpha: float, gamma: float,
              power: float, sign: float) -> Any:
    """y = integral of sign * (alpha + gamma u**2)**power du (asin, atan, acosh, ...).

    The derivative's series g is needed to order n-1 only; then
    k y_k = sum_{j=1..k} j u_j g_{k-j}.
    """
    xp = get_array_module(U)
    dtype = float_dtype(y0)
    if alpha == gamma:
        w0 = alpha + gamma * (u0 * u0)
    else:  # 1 - u**2 or u**2 - 1 as a product: the subtraction cancels near |u| = 1
        # + 0.0 makes -0.0 (gamma = -1 at |u| = 1) +0.0, the limit from inside the
        # domain: acos's derivatives at 1 came out -inf, inf, inf (all are -inf)
        w0 = gamma * ((u0 - 1.0) * (u0 + 1.0)) + 0.0
    g0 = 1.0 / w0 if power == -1.0 else w0**power
    if n > 1:
        sq = mul_hi(u0, U, u0, U, n - 1, u0.shape)
        W = sq * gamma if gamma != 1.0 else sq
        if power == -1.0:
            G = div_hi(None, None, w0, W, g0, n - 1)
        else:
            # the series of w**power itself, signed after: at w0 = 0 its rule reads
            # an infinite value as w0**power, and acos's -inf flipped orders 2, 3
            G = pow_hi(w0, W, g0, n - 1, power)
        if sign < 0:
            G = -G
    else:
        G = xp.zeros((0,) + y0.shape, dtype=dtype)
    return integrated(y0, n, -g0 if sign < 0 else g0, G, u0, U)


def asin_rule(u0: Any, U: Any, y0: Any, n: int) -> Any:
    return _integral(u0, U, y0, n, 1.0, -1.0, -0.5, 1.0)


def acos_rule(u0: Any, U: Any, y0: Any, n: int) -> Any:
    return _integral(u0, U, y0, n, 1.0, -1.0, -0.5, -1.0)


def atan_rule(u0: Any, U: Any, y0: Any, n: int) -> Any:
    return _integral(u0, U, y0, n, 1.0, 1.0, -1.0, 1.0)


def asinh_rule(u0: Any, U: Any, y0: Any, n: int) -> Any:
    return _integral(u0, U, y0, n, 1.0, 1.0, -0.5, 1.0)


def acosh_rule(u0: Any, U: Any, y0: Any, n: int) -> Any:
    return _integral(u0, U, y0, n, -1.0, 1.0, -0.5, 1.0)


def atanh_rule(u0: Any, U: Any, y0: Any, n: int) -> Any:
    return _integral(u0, U, y0, n, 1.0, -1.0, -1.0, 1.0)


def abs_rule(u0: Any, U: Any, y0: Any, n: int) -> Any:
    """|u| = sign(u0) u near u0. Where u0 = 0 and u's first nonzero coefficient
    u_m has an even order m, |u| is sign(u_m) u on both sides (|x^2| is x^2);
    for an odd m it has a kink, and sign(0) = 0 there, as backprop's derivative
    (and SymPy's sign, and PyTorch) has it."""
    xp = get_array_module(u0)
    s = xp.sign(u0)
    if not bool(xp.all(u0)):
        m, lead = leading_term(xp.broadcast_to(U, (U.shape[0],) + s.shape))
        even = (m > 0) & (m % 2 == 0) & xp.isfinite(lead)
        s = xp.where((u0 == 0) & even, xp.sign(lead), s)
    return binary(np.multiply, s, U)
