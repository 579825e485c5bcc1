"""hessian, jacobian and laplacian (issue 31 section 2): numbers at a point and
formulas against SymPy on seeded random expressions, array variables against
central differences, symmetry, each mixed partial derived once, the output
formats and the errors."""

from __future__ import annotations

import json
import random
import re
import time

import mpmath
import numpy as np
import pytest
import sympy

from gradcli.core.graph import Variable
from gradcli.core.hessian import MAX_VARIABLES
from gradcli.core.hessian import hessian as core_hessian
from gradcli.session import Session

NAMES = ("x", "y", "z")
SYMBOLS = {n: sympy.Symbol(n, real=True) for n in NAMES}
UNARY = ("sin({})", "cos({})", "exp({})", "tanh({})", "log(1 + ({})^2)", "sqrt(2 + ({})^2)",
         "atan({})")


def random_expression(rng: random.Random, depth: int = 3) -> str:
    """A smooth expression of x, y and z (defined everywhere)."""
    if depth == 0 or rng.random() < 0.2:
        return rng.choice([*NAMES, *NAMES, str(rng.randint(1, 4))])
    pick = rng.random()
    a = random_expression(rng, depth - 1)
    if pick < 0.3:
        return rng.choice(UNARY).format(a)
    b = random_expression(rng, depth - 1)
    if pick < 0.55:
        return f"({a})*({b})"
    if pick < 0.75:
        return f"({a}) + ({b})"
    if pick < 0.85:
        return f"({a})/(1 + ({b})^2)"
    return f"({a})^{rng.randint(2, 3)}"


def to_sympy(text: str) -> sympy.Expr:
    return sympy.parse_expr(text.replace("^", "**"), local_dict=dict(SYMBOLS))


def first_appearance(text: str) -> list[str]:
    return list(dict.fromkeys(re.findall(r"\b[xyz]\b", text)))


CASES = [random_expression(random.Random(f"hessian {i}")) for i in range(80)]
CASES = [c for c in CASES if len(first_appearance(c)) >= 2][:25]


def close(ours: float, theirs: mpmath.mpf, scale: float, tol: float = 1e-12) -> bool:
    return abs(mpmath.mpf(ours) - theirs) <= tol * scale + 1e-300


def reference(matrix: sympy.Matrix, point: dict[str, float]) -> list[list[mpmath.mpf]]:
    names = list(point)
    f = sympy.lambdify([SYMBOLS[n] for n in names], matrix, "mpmath")
    with mpmath.workdps(40):
        m = f(*(mpmath.mpf(point[n]) for n in names))
        return [[m[i, j] for j in range(m.cols)] for i in range(m.rows)]


def test_enough_random_cases() -> None:
    assert len(CASES) >= 20


@pytest.mark.parametrize("text", CASES)
def test_hessian_numbers_equal_sympy(text: str) -> None:
    rng = random.Random(text)
    point = {n: rng.uniform(-1.5, 1.5) for n in NAMES}
    session = Session()
    for n, v in point.items():
        session.values[n] = np.array(v)
    (res,) = session.run(f"hessian({text})")
    assert res.error is None, res.error
    names = first_appearance(text)  # variables by first appearance
    assert list(res.matrix.columns) == names == list(res.matrix.rows)
    theirs = reference(sympy.hessian(to_sympy(text), [SYMBOLS[n] for n in names]), point)
    scale = max(1.0, max(abs(float(v)) for row in theirs for v in row))
    H = res.value
    assert H.shape == (len(names), len(names))
    assert (H == H.T).all()  # exactly symmetric
    for i in range(len(names)):
        for j in range(len(names)):
            assert close(H[i, j], theirs[i][j], scale), (text, i, j, H[i, j], theirs[i][j])


@pytest.mark.parametrize("text", CASES[:12])
def test_hessian_formulas_equal_sympy(text: str) -> None:
    (res,) = Session().run(f"hessian({text}, [z, x, y])")  # the order given
    assert res.error is None, res.error
    assert res.value is None and res.matrix.columns == ("z", "x", "y")
    order = [SYMBOLS[n] for n in ("z", "x", "y")]
    theirs = sympy.hessian(to_sympy(text), order)
    rng = random.Random(text)
    point = {n: rng.uniform(-1.5, 1.5) for n in NAMES}
    ours = sympy.Matrix([[to_sympy(str(cell)) for cell in row]
                         for row in res.matrix.cells(None, str)])
    a, b = reference(ours, point), reference(theirs, point)
    scale = max(1.0, max(abs(float(v)) for row in b for v in row))
    for i in range(3):
        for j in range(3):
            assert abs(a[i][j] - b[i][j]) <= 1e-20 * scale, (text, i, j)


