"""A 0/0 at a point of several variables (issue 29, "one meaning"): a limit is
taken only where the 0/0 is removable along one variable on the whole line
through the point (sin(x*y)/x at x = 0, whatever y); a 0/0 that the values
of several variables make together (x/y at x = y = 0) has no limit and stays
nan, with the 0/0 warning. Checked against SymPy's limits."""

from __future__ import annotations

import math

import pytest
import sympy as sp
from inprocess import gradcli

from gradcli.session import Session

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
