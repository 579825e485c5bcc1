"""Derivation steps (formula/steps.py): recorded by the one differentiator.

Over the whole formula corpus (tests/test_formula_corpus.py) and every
built-in, at orders 1-3, the steps end at exactly what ``derivatives``
gives; at order 1 every step is right by itself (SymPy's derivative of its
part, at random points), and every ``d/dx(part)`` a rule leaves has its own
step, once.
"""

from __future__ import annotations

from collections.abc import Callable

import mpmath
import pytest
import sympy
from inprocess import gradcli
from test_formula_corpus import (
    CORPUS,
    ELEMENTWISE,
    VALUE_NAMES,
    X,
    flat_steps,
    points,
    to_sympy,
)

from gradcli.core.registry import REGISTRY
from gradcli.formula import derivatives, from_ast, plain
from gradcli.formula.expr import CALL, Expr
from gradcli.formula.steps import (
    RULES,
    derivation,
    latex_lines,
    lines,
    plain_lines,
    records,
    rule_text,
    table_rows,
)
from gradcli.lang.parser import parse

CASES = [(text, domain) for _, text, domain in CORPUS] + [
    (f"{name}(x/2 + 1/4)", (2 * REGISTRY[name].domain[0] - 0.5, 2 * REGISTRY[name].domain[1] - 0.5))
    for name in ELEMENTWISE] + [(f"{name}(x)", REGISTRY[name].domain) for name in ELEMENTWISE]


def _reference(name: str) -> Callable[[sympy.Expr], sympy.Expr]:
    ref = sympy.sympify(REGISTRY[name].reference, locals={"x": X})
    return lambda u: ref.subs(X, u)


# every built-in by its registry reference, so a step's part reads back as SymPy's
NAMES = {**{n: _reference(n) for n in ELEMENTWISE}, **VALUE_NAMES}


def formula(text: str) -> Expr:
    return from_ast(parse(text)[0].node)


def placeholders(x: Expr, found: set[Expr]) -> set[Expr]:
    """The parts u of the d/dx(u) placeholders in ``x``."""
    if x.kind == CALL:
        if x.name == "d/dx":  # type: ignore[attr-defined]
            found.add(x.arg)  # type: ignore[attr-defined]
        placeholders(x.arg, found)  # type: ignore[attr-defined]
    for child in x.key[1:]:
        for item in child if isinstance(child, tuple) else (child,):
            for node in item if isinstance(item, tuple) else (item,):
                if isinstance(node, Expr) and x.kind != CALL:
                    placeholders(node, found)
    return found


@pytest.mark.parametrize(("text", "domain"), CASES, ids=[t for t, _ in CASES])
def test_steps_end_at_the_formula(text: str, domain: tuple[float, float]) -> None:
    f = formula(text)
    orders = derivation(f, "x", 3)
    expected = derivatives(f, "x", 3)
    assert [d.formula for d in orders] == expected
    assert [d.order for d in orders] == [1, 2, 3]
    assert orders[1].of == expected[0] and orders[2].of == expected[1]
    # the last line printed is the formula diff prints
    assert lines(orders)[-1][0] == f"= {plain(expected[-1])}"
    for d, want in zip(orders, expected, strict=True):
        assert d.steps[0].top and d.steps[0].of == d.of
        last = d.steps[-1] if d.steps[-1].rule == "simplify" else d.steps[0]
        assert last.result == want
        assert all(s.rule in RULES for s in d.steps)
        # each part a rule leaves to be done has its own step, once
        parts = [s.of for s in d.steps if s.rule != "simplify"]
        assert len(parts) == len(set(parts))
        left: set[Expr] = set()
        for s in d.steps:
            for t in s.form or ():
                placeholders(t, left)
        assert left <= set(parts)
    json = records(orders)
    assert json[-1]["result"] == plain(expected[-1]) or json[-1]["rule"] != "simplify"


@pytest.mark.parametrize(("text", "domain"), CASES, ids=[t for t, _ in CASES])
def test_every_step_is_right(text: str, domain: tuple[float, float]) -> None:
    """Each step's result is SymPy's derivative of its part (a simplify step:
    equal to what it tidied), at random points of the domain."""
    (d,) = derivation(formula(text), "x", 1)
    for s in d.steps:
        ours = to_sympy(plain(s.result), names=NAMES)
        theirs = to_sympy(plain(s.of), names=NAMES)
        if s.rule != "simplify":
            theirs = flat_steps(sympy.diff(theirs, X))
        theirs = theirs.replace(lambda e: isinstance(e, sympy.DiracDelta), lambda e: sympy.S.Zero)
        a, b = sympy.lambdify(X, ours, "mpmath"), sympy.lambdify(X, theirs, "mpmath")
        with mpmath.workdps(30):
            for p in points(domain, f"{text}/{s.rule}", 2):
                u, v = a(mpmath.mpf(p)), b(mpmath.mpf(p))
                assert abs(u - v) <= 1e-9 * max(abs(u), abs(v)) + mpmath.mpf(10) ** -25, \
                    f"{s.rule} d/dx({plain(s.of)}) = {plain(s.result)} at x={p}"


