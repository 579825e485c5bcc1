"""``roots(expr, x, a, b)``: every real root of expr in x on [a, b], as an array,
sorted, a multiple root once (the finder: core/roots.py).

The variable is bound inside expr only, as diff's is; a and b are numbers. The
roots are numbers, not a graph: a derivative through them (by a variable expr
reads besides x) is not taken, and the result says so with a warning.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..core.graph import Constant, Variable, using_config
from ..core.roots import find_roots
from ..errors import ArityError, GradcliError, MathError
from .ast import Call, Name, free_names
from .namespace import SPECIAL_FORMS
from .resolve import located, position

__all__ = ["roots_form"]


def roots_form(ev: Any, node: Call) -> Variable:
    """The value of ``roots(expr, x, a, b)`` in ``ev``, a lang.evaluate.Evaluator
    (not imported: it imports this module)."""
    args = node.args
    if len(args) != 4:
        raise ArityError(f"roots takes 4 arguments: {SPECIAL_FORMS['roots'][0]}; "
                         f"got {len(args)}").at(*position(node))
    body, var, a_node, b_node = args
    if not isinstance(var, Name):
        raise MathError("roots: the second argument must be a variable name, as in "
                        "roots(x^2 - 2, x, 0, 2)").at(*position(var))
    ev.not_a_function("roots", var)
    a, b = (_end(ev, n) for n in (a_node, b_node))
    if not a < b:
        raise MathError(f"roots: the interval [{a:g}, {b:g}] is empty; write the "
                        "smaller end first").at(*position(a_node))
    others = [n for n in free_names(body, ev.functions) if n != var.id]
    if others:
        ev.ctx.warn(f"roots(...) holds {others[0]} fixed: its roots are numbers, and a "
                    f"derivative through them by {others[0]} is not taken")
    engine = ev.calculus.engine

    def derivatives(xs: np.ndarray, n: int) -> list[Any]:
        point = Variable(ev.ctx.xp.asarray(xs, dtype=ev.ctx.dtype_type), name=var.id)
        with ev.scope({var.id: point}), using_config("enable_backprop", True):
            y = ev.eval(body)
        with np.errstate(all="ignore"):
            ds = engine.orders(y, point, n)
        return [np.asarray(_numpy(d), dtype=np.float64) for d in ds]

    try:
        found = find_roots(derivatives, a, b)
    except GradcliError as err:
        raise located(err, node) from None
    return Constant(ev.ctx.xp.asarray([r.x for r in found], dtype=ev.ctx.dtype_type))


def _end(ev: Any, node: Any) -> float:
    value = ev.eval(node).data
    if getattr(value, "size", 1) != 1 or not math.isfinite(float(value)):
        raise MathError("roots: the ends of the interval must be finite numbers").at(
            *position(node))
    return float(value)


def _numpy(a: Any) -> Any:
    from ..core.backend import as_numpy

    return as_numpy(a)
