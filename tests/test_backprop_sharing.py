"""Repeated backprop folds constants and shares equal nodes (core/derivatives.py's
Builder), refuses early what its node budget or the memory limit will not hold,
and leaves DeZero's ``backward(create_graph=True)`` as it was."""

from __future__ import annotations

import mpmath
import numpy as np
import pytest

import gradcli.core.functions as F
from gradcli.core import Variable, graph, higher_derivatives
from gradcli.core.derivatives import (
    BACKPROP_MAX_NODES,
    Builder,
    graph_size,
    nested_derivative,
)
from gradcli.core.ops import neg
from gradcli.core.taylor import taylor_derivatives
from gradcli.errors import LimitError

mp = mpmath.mp

# the five of issue 30 section 5: at order 10 their unshared graphs passed 150,000 nodes
# (the budget then)
FIVE = {
    "1/x": (lambda x: 1 / x, lambda t: 1 / t),
    "sqrt(x)": (F.sqrt, mpmath.sqrt),
    "x**x": (lambda x: x ** x, lambda t: t ** t),
    "1/sqrt(x)": (lambda x: 1 / F.sqrt(x), lambda t: 1 / mpmath.sqrt(t)),
    "sin(pi*x)/(pi*x)": (lambda x: F.sin(np.pi * x) / (np.pi * x),
                         lambda t: mpmath.sin(mpmath.pi * t) / (mpmath.pi * t)),
}


def _orders(build, at: float, order: int) -> list[float]:
    x = Variable(np.array(at))
    return [float(d.data) for d in higher_derivatives(build(x), x, order,
                                                      max_nodes=BACKPROP_MAX_NODES)]


@pytest.mark.parametrize("name", list(FIVE))
@pytest.mark.parametrize("at", [0.7, 2.5])
def test_the_five_reach_order_10_equal_to_taylor_mode(name: str, at: float) -> None:
    build, _ = FIVE[name]
    got = _orders(build, at, 10)
    x = Variable(np.array(at))
    want = [float(d) for d in taylor_derivatives(build(x), x, 10)[1:]]
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=0)


@pytest.mark.parametrize("name", list(FIVE))
def test_the_five_at_order_10_against_mpmath(name: str) -> None:
    build, exact = FIVE[name]
    got = _orders(build, 1.3, 10)[-1]
    with mp.workdps(40):
        want = float(mpmath.diff(exact, mpmath.mpf("1.3"), 10))
    assert got == pytest.approx(want, rel=1e-9)


def _sizes(build, at: float, order: int) -> list[int]:
    x = Variable(np.array(at))
    ds = higher_derivatives(build(x), x, order + 1, max_nodes=BACKPROP_MAX_NODES)
    return [graph_size(d, 10**7) for d in ds[:-1]]


@pytest.mark.parametrize("name", list(FIVE))
def test_the_order_9_graph_is_a_fraction_of_deZeros(name: str) -> None:
    # unshared, the order-9 graphs had 50,000 to 200,000 nodes (docs/derivatives.md)
    assert _sizes(FIVE[name][0], 0.7, 9)[-1] < 20_000


def test_periodic_derivatives_come_back_to_the_same_nodes() -> None:
    x = Variable(np.array(0.3))
    y = F.sin(x)
    ds = higher_derivatives(y, x, 9)
    assert ds[3] is y  # sin'''' is sin itself: -(-sin(x)) folds
    assert max(graph_size(d, 100) for d in ds[:-1]) <= 5
    e = F.exp(x)
    assert all(d is e for d in higher_derivatives(e, x, 5)[:-1])


def test_constants_fold_away() -> None:
    x = Variable(np.array(1.5))
    d1, d2, d3 = higher_derivatives(x * x * 3.0, x, 3)
    assert float(d1.data) == 9.0 and float(d2.data) == 6.0 and float(d3.data) == 0.0
    assert d2.creator is None  # 3*(1+1): no graph left to differentiate
    y = x * x
    assert nested_derivative(y, x, 2).creator is None


