"""Formulas of functions defined with diff(...): the parameter is substituted
into the derivative, whatever the names (SymPy is the oracle)."""

from __future__ import annotations

import sys

import pytest
import sympy
from inprocess import gradcli

from gradcli.cli.words import CLI_WORDS
from gradcli.session import EvalOptions, Session

PYTHON = sys.executable
x, y, t, s = sympy.symbols("x y t s")
NAMES = {"x": x, "y": y, "t": t, "s": s, "e": sympy.E, "pi": sympy.pi}


def _sym(text: str) -> sympy.Expr:
    return sympy.sympify(text.replace("^", "**"), locals=NAMES)


def _formulas(program: str, **options: object) -> list[str]:
    res = Session(words=CLI_WORDS).run(program, EvalOptions(**options))[-1]
    assert res.error is None, res.error
    done = res.to_dict()
    return [done["formula"], *done.get("derivative_formulas", [])]


# diff(expr, q, 0, 1) is expr itself: a statement whose answer is a formula in
# several variables (--order would need one to differentiate by)


def _same(ours: str, reference: sympy.Expr) -> None:
    assert sympy.simplify(_sym(ours) - reference) == 0, (ours, reference)


def test_a_definitions_diff_is_taken_where_its_parameter_is() -> None:
    # g(t) = diff(t^3, t) gave diff(g(x), x) = 0 and g(x) = 3*t^2
    (f,) = _formulas("g(t) = diff(t^3, t); diff(g(x), x)")
    assert f == "6*x"
    assert _formulas("g(t) = diff(t^3, t); g(x)", order=2) == ["3*x^2", "6*x", "6"]
    (f,) = _formulas("df(x) = diff(x^4 - 2x^2, x); diff(df(y), y)")
    _same(f, sympy.diff(y**4 - 2 * y**2, y, 2))


@pytest.mark.parametrize(("body", "call", "reference"), [
    ("diff(t^3*sin(t), t)", "g(x + 1)", sympy.diff(t**3 * sympy.sin(t), t).subs(t, x + 1)),
    ("diff(t^3*sin(t), t, 2)", "g(y^2)", sympy.diff(t**3 * sympy.sin(t), t, 2).subs(t, y**2)),
    ("diff(exp(t)/t, t, 1, 2)", "g(x)", sympy.diff(sympy.exp(t) / t, t).subs(t, 2)),
    ("diff(t^2, t, 0)", "g(x)", x**2),
])
def test_the_point_of_a_definitions_diff_is_its_argument(body: str, call: str,
                                                        reference: sympy.Expr) -> None:
    f = _formulas(f"g(t) = {body}; {call}", order=1)[0]
    _same(f, reference)


def test_nested_definitions_each_differentiate_at_their_argument() -> None:
    fs = _formulas("g(t) = diff(t^3*log(t), t); h(u) = diff(g(u), u); h(x)", order=1)
    for k, f in enumerate(fs):
        _same(f, sympy.diff(t**3 * sympy.log(t), t, 2 + k).subs(t, x))


@pytest.mark.parametrize("call", ["k(x, y)", "k(y, x)", "k(x, t)", "k(s, t)", "k(t, s)",
                                  "k(x*y, x + y)"])
def test_a_definition_of_several_parameters_keeps_them_apart(call: str) -> None:
    # d/dt (t^2*s^3) is 2*t*s^3: an argument named as the other parameter is
    # another variable (k(x, t) is 2*x*t^3, never a derivative of t^5)
    (f,) = _formulas(f"k(t, s) = diff(t^2*s^3, t); diff({call}, q, 0, 1)")
    a, b = (_sym(part) for part in call[2:-1].split(", "))
    _same(f, 2 * a * b**3)


def test_diff_by_a_name_that_is_not_the_parameter() -> None:
    (f,) = _formulas("g(t) = diff(t*x^2, x); diff(g(y), q, 0, 1)")
    _same(f, 2 * x * y)
    (f,) = _formulas("g(t) = diff(t*x^2, x); diff(g(x), q, 0, 1)")
    _same(f, 2 * x * x)


