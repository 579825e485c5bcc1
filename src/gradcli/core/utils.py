"""The public face of DeZero's ``dezero.utils``: checks, graph drawing and
``sum_to`` on arrays (what DeZero's tests import from there)."""

from typing import Any

from .check import (
    CheckResult,
    array_allclose,
    array_equal,
    central_difference,
    gradient_check,
    numerical_diff,
    numerical_grad,
)
from .dot import get_dot_graph, plot_dot_graph
from .shapes import sum_to_array


def sum_to(x: Any, shape: tuple[int, ...]) -> Any:
    """The array x summed down to ``shape`` (the reverse of broadcasting), as
    ``dezero.utils.sum_to``; ``functions.sum_to`` is the differentiable one."""
    return sum_to_array(x, tuple(shape))

__all__ = [
    "CheckResult",
    "array_allclose",
    "array_equal",
    "central_difference",
    "get_dot_graph",
    "gradient_check",
    "numerical_diff",
    "numerical_grad",
    "plot_dot_graph",
    "sum_to",
]