@pytest.mark.parametrize("seed", range(8))
def test_jacobian_numbers_and_formulas_equal_sympy(seed: int) -> None:
    rng = random.Random(f"jacobian {seed}")
    parts = [random_expression(rng) for _ in range(3)]
    text = f"jacobian([{', '.join(parts)}], [x, y, z])"
    theirs = sympy.Matrix([to_sympy(p) for p in parts]).jacobian(list(SYMBOLS.values()))
    point = {n: rng.uniform(-1.5, 1.5) for n in NAMES}
    (symbolic,) = Session().run(text)
    assert symbolic.error is None, symbolic.error
    ours = sympy.Matrix([[to_sympy(c) for c in row] for row in symbolic.matrix.cells(None, str)])
    session = Session()
    for n, v in point.items():
        session.values[n] = np.array(v)
    (numbers,) = session.run(text)
    assert numbers.value.shape == (3, 3)
    b = reference(theirs, point)
    scale = max(1.0, max(abs(float(v)) for row in b for v in row))
    a = reference(ours, point)
    for i in range(3):
        for j in range(3):
            assert close(numbers.value[i, j], b[i][j], scale)
            assert abs(a[i][j] - b[i][j]) <= 1e-20 * scale


def test_laplacian_is_the_trace() -> None:
    session = Session()
    session.run("x = 0.7\ny = -1.2")
    (lap,) = session.run("laplacian(exp(x)*sin(y) + x^3*y)")
    (hes,) = session.run("hessian(exp(x)*sin(y) + x^3*y)")
    assert lap.kind == "value"
    assert float(lap.value) == pytest.approx(np.trace(hes.value), rel=1e-15)
    (formula,) = Session().run("laplacian(x^2*y^3)")
    assert formula.kind == "formula"
    expected = sympy.diff(to_sympy("x^2*y^3"), SYMBOLS["x"], 2) + sympy.diff(
        to_sympy("x^2*y^3"), SYMBOLS["y"], 2)
    from gradcli.formula import plain

    assert sympy.simplify(to_sympy(plain(formula.formulas[0])) - expected) == 0


def test_array_variable_against_central_differences() -> None:
    """A variable that is an array: its elements are the rows and columns."""
    rng = np.random.default_rng(3)
    v0 = rng.uniform(-1, 1, 6)
    session = Session()
    session.values["v"] = v0.copy()
    text = "sum((v[:-1] - v[1:])^2*exp(v[:-1])) + sum(cos(v))^2"

    def f(v: np.ndarray) -> float:
        return float(np.sum((v[:-1] - v[1:]) ** 2 * np.exp(v[:-1])) + np.sum(np.cos(v)) ** 2)

    (res,) = session.run(f"hessian({text})")
    assert res.error is None, res.error
    assert res.matrix.columns == tuple(f"v[{i}]" for i in range(6))
    h = 1e-4
    E = np.eye(6) * h
    for i in range(6):
        for j in range(6):
            d = (f(v0 + E[i] + E[j]) - f(v0 + E[i] - E[j]) - f(v0 - E[i] + E[j])
                 + f(v0 - E[i] - E[j])) / (4 * h * h)
            assert res.value[i, j] == pytest.approx(d, rel=1e-6, abs=1e-6)


def test_each_mixed_partial_is_derived_once(monkeypatch: pytest.MonkeyPatch) -> None:
    import gradcli.formula as formula

    calls: list[str] = []
    real = formula.diff

    def counting(f, name):  # type: ignore[no-untyped-def]
        calls.append(name)
        return real(f, name)

    monkeypatch.setattr(formula, "diff", counting)
    (res,) = Session().run("hessian(x*y*z*w)")
    n = 4
    assert len(calls) == n + n * (n + 1) // 2  # the gradient, then the upper triangle
    cells = res.matrix.cells(None, str)
    assert all(cells[i][j] == cells[j][i] for i in range(n) for j in range(n))


def test_inside_a_derivative_the_matrix_differentiates_again() -> None:
    session = Session()
    session.run("x = 0.5\ny = 2")
    # d/dx laplacian(x^3*y^2) = d/dx (6*x*y^2 + 2*x^3) = 6*y^2 + 6*x^2
    (res,) = session.run("diff(laplacian(x^3*y^2), x)")
    assert float(res.value) == pytest.approx(6 * 4 + 6 * 0.25, rel=1e-14)
    (entry,) = session.run("diff(hessian(x^3*y^2)[0, 1], y)")  # d/dy 6*x^2*y
    assert float(entry.value) == pytest.approx(6 * 0.25, rel=1e-14)


