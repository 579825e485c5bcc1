"""hessian, jacobian and laplacian give one answer on every path (issue 29, "one
meaning"): inside user functions called with numbers, under --wrt/--order/
--check/--method, inside diff, as formulas, over sweeps and curves, in the
REPL and the CLI; and reductions of a list of scalars under --series and as
formulas. Every number is SymPy's."""

from __future__ import annotations

import numpy as np
import pytest
import sympy
from inprocess import check_rows, gradcli

from gradcli.formula import plain
from gradcli.session import EvalOptions, Session

X, Y, Z = SYMBOLS = sympy.symbols("x y z", real=True)
LOCALS = {"x": X, "y": Y, "z": Z}


def sym(text: str) -> sympy.Expr:
    return sympy.parse_expr(text.replace("^", "**"), local_dict=dict(LOCALS))


def laplacian(f: sympy.Expr, names: tuple[sympy.Symbol, ...]) -> sympy.Expr:
    return sum(sympy.diff(f, v, 2) for v in names)


def at(f: sympy.Expr, point: dict[sympy.Symbol, float]) -> float:
    return float(f.subs(point).evalf(30))


def value(text: str, setup: str = "", options: EvalOptions | None = None) -> object:
    session = Session()
    if setup:
        for res in session.run(setup):
            assert res.error is None, res.error
    results = session.run(text, options)
    res = results[-1]
    assert res.error is None, res.error
    return res


# --- 1. user functions called with numbers (the parameter is a variable) ------------

# (definitions and call, SymPy's answer)
CALLS = [
    ("f(a) = laplacian(a^3); f(2)", at(laplacian(X**3, (X,)), {X: 2})),
    ("f(a,b) = laplacian(a^2*b^3); f(1, 2)", at(laplacian(X**2 * Y**3, (X, Y)), {X: 1, Y: 2})),
    ("f(a,b) = laplacian(a^2*b^3, [a, b]); f(1, 2)",
     at(laplacian(X**2 * Y**3, (X, Y)), {X: 1, Y: 2})),
    ("f(a,b) = laplacian(a^2*b^3, [b]); f(1, 2)", at(sympy.diff(X**2 * Y**3, Y, 2), {X: 1, Y: 2})),
    ("f(a) = laplacian(a^3); g(b) = f(b)*b; g(2)", at(laplacian(X**3, (X,)) * X, {X: 2})),
    # three levels, the arguments computed: L(s) = lap(F)(s, 2s) * s
    ("F(a, b) = exp(a)*sin(b) + a^3*b; L(a, b) = laplacian(F(a, b)); M(s) = L(s, 2*s)*s; "
     "M(0.7)",
     at(laplacian(sympy.exp(X) * sympy.sin(Y) + X**3 * Y, (X, Y)).subs(Y, 2 * X) * X,
        {X: sympy.Rational(7, 10)})),
]


@pytest.mark.parametrize(("text", "expected"), CALLS)
def test_a_laplacian_inside_a_function_is_taken_by_its_parameters(text, expected) -> None:
    res = value(text)
    assert float(res.value) == pytest.approx(expected, rel=1e-12)


def test_a_hessian_and_a_jacobian_inside_a_function_are_sympys() -> None:
    f = X**2 * Y**3
    res = value("f(a,b) = hessian(a^2*b^3); f(1, 2)")
    expected = sympy.hessian(f, (X, Y)).subs({X: 1, Y: 2})
    assert np.asarray(res.value).tolist() == [[float(v) for v in row]
                                              for row in expected.tolist()]
    res = value("f(a,b) = jacobian([a*b, a + b^2], [a, b]); f(1, 2)")
    expected = sympy.Matrix([X * Y, X + Y**2]).jacobian([X, Y]).subs({X: 1, Y: 2})
    assert np.asarray(res.value).tolist() == [[float(v) for v in row]
                                              for row in expected.tolist()]


