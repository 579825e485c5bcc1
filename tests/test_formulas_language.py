"""Formulas in the language, the session and the REPL (issue 23's wiring)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from inprocess import gradcli

from gradcli.cli.words import CLI_WORDS
from gradcli.session import EvalOptions, Session

PYTHON = sys.executable


def _run(text: str, session: Session | None = None, **options: object):
    return (session or Session(words=CLI_WORDS)).run(text, EvalOptions(**options))


def _eval(*args: str) -> subprocess.CompletedProcess[str]:
    return gradcli("eval", *args)


def test_diff_by_a_variable_with_no_value_is_a_formula_and_with_one_a_number() -> None:
    (res,) = _run("diff(x^4 - 2*x^2, x)")
    assert res.to_dict() == {"input": "diff(x^4 - 2*x^2, x)", "formula": "4*x^3 - 4*x"}
    assert _run("diff(x^4 - 2*x^2, x, 2)")[0].to_dict()["formula"] == "12*x^2 - 4"
    assert float(_run("x = 2; diff(x^4 - 2*x^2, x)")[-1].value) == 24.0
    # a bound name other than the variable is its number
    assert _run("a = 3; diff(a*x^2, x)")[-1].to_dict()["formula"] == "6*x"


def test_order_by_a_variable_with_no_value_gives_the_formulas_of_every_order() -> None:
    done = _eval("x^4 - 2*x^2", "--order", "3", "--format", "json")
    plain = _eval("x^4 - 2*x^2", "--order", "2", "--format", "plain")
    (res,) = _run("x^4 - 2*x^2", order=3)
    assert res.to_dict() == {"input": "x^4 - 2*x^2", "wrt": "x", "formula": "x^4 - 2*x^2",
                             "derivative_formulas": ["4*x^3 - 4*x", "12*x^2 - 4", "24*x"]}
    assert done.returncode == 0 and json.loads(done.stdout) == res.to_dict()
    assert plain.stdout.splitlines() == ["x^4 - 2*x^2", "4*x^3 - 4*x", "12*x^2 - 4"]


def test_a_bare_expression_with_an_unbound_name_stays_a_name_error() -> None:
    done = _eval("x + 1", "--format", "json")
    assert done.returncode == 1
    assert json.loads(done.stdout)["error"]["kind"] == "name"


def test_grad_of_variables_with_no_value_gives_a_formula_each() -> None:
    (res,) = _run("grad(x*y + sin(x))")
    assert res.to_dict()["gradient_formulas"] == {"x": "y + cos(x)", "y": "x"}
    (opt,) = _run("x*y + sin(x)", grad=True)
    assert opt.to_dict()["gradient_formulas"] == {"x": "y + cos(x)", "y": "x"}


def test_a_definition_takes_a_derivatives_formula(tmp_path) -> None:
    done = gradcli(
        "repl", cwd=tmp_path, stdin="df(x) = diff(x^4 - 2x^2, x)\ndf(2)\n:funcs\n"
                            "f(x) = x^4 - 2*x^2\nf'\nf''\n:d f(x)\n:d 2 f(x)\n")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "24", "df(x) = 4*x^3 - 4*x", "f'(x) = 4*x^3 - 4*x", "f''(x) = 12*x^2 - 4",
        "x^4 - 2*x^2", "4*x^3 - 4*x", "x^4 - 2*x^2", "4*x^3 - 4*x", "12*x^2 - 4"]


def test_formula_beside_the_numbers() -> None:
    (res,) = _run("x = 2; x^3", order=2, formula=True)[-1:]
    d = res.to_dict()
    assert d["value"] == 8.0 and d["derivatives"] == [12.0, 12.0]
    assert d["formula"] == "x^3" and d["derivative_formulas"] == ["3*x^2", "6*x"]


@pytest.mark.parametrize("text, want", [
    ("sin(x)", "x - x^3/6 + x^5/120"),
    ("1/(1 - x)", "1 + x + x^2 + x^3 + x^4 + x^5"),
    ("x*tan(x)", "x^2 + x^4/3"),
])
def test_a_series_with_no_point_expands_about_zero_exactly(text, want) -> None:
    done = _eval(text, "--series", "5", "--format", "plain")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == want


def test_a_series_about_pi_drops_rounding_noise_and_writes_the_point_as_typed() -> None:
    done = _eval("cos(x)", "--at", "x=pi", "--series", "4", "--format", "plain")
    assert done.stdout.strip() == "-1 + (x - pi)^2/2 - (x - pi)^4/24"
