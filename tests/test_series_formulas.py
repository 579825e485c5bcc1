"""--series where a name other than the series' variable has no value: a
series of formulas (issue 29, one meaning), checked against SymPy's series."""

from __future__ import annotations

import json
import random

import pytest
import sympy
from inprocess import gradcli

from gradcli.cli.words import CLI_WORDS
from gradcli.formula.series_text import formula_series_text
from gradcli.limits import SERIES_LIMIT_ORDER as LIMIT_ORDER
from gradcli.session import EvalOptions, Session

NAMES = {n: sympy.Symbol(n) for n in ("x", "y", "a")} | {"e": sympy.E, "pi": sympy.pi}
X = NAMES["x"]


def run(*args: str) -> tuple[int, list[str], str]:
    """``gradcli eval ARGS`` in this process (tests/inprocess.py)."""
    done = gradcli("eval", *args)
    return done.returncode, done.stdout.splitlines(), done.stderr


def _sym(text: str) -> sympy.Expr:
    return sympy.sympify(text.replace("^", "**"), locals=NAMES)


def _coefficients(text: str, order: int, at: str | None = None
                  ) -> tuple[list[sympy.Expr], sympy.Expr]:
    """The coefficients of gradcli's series, and its polynomial as printed."""
    session = Session(words=CLI_WORDS)
    if at is not None:
        session.bind_at("x", at)
    res = session.run(text, EvalOptions(series=order, wrt="x"))[-1]
    assert res.error is None, res.error
    assert res.kind == "formula" and res.series_formulas is not None
    printed = formula_series_text(res.series_formulas, "x", res.point_text)
    return [_sym(c) for c in res.to_dict()["series_formulas"]], _sym(printed)


# --- the cases of the issue, as the CLI prints them -------------------------------------

CASES = [
    (("x^2*y", "--wrt", "x", "--order", "2"), ["x^2*y", "2*x*y", "2*y"]),
    (("x^2*y", "--wrt", "x", "--series", "2"), ["x^2*y"]),
    (("x^2", "--wrt", "y", "--order", "1"), ["x^2", "0"]),
    (("x^2", "--wrt", "y", "--series", "2"), ["x^2"]),
    (("x^2*y", "--wrt", "x", "--series", "2", "--at", "y=3"), ["3*x^2"]),
    (("sin(x)", "--series", "4"), ["x - x^3/6"]),
    (("x^2*y", "--wrt", "x", "--series", "2", "--at", "x=1"), ["y + 2*(x - 1)*y + (x - 1)^2*y"]),
    (("sin(x)*y", "--wrt", "x", "--series", "3", "--at", "x=pi"),
     ["-(x - pi)*y + (x - pi)^3*y/6"]),
    (("y*sin(x)/x", "--wrt", "x", "--series", "4"), ["y - x^2*y/6 + x^4*y/120"]),
    (("y*sin(x)/(x - pi)", "--wrt", "x", "--series", "3", "--at", "x=pi"),
     ["-y + (x - pi)^2*y/6"]),
    (("y*(x - 1)/log(x)", "--wrt", "x", "--series", "2", "--at", "x=1"),
     ["y + (x - 1)*y/2 - (x - 1)^2*y/12"]),
    (("x^2*y", "--wrt", "x", "--series", "2", "--order", "1"), ["x^2*y", "2*x*y", "x^2*y"]),
]


def test_the_cases_of_the_issue() -> None:
    for args, expected in CASES:
        code, out, err = run(*args, "--format", "plain")
        assert (code, out, err) == (0, expected, ""), args


