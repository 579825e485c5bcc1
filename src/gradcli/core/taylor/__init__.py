"""Taylor mode: every derivative up to order N from one replay of a recorded graph.

Repeated backprop (``create_graph`` N times) builds a graph that grows
exponentially with the order. Taylor mode instead pushes a truncated Taylor
series through the graph the forward pass already recorded: the input becomes
``x(t) = x0 + t`` and every node carries the coefficients ``c_0 .. c_N`` of its
value as a series in ``t``; the k-th derivative is ``k! * c_k``. The cost is
O(N) per linear node and O(N^2) per nonlinear one, and the order-0
coefficients are the values the forward pass recorded, never recomputed.

The recurrences are the standard ones (Griewank & Walther, *Evaluating
Derivatives*, 2nd ed., ch. 13): products are convolutions, quotients and
``log`` solve ``b q = a`` and ``u y' = u'`` order by order, ``exp``, ``sin``/
``cos``, ``sinh``/``cosh`` and ``tan``/``tanh``/``sigmoid`` integrate ``y' =
g(y) u'``, powers solve ``u y' = a y u'``, and the inverse functions integrate
their derivative's series. Where a function's input is linear in ``t`` (the
seed itself, ``2*x + 1``, ``-x``) closed forms replace the recurrences, and
integer powers are exact (binomials, or repeated products), so ``x**2`` at 0
gives exactly ``[0, 0, 2, 0, ...]``.

Rules: each elementwise registry entry carries its rule (``Builtin.taylor``,
also the generated class's ``taylor_rule``), called as
``rule(u0, U, y0, n) -> Y`` with ``u0`` the input's value, ``U`` its
coefficients 1..d stacked along a leading axis (``d >= 1`` rows; rows past
``d`` are zero and not stored; the trailing shape may be smaller than ``u0``'s
and broadcasts), ``y0`` the output's recorded value, and ``Y`` the output's
coefficients 1..n, shape ``(n,) + y0.shape``. The structural operations
(``Add``, ``Mul``, ``Sum``, ``MatMul`` ...) get theirs from ``STRUCTURAL_RULES``
below, keyed by class, called as ``rule(f, inputs, y0, n)`` where ``inputs``
are ``(value, coefficients or None)`` pairs (None: the input is a constant).
A Function with neither makes Taylor mode give up (``None``) so the caller
falls back to backprop.

Everything is vectorised over the elements with the array module (NumPy or
CuPy); Python loops run over orders only. One-element series (the common
``--at x=0.7`` case) are stored as 1-D arrays so a recurrence step is one dot
product whatever the order.

The package, one idea a module: ``api`` (the entry points below; it
replays again while a 0/0 needs more orders), ``replay`` (the plan from x to
y and its replay), ``blocks`` (large arrays block by block; CHUNK and THREADS
live there) run by ``threads`` (parts side by side, stopped together by a
Ctrl-C), ``budget`` (a replay's memory, counted before it allocates),
``scaling`` (k! c_k within float64; MAX_ORDER), ``rows`` (how a series is
stored, the block arena, the recurrence workspace ``Work``), ``series``
(products and quotients), ``singular`` (quotients whose terms both vanish),
the rules of the registry's functions in ``elementary`` (exp, log, the
trigonometric and hyperbolic ones), ``geometric`` (their closed forms over a
linear input), ``powers`` and ``inverse`` (asin ... atanh, abs), and
``structural`` (the core operations' rules).
"""

from .api import taylor_coefficients, taylor_derivatives, taylor_derivatives_at
from .blocks import blockwise, sample
from .replay import multiplies_two_series
from .scaling import FACTORIAL_ORDER, MAX_ORDER
from .series import more_orders, unknown_at_zero
from .structural import STRUCTURAL_RULES, missing_rules

__all__ = [
    "FACTORIAL_ORDER",
    "MAX_ORDER",
    "STRUCTURAL_RULES",
    "blockwise",
    "missing_rules",
    "more_orders",
    "multiplies_two_series",
    "sample",
    "taylor_coefficients",
    "taylor_derivatives",
    "taylor_derivatives_at",
    "unknown_at_zero",
]
