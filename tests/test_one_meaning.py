"""Issue 29's table: the same text means the same thing whatever the path
(values or formulas) or the flags. Each row is run as the user typed it
(through the console script's handler), besides checks of the same rules on
the session."""

from __future__ import annotations

import json

import numpy as np
import pytest
from inprocess import check_rows, gradcli_all

from gradcli.errors import ExitStatus
from gradcli.formula import plain
from gradcli.lang.resolve import MAX_CALL_DEPTH
from gradcli.session import EvalOptions, Session

HINT = "choose one with --wrt"

ROWS = [
    # (arguments, exit status, standard output lines, a fragment of standard error)
    (("eval", "diff(x², x)"), 0, ["2*x"], ""),
    (("eval", "diff(x², x)", "--at", "x=3"), 0, ["6"], ""),
    (("eval", "x²", "--order", "1"), 0, ["x^2", "2*x"], ""),
    (("eval", "x³ + x⁻¹", "--order", "1"), 0, ["x^3 + 1/x", "3*x^2 - 1/x^2"], ""),
    (("eval", "x^2*y^3", "--grad", "--order", "1"), 2, [], HINT),
    (("eval", "sin(x)/x", "--at", "x=0"), 0, ["1"], ""),
    (("eval", "sin(x)/x", "--at", "x=0", "--order", "1"), 0, ["1", "0"], ""),
    (("eval", "sin(x)/x", "--at", "x=0", "--method", "backprop"), 0, ["nan"], "0/0"),
    (("eval", "f(x) = sin(x)/x", "f(0)", "f'(0)"), 0, ["1", "0"], ""),
    (("eval", "x^2", "--wrt", "y", "--order", "1"), 0, ["x^2", "0"], ""),
    (("eval", "x^2*y", "--at", "y=2", "--grad"), 0, ["2*x^2", "d/dx: 4*x", "d/dy: x^2"], ""),
    # grad(...) as a statement is --grad's gradient (it was "unknown name 'x'")
    (("eval", "y = 2; grad(x^2*y)"), 0, ["d/dx: 4*x", "d/dy: x^2"], ""),
    (("eval", "grad(x^2*y)", "--at", "y=2"), 0, ["d/dx: 4*x", "d/dy: x^2"], ""),
    (("eval", "grad(x^2*y, y)", "--at", "y=2"), 0, ["d/dy: x^2"], ""),
    # the formula keeps the value's domain: sqrt(x)^2 at -1 is nan, as x would not be
    (("eval", "sqrt(x)^2", "--order", "0"), 0, ["sqrt(x)^2"], ""),
    (("eval", "sqrt(x)^2", "--at", "x=-1"), 0, ["nan"], "sqrt"),
    # --order's formulas are the same with --series beside them (they were numbers at 0)
    (("eval", "sin(x)", "--order", "1", "--series", "3"), 0, ["sin(x)", "cos(x)", "x - x^3/6"],
     ""),
    (("eval", "g(x,y) = x^2*y", "g'"), 2, [],
     "g takes 2 arguments; ' is for functions of one; use diff(g(x,y), x) or grad(g(x,y))"),
]


def test_the_rows_of_the_table():
    check_rows(ROWS)


def test_a_gradient_in_formulas_is_the_gradient_in_numbers_at_a_point():
    partly = Session()
    partly.run("y = 2")
    (formulas,) = partly.run("grad(x^2*y + sin(x*y))")
    assert set(formulas.gradient_formulas) == {"x", "y"}
    numbers = Session()
    numbers.run("y = 2; x = 0.7")
    (values,) = numbers.run("grad(x^2*y + sin(x*y))")
    for name, formula in formulas.gradient_formulas.items():
        at = Session()
        at.run("x = 0.7")
        (value,) = at.run(plain(formula))
        assert value.error is None
        assert float(value.value) == pytest.approx(float(values.value[name]), rel=1e-14)


def test_grad_order_json_is_the_usage_error_not_zeros():
    # "derivative_formulas": ["0", "0"] was printed with exit status 0
    (proc,) = gradcli_all(("eval", "x^2*y^3", "--grad", "--order", "2", "--format", "json"))
    assert proc.returncode == ExitStatus.USAGE
    obj = json.loads(proc.stdout)
    assert "derivative_formulas" not in obj and obj["error"]["kind"] == "usage"
    assert HINT in obj["error"]["message"]


def test_formulas_past_the_size_limit_keep_the_orders_that_fit():
    # x^x --order 12 printed nothing but the error: orders 0..8 fit, 9 does not
    text, js = gradcli_all(("eval", "x^x", "--order", "12"),
                           ("eval", "x^x", "--order", "12", "--format", "json"))
    assert text.returncode == js.returncode == ExitStatus.ERROR
    lines = text.stdout.splitlines()
    assert len(lines) == 9 and lines[:2] == ["x^x", "x^x*(log(x) + 1)"]
    assert "the formula of order 9 has" in text.stderr
    obj = json.loads(js.stdout)  # one object: the formulas that fit and the error
    assert obj["formula"] == "x^x" and len(obj["derivative_formulas"]) == 8
    assert obj["derivative_formulas"] == lines[1:]
    assert obj["error"]["kind"] == "math" and "order 9" in obj["error"]["message"]


# --- in process: the same rules through Session --------------------------------------


def last(text: str, **options):
    return Session().run(text, EvalOptions(**options))[-1]