def test_every_format_carries_the_series() -> None:
    common = ("exp(a*x)", "--wrt", "x", "--series", "2", "--order", "1", "--format")
    code, out, _ = run(*common, "json")
    assert code == 0
    assert json.loads(out[0]) == {
        "input": "exp(a*x)", "at": {}, "wrt": "x", "formula": "exp(a*x)",
        "derivative_formulas": ["a*exp(a*x)"], "series_formulas": ["1", "a", "a^2/2"]}
    code, out, _ = run(*common, "csv")
    assert out == ["input,order,formula,coefficient,error", "exp(a*x),0,exp(a*x),1,",
                   "exp(a*x),1,a*exp(a*x),a,", "exp(a*x),2,,a^2/2,"]
    code, out, _ = run(*common, "latex")
    assert out == [r"e^{a x}", r"a e^{a x}", r"1 + a x + \frac{a^{2} x^{2}}{2}"]
    code, out, _ = run(*common, "table")
    rows = [[c.strip() for c in line.split("|")[1:-1]] for line in out if line.startswith("| ")]
    assert rows == [["order", "formula", "coefficient"], ["0", "exp(a*x)", "1"],
                    ["1", "a*exp(a*x)", "a"], ["2", "", "a^2/2"]]
    assert out[0] == "exp(a*x)  at x = 0  (d/dx)"
    assert out[-1] == "series: 1 + a*x + a^2*x^2/2"
    # without --order: the polynomial alone, and no formula column
    code, out, _ = run("exp(a*x)", "--wrt", "x", "--series", "2", "--format", "table")
    assert out[-1] == "series: 1 + a*x + a^2*x^2/2" and "formula" not in out[2]
    code, out, _ = run("exp(a*x)", "--wrt", "x", "--series", "2", "--formula")
    assert out == ["1 + a*x + a^2*x^2/2"]
    # about a point, in LaTeX: the point as typed
    code, out, _ = run("cos(x)*y", "--wrt", "x", "--at", "x=pi", "--series", "2",
                       "--format", "latex")
    assert out == [r"-y + \frac{\left(x - \pi\right)^{2} y}{2}"]


def test_existing_json_is_unchanged() -> None:
    code, out, _ = run("sin(x)", "--series", "2", "--format", "json")
    assert json.loads(out[0]) == {"input": "sin(x)", "at": {}, "wrt": "x", "value": 0.0,
                                  "series": [0.0, 1.0, -0.0]}
    code, out, _ = run("x^2*y", "--wrt", "x", "--order", "1", "--format", "json")
    assert json.loads(out[0]) == {"input": "x^2*y", "wrt": "x", "formula": "x^2*y",
                                  "derivative_formulas": ["2*x*y"]}


def test_a_numeric_csv_takes_the_coefficients_in_its_formula_columns() -> None:
    # (the formulas were in the number columns, value and c0..c2)
    code, out, _ = run("sin(x)", "exp(a*x)", "--wrt", "x", "--series", "2",
                       "--format", "csv")
    assert out == ["input,wrt,value,c0,c1,c2,formula,formula_c0,formula_c1,formula_c2,error",
                   "sin(x),x,0,0,1,0,,,,,", "exp(a*x),x,,,,,exp(a*x),1,a,a^2/2,"]


def test_errors_are_clear_never_nan() -> None:
    for text, words in [("log(x)*y", "no Taylor series about x = 0"),
                        ("y/x", "no Taylor series about x = 0"),
                        ("sqrt(x)*y", "no Taylor series about x = 0"),
                        ("y/sin(x)", "no Taylor series about x = 0"),
                        ("y*(x - 1)^(1/3)", "(-1)^(1/3) is undefined"),
                        ("y*sqrt(x - 1)", "sqrt(-1) is undefined")]:
        code, out, err = run(text, "--wrt", "x", "--series", "2")
        assert code == 1 and out == [] and words in err and "nan" not in err, text
    code, _, err = run("y*sin(x)/x", "--wrt", "x", "--series", str(LIMIT_ORDER + 1))
    assert code == 1 and f"up to order {LIMIT_ORDER}" in err
    # the size limit of formulas, with --order's message
    code, _, err = run("x^x*y", "--wrt", "x", "--at", "x=1", "--series", "30")
    assert code == 1 and "the formula of order" in err and "(limit 2000)" in err
    code, _, err = run("x^2*y", "--wrt", "x", "--series", "1001")
    assert code == 2 and "expected at most 1000" in err
    res = Session().run("x^2*y", EvalOptions(series=1001, wrt="x"))[-1]
    assert "the series order 1001 is outside 0..1000" in res.error.message