def test_a_diff_inside_a_matrix_form_is_differentiated_again() -> None:
    # the Hessian of 3*x^2*y: the inner diff stays a graph at the top level too
    res = value("hessian(diff(x^3*y, x))", "x = 2; y = 1")
    expected = sympy.hessian(sympy.diff(X**3 * Y, X), (X, Y)).subs({X: 2, Y: 1})
    assert np.asarray(res.value).tolist() == [[float(v) for v in row]
                                              for row in expected.tolist()]
    res = value("laplacian(diff(x^3, x))", "x = 2")
    assert float(res.value) == 6


# --- 2. derivatives of a Laplacian by each of its variables -----------------------------

EXPRESSIONS = ["x^2*y^3", "exp(x)*sin(y) + x^3*y", "x*y*z + z^2*x", "sin(x*y) + z^3",
               "log(1 + x^2)*y^2"]
POINT = {X: 1, Y: 2, Z: sympy.Rational(-1, 2)}
AT = "x = 1; y = 2; z = -0.5"


def _variables(text: str) -> tuple[sympy.Symbol, ...]:
    return tuple(v for v in SYMBOLS if v.name in text)


@pytest.mark.parametrize("method", ["auto", "taylor", "backprop"])
@pytest.mark.parametrize("text", EXPRESSIONS)
def test_the_orders_of_a_laplacian_by_each_variable(text: str, method: str) -> None:
    names = _variables(text)
    lap = laplacian(sym(text), names)
    for v in names:
        session = Session(method=method)
        session.run(AT)
        (res,) = session.run(f"laplacian({text})", EvalOptions(wrt=v.name, order=2))
        assert res.error is None, res.error
        assert float(res.value) == pytest.approx(at(lap, POINT), rel=1e-12, abs=1e-12)
        for k, d in enumerate(res.derivatives, 1):
            assert float(d) == pytest.approx(at(sympy.diff(lap, v, k), POINT),
                                             rel=1e-9, abs=1e-9), (v, k)
        (inner,) = session.run(f"diff(laplacian({text}), {v.name})")
        assert float(inner.value) == pytest.approx(at(sympy.diff(lap, v), POINT),
                                                   rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("text", EXPRESSIONS[:3])
def test_the_check_of_a_laplacian_passes_by_each_variable(text: str) -> None:
    for v in _variables(text):
        session = Session()
        session.run(AT)
        (res,) = session.run(f"laplacian({text})", EvalOptions(wrt=v.name, check=True))
        assert res.error is None, res.error
        assert res.check and all(c.ok is not False for c in res.check), (v, res.check)


def test_a_laplacian_through_functions_differentiates_by_each_variable() -> None:
    setup = "F(a, b) = a^2*b^3 + sin(a*b); L(a, b) = laplacian(F(a, b)); M(s, t) = L(s, t)*s"
    lap = laplacian(X**2 * Y**3 + sympy.sin(X * Y), (X, Y)) * X
    for v in (X, Y):
        res = value(f"diff(M(x, y), {v.name})", f"{setup}; x = 1; y = 2")
        assert float(res.value) == pytest.approx(at(sympy.diff(lap, v), POINT), rel=1e-12)
        formula = value(f"diff(M(x, y), {v.name})", setup)
        assert sympy.simplify(sym(plain(formula.formulas[0])) - sympy.diff(lap, v)) == 0


# --- formulas ------------------------------------------------------------------------


@pytest.mark.parametrize("text", EXPRESSIONS[:3])
def test_a_laplacian_formula_and_its_derivatives_are_sympys(text: str) -> None:
    names = _variables(text)
    lap = laplacian(sym(text), names)
    for v in names:
        res = value(f"laplacian({text})", options=EvalOptions(wrt=v.name, order=2))
        got = [sym(plain(f)) for f in res.formulas]
        want = [lap, sympy.diff(lap, v), sympy.diff(lap, v, 2)]
        assert all(sympy.simplify(g - w) == 0 for g, w in zip(got, want, strict=True)), v
    res = value(f"laplacian({text})")
    assert sympy.simplify(sym(plain(res.formulas[0])) - lap) == 0


def test_a_laplacian_with_some_variables_bound_is_a_formula_in_the_others() -> None:
    # as diff's and grad's: the values put in after differentiating
    res = value("laplacian(x^2*y^3)", "y = 2")
    assert sympy.expand(sym(plain(res.formulas[0])) - laplacian(X**2 * Y**3, (X, Y)).subs(
        Y, 2)) == 0
    res = value("h(t) = laplacian(t^3*y); diff(h(x), x)", "y = 2")
    assert sym(plain(res.formulas[0])) == 12


# --- 3. one value a point: sweeps and curves ----------------------------------------


def test_a_laplacian_over_a_sweep_is_one_a_point() -> None:
    f = X**3 * Y**2 + sympy.sin(X)
    res = value("laplacian(x^3*y^2 + sin(x))", "x = [0, 0.5, 1]; y = [1, 1.5, 2]")
    points = [(0, 1), (0.5, 1.5), (1, 2)]
    expected = [at(laplacian(f, (X, Y)), {X: a, Y: b}) for a, b in points]
    assert np.asarray(res.value) == pytest.approx(expected, rel=1e-12, abs=1e-15)
    res = value("laplacian(x^3)^2", "x = [0, 0.5, 1]")
    assert np.asarray(res.value).tolist() == [at((6 * X) ** 2, {X: a}) for a in (0, 0.5, 1)]


def test_a_laplacian_by_a_scalar_over_a_sweep_sums_as_diff_does() -> None:
    session = Session()
    session.run("x = [0, 0.5, 1]; y = 2")
    (lap,) = session.run("laplacian(x^2*y^3)")
    (nested,) = session.run("diff(diff(x^2*y^3, x), x) + diff(diff(x^2*y^3, y), y)")
    assert np.asarray(lap.value).tolist() == np.asarray(nested.value).tolist()
    assert any("sum of its elements" in w for w in lap.warnings)


# --- the CLI and the REPL, as the reviewer typed them ---------------------------------

ROWS = [
    (("eval", "f(a) = laplacian(a^3); f(2)"), 0, ["12"], ""),
    (("eval", "f(a,b) = hessian(a^2*b^3); f(1, 2)"), 0, ["[[16, 24], [24, 12]]"], ""),
    (("eval", "f(a,b) = laplacian(a^2*b^3); f(1, 2)"), 0, ["28"], ""),
    (("eval", "f(a,b) = laplacian(a^2*b^3, [a, b]); f(1, 2)"), 0, ["28"], ""),
    (("eval", "f(a,b) = jacobian([a*b, a + b^2], [a, b]); f(1, 2)"), 0,
     ["[[2, 1], [1, 4]]"], ""),
    (("eval", "f(a) = laplacian(a^3); g(b) = f(b)*b; g(2)"), 0, ["24"], ""),
    (("eval", "laplacian(x^2*y^3)", "--at", "x=1,y=2", "--wrt", "x", "--order", "1"), 0,
     ["28", "24"], ""),
    (("eval", "laplacian(x^2*y^3)", "--at", "x=1,y=2", "--wrt", "y", "--order", "1"), 0,
     ["28", "30"], ""),
    (("eval", "laplacian(x^2*y^3)", "--at", "x=1,y=2", "--wrt", "y", "--order", "1",
      "--method", "backprop"), 0, ["28", "30"], ""),
    (("eval", "laplacian(x^3)", "--order", "1"), 0, ["6*x", "6"], ""),
    (("eval", "laplacian(x^3)^2", "--at", "x=0:1:0.5"), 0, ["[0, 9, 36]"], ""),
    (("eval", "hessian(x^3)", "--order", "1"), 0, ["[[6*x]]"],
     "hessian(...) gives its matrix only; --order did not apply to it"),
    (("eval", "sum([x, x^2])", "--at", "x=2", "--series", "2"), 0,
     ["6 + 5*(x - 2) + (x - 2)^2"], ""),
    (("eval", "sum([x, x^2])", "--order", "2"), 0, ["x^2 + x", "2*x + 1", "2"], ""),
]


def test_the_reviewers_commands() -> None:
    check_rows(ROWS)


def test_the_check_under_wrt_passes() -> None:
    proc = gradcli("eval", "laplacian(x^2*y^3)", "--at", "x=1,y=2", "--wrt", "x", "--check")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[0] == "28"
    assert "autodiff 24 numerical 24" in proc.stdout


def test_a_curve_of_a_laplacian_in_a_function_is_drawn(tmp_path) -> None:
    out = tmp_path / "a.png"
    proc = gradcli("curve", "h(t) = laplacian(t^3); h(x)", "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    assert out.stat().st_size > 0


def test_the_repl_agrees(tmp_path) -> None:
    proc = gradcli("repl", stdin="h(t) = laplacian(t^3)\nh(2)\nx = 2\n:d 1 h(x)\n"
                   "x = 1; y = 2\n:d 1 laplacian(x^2*y^3) wrt x\n"
                   ":d 1 laplacian(x^2*y^3) wrt y\n", cwd=tmp_path)
    assert proc.stdout.splitlines() == ["12", "12", "6", "28", "24", "28", "30"], proc.stderr


# --- 4. reductions of a list of scalars -------------------------------------------------

SERIES = [("sum([x, x^2])", X + X**2), ("mean([x, x^2])", (X + X**2) / 2),
          ("max([x, x^2])", X**2), ("[x, x^2][1]", X**2), ("[x, x^3][-1]", X**3)]


@pytest.mark.parametrize(("text", "f"), SERIES)
def test_a_reduction_of_a_list_by_a_scalar_has_a_series_and_formulas(text, f) -> None:
    res = value(text, "x = 2", EvalOptions(series=3))
    taylor = sympy.series(f, X, 2, 4).removeO()
    want = [float(taylor.subs(X, X + 2).expand().coeff(X, k)) for k in range(4)]
    assert [float(c) for c in res.series] == pytest.approx(want, rel=1e-12, abs=1e-12)
    if text.startswith("max"):
        return  # its formula is written with abs: SymPy's simplify is slow on it
    res = value(text, options=EvalOptions(order=2))
    got = [sym(plain(g)) for g in res.formulas]
    assert all(sympy.expand(g - sympy.diff(f, X, k)) == 0 for k, g in enumerate(got))


def test_a_series_still_refuses_a_mix_of_an_arrays_elements() -> None:
    session = Session()
    session.run("v = [1, 2]")
    (res,) = session.run("v*sum(v)", EvalOptions(series=2))
    assert res.error is not None and "mixes the elements of v" in res.error.message


# --- a Laplacian is diff's second derivatives, summed, on every path -------------------


def test_a_laplacian_at_a_removable_singularity_is_diffs() -> None:
    # SymPy: the limit of d²/dx² sin(x)/x at 0 is -1/3
    want = float(sympy.limit(sympy.diff(sympy.sin(X) / X, X, 2), X, 0))
    for text, factor in (("laplacian(sin(x)/x)", 1), ("laplacian(sin(x)/x*y)", 2),
                         ("f(t) = sin(t)/t; g(a) = laplacian(f(a)); g(0)", 1)):
        res = value(text, "x = 0; y = 2")
        assert float(res.value) == pytest.approx(factor * want, rel=1e-12), text
    (res,) = Session().run("x = 0; diff(sin(x)/x, x, 2)")[-1:]
    assert float(res.value) == pytest.approx(want, rel=1e-12)


def test_the_core_laplacian_of_several_values_is_one_a_point() -> None:
    from gradcli.core.graph import Variable
    from gradcli.core.hessian import laplacian as core_laplacian

    x = Variable(np.array([0.0, 0.5, 1.0]), name="x")
    assert core_laplacian(x**3, [x]).data.tolist() == [0.0, 3.0, 6.0]
    graph = core_laplacian(x**3, [x], create_graph=True)
    assert graph.creator is not None and graph.data.tolist() == [0.0, 3.0, 6.0]
