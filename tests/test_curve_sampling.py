"""Curves: sampling by the session's evaluator in one Taylor-mode pass, gaps at poles
and outside the domain, the robust y range, and decimation that keeps extremes."""

from __future__ import annotations

import math

import numpy as np
import pytest
import sympy as sp

from gradcli.errors import GradcliError, UnknownNameError, UsageError
from gradcli.session import Session
from gradcli.session.curves import (
    cut_gaps,
    decimate,
    label,
    robust_range,
    sample_curves,
    session_evaluator,
)


def curves(exprs, a, b, points=400, order=0, session=None):
    s = session or Session()
    return sample_curves(session_evaluator(s), exprs, "x", a, b, points, order)


def test_values_and_derivatives_match_sympy():
    text = "exp(sin(x))*log(1+x^2)"
    data = curves([text], 0, 5, points=101, order=3)
    x = sp.Symbol("x")
    f = sp.exp(sp.sin(x)) * sp.log(1 + x**2)
    grid = np.linspace(0, 5, 101)
    assert [c.label for c in data.curves] == ["f", "f'", "f''", "f'''"]
    for k, curve in enumerate(data.curves):
        exact = sp.lambdify(x, sp.diff(f, x, k), "numpy")(grid)
        np.testing.assert_array_equal(curve.x, grid)  # no gap cut in a smooth curve
        np.testing.assert_allclose(curve.y, exact, rtol=1e-12, atol=1e-12)
    assert not data.clipped
    assert data.title == f"f(x) = {text}"


def test_one_evaluation_per_expression_gives_every_order():
    # one vectorised pass: the evaluator is called once per expression, with the
    # whole grid and the highest order (one more than drawn: the slope for gaps)
    calls = []
    inner = session_evaluator(Session())

    def counting(text, var, grid, order):
        calls.append((text, grid.shape, order))
        return inner(text, var, grid, order)

    sample_curves(counting, ["sin(x)", "x^3"], "x", -1, 1, 1000, 2)
    assert calls == [("sin(x)", (1000,), 3), ("x^3", (1000,), 3)]


def test_tan_has_a_gap_at_each_pole_and_no_line_across():
    data = curves(["tan(x)"], -3, 3, order=1)
    f = data.curves[0]
    assert data.clipped  # the values next to the poles (about 133) are left out
    lo, hi = data.y_range
    assert 5 < hi < 40 and -40 < lo < -5
    gaps = np.flatnonzero(np.isnan(f.y))
    for g, pole in zip(gaps, (-math.pi / 2, math.pi / 2)):  # each gap sits at its pole
        assert f.x[g - 1] < pole < f.x[g + 1]
        assert f.y[g - 1] > hi and f.y[g + 1] < lo
    # no segment left crosses the chart from top to bottom (an asymptote line)
    y0, y1 = f.y[:-1], f.y[1:]
    assert not np.any((y0 > hi) & (y1 < lo)) and not np.any((y0 < lo) & (y1 > hi))
    assert not np.any((np.sign(y0) != np.sign(y1)) & (np.abs(y1 - y0) > hi - lo))
    assert np.isnan(f.y).sum() == 2
    # sec^2 does not change sign at its poles: both sides go up, no gap needed
    assert np.isnan(data.curves[1].y).sum() == 0


def test_a_pole_is_cut_even_when_its_neighbours_are_on_the_chart():
    # 40 points: the samples next to pi/2 are only about +-6, inside the range
    data = curves(["tan(x)"], -3, 3, points=40)
    f = data.curves[0]
    assert np.isnan(f.y).sum() == 2
    assert not data.clipped


def test_log_over_minus_one_to_two_starts_at_zero():
    data = curves(["log(x)"], -1, 2, order=1)
    f = data.curves[0]
    assert np.isnan(f.y[f.x <= 0]).all()
    assert np.isfinite(f.y[f.x > 0]).all()
    assert f.x[np.isfinite(f.y)][0] == pytest.approx(0, abs=0.01)
    assert data.notes == []  # nan outside the domain is what gaps are for, not a warning


def test_an_expression_with_no_finite_value_says_so():
    data = curves(["sqrt(x)"], -2, -1)
    assert data.y_range is None
    assert data.notes == ["sqrt(x) has no finite value on x = -2..-1"]


def test_robust_range_leaves_out_pole_values_only():
    grid = np.linspace(0, 10, 400)
    assert robust_range([np.exp(grid)]) == ((1.0, math.exp(10)), False)
    with np.errstate(divide="ignore"):
        inv = 1 / np.linspace(-5, 5, 400)
    (lo, hi), clipped = robust_range([inv])
    assert clipped and -10 < lo < -1 and 1 < hi < 10
    # a derivative with a pole does not flatten the curves without one
    (lo, hi), clipped = robust_range([np.sin(grid), inv], [0, 1])
    assert clipped and (lo, hi) == (float(np.sin(grid).min()), float(np.sin(grid).max()))