def test_check_and_arrays_still_want_numbers() -> None:
    for extra in (("--check",), ("--at", "x=0:1:0.5")):
        code, _, err = run("x^2*y", "--wrt", "x", "--series", "2", *extra)
        assert code == 1 and "unknown name 'y'" in err, extra
    # grad(...) is its partial derivatives alone, and a series has no steps
    code, _, err = run("grad(x^2*y)", "--wrt", "x", "--series", "2")
    assert code == 1 and "unknown name 'x'" in err
    code, _, err = run("x^2*y", "--wrt", "x", "--series", "2", "--steps")
    assert code == 2 and "not with --check, --series or --grad" in err


def test_a_bound_name_is_its_number_and_the_point_its_value() -> None:
    code, out, _ = run("a*x^2*y", "--wrt", "x", "--at", "a=2,x=0.5", "--series", "2")
    assert out == ["0.5*y + 2*(x - 0.5)*y + 2*(x - 0.5)^2*y"]  # a decimal stays one
    code, out, _ = run("x^3*y", "--wrt", "x", "--at", "x=1/3", "--series", "1")
    assert out == ["y/27 + (x - 1/3)*y/3"]  # the point as typed, exact
    code, out, _ = run("x = 2", "x^3*y", "--wrt", "x", "--series", "1")
    assert out == ["8*y + 12*(x - 2)*y"]  # bound by a statement: its number
    code, out, _ = run("x^2*y", "--wrt", "x", "--at", "x=0.1", "--series", "1",
                       "--dtype", "float32")
    assert out == ["0.01*y + 0.2*(x - 0.1)*y"]


# --- against SymPy's series ---------------------------------------------------------------

SYMPY_CASES = [
    "exp(a*x)", "sin(x)*y + x^3", "1/(1 - a*x)", "log(1 + x*y)", "y*sin(x)/x",
    "(exp(a*x) - 1)/x", "(1 - cos(x))/x^2*y", "tan(x)/x*y", "exp(sin(a*x)/x)",
    "sqrt(1 + a*x)", "y^x", "atan(a*x)/x",
]


@pytest.mark.parametrize(("text", "at"), [(t, None) for t in SYMPY_CASES] + [
    (t, "1") for t in SYMPY_CASES if t != "exp(sin(a*x)/x)"])  # (SymPy takes 6 s there)
def test_coefficients_are_sympys(text: str, at: str | None) -> None:
    order = 4
    got, printed = _coefficients(text, order, at)
    a = 0 if at is None else sympy.Integer(at)
    f = _sym(text)
    expected = sympy.series(f, X, a, order + 1).removeO()
    t = sympy.Symbol("t")
    poly = sympy.expand(expected.subs(X, t + a))
    rng = random.Random(text)
    for k, c in enumerate(got):
        want = poly.coeff(t, k)
        diff = sympy.simplify(c - want)
        if diff != 0:  # simplify may not see it: random values of the free names
            for _ in range(3):
                values = {s: sympy.Rational(rng.randint(1, 9), rng.randint(2, 7))
                          for s in (c - want).free_symbols}
                assert abs(complex((c - want).subs(values).evalf(30))) < 1e-20, (text, k)
    # the polynomial as printed reads back as SymPy's (gradcli input, pasted back)
    gap = printed - expected
    for _ in range(3):
        values = {s: sympy.Rational(rng.randint(1, 9), rng.randint(2, 7))
                  for s in gap.free_symbols}
        assert abs(complex(gap.subs(values).evalf(30))) < 1e-20, text
