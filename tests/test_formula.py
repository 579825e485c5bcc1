"""Formula derivatives: readable output, the registry's rules reused, the
language features, round trips through gradcli's parser, and the limits."""

from __future__ import annotations

import math
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from gradcli.core import functions as F
from gradcli.core.graph import Variable
from gradcli.core.registry import ALIASES, REGISTRY, NamedConstant, elementwise
from gradcli.errors import GradcliError, LimitError, MathError, UnknownNameError
from gradcli.formula import (
    SIZE_LIMIT,
    Expr,
    FormulaTooLarge,
    derivatives,
    diff,
    from_ast,
    latex,
    plain,
    sym,
)
from gradcli.lang.evaluate import Definition
from gradcli.lang.parser import parse
from gradcli.session import Session

sys.path.insert(0, str(Path(__file__).parent))
from test_formula_corpus import CORPUS


def node(text: str):
    return parse(text)[0].node


def f(text: str, **kw) -> str:
    return plain(from_ast(node(text), **kw))


def tex(text: str) -> str:
    return latex(from_ast(node(text)))


@pytest.mark.parametrize(("text", "expected"), [
    ("diff(x^4 - 2x^2, x)", "4*x^3 - 4*x"),
    ("diff(x^4 - 2x^2, x, 2)", "12*x^2 - 4"),
    ("diff(x^4 - 2x^2, x, 3)", "24*x"),
    ("diff(x^2/6, x)", "x/3"),
    ("diff(x^3/3 - x^6/180, x)", "-x^5/30 + x^2"),  # descending degree
    ("x*1 + 0 + 0*sin(x)", "x"),
    ("x^1", "x"),
    ("-(-x)", "x"),
    ("2*x + 3*x", "5*x"),
    ("x*x^3", "x^4"),
    ("x^3*2", "2*x^3"),
    ("x + -1", "x - 1"),
    ("1 - x^2", "1 - x^2"),
    ("diff(x/(x + 1), x)", "1/(x + 1)^2"),
    ("diff(sin(x)/x, x)", "cos(x)/x - sin(x)/x^2"),
    ("diff(exp(x)*sin(x), x)", "exp(x)*(cos(x) + sin(x))"),
    ("diff(x^2.5, x)", "2.5*x^1.5"),
    ("diff(0.1*x^3, x)", "0.3*x^2"),
    ("diff(1.5e3*x, x)", "1500"),
    ("diff(log2(x), x)", "1/(x*log(2))"),
    ("diff(log10(x), x, 2)", "-1/(x^2*log(10))"),
    ("diff(abs(x), x)", "abs(x)/x"),
    ("diff(abs(x), x, 2)", "0"),
    ("diff(sqrt(x), x)", "1/(2*sqrt(x))"),
    ("diff(asin(x), x)", "1/sqrt(1 - x^2)"),
    ("diff(acos(x), x)", "-1/sqrt(1 - x^2)"),
    ("diff(acosh(x), x)", "1/sqrt(x^2 - 1)"),
    ("diff(atanh(x), x)", "1/(1 - x^2)"),
    ("diff(tan(x), x)", "tan(x)^2 + 1"),
    ("diff(sigmoid(x), x)", "sigmoid(x)*(1 - sigmoid(x))"),
    ("diff(x^x, x)", "x^x*(log(x) + 1)"),
    ("diff(pi*x^2, x)", "2*pi*x"),
    ("diff(e^x, x)", "e^x"),
    ("diff(2^x, x)", "2^x*log(2)"),
    ("diff(exp(-x^2), x, 2)", "2*exp(-x^2)*(2*x^2 - 1)"),
    ("diff(1/(1 + x^2), x, 3)", "24*x*(1 - x^2)/(x^2 + 1)^4"),
    ("diff(sin(x)^2 + cos(x)^2, x)", "0"),
    ("diff(abs(x)^3, x)", "3*x*abs(x)"),
    ("0.1*x/3", "x/30"),
    ("1.5e30*x^2", "1.5e30*x^2"),
    ("1e-30*x", "1e-30*x"),
    ("2.0*x", "2*x"),
    ("1/(x^2*sqrt(x))", "1/x^(5/2)"),
    ("sqrt(x)^3", "x^(3/2)"),
    ("2^(1/x)", "2^(1/x)"),
    ("x^(-x)", "x^(-x)"),
    ("abs(x)^2 + abs(x)^-3", "x^2 + 1/(x^2*abs(x))"),
])
def test_readable_formulas(text: str, expected: str) -> None:
    assert f(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("diff(x^4 - 2x^2, x)", "4 x^{3} - 4 x"),
    ("diff(sin(x)/x, x)", r"\frac{\cos\left(x\right)}{x} - \frac{\sin\left(x\right)}{x^{2}}"),
    ("diff(sqrt(x), x)", r"\frac{1}{2 \sqrt{x}}"),
    ("x/3", r"\frac{x}{3}"),
    ("diff(pi*x^2, x)", r"2 \pi x"),
    ("diff(abs(x)^3, x)", r"3 x \left|x\right|"),
    ("exp(x^2)", r"e^{x^{2}}"),
    ("asin(x) + sinh(x)", r"\arcsin\left(x\right) + \sinh\left(x\right)"),
    ("sigmoid(x)", r"\operatorname{sigmoid}\left(x\right)"),
    ("(1/2)^x", r"\left(\frac{1}{2}\right)^{x}"),
    ("1e-30*x", r"1 \cdot 10^{-30} x"),
])
def test_latex(text: str, expected: str) -> None:
    assert tex(text) == expected


