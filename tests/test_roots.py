"""The root finder (core/roots.py) on the cases issue 31 names, through the
session's evaluator (Taylor mode, every derivative in one pass)."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest

from gradcli.core.roots import Point, extrema, find_roots
from gradcli.session import Session
from gradcli.session.curves import session_evaluator


@pytest.fixture(scope="module")
def evaluate():
    return session_evaluator(Session())


def derivatives(evaluate, text: str):
    return lambda xs, n: evaluate(text, "x", xs, n)[0]


def roots(evaluate, text: str, a: float, b: float) -> list[tuple[float, int]]:
    return [(r.x, r.multiplicity) for r in find_roots(derivatives(evaluate, text), a, b)]


def ulps(x: float, truth: mpmath.mpf) -> float:
    return float(abs(mpmath.mpf(x) - truth) / np.spacing(abs(float(truth)) or 1e-300))


def test_double_root_appears_once(evaluate):
    assert roots(evaluate, "(x-1)^2*(x+2)", -3, 3) == [(-2.0, 1), (1.0, 2)]
    # the same cubic expanded: f(1) is rounding noise, not an exact 0
    assert roots(evaluate, "x^3 - 3*x + 2", -3, 3) == [(-2.0, 1), (1.0, 2)]


@pytest.mark.parametrize("a, b", [(-1, 1), (-1, 0.7), (-0.3, 2)])
def test_x_squared_at_zero(evaluate, a, b):
    # 0 a grid point, or not (no sign change either way)
    assert roots(evaluate, "x^2", a, b) == [(0.0, 2)]


def test_roots_at_the_ends(evaluate):
    assert roots(evaluate, "x^2 - 1", -1, 1) == [(-1.0, 1), (1.0, 1)]
    assert roots(evaluate, "sin(x)", 0, math.pi) == [(0.0, 1), (math.pi, 1)]
    assert roots(evaluate, "x^2 - 4", 2, 3) == [(2.0, 1)]


def test_close_roots(evaluate):
    # three roots inside one cell of the grid
    got = roots(evaluate, "x^3 - 1e-6*x", -1, 1)
    assert [m for _, m in got] == [1, 1, 1]
    for (x, _), truth in zip(got, (-1e-3, 0.0, 1e-3)):
        assert x == pytest.approx(truth, abs=1e-18)


def test_oscillation(evaluate):
    got = roots(evaluate, "sin(1/x)", 0.05, 1)
    assert len(got) == 6
    for (x, m), k in zip(got, range(6, 0, -1)):
        assert m == 1
        assert ulps(x, 1 / (k * mpmath.pi)) <= 2


def test_a_pole_is_not_a_root(evaluate):
    assert roots(evaluate, "tan(x)", 1, 2) == []
    assert roots(evaluate, "tan(x)", -1, 2) == [(0.0, 1)]
    assert roots(evaluate, "1/(x - 0.5)", 0, 1) == []
    # a jump through 0: a sign change, no root
    assert roots(evaluate, "x/abs(x)", -1, 1.1) == []


def test_multiplicity(evaluate):
    assert roots(evaluate, "x^3", -1, 1.3) == [(0.0, 3)]
    assert roots(evaluate, "x^4", -1, 1.3) == [(0.0, 4)]


@pytest.mark.parametrize("text, a, b, truth", [
    ("cos(x) - x", 0, 1, lambda: mpmath.findroot(lambda t: mpmath.cos(t) - t, 0.7)),
    ("exp(x) - 3", 0, 2, lambda: mpmath.log(3)),
    ("x^2 - 2", 0, 3, lambda: mpmath.sqrt(2)),
    ("log(x) - 1", 1, 5, lambda: mpmath.e),
])
def test_simple_roots_to_a_few_ulps(evaluate, text, a, b, truth):
    [(x, m)] = roots(evaluate, text, a, b)
    assert m == 1
    assert ulps(x, truth()) <= 2


def points(evaluate, text, a, b):
    return [(p.kind, p.x, p.value) for p in extrema(derivatives(evaluate, text), a, b)]


def test_inflection_not_extremum(evaluate):
    assert points(evaluate, "x^3", -1, 1.3) == [
        ("end", -1.0, -1.0), ("inflection", 0.0, 0.0), ("end", 1.3, pytest.approx(2.197))]


def test_x4_minimum(evaluate):
    # 0 is no inflection: f'' = 12x^2 does not change sign
    assert points(evaluate, "x^4", -1, 1.3) == [
        ("min", 0.0, 0.0), ("end", 1.3, pytest.approx(1.3 ** 4))]


def test_cubic_extrema(evaluate):
    got = extrema(derivatives(evaluate, "x^3 - 3*x"), -3, 3)
    assert got == [Point("end", -3.0, -18.0), Point("max", -1.0, 2.0),
                   Point("inflection", 0.0, 0.0), Point("min", 1.0, -2.0),
                   Point("end", 3.0, 18.0)]


def test_ends_listed_only_where_extreme(evaluate):
    # -1 is a local maximum of x^2 on [-1, 2] but not its largest value
    assert [(p.kind, p.x) for p in extrema(derivatives(evaluate, "x^2"), -1, 2)] == [
        ("min", 0.0), ("end", 2.0)]


def test_pole_is_no_inflection(evaluate):
    got = extrema(derivatives(evaluate, "tan(x)"), 1, 2)
    assert got == []


def test_flat_zero_has_no_roots(evaluate):
    # x^2 has f''' = 0 everywhere: no roots of it cut anything
    assert roots(evaluate, "0*x", -1, 1) == []


def test_polynomial_without_a_session():
    # the finder needs only derivatives at points: here a cubic's, by hand
    def cubic(xs, n):
        return [(xs - 0.25) * (xs - 0.5) * (xs + 2), 3 * xs**2 + 2.5 * xs - 1.375,
                6 * xs + 2.5, np.full_like(xs, 6.0)] + [np.zeros_like(xs)] * (n - 3)

    assert [r.x for r in find_roots(cubic, -3, 3)] == [-2.0, 0.25, 0.5]


def run(text: str):
    [*_, res] = Session().run(text)
    return res


def test_roots_in_the_language() -> None:
    res = run("roots(x^2 - 2, x, 0, 2)")
    assert res.error is None and res.value.tolist() == [math.sqrt(2)]
    # sorted, a double root once, and usable as an argument
    assert run("roots((x-1)^2*(x+2), x, -3, 3)").value.tolist() == [-2.0, 1.0]
    res = run("f(t) = t^2; g(t) = cos(t) - t; f(roots(g(x), x, 0, 1))")
    truth = mpmath.findroot(lambda t: mpmath.cos(t) - t, 0.7)
    assert res.value.tolist() == [pytest.approx(float(truth**2), rel=1e-15)]
    assert run("roots(tan(x), x, 1, 2)").value.tolist() == []
    # x is bound inside roots only: a value of x outside changes nothing
    assert run("x = 5; roots(x - 1, x, 0, 2)").value.tolist() == [1.0]


def test_roots_arguments_are_checked_with_their_place() -> None:
    res = run("roots(x, x, 0)")
    assert "roots takes 4 arguments" in res.error.message and res.error.column == 1
    res = run("roots(x, 2, 0, 1)")
    assert "variable name" in res.error.message and res.error.column == 10
    res = run("roots(x, x, 1, 0)")
    assert "empty" in res.error.message and res.error.column == 13
    res = run("roots(x, x, 0, inf)")
    assert "finite" in res.error.message


def test_roots_of_an_expression_with_a_parameter_warns() -> None:
    res = run("y = 2; roots(x^2 - y, x, 0, 3)")
    assert res.value.tolist() == [pytest.approx(math.sqrt(2), rel=1e-15)]
    assert any("holds y fixed" in w for w in res.warnings)