def test_cut_gaps_inserts_nan_between_the_branches():
    x = np.array([0.0, 1, 2, 3])
    y = np.array([1.0, 50, -50, -1])  # up to +50, then down from -50: a pole between
    slope = np.array([1.0, 100, 100, 1])
    gx, gy = cut_gaps(x, y, slope, (-2, 2))
    np.testing.assert_array_equal(gy, [1, 50, np.nan, -50, -1])
    assert gx[2] == 1.5
    # the same values going down with the slope are a steep curve, not a pole
    gx, gy = cut_gaps(x, np.array([1.0, 0.5, -0.5, -1]), -slope, (-2, 2))
    assert not np.isnan(gy).any()


def test_decimate_keeps_extremes_gaps_and_shape():
    x = np.linspace(0, 1, 1_000_001)
    y = np.sin(40 * x) + 0.001 * np.cos(7000 * x)
    y[500_000] = np.nan
    y[123_457] = 5.0  # a one-sample spike must survive
    dx, dy = decimate(x, y, 1000, (0, 1))
    assert dx.size <= 4 * 1000 + 2 * 5 + 1
    assert np.nanmax(dy) == 5.0 and np.nanmin(dy) == np.nanmin(y)
    assert np.isnan(dy).sum() == 1  # the gap stays one gap
    gap = np.flatnonzero(np.isnan(dy))[0]
    assert dx[gap - 1] < 0.5 <= dx[gap + 1]
    assert np.all(np.diff(dx[~np.isnan(dy)]) >= 0)  # still in x order
    small = np.linspace(0, 1, 100)
    assert decimate(small, small, 1000, (0, 1))[1] is small


def test_session_bindings_and_definitions_apply_and_are_restored():
    s = Session()
    s.run("f(t) = t^3; x = 7; a = 2")
    s.run("a + 1")  # ans = 3
    data = curves(["a*f(x)"], -1, 1, points=5, order=1, session=s)
    np.testing.assert_allclose(data.curves[0].y, 2 * np.linspace(-1, 1, 5) ** 3)
    np.testing.assert_allclose(data.curves[1].y, 6 * np.linspace(-1, 1, 5) ** 2)
    assert float(s.values["x"]) == 7 and float(s.values["ans"]) == 3


def test_several_expressions_are_named_by_themselves():
    data = curves(["sin(x)", "cos(x)"], 0, 1, points=3, order=2)
    assert [c.label for c in data.curves] == [
        "sin(x)", "d/dx sin(x)", "d\u00b2/dx\u00b2 sin(x)",
        "cos(x)", "d/dx cos(x)", "d\u00b2/dx\u00b2 cos(x)"]
    assert data.title == "sin(x), cos(x)"
    assert label("g", 4, "x", True) == "f\u207d\u2074\u207e"


def test_a_constant_is_a_flat_curve():
    data = curves(["3"], 0, 1, points=4, order=1)
    np.testing.assert_array_equal(data.curves[0].y, [3, 3, 3, 3])
    np.testing.assert_array_equal(data.curves[1].y, [0, 0, 0, 0])


@pytest.mark.parametrize(("text", "error", "words"), [
    ("sinn(x)", UnknownNameError, "did you mean sin"),
    ("x + y", UnknownNameError, "'y'"),
    ("sum(x)", UsageError, "elementwise"),
    ("a = 2", UsageError, "not an expression"),
])
def test_errors_are_the_evaluators(text, error, words):
    with pytest.raises(error) as info:
        curves([text], 0, 1)
    assert words in info.value.message
    if error is UnknownNameError:
        assert info.value.line == 1 and info.value.column is not None  # for the caret


@pytest.mark.parametrize(("a", "b", "points"), [(0, 1, 1), (1, 1, 10), (0, 1, 10**8)])
def test_bad_intervals_and_point_counts(a, b, points):
    with pytest.raises(GradcliError):
        curves(["x"], a, b, points=points)


def test_the_users_function_names_its_curves():
    s = Session()
    s.run("g(x) = x^3 - x; f(x) = x^2")
    data = curves(["g(x)"], -1, 1, points=5, order=2, session=s)
    assert data.title == "g(x)"  # not f(x) = g(x)
    assert [c.label for c in data.curves] == ["g", "g'", "g''"]
    np.testing.assert_allclose(data.curves[2].y, 6 * np.linspace(-1, 1, 5))
    assert curves(["f( x )"], 0, 1, points=3, session=s).title == "f( x )"
    assert curves(["sin(x)"], 0, 1, points=3).title == "f(x) = sin(x)"  # a built-in: f
    assert curves(["g(x) + 1"], 0, 1, points=3, session=s).title == "f(x) = g(x) + 1"
