"""The formula of the value: ``--formula`` without an order, and ``--order 0``
by a variable with no value (SymPy is the oracle)."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import pytest
import sympy
from inprocess import gradcli

from gradcli.cli.words import CLI_WORDS
from gradcli.session import EvalOptions, Session

PYTHON = sys.executable
NAMES = {n: sympy.Symbol(n) for n in ("x", "y", "a")} | {"e": sympy.E, "pi": sympy.pi}


def _eval(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return gradcli("eval", *args, stdin=stdin)


def _sym(text: str) -> sympy.Expr:
    return sympy.sympify(text.replace("^", "**"), locals=NAMES)


def _one(text: str, **options: object):
    res = Session(words=CLI_WORDS).run(text, EvalOptions(**options))[-1]
    assert res.error is None, res.error
    return res


@pytest.mark.parametrize("extra", [(), ("--order", "0"), ("--order", "1"), ("--series", "2")])
def test_formula_of_the_value_is_in_the_variable_with_or_without_an_order(extra) -> None:
    # without an order the variable was its number: "formula": "8"
    done = _eval("x^3", "--at", "x=2", "--formula", "--format", "json", *extra)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["formula"] == "x^3"


def test_formula_of_the_value_in_every_format() -> None:
    common = ("x^3", "--at", "x=2", "--formula", "--format")
    plain = _eval(*common, "plain")
    assert plain.stdout.splitlines() == ["8", "formula order 0: x^3"]
    latex = _eval(*common, "latex")
    assert latex.stdout.splitlines() == ["8", "x^{3}"]
    csv = _eval(*common, "csv")
    assert csv.stdout.splitlines() == ["input,value,formula,error", "x^3,8,x^3,"]
    table = _eval(*common, "table")
    assert table.returncode == 0
    head, *rows = [line for line in table.stdout.splitlines() if line.startswith("| ")]
    assert head.split("|")[1:-1] == [" order ", " value ", " formula "]
    assert [c.strip() for c in rows[0].split("|")[1:-1]] == ["0", "8", "x^3"]
    for done in (plain, latex, csv, table):
        assert done.returncode == 0 and done.stderr == ""


def test_csv_has_the_formulas_of_the_derivatives_and_the_gradient_too() -> None:
    done = _eval("x^3", "--at", "x=2", "--formula", "--order", "2", "--format", "csv")
    assert done.stdout.splitlines() == [
        "input,wrt,value,d1,d2,formula,formula_d1,formula_d2,error", "x^3,x,8,12,12,x^3,3*x^2,6*x,"]
    done = _eval("x*y", "--at", "x=2,y=3", "--formula", "--grad", "--format", "csv")
    assert done.stdout.splitlines() == ["input,value,gradient,formula,gradient_formula,error",
                                        "x*y,6,x: 3; y: 2,x*y,x: y; y: x,"]
    done = _eval("x^2", "--at", "x=0:1:0.5", "--formula", "--format", "csv")
    assert done.stdout.splitlines() == ["input,x,value,formula,error", "x^2,0,0,x^2,",
                                        "x^2,0.5,0.25,x^2,", "x^2,1,1,x^2,"]


@pytest.mark.parametrize(("text", "at", "wrt"), [
    ("x^3", {"x": 2.0}, None),
    ("sin(x)^2 + cos(x)*x", {"x": 0.7}, None),
    ("exp(x)/(1 + x^2)", {"x": -1.5}, None),
    ("a*x^2 - a", {"a": 3.0, "x": 2.0}, "x"),  # a is its number, as with --order
])
def test_the_value_formula_equals_the_expression_and_its_value(text, at, wrt) -> None:
    program = "; ".join(f"{k} = {v!r}" for k, v in at.items()) + f"; {text}"
    res = _one(program, formula=True, wrt=wrt)
    f = _sym(res.to_dict()["formula"])
    var = wrt or "x"
    others = {NAMES[k]: sympy.Rational(v) for k, v in at.items() if k != var}
    assert f.free_symbols == {NAMES[var]}
    assert sympy.simplify(f - _sym(text).subs(others)) == 0
    assert math.isclose(float(f.subs(NAMES[var], at[var])), float(res.value), rel_tol=1e-12)


def test_several_variables_follow_order_the_wrt_or_a_warning() -> None:
    by_x = _eval("a*x^2", "--at", "a=3,x=2", "--formula", "--wrt", "x", "--format", "json")
    assert by_x.returncode == 0 and by_x.stderr == ""
    assert json.loads(by_x.stdout)["formula"] == "3*x^2"
    by_a = _eval("a*x^2", "--at", "a=3,x=2", "--formula", "--wrt", "a", "--format", "json")
    assert json.loads(by_a.stdout)["formula"] == "4*a"
    # --order would be a usage error; beside numbers that stand, a warning in its words
    neither = _eval("a*x^2", "--at", "a=3,x=2", "--formula", "--format", "json")
    assert neither.returncode == 0
    assert json.loads(neither.stdout) == {"input": "a*x^2", "at": {"a": 3.0, "x": 2.0},
                                          "value": 12.0}
    assert neither.stderr == ("warning: no formulas beside the numbers: the expression has "
                              "several variables (a, x); choose one with --wrt\n")
    # through a function, as --order: g(2) is by a
    res = _one("a = 5; g(t) = t*a; g(2)", formula=True)
    assert res.to_dict()["formula"] == "2*a"
    # --grad: every variable of the gradient
    res = _one("x = 2; y = 3; x*y + sin(x)", formula=True, grad=True)
    assert res.to_dict()["formula"] == "x*y + sin(x)"


@pytest.mark.parametrize("text", ["x^4 - 2*x^2", "sin(x)*x + 2*x - x", "3*x/6 + x^2*x"])
def test_order_0_by_a_variable_with_no_value_is_the_formula_of_order_0(text) -> None:
    # it was a name error, exit 1
    done = _eval(text, "--order", "0", "--format", "json")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert set(out) == {"input", "wrt", "formula"} and out["wrt"] == "x"
    assert sympy.simplify(_sym(out["formula"]) - _sym(text)) == 0
    # the engine's own simplified text, as order 0 of --order 1 prints it
    first = json.loads(_eval(text, "--order", "1", "--format", "json").stdout)
    assert out["formula"] == first["formula"]
    plain = _eval(text, "--order", "0", "--format", "plain")
    assert plain.returncode == 0 and plain.stdout.splitlines() == [out["formula"]]


def test_order_0_elsewhere_stays_as_it_was() -> None:
    assert _eval("x^4 - 2*x^2", "--at", "x=2", "--order", "0").stdout == "8\n"
    unbound = _eval("x + 1", "--format", "json")
    assert unbound.returncode == 1 and json.loads(unbound.stdout)["error"]["kind"] == "name"
    assert _one("x^2 + 1", order=0).kind == "formula"
    assert Session(words=CLI_WORDS).run("x^2 + 1", EvalOptions())[-1].error is not None
    repl = gradcli("repl", stdin=":d 0 x^2 + 1\n")
    assert repl.returncode == 0 and repl.stdout.splitlines() == ["x^2 + 1"]


def test_formula_of_a_variable_with_no_value_is_the_answer() -> None:
    # sin(x) --formula with x unbound was a name error; --order 0 gave the formula
    s = Session(words=CLI_WORDS)
    alone = s.run("sin(x)", EvalOptions(formula=True))[0].to_dict()
    assert alone == s.run("sin(x)", EvalOptions(order=0))[0].to_dict() == {
        "input": "sin(x)", "wrt": "x", "formula": "sin(x)"}
    typo = s.run("x = 1; x + nosuch", EvalOptions(formula=True))[-1]
    assert typo.error is not None and "nosuch" in typo.error.message
