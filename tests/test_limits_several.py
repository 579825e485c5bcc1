"""A 0/0 at a point of several variables (issue 29, "one meaning"): a limit is
taken only where the 0/0 is removable along one variable on the whole line
through the point (sin(x*y)/x at x = 0, whatever y); a 0/0 that the values
of several variables make together (x/y at x = y = 0) has no limit and stays
nan, with the 0/0 warning. Checked against SymPy's limits."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
import sympy as sp
from inprocess import gradcli

from gradcli.session import EvalOptions, Session

X, Y = sp.symbols("x y")


def _value(text: str, *at: str) -> tuple[float, str]:
    args = ("eval", text, *(("--at", ",".join(at)) if at else ()))
    proc = gradcli(*args)
    assert proc.returncode == 0, (text, proc.stderr)
    return float(proc.stdout.splitlines()[-1]), proc.stderr


@pytest.mark.parametrize("text", [
    "x/y", "y/x", "x*y/(x^2+y^2)", "sin(x)/sin(y)",
])
def test_a_0_over_0_of_two_variables_has_no_limit(text):
    value, err = _value(text, "x=0", "y=0")
    assert math.isnan(value)
    assert "0/0" in err
    # SymPy: the limits along the two axes differ, or one of them does not exist
    expr = sp.sympify(text.replace("^", "**"))
    along_x = sp.limit(expr.subs(Y, 0), X, 0) if expr.subs(Y, 0) != sp.nan else sp.nan
    along_diagonal = sp.limit(expr.subs(Y, 2 * X), X, 0)
    assert along_x != along_diagonal or not along_x.is_finite


@pytest.mark.parametrize("statements", [
    ("x=0; y=0; x/y",), ("f(a,b) = a/b; f(0,0)",), ("f(a,b) = a/b", "f(0,0)"),
])
def test_the_same_in_statements_and_definitions(statements):
    proc = gradcli("eval", *statements)
    assert proc.returncode == 0
    assert proc.stdout.splitlines()[-1] == "nan"
    assert "0/0" in proc.stderr


def test_its_derivatives_are_nan_too():
    proc = gradcli("eval", "x/y", "--at", "x=0,y=0", "--wrt", "x", "--order", "1")
    assert proc.returncode == 0
    assert proc.stdout.splitlines() == ["nan", "nan"]


@pytest.mark.parametrize(("text", "at", "expr"), [
    ("sin(x*y)/x", ("x=0", "y=3"), sp.sin(X * Y) / X),
    ("y*sin(x)/x", ("x=0", "y=2"), Y * sp.sin(X) / X),
    ("sin(x*y)/x", ("x=0", "y=0"), sp.sin(X * Y) / X),
    ("exp(sin(x*y)/x)", ("x=0", "y=-1.5"), sp.exp(sp.sin(X * Y) / X)),
])
def test_a_0_over_0_removable_along_one_variable_is_its_limit(text, at, expr):
    point = {sp.Symbol(a.split("=")[0]): sp.Rational(a.split("=")[1]) for a in at}
    expected = float(sp.limit(expr.subs(Y, point[Y]), X, point[X]))
    value, err = _value(text, *at)
    assert value == pytest.approx(expected, rel=1e-14)
    assert err == ""


def test_a_sweep_takes_the_limit_where_one_variable_makes_the_0_over_0():
    session = Session()
    session.run("y = [0, 2, 3]")
    session.run("x = [0, 0, 1]")
    (r,) = session.run("x*y/(x^2 + y)")  # 0/0 at (0, 0) only: x/(1 + ...) elsewhere
    values = list(r.value)
    assert math.isnan(values[0])
    assert values[1:] == pytest.approx([0.0, 0.75])
    (r,) = session.run("sin(x*y)/x")
    assert list(r.value) == pytest.approx([0.0, 2.0, math.sin(3.0)])


def _limit_of(expr, var, point: dict, limit_var=X):
    """SymPy's limit along ``limit_var`` of the derivative of ``expr``, at ``point``."""
    held = {s: v for s, v in point.items() if s is not limit_var}
    return float(sp.limit(expr.subs(held), limit_var, point[limit_var]))