def test_builtins_return_formulas_and_variables_stay_variables() -> None:
    x = sym("x")
    for name, entry in REGISTRY.items():
        if entry.kind == "elementwise":
            out = entry.call(x)
            # ln is log itself (one Function), and formulas say log
            own = entry.function.__name__.lower()
            assert isinstance(out, Expr) and plain(out) == f"{own}(x)"
            assert own == name or name == "ln"
    v = F.sin(Variable(np.array(0.5)))
    assert isinstance(v, Variable) and float(v.data) == math.sin(0.5)


def test_named_constants_are_the_same_floats_for_arrays() -> None:
    assert NamedConstant(math.log(2.0), "log", 2.0) == math.log(2.0)
    x = Variable(np.array(3.0))
    y = F.log2(x)
    y.backward()
    assert float(x.grad.data) == 1 / (3.0 * math.log(2.0))


def test_a_new_builtin_differentiates_as_a_formula_with_nothing_more() -> None:
    cube = elementwise("cube_t", forward=lambda xp, x: x**3, derivative=lambda x, y: 3 * x * x,
                       doc="test", domain=(-1.0, 1.0), reference="x**3")
    try:
        x = sym("x")
        assert plain(diff(cube(x), "x")) == "3*x^2"
        assert plain(diff(cube(F.sin(x)), "x")) == "3*cos(x)*sin(x)^2"
        assert f("diff(cube_t(x), x, 2)") == "6*x"
    finally:
        del REGISTRY["cube_t"]
        ALIASES.pop("cube_t", None)


def test_definitions_primes_and_diff_inside_expressions() -> None:
    d = node("f(t) = t^3 + sin(t)")
    defs = {"f": Definition(name="f", params=d.params, body=d.body, source="")}
    assert f("diff(f(x), x)", functions=defs) == "3*x^2 + cos(x)"
    assert f("f'(2*y)", functions=defs) == "12*y^2 + cos(2*y)"
    assert f("f''(x)", functions=defs) == "6*x - sin(x)"
    assert f("diff(x^3, x, 1, 2)") == "12"
    assert f("diff(x^3, x, 0)") == "x^3"
    assert f("1 + diff(x^3, x)") == "3*x^2 + 1"
    assert f("diff(diff(x^2*y, x), y)") == "2*x"
    assert f("diff(x*y + sin(x), y)") == "x"
    assert f("diff(x^2*y, x)", values={"y": np.array(3.0)}) == "6*x"
    assert f("x*a", values={"a": 0.1}) == "0.1*x"


