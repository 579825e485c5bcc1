"""One statement, one meaning: random expressions drawn from the grammar give
the same numbers by every path (issue 29).

For each expression e of x and y, at a point (a, b), in process:
- the value path: e's value, its derivatives by x under --order 2, the
  coefficients of --series 2, diff(e, x), and h(a, b) for h(x, y) = e;
- the formula path: with x unbound, --order 2's formulas, pasted back as
  gradcli input and evaluated at the point;
- the other variable and several: --wrt y --order 1 against diff(e, y), and
  --grad's partial derivatives against both;
- an array holding the point: sum(e) at x = [a, 1.1] under --order 1, against
  e's values there (no element lost to another's nan) and its derivative by x;
and all must agree within rounding. Non-finite answers must agree in kind.
"""

from __future__ import annotations

import math
import random

import numpy as np

from gradcli.core.registry import REGISTRY
from gradcli.formula import plain
from gradcli.lang import ast
from gradcli.lang.parser import Statement, parse
from gradcli.lang.resolve import Definition
from gradcli.session import EvalOptions, Session

N = 2000
SEED = 29
DEFINITIONS = "u(t) = t^2 + 1; w(t, s) = t*s - s; q(t) = sin(t)/t"
SUPERSCRIPTS = {"2": "\u00b2", "3": "\u00b3", "-1": "\u207b\u00b9"}
# the elementwise built-ins of one argument, from the registry
UNARY = sorted(n for n, e in REGISTRY.items()
               if e.kind == "elementwise" and e.min_args <= 1 <= (e.max_args or 1))


class Draw:
    """A seeded generator of expressions over the grammar."""

    def __init__(self, seed: int) -> None:
        self.r = random.Random(seed)

    def leaf(self) -> str:
        r = self.r
        return r.choice(["x", "x", "y", "y", "2", "3", "0.5", "1.5", "pi", "2x", "x\u00b2",
                         "y\u00b3"])

    def expr(self, depth: int) -> str:
        r = self.r
        if depth == 0 or r.random() < 0.25:
            return self.leaf()
        kind = r.random()
        a = self.expr(depth - 1)
        if kind < 0.35:
            return f"({a} {r.choice('+-*/')} {self.expr(depth - 1)})"
        if kind < 0.55:
            return f"{r.choice(UNARY)}({a})"
        if kind < 0.65:
            exponent = r.choice(["2", "3", "-1", "0.5"])
            if exponent in SUPERSCRIPTS and r.random() < 0.5:
                return f"({a}){SUPERSCRIPTS[exponent]}"
            return f"({a})^{exponent}"
        if kind < 0.72:
            return f"({a})^({self.expr(depth - 1)})"
        if kind < 0.86:
            return r.choice([f"u({a})", f"w({a}, {self.expr(depth - 1)})", f"q({a})"])
        return f"diff({a}, {r.choice('xy')})"


def _agree(p, q) -> bool:
    """Equal within rounding, or non-finite alike (both nan, or the same infinity)."""
    if p is None or q is None:
        return p is None and q is None
    p, q = float(p), float(q)
    if math.isnan(p) or math.isnan(q):
        return math.isnan(p) and math.isnan(q)
    if math.isinf(p) or math.isinf(q):
        return p == q
    return math.isclose(p, q, rel_tol=1e-7, abs_tol=1e-9)


def _number(res):
    if res.error is not None or res.value is None or np.ndim(res.value):
        return None
    return float(res.value)


