"""Stacking Variables into one array: the core op behind ``[a, b, c]``."""

from __future__ import annotations

from typing import Any

from ..errors import LimitError, ShapeError
from .backend import get_array_module
from .graph import Function, Variable
from .shapes import MAX_DIMS, get_item


class Stack(Function):
    """Stack equally shaped inputs along a new first axis; differentiable in each."""

    def forward(self, *xs: Any) -> Any:
        first = xs[0].shape
        for i, x in enumerate(xs):
            if x.shape != first:  # in the order written: item 1's, then the first other's
                raise ShapeError(f"array items have different shapes: {first} "
                                 f"(item 1) and {x.shape} (item {i + 1})")
        if xs[0].ndim >= MAX_DIMS:
            raise LimitError(f"arrays nest at most {MAX_DIMS} deep")
        return get_array_module(xs[0]).stack(xs)

    def backward(self, gy: Variable) -> tuple[Variable, ...]:
        return tuple(get_item(gy, i) for i in range(len(self.inputs)))


def stack(items: list[Any]) -> Variable:
    return Stack()(*items)