OUTPUTS = [
    ("plain", "[[2, 12], [12, 24]]"),
    ("latex", r"\begin{pmatrix} 2 & 12 \\ 12 & 24 \end{pmatrix}"),
]


@pytest.mark.parametrize(("fmt", "expected"), OUTPUTS)
def test_formats_of_numbers(fmt: str, expected: str) -> None:
    from gradcli.render.latex import render_latex
    from gradcli.render.plain import RenderOptions, render_plain

    session = Session()
    session.run("x = 2\ny = 1")
    (res,) = session.run("hessian(x^2*y^3)")
    render = render_plain if fmt == "plain" else render_latex
    assert render(res, RenderOptions()) == [expected]


def test_json_and_formulas() -> None:
    from gradcli.render.json import render_json
    from gradcli.render.latex import render_latex
    from gradcli.render.plain import RenderOptions, render_plain

    (res,) = Session().run("hessian(x^2*y^3)")
    assert json.loads(render_json(res)) == {
        "input": "hessian(x^2*y^3)", "wrt": ["x", "y"],
        "value": [["2*y^3", "6*x*y^2"], ["6*x*y^2", "6*x^2*y"]]}
    assert render_plain(res, RenderOptions()) == ["[[2*y^3, 6*x*y^2], [6*x*y^2, 6*x^2*y]]"]
    assert render_latex(res, RenderOptions()) == [
        r"\begin{pmatrix} 2 y^{3} & 6 x y^{2} \\ 6 x y^{2} & 6 x^{2} y \end{pmatrix}"]
    session = Session()
    session.run("x = 2\ny = 1")
    (num,) = session.run("jacobian([x*y, x + y^2], [x, y])")
    assert json.loads(render_json(num)) == {
        "input": "jacobian([x*y, x + y^2], [x, y])", "at": {}, "wrt": ["x", "y"],
        "of": ["x*y", "y^2 + x"], "value": [[1.0, 2.0], [1.0, 2.0]]}


def test_table_labels_rows_and_columns() -> None:
    import io

    from gradcli.render.plain import RenderOptions
    from gradcli.render.table import TableRenderer

    session = Session()
    session.run("x = 2\ny = 1")
    (res,) = session.run("hessian(x^2*y^3)")
    out = io.StringIO()
    TableRenderer(out, RenderOptions(), colour=False, terminal=False).render(res)
    lines = out.getvalue().splitlines()
    assert lines[0] == "hessian(x^2*y^3)"
    assert [c.strip() for c in lines[2].strip("|").split("|")] == ["hessian", "x", "y"]
    assert [c.strip() for c in lines[4].strip("|").split("|")] == ["x", "2", "12"]
    assert [c.strip() for c in lines[5].strip("|").split("|")] == ["y", "12", "24"]


def test_grad_of_grad_is_the_hessian() -> None:
    session = Session()
    (formulas, named) = session.run("grad(grad(x^2*y^3)); grad(grad(x^2*y^3, y, x))")
    (hessian,) = session.run("hessian(x^2*y^3)")
    assert formulas.matrix == hessian.matrix and formulas.input == "grad(grad(x^2*y^3))"
    assert named.matrix.columns == ("y", "x")
    session.run("x = 1; y = 2")
    (numbers,) = session.run("grad(grad(x^2*y^3))")
    assert numbers.value.tolist() == [[16, 24], [24, 12]]
    (err,) = session.run("grad(grad(x^2*y^3, x), y)")
    assert "same variables" in err.error.message and err.error.column == 1


def test_repl_shows_the_matrix() -> None:
    import io

    from rich.console import Console

    from gradcli.repl.display import PlainDisplay, RichDisplay

    session = Session()
    session.run("x = 1; y = 2")
    (res,) = session.run("hessian(x^2*y^3)")
    out = io.StringIO()
    PlainDisplay(out=out).matrix(res)
    assert out.getvalue() == "[[16, 24], [24, 12]]\n"
    out = io.StringIO()
    RichDisplay(Console(file=out, width=80, color_system=None)).matrix(res)
    rows = [line for line in out.getvalue().splitlines() if "16" in line or "12 " in line]
    assert [r.split() for r in rows] == [["│", "x", "│", "16", "│", "24", "│"],
                                         ["│", "y", "│", "24", "│", "12", "│"]]