def test_the_issues_example() -> None:
    orders = derivation(formula("x^2*sin(3*x)"), "x")
    assert plain_lines(orders) == [
        "d/dx (x^2*sin(3*x))",
        "= d/dx(x^2)*sin(3*x) + x^2*d/dx(sin(3*x))  product rule",
        "  d/dx(x^2) = 2*x                          power rule",
        "  d/dx(sin(3*x)) = cos(3*x)*d/dx(3*x)      chain rule, sin' = cos",
        "  d/dx(3*x) = 3                            constant multiple",
        "= 3*x^2*cos(3*x) + 2*x*sin(3*x)",
        "= x*(3*x*cos(3*x) + 2*sin(3*x))            simplified",
    ]
    assert records(orders) == [
        {"order": 1, "rule": "product", "of": "x^2*sin(3*x)",
         "result": "3*x^2*cos(3*x) + 2*x*sin(3*x)",
         "form": "d/dx(x^2)*sin(3*x) + x^2*d/dx(sin(3*x))"},
        {"order": 1, "rule": "power", "of": "x^2", "result": "2*x"},
        {"order": 1, "rule": "chain", "of": "sin(3*x)", "result": "3*cos(3*x)",
         "form": "cos(3*x)*d/dx(3*x)", "function": "sin"},
        {"order": 1, "rule": "constant multiple", "of": "3*x", "result": "3"},
        {"order": 1, "rule": "simplify", "of": "3*x^2*cos(3*x) + 2*x*sin(3*x)",
         "result": "x*(3*x*cos(3*x) + 2*sin(3*x))"},
    ]


@pytest.mark.parametrize(("text", "rule", "function"), [
    ("sin(x)", "elementary", "sin"), ("sin(3*x)", "chain", "sin"), ("5", "constant", None),
    ("x", "variable", None), ("x + x^2", "sum", None), ("3*x^2", "constant multiple", None),
    ("x^5", "power", None), ("x*exp(x)", "product", None), ("exp(x)/x", "quotient", None),
    ("x^x", "power", None), ("log(1 + x^2)", "chain", "log"),
])
def test_rule_names(text: str, rule: str, function: str | None) -> None:
    (d,) = derivation(formula(text), "x")
    assert (d.steps[0].rule, d.steps[0].function) == (rule, function)


def test_a_quotient_is_a_product_with_a_reciprocal() -> None:
    (d,) = derivation(formula("sin(x)/x"), "x")
    assert [(s.rule, plain(s.of)) for s in d.steps] == [
        ("quotient", "sin(x)/x"), ("elementary", "sin(x)"), ("power", "1/x")]


def test_a_repeated_part_is_shown_once() -> None:
    (d,) = derivation(formula("sin(x^2)*cos(x^2) + x^2"), "x")
    assert [plain(s.of) for s in d.steps].count("x^2") == 1


def test_rule_text_comes_from_the_registry() -> None:
    assert rule_text("sin") == "sin' = cos"
    assert rule_text("cos") == "cos' = -sin"
    assert rule_text("exp") == "exp' = exp"
    assert rule_text("log") == "log'(x) = 1/x"
    assert rule_text("sec") == "sec' = sec*tan"  # the issue's example, from sec's entry
    for name in ELEMENTWISE:  # every built-in has one, with nothing written for it here
        assert rule_text(name).startswith(f"{name}'")


def test_orders_above_one_follow_each_other() -> None:
    orders = derivation(formula("x^3"), "x", 2)
    assert plain_lines(orders) == [
        "d/dx (x^3)",
        "= 3*x^2            power rule",
        "d/dx (3*x^2)",
        "= 3*d/dx(x^2)      constant multiple",
        "  d/dx(x^2) = 2*x  power rule",
        "= 6*x",
    ]
    assert [r["order"] for r in records(orders)] == [1, 2, 2]


def test_latex_is_an_align_block() -> None:
    out = latex_lines(derivation(formula("x^2*sin(3*x)"), "x"))
    assert out[0] == r"\begin{align*}" and out[-1] == r"\end{align*}"
    assert out[1].startswith(r"\frac{d}{dx}\left(x^{2} \sin\left(3 x\right)\right) &= ")
    assert r"\text{product rule}" in out[1] and out[1].endswith(r" \\")
    assert out[-2] == r"&= x \left(3 x \cos\left(3 x\right) + 2 \sin\left(3 x\right)\right)" \
        r" && \text{simplified}"


def test_table_rows() -> None:
    rows = table_rows(derivation(formula("sin(3*x)"), "x"))
    assert rows == [["1", "chain rule, sin' = cos", "d/dx(sin(3*x))", "3*cos(3*x)"],
                    ["1", "constant multiple", "d/dx(3*x)", "3"]]


# --- the session, the CLI and the REPL ---------------------------------------------


def run(*texts: str, **options: object) -> list:
    from gradcli.session import EvalOptions, Session

    session = Session()
    out = []
    for text in texts:
        out += session.run(text, EvalOptions(steps=True, **options))
    return out


