"""Nodes that stand for their own derivatives, given by another method.

Backprop through ``sin(x)/x`` at 0 meets 0/0 at every order, though the node
has a limit and derivatives there (Taylor mode's). A node made to stand for
its rows ``[v, v', v'', ...]`` by x (``KnownRows``) is differentiated by
reading them, to any order, so that repeated backprop through a reduction of
it (sum(sin(x)/x): ``derivatives.higher_derivatives_through``) or through a
nested derivative of it gives the limits too.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .backend import get_array_module
from .graph import Constant, Function, Variable, attach


class KnownRows(Function):
    """A node of a graph that stands for its own derivatives by x, given as rows
    ``[v, v', v'', ...]`` of x's shape (elementwise in x): its value is row k, its
    backward is gy times row k + 1, itself such a node, so backprop to any order
    reads the rows rather than the operations that made the node. ``more(n)``,
    where given, gives the rows to order n when those held run out; past them
    the derivative is unknown (nan)."""

    def __init__(self, rows: list[Any], k: int = 0,
                 more: Callable[[int], list[Any] | None] | None = None) -> None:
        self.rows = rows  # shared by the nodes of one chain, and extended by them
        self.k = k
        self.more = more

    def forward(self, x: Any, *others: Any) -> Any:
        return self.rows[self.k]

    def backward(self, gy: Variable) -> Any:
        x, *others = self.inputs
        k = self.k + 1
        if k >= len(self.rows) and self.more is not None:
            got = self.more(max(2 * k, 4))
            if got is not None:
                self.rows.extend(got[len(self.rows):])
        xp = get_array_module(x.data)
        if k < len(self.rows):
            gx = gy * KnownRows(self.rows, k, self.more)(x, *others)
        else:
            gx = gy * Constant(xp.full_like(x.data, xp.nan))
        if not others:
            return gx
        # the rows are by x alone: by another variable the node read (sin(x*y)/(x*y)),
        # its derivatives are unknown here, nan rather than a wrong 0
        return (gx, *(gy * Constant(xp.full_like(o.data, xp.nan)) for o in others))


def stand_in(v: Variable, x: Variable, f: KnownRows,
             others: tuple[Variable, ...] = ()) -> None:
    """Make ``f`` (over x, and the ``others`` v also depends on) the creator of v
    in place of the one that made it, at that one's generation (so backprop
    meets v when it met it before)."""
    creator = v.creator
    attach(f, [x, *others], v, creator.generation if creator is not None else x.generation)


__all__ = ["KnownRows", "stand_in"]