def test_a_wide_matrix_is_printed_in_brackets() -> None:
    import io

    from gradcli.render.matrix import TABLE_COLUMNS
    from gradcli.render.plain import RenderOptions
    from gradcli.render.table import TableRenderer

    session = Session()
    session.values["v"] = np.arange(TABLE_COLUMNS + 1.0)
    (res,) = session.run("hessian(sum(v^3))")
    out = io.StringIO()
    TableRenderer(out, RenderOptions(), colour=False, terminal=False).render(res)
    lines = out.getvalue().splitlines()
    assert lines[0] == "hessian(sum(v^3))" and lines[1].startswith("[[0, 0,")
    assert np.array_equal(np.diag(res.value), 6 * np.arange(TABLE_COLUMNS + 1.0))


def test_options_that_do_not_apply_say_so() -> None:
    from gradcli.asked import EvalOptions

    (res,) = Session().run("hessian(x^2*y)", EvalOptions(order=2, steps=True))
    assert res.matrix is not None
    assert any("did not apply" in w and "steps" in w for w in res.warnings), res.warnings


def test_ans_is_the_matrix() -> None:
    session = Session()
    session.run("x = 2\ny = 1\nhessian(x^2*y^3)")
    (res,) = session.run("ans[1, 1]")
    assert float(res.value) == 24


ERRORS = [
    ("hessian()", "hessian takes 1 or 2 arguments"),
    ("hessian(x^2, [x, 2])", "the variables must be names"),
    ("hessian(x^2, [x, x])", "named twice"),
    ("hessian(x^2, [sin])", "cannot differentiate by the function 'sin'"),
    ("hessian([x, x^2])", "one value"),
    ("hessian(x*q)", "'q' has no value"),  # x bound, q not: neither numbers nor formulas
    ("hessian(3)", "no variable"),
]


@pytest.mark.parametrize(("text", "message"), ERRORS)
def test_errors_are_clear_and_positioned(text: str, message: str) -> None:
    session = Session()
    session.run("x = 2")
    (res,) = session.run(text)
    assert res.error is not None and message in res.error.message, res.error
    assert res.error.column is not None
    assert "internal" not in res.error.message


def test_a_matrix_form_inside_a_formula_says_how_to_get_numbers() -> None:
    (res,) = Session().run("diff(hessian(x^2*y), x)")
    assert "as a whole statement only" in res.error.message
    assert (res.error.line, res.error.column) == (1, 6)


def test_a_laplacian_inside_a_formula_is_its_formula() -> None:
    # one value, as diff's: d/dx (2*y + 12*x^2) = 24*x (it was refused as a matrix's)
    (res,) = Session().run("diff(laplacian(x^2*y + x^4), x)")
    from gradcli.formula import plain

    assert res.error is None and plain(res.formulas[0]) == "24*x"


def test_too_many_variables_is_refused_fast() -> None:
    v = Variable(np.zeros(MAX_VARIABLES + 1), name="v")
    t0 = time.perf_counter()
    with pytest.raises(Exception, match="above the limit"):
        core_hessian((v * v).sum(), [v])
    assert time.perf_counter() - t0 < 0.5


def test_the_limits_table_states_the_limits() -> None:
    from pathlib import Path

    from gradcli.limits import MATRIX_MAX_NODES, MATRIX_MAX_VARIABLES

    docs = (Path(__file__).resolve().parent.parent / "docs" / "language.md").read_text()
    row = next(line for line in docs.split("## Limits", 1)[1].splitlines()
               if line.startswith("| `hessian`"))
    assert f"{MATRIX_MAX_VARIABLES:,} variables" in row
    assert f"at most {MATRIX_MAX_NODES:,} nodes" in row


def test_twenty_variables_quickly() -> None:
    """The benchmark's function (benchmarks/bench_hessian.py), in the test suite
    with a loose bound (the machine running the tests may be shared)."""
    n = 20
    session = Session()
    for i in range(1, n + 1):
        session.values[f"x{i}"] = np.array(0.1 * i)
    terms = " + ".join(f"(x{i} - x{i + 1})^2*exp(x{i})" for i in range(1, n))
    t0 = time.perf_counter()
    (res,) = session.run(f"hessian({terms})")
    assert time.perf_counter() - t0 < 1.0
    assert res.value.shape == (n, n)
    x = sympy.symbols(f"x1:{n + 1}")
    f = sum((x[i] - x[i + 1]) ** 2 * sympy.exp(x[i]) for i in range(n - 1))
    H = sympy.hessian(f, x).subs({x[i]: sympy.Rational(i + 1, 10) for i in range(n)})
    assert np.allclose(res.value, np.array(H.evalf(30).tolist(), dtype=float), rtol=1e-13,
                       atol=0)