def test_adding_zero_keeps_negative_zero_apart() -> None:
    b = Builder()
    v = Variable(np.array(-0.0))
    w = Variable(np.array(1.5))
    with graph.sharing(b):
        z = v + 0.0
        u = w + 0.0
        p = w * 1.0
    assert z is not v and not np.signbit(z.data)  # -0 + 0 is +0
    assert u is w and p is w


def test_equal_nodes_are_one_node_and_products_commute() -> None:
    b = Builder()
    x = Variable(np.array(0.4))
    with graph.sharing(b):
        a = F.sin(x) * F.cos(x)
        c = F.cos(x) * F.sin(x)
        d = neg(neg(F.sin(x))) * neg(F.cos(x))
    assert a is c
    assert d.creator is not None and type(d.creator).__name__ == "Neg"
    assert d.creator.inputs[0] is a
    assert graph._sharing is None


def test_dezero_backward_keeps_its_unshared_graph() -> None:
    # backward(create_graph=True) outside the builder is DeZero's: 1/x's order-k
    # graphs have 11, 34 and 111 nodes, as before sharing existed
    x = Variable(np.array(0.7))
    y = 1 / x
    sizes = []
    for _ in range(3):
        x.cleargrad()
        y.backward(create_graph=True)
        y = x.grad
        sizes.append(graph_size(y, 10**6))
    assert sizes == [11, 34, 111]


def test_past_the_budget_is_refused_from_the_growth_so_far() -> None:
    x = Variable(np.array(0.7))
    with pytest.raises(LimitError, match=r"to order 40 would build graphs of more than 100,000 "
                       r"nodes in all: they grow about [\d.]+x per order \(order 3's has \d+\)"):
        higher_derivatives(1 / F.sqrt(x), x, 40, max_nodes=BACKPROP_MAX_NODES)


def test_the_prediction_refuses_before_building_much(monkeypatch) -> None:
    made = []
    original = Builder.count

    def count(self, out):
        made.append(1)
        original(self, out)

    monkeypatch.setattr(Builder, "count", count)
    x = Variable(np.array(0.7))
    with pytest.raises(LimitError, match="would build graphs of more than"):
        higher_derivatives(1 / F.sqrt(x), x, 40, max_nodes=BACKPROP_MAX_NODES)
    assert len(made) < 2_000  # of a budget of 100,000


def test_backprop_memory_is_refused_before_it_passes_the_limit(monkeypatch) -> None:
    monkeypatch.setenv("GRADCLI_MAX_MEMORY", "200M")
    x = Variable(np.linspace(0.1, 1, 1_000_000))  # 8 MB a node
    y = F.exp(F.sin(x)) * F.log(1 + x ** 2)  # 7 nodes
    # the graph and 20 orders of results alone need 216e6 bytes: refused before any
    with pytest.raises(LimitError, match=r"repeated backprop needs about 206 MB for "
                       r"1,000,000 points at order 20; the limit is 200 MB"):
        higher_derivatives(y, x, 20, max_nodes=BACKPROP_MAX_NODES)
    # 6 orders' results would fit, but their graphs grow past it
    with pytest.raises(LimitError, match="repeated backprop needs about .* the limit is 200 MB"):
        higher_derivatives(y, x, 6, max_nodes=BACKPROP_MAX_NODES)
    ds = higher_derivatives(y, x, 2, max_nodes=BACKPROP_MAX_NODES)
    want = taylor_derivatives(y, x, 2)
    np.testing.assert_allclose(ds[1].data, want[2], rtol=1e-12)


def test_the_default_method_falling_back_to_backprop_is_bounded(monkeypatch) -> None:
    from gradcli.session import EvalOptions, Session

    monkeypatch.setenv("GRADCLI_MAX_MEMORY", "100M")
    res = Session().run("x = linspace(0.1, 1, 1000000); sum(exp(sin(x))*log(1+x^2))",
                        EvalOptions(order=50))[-1]
    assert isinstance(res.error, LimitError)
    assert "repeated backprop needs about" in res.error.message
    assert "GRADCLI_MAX_MEMORY" in res.error.message