@pytest.mark.parametrize(("text", "value"), [
    ("x = 2; x²", 4.0), ("x = 2; x⁻¹", 0.5), ("x = 2; 2x³", 16.0), ("2²", 4.0),
    ("x = 2; 2^x²", 16.0), ("x = 2; (x+1)²", 9.0), ("x = 2; x¹⁰", 1024.0),
    ("x₁ = 3; x₁²", 9.0),
])
def test_superscripts_are_powers_on_the_value_path(text, value):
    assert float(last(text).value) == value


@pytest.mark.parametrize(("text", "formula"), [
    ("diff(x², x)", "2*x"), ("diff(x⁻¹, x)", "-1/x^2"), ("diff(sin(x)², x)", "2*cos(x)*sin(x)"),
])
def test_superscripts_are_powers_on_the_formula_path(text, formula):
    from gradcli.formula import plain

    assert plain(last(text).formulas[0]) == formula


def test_a_superscript_ends_a_name():
    from gradcli.lang.grammar import grammar_text
    from gradcli.lang.names import NAME, SUPERSCRIPT, SUPERSCRIPT_DIGITS, SUPERSCRIPT_MINUS

    assert NAME.fullmatch("x²") is None and NAME.match("x²").group() == "x"
    # the grammar spells the one table of lang.names
    assert f"SUPERSCRIPT: /{SUPERSCRIPT.pattern}/" in grammar_text().replace(
        "\\u207b", SUPERSCRIPT_MINUS)
    assert all(SUPERSCRIPT.fullmatch(c) for c in SUPERSCRIPT_DIGITS)


@pytest.mark.parametrize("at", [0.0, [0.0, 0.5, 0.0]])
def test_a_removable_singularity_is_its_limit_on_every_default_path(at):
    s = Session()
    s.bind_value("x", np.asarray(at))
    values = [s.run(t)[-1] for t in ("sin(x)/x", "(1 - cos(x))/x^2", "f(t) = sin(t)/t", "f(x)")]
    expected = np.where(np.asarray(at) == 0, 1.0, np.sin(0.5) / 0.5)
    np.testing.assert_allclose(values[0].value, expected)
    np.testing.assert_allclose(values[1].value, np.where(np.asarray(at) == 0, 0.5,
                                                         (1 - np.cos(0.5)) / 0.25))
    np.testing.assert_allclose(values[3].value, expected)
    assert not any(r.warnings for r in values)
    order = s.run("sin(x)/x", EvalOptions(order=1))[-1]
    np.testing.assert_allclose(order.value, expected)


def test_backprop_keeps_the_nan_and_a_pole_stays_one():
    s = Session(method="backprop")
    res = s.run("f(t) = sin(t)/t; x = 0; sin(x)/x; f(0)")
    assert np.isnan(res[-2].value) and np.isnan(res[-1].value)
    assert any("0/0" in w for w in res[-2].warnings)
    res = Session().run("x = 0; 1/x; 0/0; log(x)/x")
    assert np.isinf(res[1].value) and np.isnan(res[2].value) and np.isinf(res[3].value)


def test_one_call_depth_for_both_readings():
    # each reading had its own MAX_CALL_DEPTH
    deep = "; ".join([f"f{i}(t) = f{i + 1}(t) + 1" for i in range(MAX_CALL_DEPTH)]
                     + [f"f{MAX_CALL_DEPTH}(t) = t"])
    value = Session().run(deep + "; f0(2)")[-1]
    formula = Session().run(deep + "; diff(f0(x), x)")[-1]
    for res in (value, formula):
        assert res.error is not None and f"deeper than {MAX_CALL_DEPTH}" in res.error.message
    ok = "; ".join([f"f{i}(t) = f{i + 1}(t) + 1" for i in range(1, MAX_CALL_DEPTH)]
                   + [f"f{MAX_CALL_DEPTH}(t) = t"])
    assert float(Session().run(ok + "; f1(2)")[-1].value) == 2 + MAX_CALL_DEPTH - 1


@pytest.mark.parametrize("text", [
    "diff(x^2, diff)", "diff(x^2, grad)", "diff(x^2, sin)", "f(t) = t; diff(x^2, f)",
    "diff(x^2, 2)", "diff(x^2)", "grad(x*y, sin)",
])
def test_diff_arguments_are_checked_alike_on_both_paths(text):
    # calculus.py refused special forms and from_ast.py did not
    unbound = last(text)
    bound = last("x = 1; y = 2; " + text)
    assert unbound.error is not None and bound.error is not None, text
    assert unbound.error.message == bound.error.message
    assert unbound.error.column is not None


def test_a_prime_of_several_variables_says_how_to_write_it():
    for text in ("g(x, y) = x^2*y; g'(1, 2)", "g(x,y) = x^2*y; g'(x)"):
        err = last(text).error
        assert err.message == ("g takes 2 arguments; ' is for functions of one; "
                               "use diff(g(x,y), x) or grad(g(x,y))")


def test_the_orders_that_fit_come_before_the_error_through_one_pipe():
    # cli.md: "those of lower order are printed, then the error" (2>&1 showed
    # the error first)
    from inprocess import gradcli

    lines = gradcli("eval", "x^x", "--order", "12", merged=True).stdout.splitlines()
    first_error = next(i for i, line in enumerate(lines) if line.startswith("error: "))
    assert first_error == 9 and lines[0] == "x^x", lines[:2]
    assert "formula of order 9" in lines[first_error]