def disagreements(n: int = N, seed: int = SEED) -> tuple[list[tuple], int]:
    """(the disagreements found, how many expressions reached the comparison)."""
    draw = Draw(seed)
    rng = random.Random(seed + 1)
    bound = Session()
    formulas = Session()
    summed = Session()
    for session in (bound, formulas, summed):
        session.run(DEFINITIONS)
    found = []
    compared = 0

    def run(session, node, **options):
        # each path parses nothing new: the statements are made of the one tree
        return session.run_statement(Statement(node=node, source="e", line=1, column=1),
                                     EvalOptions(**options))

    for _ in range(n):
        text = draw.expr(draw.r.choice((1, 2, 2, 3)))
        node = parse(text)[0].node
        a, b = rng.choice([0.7, 1.3, 0.4, 1.9, 0.0]), rng.choice([0.6, 1.7, 2.2])
        bound.bind_value("x", a)
        bound.bind_value("y", b)
        formulas.bind_value("y", b)
        summed.bind_value("x", np.array([a, 1.1]))
        summed.bind_value("y", b)
        v = _number(run(bound, node))
        if v is None:
            continue  # refused (an inner diff's order that is not a whole number, ...)
        compared += 1
        answers = {}
        ordered = run(bound, node, order=2, wrt="x")
        if ordered.error is None:
            answers["--order 0"] = float(ordered.value)
            answers["--order 1"] = float(ordered.derivatives[0])
            answers["--order 2"] = float(ordered.derivatives[1])
        else:
            found.append((text, a, b, "--order 2", ordered.error.message))
        series = run(bound, node, series=2, wrt="x")
        if series.error is None:
            answers["--series c0"] = float(series.series[0])
            answers["--series 2*c2"] = 2 * float(series.series[2])
        answers["diff"] = _number(run(bound, ast.Call("diff", (node, ast.Name("x")))))
        bound.functions["h"] = Definition("h", ("x", "y"), node, text)
        answers["definition"] = _number(run(bound, ast.Call("h", (ast.Num(repr(a)),
                                                                   ast.Num(repr(b))))))
        made = run(formulas, node, order=2, wrt="x") if a else None
        if made is not None and made.error is None and made.formulas is not None:
            # (an expression without x, y bound: numbers, its derivatives 0)
            # (at 0, a formula's own removable singularities, cos(x)/x - sin(x)/x^2,
            # are no point of comparison: pasted back, it is 0/0 there)
            back = [_number(run(bound, parse(plain(f))[0].node)) for f in made.formulas]
            answers["formula 0"], answers["formula 1"], answers["formula 2"] = back
        by_y = run(bound, node, order=1, wrt="y")
        if by_y.error is None:
            answers["--wrt y value"] = float(by_y.value)
            answers["--wrt y"] = float(by_y.derivatives[0])
        diff_y = _number(run(bound, ast.Call("diff", (node, ast.Name("y")))))
        gradient = run(bound, node, grad=True)
        if gradient.error is None and gradient.gradient:
            for name, g in gradient.gradient.items():
                answers[f"--grad {name}"] = float(g)
        elements = run(summed, node)
        total = run(summed, ast.Call("sum", (node,)), order=1, wrt="x")
        if elements.error is None and np.shape(elements.value) == (2,) \
                and total.error is None:
            answers["array element"] = float(elements.value[0])
            answers["sum"] = float(total.value)
            with np.errstate(all="ignore"):
                expected_sum = float(np.sum(elements.value))
            # (an inner diff by an array x is the sum's; a sum that is not
            # finite has no derivative)
            if "diff(" not in text and bool(np.isfinite(elements.value).all()):
                answers["sum d/dx[0]"] = float(total.derivatives[0][0])
        expected = {"--order 0": v, "--series c0": v, "definition": v, "--wrt y value": v,
                    "array element": v}
        if "sum" in answers:
            expected["sum"] = expected_sum
        if "--wrt y" in answers:
            expected["--grad y"] = answers["--wrt y"]
            if diff_y is not None:
                answers["diff by y"] = diff_y
                expected["diff by y"] = answers["--wrt y"]
        if math.isfinite(v):
            # a formula holds where the expression is defined: elsewhere it may
            # be simpler than the expression (0*atanh(3) is 0; diff(atanh(x), x)
            # is 1/(1 - x^2) past 1 too)
            expected["formula 0"] = v
        if "--order 1" in answers:
            d1, d2 = answers["--order 1"], answers["--order 2"]
            expected.update({"diff": d1, "--series 2*c2": d2, "--grad x": d1,
                             "sum d/dx[0]": d1})
            if math.isfinite(v):
                expected.update({"formula 1": d1, "formula 2": d2})
        for key, want in expected.items():
            if key in answers and not _agree(answers[key], want):
                found.append((text, a, b, key, answers[key], want))
    return found, compared


def test_every_path_gives_the_same_numbers():
    found, compared = disagreements()
    assert compared >= N // 2, compared  # the comparisons ran, not only the draws
    assert found == [], f"{len(found)} disagreements, e.g. {found[:5]}"
