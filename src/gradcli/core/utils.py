"""The public face of DeZero's ``dezero.utils``: checks and graph drawing."""

from .check import (
    CheckResult,
    central_difference,
    gradient_check,
    numerical_diff,
    numerical_grad,
)
from .dot import get_dot_graph, plot_dot_graph

__all__ = [
    "CheckResult",
    "central_difference",
    "get_dot_graph",
    "gradient_check",
    "numerical_diff",
    "numerical_grad",
    "plot_dot_graph",
]
