"""Session-level choices of derivative method: Taylor, its limit, backprop's budget."""

from __future__ import annotations

import math

from gradcli.errors import LimitError
from gradcli.session import EvalOptions, Session


def _last(text: str, method: str = "auto", **options: object):
    return Session(method=method).run(text, EvalOptions(**options))[-1]


def test_auto_uses_taylor_and_both_methods_agree() -> None:
    taylor = _last("x = 0.7; exp(sin(x))*log(1+x**2)", order=6)
    backprop = _last("x = 0.7; exp(sin(x))*log(1+x**2)", method="backprop", order=6)
    assert taylor.method == "taylor" and backprop.method == "backprop"
    for a, b in zip(taylor.derivatives, backprop.derivatives):
        assert math.isclose(float(a), float(b), rel_tol=1e-10)


def test_auto_falls_back_to_backprop_past_taylor_order_limit() -> None:
    res = _last("x = 1; sin(x)", order=171)
    assert res.error is None and res.method == "backprop"
    # d^171 sin = sin(x + 171 pi/2) = -cos(x)
    assert math.isclose(float(res.derivatives[-1]), -math.cos(1.0), rel_tol=1e-12)


def test_forced_taylor_past_its_limit_is_a_clear_error() -> None:
    res = _last("x = 1; sin(x)", method="taylor", order=171)
    assert isinstance(res.error, LimitError)
    assert "170" in res.error.message


def test_backprop_stops_on_its_node_budget_with_a_pointer_to_taylor() -> None:
    res = _last("x = 0.7; exp(sin(x))*log(1+x**2)", method="backprop", order=20)
    assert isinstance(res.error, LimitError)
    assert "--method taylor" in res.error.message
    assert res.error.kind == "math"