SIN_XY = sp.sin(X * Y) / X
Y_SINC = Y * sp.sin(X) / X


@pytest.mark.parametrize(("text", "expr", "at"), [
    ("sin(x*y)/x", SIN_XY, {X: 0, Y: 3}),
    ("y*sin(x)/x", Y_SINC, {X: 0, Y: 2}),
    ("sin(x*y)/x", SIN_XY, {X: 0, Y: -0.5}),
])
def test_the_gradient_through_a_0_over_0_removable_along_the_other_variable(text, expr, at):
    args = ",".join(f"{s}={v}" for s, v in at.items())
    proc = gradcli("eval", text, "--at", args, "--grad")
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    got = dict(line.split(": ") for line in proc.stdout.splitlines()[1:])
    for name, sym in (("x", X), ("y", Y)):
        expected = _limit_of(sp.diff(expr, sym), sym, at)
        assert float(got[f"d/d{name}"]) == pytest.approx(expected, abs=1e-12), name


def test_the_orders_series_and_check_by_the_other_variable():
    at = {X: 0, Y: 3}
    orders = [_limit_of(sp.diff(SIN_XY, Y, k), Y, at) for k in range(4)]
    proc = gradcli("eval", "sin(x*y)/x", "--at", "x=0,y=3", "--wrt", "y", "--order", "3")
    assert proc.returncode == 0 and proc.stderr == ""
    assert [float(v) for v in proc.stdout.splitlines()] == pytest.approx(orders, abs=1e-10)
    proc = gradcli("eval", "sin(x*y)/x", "--at", "x=0,y=3", "--wrt", "y", "--series", "2")
    assert proc.stdout.splitlines() == ["3 + (y - 3)"]
    proc = gradcli("eval", "sin(x*y)/x", "--at", "x=0,y=3", "--wrt", "y", "--check")
    assert proc.returncode == 0, proc.stdout
    assert proc.stdout.count(" pass") == 2


def test_a_sweep_of_the_other_variable():
    session = Session()
    session.run("x = 0")
    session.run("y = linspace(1, 3, 3)")
    (r,) = session.run("sin(x*y)/x", options=EvalOptions(wrt="y", order=2))
    assert list(r.value) == pytest.approx([1, 2, 3])
    assert list(r.derivatives[0]) == pytest.approx([1, 1, 1])
    assert list(r.derivatives[1]) == pytest.approx([0, 0, 0], abs=1e-12)


@pytest.mark.parametrize(("statements", "expected"), [
    (("x = 0; y = 3; diff(sin(x*y)/x, y)",), _limit_of(sp.diff(SIN_XY, Y), Y, {X: 0, Y: 3})),
    (("x = 0; y = 3; diff(sin(x*y)/x, y, 2)",),
     _limit_of(sp.diff(SIN_XY, Y, 2), Y, {X: 0, Y: 3})),
    (("f(t) = sin(a*t)/t", "a = 2; x = 0; diff(f(x), a)"),
     _limit_of(sp.diff(sp.sin(Y * X) / X, Y), Y, {X: 0, Y: 2})),
])
def test_diff_by_the_other_variable(statements, expected):
    proc = gradcli("eval", *statements)
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    assert float(proc.stdout.splitlines()[-1]) == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize(("args", "lines"), [
    # the formula's limit along x, with y free: SymPy's limit(diff(y*sin(x)/x, y), x, 0)
    (("eval", "x=0; diff(y*sin(x)/x, y)"),
     [str(sp.limit(sp.diff(Y_SINC, Y), X, 0))]),
    (("eval", "y*sin(x)/x", "--at", "x=0", "--wrt", "y", "--order", "1"),
     [str(sp.limit(Y_SINC, X, 0)), str(sp.limit(sp.diff(Y_SINC, Y), X, 0))]),
    (("eval", "x=0; diff(sin(x*y)/x, y)"), [str(sp.limit(sp.diff(SIN_XY, Y), X, 0))]),
    (("eval", "x=0; diff(y*sin(x)/x, y, 2)"), ["0"]),
    # a derivative by a name the expression does not read is 0, as diff(x^2, y) is
    (("eval", "x=0; diff(sin(x)/x, y)"), ["0"]),
])
def test_formulas_at_a_bound_0_over_0_are_their_limits(args, lines):
    proc = gradcli(*args)
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    assert proc.stdout.splitlines() == lines


