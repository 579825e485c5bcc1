"""Each op's two backward methods agree: ``backward`` on Variables (what
``create_graph=True`` runs, a graph that differentiates again) and
``_backward_data`` on arrays (what a plain ``backward()`` runs).

Every Function class of ops.py, stack.py and the registry is named here, either
with cases for its array backward or as one that has none (the plain pass then
calls its ``backward`` as written): a new op without a case fails
``test_every_op_is_covered``.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from gradcli.core import Constant, Function, Variable, ops, shapes, stack, using_config
from gradcli.core.backprop import _fast_backward_for
from gradcli.core.registry import REGISTRY
from gradcli.errors import NumericWarning

RNG = np.random.default_rng(22)
ELEMENTWISE = sorted(name for name, b in REGISTRY.items() if b.kind == "elementwise")


def _points(name: str, shape: tuple[int, ...]) -> np.ndarray:
    lo, hi = REGISTRY[name].domain
    return RNG.uniform(lo, hi, size=shape)


_KEEP: list[Variable] = []  # outputs are held weakly by their creator: keep them alive


def _node(make: Callable[..., Any], *datas: Any) -> Function:
    """The Function that ``make`` applies to Variables of ``datas``."""
    with using_config("enable_backprop", True):
        y = make(*[d if isinstance(d, Variable) else Variable(np.asarray(d)) for d in datas])
    assert y.creator is not None
    _KEEP.append(y)
    return y.creator


def _as_arrays(gxs: Any) -> list[Any]:
    if not isinstance(gxs, tuple):
        gxs = (gxs,)
    return [None if g is None else np.asarray(g.data if isinstance(g, Variable) else g)
            for g in gxs]


def _assert_agree(f: Function, gy: Any) -> None:
    fast = _fast_backward_for(type(f))
    assert fast is not None, f"{type(f).__name__} has no array backward"
    with using_config("enable_backprop", True):
        slow = _as_arrays(f.backward(Variable(np.asarray(gy))))
    quick = _as_arrays(fast(f, gy))
    assert len(slow) == len(quick) == len(f.inputs)
    for x, s, q in zip(f.inputs, slow, quick):
        if q is None:
            # the array pass may skip what no one reads: a Constant's gradient
            assert s is None or type(x) is Constant
            continue
        assert s is not None
        assert q.shape == s.shape == x.shape
        assert q.dtype == s.dtype
        np.testing.assert_allclose(q, s, rtol=1e-14, atol=0)


def _gy(f: Function) -> Any:
    out = f.outputs[0]()
    return RNG.uniform(0.5, 2.0, size=out.shape)


@pytest.mark.parametrize("name", ELEMENTWISE)
@pytest.mark.parametrize("shape", [(), (4,), (2, 3)], ids=["0d", "1d", "2d"])
def test_elementwise_backward_methods_agree(name: str, shape: tuple[int, ...]) -> None:
    f = _node(REGISTRY[name].call, _points(name, shape))
    assert type(f) is REGISTRY[name].function
    _assert_agree(f, _gy(f))
    if shape == ():  # the plain pass hands on NumPy scalars for 0-d gradients
        _assert_agree(f, np.float64(_gy(f)))


# (id, how to make the node, its inputs' data)
OP_CASES: list[tuple[str, Callable[..., Any], tuple[Any, ...]]] = [
    ("add", lambda a, b: a + b, (RNG.normal(size=3), RNG.normal(size=3))),
    ("add-broadcast", lambda a, b: a + b, (RNG.normal(size=(2, 3)), RNG.normal(size=3))),
    ("add-constant", lambda a: a + Constant(np.array([1.0, 2.0])), (RNG.normal(size=2),)),
    ("sub", lambda a, b: a - b, (RNG.normal(size=3), RNG.normal(size=3))),
    ("sub-broadcast", lambda a, b: a - b, (RNG.normal(size=(2, 1)), RNG.normal(size=3))),
    ("sub-constant", lambda a: 2.0 - a, (RNG.normal(size=3),)),
    ("mul", lambda a, b: a * b, (RNG.normal(size=3), RNG.normal(size=3))),
    ("mul-0d", lambda a, b: a * b, (np.array(1.5), np.array(-0.7))),
    ("mul-broadcast", lambda a, b: a * b, (RNG.normal(size=(2, 3)), RNG.normal(size=(1, 3)))),
    ("mul-constant", lambda a: a * 3.0, (RNG.normal(size=3),)),
    ("div", lambda a, b: a / b, (RNG.normal(size=3), RNG.uniform(0.5, 2, size=3))),
    ("div-0d", lambda a, b: a / b, (np.array(1.5), np.array(-0.7))),
    ("div-broadcast", lambda a, b: a / b, (RNG.normal(size=(2, 3)), RNG.uniform(1, 2, 3))),
    ("rdiv-constant", lambda a: 2.0 / a, (RNG.uniform(0.5, 2, size=3),)),
    ("neg", lambda a: -a, (RNG.normal(size=3),)),
    ("pow-2", lambda a: a**2, (RNG.normal(size=3),)),
    ("pow-3-0d", lambda a: a**3, (np.array(1.3),)),
    ("pow-1", lambda a: a**1, (RNG.normal(size=3),)),
    ("pow-0", lambda a: a**0, (RNG.normal(size=3),)),
    ("pow-half", lambda a: a**0.5, (RNG.uniform(0.5, 2, size=3),)),
    ("pow-minus-1.5", lambda a: a**-1.5, (RNG.uniform(0.5, 2, size=3),)),
    ("pow-variables", lambda a, b: a**b, (RNG.uniform(0.5, 2, size=3), RNG.normal(size=3))),
    ("pow-variables-0d", lambda a, b: a**b, (np.array(1.7), np.array(0.3))),
    ("pow-variables-zero-base", lambda a, b: a**b,
     (np.array([0.0, 1.5, 2.0]), np.array([2.0, 0.5, 3.0]))),
    ("pow-variables-broadcast", lambda a, b: a**b,
     (RNG.uniform(0.5, 2, size=(2, 3)), RNG.normal(size=3))),
    ("rpow", lambda a: 2.0**a, (RNG.normal(size=3),)),
    ("one-minus-square", lambda a: ops.one_minus_square(a), (RNG.uniform(-0.9, 0.9, 3),)),
    ("square-minus-one", lambda a: ops.one_minus_square(a, -1.0), (RNG.uniform(1.1, 3, 3),)),
    ("reshape", lambda a: shapes.reshape(a, (3, 2)), (RNG.normal(size=(2, 3)),)),
    ("transpose", lambda a: shapes.transpose(a), (RNG.normal(size=(2, 3)),)),
    ("transpose-axes", lambda a: shapes.transpose(a, (1, 2, 0)), (RNG.normal(size=(2, 3, 4)),)),
    ("transpose-negative-axes", lambda a: shapes.transpose(a, (-1, 0, 1)),
     (RNG.normal(size=(2, 3, 4)),)),
    ("sum", lambda a: shapes.sum(a), (RNG.normal(size=(2, 3)),)),
    ("sum-axis", lambda a: shapes.sum(a, 1), (RNG.normal(size=(2, 3)),)),
    ("sum-axes-keepdims", lambda a: shapes.sum(a, (0, 2), True), (RNG.normal(size=(2, 3, 4)),)),
    ("sum-0d", lambda a: shapes.sum(a), (np.array(2.5),)),
    ("broadcast-to", lambda a: shapes.broadcast_to(a, (2, 3)), (RNG.normal(size=3),)),
    ("sum-to", lambda a: shapes.sum_to(a, (1, 3)), (RNG.normal(size=(2, 3)),)),
]

# Ops whose plain backward pass calls ``backward`` on Variables (no array version
# to disagree with): matrix products, indexing, max/min and stacking.
BACKWARD_ONLY = {shapes.MatMul, shapes.GetItem, shapes.GetItemGrad, shapes.Max, shapes.Min,
                 stack.Stack}


@pytest.mark.parametrize("make, datas", [c[1:] for c in OP_CASES],
                         ids=[c[0] for c in OP_CASES])
def test_op_backward_methods_agree(make: Callable[..., Any], datas: tuple[Any, ...]) -> None:
    f = _node(make, *datas)
    _assert_agree(f, _gy(f))


def _classes(module: Any) -> set[type]:
    return {c for c in vars(module).values()
            if isinstance(c, type) and issubclass(c, Function) and c.__module__ == module.__name__
            and not c.__name__.startswith("_")
            and not c.__subclasses__()  # a base such as Extreme (of Max, Min)
            and c.forward is not Function.forward}


def test_every_op_is_covered() -> None:
    covered = {type(_node(make, *datas)) for _, make, datas in OP_CASES}
    covered |= {REGISTRY[name].function for name in ELEMENTWISE}
    classes = _classes(ops) | _classes(shapes) | _classes(stack)
    classes |= {REGISTRY[n].function for n in ELEMENTWISE}
    assert classes - covered - BACKWARD_ONLY == set()
    assert all(_fast_backward_for(c) is None for c in BACKWARD_ONLY)
    assert all(_fast_backward_for(c) is not None for c in covered)


def test_the_plain_pass_and_create_graph_give_the_same_gradients() -> None:
    # end to end, through both passes, on a formula that uses most ops at once
    def formula(a: Variable, b: Variable) -> Variable:
        import gradcli.core.functions as F

        t = F.sin(a) * b**2 - F.exp(-a / 3) + (a**b) / (1 + b * b)
        return shapes.sum(shapes.reshape(t, (3, 1)) * shapes.broadcast_to(F.tanh(b), (3,))) ** 0.5

    data = (RNG.uniform(0.5, 1.5, 3), RNG.uniform(0.5, 1.5, 3))
    grads = []
    for create_graph in (False, True):
        a, b = Variable(data[0].copy()), Variable(data[1].copy())
        formula(a, b).backward(create_graph=create_graph)
        grads.append((a.grad.data, b.grad.data))
    for plain, graphed in zip(*grads):
        np.testing.assert_allclose(plain, graphed, rtol=1e-13)


@pytest.mark.parametrize("x0, order", [(-40.0, 6), (-5.0, 8)])
def test_backprop_through_a_division_stays_finite_at_high_orders(x0: float, order: int) -> None:
    # The quotient rule written with x1**2 squared the denominator at every
    # order: 1 + exp(40) = 2.4e17 to the 64th power overflows at order 6 (nan),
    # and at -5 order 8 is 7e-8 off; repeated backprop must match Taylor mode.
    # (At 0.7 it took order 11 and 13 s to go wrong.)
    import gradcli.core.functions as F
    from gradcli.core import higher_derivatives
    from gradcli.core.taylor import taylor_derivatives

    x = Variable(np.array(x0))
    y = 1 / (1 + F.exp(-x))
    taylor = taylor_derivatives(y, x, order)[1:]
    with warnings.catch_warnings():  # the graph-size guard's advice, beside the point
        warnings.simplefilter("ignore", NumericWarning)
        backprop = [d.data for d in higher_derivatives(y, x, order)]
    assert len(backprop) == order
    for a, b in zip(taylor, backprop):
        assert math.isclose(float(a), float(b), rel_tol=1e-8), (a, b)