def test_a_diff_variable_is_seen_by_the_functions_its_body_calls() -> None:
    # as the evaluator: diff binds x for everything the body calls, so h reads
    # the variable, not x's value 2 (the formula was 0 beside the number 6)
    (f,) = _formulas("h(u) = u*x^2; diff(h(y), x)")
    _same(f, 2 * x * y)
    res = Session(words=CLI_WORDS).run("x = 2; h(u) = u*x^2; diff(h(1), x, 1, 3)",
                                       EvalOptions(formula=True))[-1]
    assert float(res.value) == 6.0 and res.to_dict()["formula"] == "6"


def test_a_prime_keeps_its_parameter_apart_from_a_global_of_that_name() -> None:
    # h reads the global t, not f's parameter t: f'(x) is 1 (it was 2)
    (f,) = _formulas("h(u) = u + t; f(t) = h(t); f'(x)")
    assert f == "1"
    (f,) = _formulas("h(u) = u*t^2; f(t) = h(t)^2; f''(x)")
    _same(f, sympy.diff((s * t**2) ** 2, s, 2).subs(s, x))


def test_diff_by_a_function_name_is_refused_as_in_numbers() -> None:
    res = Session(words=CLI_WORDS).run("f(t) = t; diff(f(y), f)", EvalOptions())[-1]
    assert res.error is not None and "cannot differentiate by the function 'f'" in \
        res.error.message


def test_the_cli_and_the_repl_print_the_substituted_formulas() -> None:
    done = gradcli("eval", "g(t) = diff(t^3, t)", "g(x)", "--order", "2", "--format", "plain")
    assert done.returncode == 0 and done.stdout.splitlines() == ["3*x^2", "6*x", "6"]
    repl = gradcli("repl", stdin="g(t) = diff(t^3, t)\n:d 2 g(x)\n")
    assert repl.returncode == 0
    assert "3*t^2" not in repl.stdout and "6*x" in repl.stdout and "3*x^2" in repl.stdout


def test_the_repls_prime_alone_keeps_its_parameter_apart_too() -> None:
    repl = gradcli("repl", stdin="h(u) = u + t\nf(t) = h(t)\nf'\ng(x) = x^4 - 2x^2\ng''\n")
    assert repl.returncode == 0
    assert repl.stdout.splitlines() == ["f'(t) = 1", "g''(x) = 12*x^2 - 4"]


@pytest.mark.parametrize(("program", "at", "reference"), [
    # the numbers had a parameter move with the argument it is bound to
    ("g(t) = diff(t*x, t); g(x)", {"x": 3}, x),
    ("g(t) = diff(t*x, t); diff(g(x), x)", {"x": 3}, sympy.Integer(1)),
    ("k(t, s) = diff(t*s, t); k(x, t)", {"x": 2, "t": 5}, t),
    ("k(t, s) = diff(t*s, t); k(t, t)", {"t": 5}, t),
    ("k(t, s) = diff(t*s, t); k(x, x)", {"x": 2}, x),
    ("g(t) = diff(sin(t*y), t); g(y)", {"y": 1}, y * sympy.cos(y**2)),
    ("g(x) = diff(x^2*y, x); g(y)", {"y": 3}, 2 * y**2),
    ("g(t) = diff(t^3, t); diff(g(x), x)", {"x": 2}, 6 * x),
])
def test_the_numbers_of_a_definitions_diff_are_its_formulas_values(program, at, reference):
    s = Session(words=CLI_WORDS)
    for name, value in at.items():
        s.run(f"{name} = {value}")
    got = s.run(program)[-1]
    assert got.error is None, got.error
    want = float(reference.subs({sympy.Symbol(k): v for k, v in at.items()}))
    assert float(got.value) == pytest.approx(want, rel=1e-12)