@pytest.mark.parametrize("text", ["x=0; z=0; diff(y*x/z, y)",
                                  "x=0; z=0; diff(y*x*z/(x^2+z^2), y)"])
def test_formulas_at_a_0_over_0_of_two_bound_names_have_no_limit(text):
    proc = gradcli("eval", text)
    assert proc.returncode == 1
    assert "division by zero in a formula" in proc.stderr


def _hessian_limit(expr, at: dict, order: list) -> list[list[float]]:
    return [[float(sp.limit(sp.diff(expr, a, b).subs(Y, at[Y]), X, at[X])) for b in order]
            for a in order]


@pytest.mark.parametrize(("text", "expected"), [
    ("x=0; hessian(sin(x)/x)", [[float(sp.limit(sp.diff(sp.sin(X) / X, X, 2), X, 0))]]),
    ("x=0; y=3; hessian(sin(x*y)/x)", _hessian_limit(SIN_XY, {X: 0, Y: 3}, [X, Y])),
    ("x=0; y=2; hessian(y*sin(x)/x)", _hessian_limit(Y_SINC, {X: 0, Y: 2}, [Y, X])),
    ("x=0; y=-1; hessian(sin(x*y)/x + x*y^2)",
     _hessian_limit(SIN_XY + X * Y**2, {X: 0, Y: -1}, [X, Y])),
    ("x=0; jacobian([sin(x)/x], [x])", [[0.0]]),
    ("x=0; y=3; jacobian([sin(x*y)/x, x*y], [x, y])",
     [[float(sp.limit(sp.diff(f, v).subs(Y, 3), X, 0)) for v in (X, Y)]
      for f in (SIN_XY, X * Y)]),
])
def test_hessian_and_jacobian_take_the_limits_diff_takes(text, expected):
    *_, r = Session().run(text)
    assert np.asarray(r.value) == pytest.approx(np.array(expected), abs=1e-12)
    assert r.warnings == []


def test_hessian_agrees_with_diff_and_laplacian():
    session = Session()
    session.run("x = 0")
    (h,) = session.run("hessian(sin(x)/x)")
    (d,) = session.run("diff(sin(x)/x, x, 2)")
    (lap,) = session.run("laplacian(sin(x)/x)")
    assert h.value[0, 0] == pytest.approx(float(d.value)) == pytest.approx(float(lap.value))


def test_an_assignment_holds_the_expressions_value():
    session = Session()
    session.run("x = 0")
    (assigned,) = session.run("y = sin(x)/x")
    (read,) = session.run("y")
    (expr,) = session.run("sin(x)/x")
    assert float(assigned.value) == float(read.value) == float(expr.value) == 1.0
    assert assigned.warnings == []
    proc = gradcli("eval", "x=0; y = sin(x)/x", "--format", "json")
    assert json.loads(proc.stdout.splitlines()[-1])["value"] == 1.0
    assert proc.stderr == ""


def test_an_assignment_of_a_0_over_0_of_two_variables_is_nan():
    proc = gradcli("eval", "x=0; z=0; y = x/z; y")
    assert proc.stdout.splitlines()[-1] == "nan"
    assert "0/0" in proc.stderr
    proc = gradcli("eval", "x=0; y = sin(x)/x; y", "--method", "backprop")
    assert proc.stdout.splitlines()[-1] == "nan"


