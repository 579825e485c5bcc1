"""Derivatives by repeated backprop, with zeros where a derivative vanishes.

``Variable.grad`` keeps DeZero's meaning (None: nothing computed); these helpers
are for callers that want numbers, so an input the output does not depend on
gets a zero of its shape, never None.
"""

from __future__ import annotations

from collections.abc import Sequence

from .backend import get_array_module
from .graph import Variable


def _zeros_like(x: Variable) -> Variable:
    return Variable(get_array_module(x.data).zeros_like(x.data))


def grad(
    y: Variable, inputs: Sequence[Variable], create_graph: bool = False
) -> list[Variable]:
    """d(sum y)/d input for each input, like ``torch.autograd.grad``.

    The inputs' own ``grad`` are left as they were found.
    """
    saved = [x.grad for x in inputs]
    for x in inputs:
        x.grad = None
    y.grad = None
    try:
        y.backward(create_graph=create_graph)
        return [x.grad if x.grad is not None else _zeros_like(x) for x in inputs]
    finally:
        y.grad = None
        for x, g in zip(inputs, saved):
            x.grad = g


def higher_derivatives(y: Variable, x: Variable, order: int) -> list[Variable]:
    """[d^k y / dx^k for k in 1..order] by backprop through backprop (DeZero's way).

    For a non-scalar ``y`` each order is the gradient of the sum of the
    previous one, which for an elementwise expression is elementwise.
    """
    out: list[Variable] = []
    current = y
    for k in range(order):
        if current.creator is None:  # constant in x: every higher order vanishes
            out.extend(_zeros_like(x) for _ in range(order - k))
            break
        (current,) = grad(current, [x], create_graph=k + 1 < order)
        out.append(current)
    return out