def test_scalar_only_errors_have_positions() -> None:
    cases = [("sum(x)", 1), ("1 + [1, 2]", 5), ("x @ x", 5), ("x + linspace(0, 1, 3)", 5)]
    for text, column in cases:
        with pytest.raises(MathError, match="formulas cover scalar expressions") as err:
            from_ast(node(text))
        assert (err.value.line, err.value.column) == (1, column), text
    with pytest.raises(MathError, match="finite"):
        from_ast(node("inf*x"))
    with pytest.raises(UnknownNameError, match="did you mean sin"):
        from_ast(node("sinn(x)"))
    d = node("g(t) = g(t) + 1")
    with pytest.raises(LimitError, match="nested deeper"):
        from_ast(node("g(x)"), functions={"g": Definition(name="g", params=d.params,
                                                           body=d.body, source="")})
    with pytest.raises(MathError, match="division by zero"):
        from_ast(node("x/0"))


def test_swell_is_refused_quickly_with_the_size() -> None:
    t0 = time.perf_counter()
    with pytest.raises(FormulaTooLarge) as err:
        from_ast(node("diff(x^x, x, 40)"))
    assert time.perf_counter() - t0 < 5
    e = err.value
    assert isinstance(e, GradcliError) and e.limit == SIZE_LIMIT == 2000
    assert e.size > 2000 and 1 < e.order < 40
    assert f"order {e.order} has {e.size} characters (limit 2000)" in e.message
    assert "--at" not in e.message  # the shell adds its own words
    assert len(plain(diff(sym("x") ** 5, "x", 3))) < 10
    with pytest.raises(FormulaTooLarge):
        derivatives(F.sin(sym("x")) ** 2, "x", 2, limit=10)


@pytest.mark.parametrize(("category", "text", "domain"), CORPUS[::4],
                         ids=[t for _, t, _ in CORPUS[::4]])
def test_printed_formulas_round_trip_through_gradcli(category, text, domain) -> None:
    """Each printed formula parses with gradcli's parser and evaluates (as
    gradcli input) to gradcli's own numeric derivative at a point."""
    a = (domain[0] + 2 * domain[1]) / 3
    session = Session()
    for order, formula in enumerate(derivatives(from_ast(node(text)), "x", 3), start=1):
        printed = plain(formula)
        parse(printed)  # no ParseError
        value = float(session.run(f"x = {a!r}; {printed}")[1].value)
        numeric = float(session.run(f"diff({text}, x, {order}, {a!r})")[0].value)
        assert value == pytest.approx(numeric, rel=1e-9, abs=1e-12), (text, order, printed)


def test_formulas_import_no_sympy_at_run_time() -> None:
    import subprocess

    code = ("import sys, gradcli.formula as f; f.diff(f.sym('x')**2, 'x');"
            "print(sorted(m for m in ('sympy', 'mpmath', 'lark', 'rich') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.strip()
    assert out == "[]"


def test_the_examples_in_docs_formulas_md() -> None:
    doc = (Path(__file__).resolve().parents[1] / "docs" / "formulas.md").read_text("utf-8")
    block = doc.split("Examples (checked by `tests/test_formula.py`):")[1].split("```")[1]
    rows = [line for line in block.splitlines()[1:] if line]
    assert len(rows) >= 10
    for row in rows:
        text, expected = (part.strip() for part in row.split("  ", 1))
        assert f(text) == expected, row


def test_gradient_and_variables() -> None:
    from gradcli.formula import gradient, variables

    e = from_ast(node("x*y + sin(x) + pi*z^2"))
    assert variables(e) == ["x", "y", "z"]
    assert {k: plain(v) for k, v in gradient(e).items()} == {
        "x": "y + cos(x)", "y": "x", "z": "2*pi*z"}
    assert {k: plain(v) for k, v in gradient(e, ["y"]).items()} == {"y": "x"}
    assert variables(from_ast(node("e^2 + pi"))) == []