def test_no_warning_of_a_nan_before_a_usage_error():
    proc = gradcli("eval", "y*sin(x)/x", "--at", "x=0,y=2", "--order", "2")
    assert proc.returncode == 2
    assert "choose one with --wrt" in proc.stderr
    assert "0/0" not in proc.stderr and "warning" not in proc.stderr


def test_a_derivative_nan_where_the_value_is_nan_blames_the_division():
    # (x cos x - sin x)/x^2 -> 0, but each part is a pole: nan, and the division is why
    proc = gradcli("eval", "cos(x)/x - sin(x)/x^2", "--at", "x=0", "--order", "1")
    assert proc.stdout.splitlines() == ["nan", "nan"]
    assert "'/': 0/0" in proc.stderr
    assert "cos" not in proc.stderr
    (r,) = Session().run("x = 0; hessian(sin(x)/x)")[-1:]
    assert r.warnings == []


@pytest.mark.parametrize(("text", "at", "expr"), [
    ("diff(diff(sin(x*y)/(x*y), x), x)", {X: 0, Y: 2}, sp.diff(sp.sin(X * Y) / (X * Y), X, 2)),
    ("diff(diff(sin(x*y)/x, x), x)", {X: 0, Y: 3}, sp.diff(SIN_XY, X, 2)),
    ("diff(diff(y*sin(x)/x, x), x)", {X: 0, Y: -2}, sp.diff(Y_SINC, X, 2)),
])
def test_a_nested_diff_through_a_0_over_0_that_reads_another_variable(text, at, expr):
    session = Session()
    for s, v in at.items():
        session.run(f"{s} = {v}")
    (r,) = session.run(text)
    assert float(r.value) == pytest.approx(_limit_of(expr, X, at), abs=1e-12)
    assert r.warnings == []


def test_a_nested_mixed_diff_there_is_unknown_not_wrong():
    # the node stands for its derivatives by x; by y they are not known: nan, never 0 by chance
    session = Session()
    session.run("x = 0")
    session.run("y = 2")
    (r,) = session.run("diff(diff(sin(x*y)/(x*y) + x*y, x), y)")
    expected = _limit_of(sp.diff(sp.sin(X * Y) / (X * Y) + X * Y, X, Y), X, {X: 0, Y: 2})
    assert math.isnan(float(r.value)) or float(r.value) == pytest.approx(expected)


def test_hessian_and_jacobian_of_a_0_over_0_without_a_limit_are_nan():
    *_, h = Session().run("x = 0; y = 0; hessian(x/y)")
    assert np.isnan(h.value).all() and h.value.shape == (2, 2)
    assert any("0/0" in w for w in h.warnings)
    *_, j = Session().run("x = 0; y = 0; jacobian([x/y, sin(x)/x], [x, y])")
    assert np.isnan(j.value[0]).all()
    assert j.value[1].tolist() == [0.0, 0.0]


def test_the_rule_is_cautious_where_no_one_variable_makes_the_0_over_0():
    # SymPy: 1 along every line, but no single variable makes its 0/0 (docs/derivatives.md)
    assert sp.limit(((X**2 + Y**2) / (X**2 + Y**2)).subs(Y, 2 * X), X, 0) == 1
    value, err = _value("(x^2+y^2)/(x^2+y^2)", "x=0", "y=0")
    assert math.isnan(value) and "0/0" in err


def test_the_gradient_over_a_sweep_of_the_singular_variable():
    # d/dy of the elements' sum, each element's derivative its limit where it is 0/0
    xs = [-1, -0.5, 0, 0.5, 1]
    d = sp.diff(SIN_XY, Y)
    expected = sum(float(sp.limit(d.subs(Y, 2), X, sp.nsimplify(xi))) for xi in xs)
    session = Session()
    session.run("x = linspace(-1, 1, 5)")
    session.run("y = 2")
    (r,) = session.run("sin(x*y)/x", options=EvalOptions(grad=True))
    assert float(r.gradient["y"]) == pytest.approx(expected, rel=1e-13)
    assert list(r.value)[2] == 2.0
