"""Whether an expression mixes the elements of its variable, read from the graph.

``y`` is *elementwise in x* when each element of y depends only on the same
element of x: x's shape is y's and every operation between them keeps that
pairing (the built-ins, + - * / ^ and the like, with constants and scalars
broadcast against them, and reshapes of one element). Then the derivatives of
each element of y by the same element of x are one polynomial a point, and a
series of y by x means something. Otherwise (a sum, ``@``, indexing, max and
min, a broadcast or reshape of an array computed from x, a transpose, an array
built from x's elements...) the derivatives by x are those of the sum of y's
elements: a gradient, not a derivative per point.
"""

from __future__ import annotations

from .graph import Function, Variable
from .ops import Add, Div, Mul, Neg, OneMinusSquare, Pow, Sub
from .shapes import (
    BroadcastTo,
    Extreme,
    GetItem,
    GetItemGrad,
    MatMul,
    Reshape,
    Sum,
    SumTo,
    Transpose,
)

# operations whose output element i is made from input element i alone, once
# their operands have the output's shape (or one element each)
_POINTWISE: tuple[type[Function], ...] = (Add, Sub, Mul, Div, Neg, Pow, OneMinusSquare)
# operations that always combine or move elements of an input of 2 or more
_MIXING: tuple[type[Function], ...] = (Sum, MatMul, GetItem, GetItemGrad, Extreme)


def _registry_classes() -> tuple[type[Function], ...]:
    from .known import KnownRows  # a node standing for its derivatives: elementwise
    from .registry import POINTWISE, REGISTRY  # the registry imports graph first

    return tuple(e.function for e in REGISTRY.values()
                 if e.kind == "elementwise" and e.function is not None) \
        + tuple(POINTWISE) + (KnownRows,)


def mixes_elements(y: Variable, x: Variable) -> bool:
    """True when some element of ``y`` depends on an element of ``x`` other than
    its own (or y's shape is not x's, so that no pairing exists); False when y
    is elementwise in x, or does not depend on x at all.

    A one-element x pairs with every element of y: an array made from a scalar
    x by elementwise operations (``x*[1, 2, 3]``) mixes nothing.
    """
    if x.size <= 1:  # one element is every element's own: nothing to mix
        return False
    depends: dict[int, bool] = {}
    order = _reaching(y, x, depends)
    if not depends.get(id(y), False):
        return False
    if x.size > 1 and y.shape != x.shape:
        return True
    pointwise = _POINTWISE + _registry_classes()
    for f in order:
        if _mixes(f, x, depends, pointwise):
            return True
    return False


def _reaching(y: Variable, x: Variable, depends: dict[int, bool]) -> list[Function]:
    """The Functions between x and y whose output depends on x, filling
    ``depends`` (id of a Variable -> whether it depends on x). Iterative: a
    graph may be deeper than Python's recursion limit."""
    seen: dict[int, Function] = {}
    stack: list[tuple[Variable, bool]] = [(y, False)]
    while stack:
        v, expanded = stack.pop()
        key = id(v)
        if key in depends and not expanded:
            continue
        if v is x:
            depends[key] = True
            continue
        f = v.creator
        if f is None:
            depends[key] = False
            continue
        if not expanded:
            depends[key] = False  # a placeholder while the inputs are visited
            stack.append((v, True))
            stack.extend((u, False) for u in f.inputs if id(u) not in depends)
            continue
        if any(depends.get(id(u), False) for u in f.inputs):
            depends[key] = True
            seen[id(f)] = f
    return list(seen.values())


def _mixes(f: Function, x: Variable, depends: dict[int, bool],
           pointwise: tuple[type[Function], ...]) -> bool:
    out_shape = f.outputs[0]().shape if f.outputs and f.outputs[0]() is not None else None
    from_x = [u for u in f.inputs if depends.get(id(u), False)]
    if isinstance(f, pointwise):
        # an operand from x broadcast to a larger shape meets other elements
        return any(u.size > 1 and u.shape != out_shape for u in from_x)
    if isinstance(f, _MIXING):
        return any(u.size > 1 for u in from_x)
    if isinstance(f, (Reshape, BroadcastTo, SumTo)):
        return any(u.size > 1 and u.shape != out_shape for u in from_x)
    if isinstance(f, Transpose):
        # a transpose moves elements unless at most one axis is longer than 1
        return any(sum(n > 1 for n in u.shape) > 1 for u in from_x)
    # Stack and anything unknown: elements of x end up in other places
    return any(u.size > 1 for u in from_x) or x.size > 1