def test_a_statements_steps_end_at_its_formula() -> None:
    for text, options in [("diff(x^2*sin(3*x), x)", {}), ("diff(exp(x)/x, x, 3)", {}),
                          ("x^3*log(x)", {"order": 2}), ("sin(x)^2", {}),
                          ("x*y", {"wrt": "y"}), ("diff(x^2*y, x)", {"formula": True}),
                          ("x^2", {"formula": True}), ("diff(x^3, x)", {"order": 2})]:
        (res,) = run(text, **options)
        assert res.error is None, (text, res.error)
        last = res.formulas[-1]
        assert res.steps[-1].formula == last
        assert plain_lines(res.steps)[-1].split("  ")[0] == f"= {plain(last)}"
        assert res.to_dict()["steps"] == records(res.steps)


def test_steps_by_a_variable_with_a_value_use_its_number() -> None:
    res = run("y = 2", "diff(x^2*y, x)")[-1]
    assert plain_lines(res.steps)[0] == "d/dx (2*x^2)"
    assert plain(res.formulas[0]) == "4*x"


@pytest.mark.parametrize(("texts", "options", "words"), [
    (("x = 2", "diff(x^2, x)"), {}, "every variable has a value"),
    (("1 + diff(x^2, x)",), {}, "ask for the steps of diff(EXPR, x) alone"),
    (("grad(x*y)",), {}, "steps show how"),
    (("x*y",), {}, "x and y have none"),
    (("x^2",), {"check": True}, "not with --check"),
    (("x^2",), {"order": 0}, "an order of 1 or more"),
    (("diff(x^2, x, 1, 2)",), {}, "the answer is a number"),
    (("f(t) = t^2", "f'(x)"), {}, "part of the statement"),
])
def test_statements_without_steps_say_which_have_them(texts: tuple[str, ...], options: dict,
                                                      words: str) -> None:
    res = run(*texts, **options)[-1]
    assert res.error is not None and res.error.kind == "usage"
    assert words in res.error.message


def test_assignments_and_definitions_run_under_steps() -> None:
    results = run("a = 3", "f(t) = t^2", "diff(f(x)*a, x)")
    assert [r.error for r in results] == [None, None, None]
    assert plain(results[-1].formulas[0]) == "6*x"


def test_the_cli_prints_steps_in_each_format() -> None:
    import json
    import subprocess

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return gradcli("eval", *args)

    plain_run = cli("diff(x^2*sin(3*x), x)", "--steps")
    assert plain_run.returncode == 0
    assert plain_run.stdout.splitlines()[-1].startswith("= x*(3*x*cos(3*x) + 2*sin(3*x))")
    data = json.loads(cli("x^3", "--order", "2", "--steps", "--format", "json").stdout)
    assert data["derivative_formulas"] == ["3*x^2", "6*x"]
    assert [(s["order"], s["rule"]) for s in data["steps"]] == [
        (1, "power"), (2, "constant multiple"), (2, "power")]
    latex = cli("diff(sin(3*x), x)", "--steps", "--format", "latex").stdout.splitlines()
    assert latex[0] == r"\begin{align*}" and latex[-1] == r"\end{align*}"
    table = cli("diff(sin(3*x), x)", "--steps", "--format", "table").stdout
    assert "chain rule, sin' = cos" in table and "d/dx(3*x)" in table
    refused = cli("x^2", "--steps", "--format", "csv")
    assert refused.returncode == 2 and "not csv" in refused.stderr
    numbers = cli("diff(x^2, x)", "--at", "x=2", "--steps")
    assert numbers.returncode == 2 and "every variable has a value" in numbers.stderr
    assert "Traceback" not in refused.stderr + numbers.stderr


def test_the_repl_steps_command() -> None:
    import io

    from gradcli.repl.commands import Shell
    from gradcli.repl.display import PlainDisplay
    from gradcli.repl.loader import SessionLoader

    out, err = io.StringIO(), io.StringIO()
    shell = Shell(SessionLoader(), PlainDisplay(out, err))
    for line in [":steps sin(3*x)", ":steps x*y wrt y", ":steps diff(x^3, x)", ":steps",
                 ":steps x*y", ":steps 2 x^3", ":steps 2", ":steps 0 x^2"]:
        shell.execute(line)
    assert out.getvalue().splitlines() == [
        "d/dx (sin(3*x))",
        "= cos(3*x)*d/dx(3*x)  chain rule, sin' = cos",
        "  d/dx(3*x) = 3       constant multiple",
        "= 3*cos(3*x)",
        "d/dy (x*y)",
        "= x  constant multiple",
        "d/dx (x^3)",
        "= 3*x^2  power rule",
        "d/dx (x^3)",
        "= 3*x^2            power rule",
        "d/dx (3*x^2)",
        "= 3*d/dx(x^2)      constant multiple",
        "  d/dx(x^2) = 2*x  power rule",
        "= 6*x",
    ]
    assert err.getvalue().count("usage: :steps [N] EXPR [wrt X]") == 2
    assert "an order of 1 or more" in err.getvalue()
    assert "x and y have none" in err.getvalue()
    assert shell.status == 2
