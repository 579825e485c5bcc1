"""Formula derivatives of a textbook corpus, checked against SymPy.

Every corpus function and every registry built-in, at orders 1-3: the printed
formula, read back by SymPy, equals SymPy's own derivative at random points
of the domain to 1e-9 relative (evaluated with 30-digit mpmath, so neither
side's rounding counts), and it is no longer than SymPy's: the median ratio of
``count_ops`` over the corpus is at most 1.0. ``benchmarks/bench_formula.py``
reads CORPUS from here.
"""

from __future__ import annotations

import functools
import random
import statistics

import mpmath
import pytest
import sympy

from gradcli.core.registry import REGISTRY
from gradcli.formula import derivatives, from_ast, plain
from gradcli.lang.parser import parse

# (category, gradcli text in x, domain for the random points)
CORPUS: list[tuple[str, str, tuple[float, float]]] = [
    ("polynomial", "x^4 - 2*x^2", (-3, 3)),
    ("polynomial", "3*x^5 - x^3 + 7", (-3, 3)),
    ("polynomial", "x^3/3 - x", (-3, 3)),
    ("polynomial", "(x + 1)^3", (-3, 3)),
    ("polynomial", "5*x^7 - 2*x^2 + x", (-2, 2)),
    ("polynomial", "x^2 + 2*x + 1", (-3, 3)),
    ("polynomial", "(2*x - 1)^4", (-3, 3)),
    ("polynomial", "x^6 - x^4 + x^2 - 1", (-2, 2)),
    ("polynomial", "0.5*x^2 + 1.5*x", (-3, 3)),
    ("polynomial", "x*(x - 1)*(x - 2)", (-3, 3)),
    ("rational", "1/x", (0.2, 3)),
    ("rational", "1/(1 + x^2)", (-3, 3)),
    ("rational", "x/(x + 1)", (0, 3)),
    ("rational", "(x^2 + 1)/(x - 3)", (-2, 2)),
    ("rational", "(x - 1)/(x + 2)^2", (0, 3)),
    ("rational", "x^2/(1 + x^3)", (0.2, 3)),
    ("rational", "3/(2*x + 5)", (0, 3)),
    ("rational", "(x^3 - 1)/(x^2 + x + 1)", (-3, 3)),
    ("rational", "1/(x^2 - 4)", (-1.5, 1.5)),
    ("product", "x*sin(x)", (-3, 3)),
    ("product", "x^2*exp(x)", (-3, 3)),
    ("product", "exp(x)*cos(x)", (-3, 3)),
    ("product", "x*log(x)", (0.2, 3)),
    ("product", "sin(x)*cos(x)", (-3, 3)),
    ("product", "x^3*cosh(x)", (-2, 2)),
    ("product", "sqrt(x)*log(x)", (0.2, 3)),
    ("product", "x*atan(x)", (-3, 3)),
    ("quotient", "sin(x)/x", (0.2, 3)),
    ("quotient", "exp(x)/x", (0.2, 3)),
    ("quotient", "log(x)/x", (0.2, 3)),
    ("quotient", "x/exp(x)", (-3, 3)),
    ("quotient", "cos(x)/(1 + x^2)", (-3, 3)),
    ("quotient", "(x^2 + 1)/exp(x)", (-3, 3)),
    ("quotient", "tan(x)/x", (0.2, 1.2)),
    ("quotient", "x/sin(x)", (0.3, 2.5)),
    ("chain", "sin(x^2)", (-2, 2)),
    ("chain", "exp(-x^2)", (-2, 2)),
    ("chain", "log(1 + x^2)", (-3, 3)),
    ("chain", "cos(3*x + 1)", (-3, 3)),
    ("chain", "sqrt(1 + x^2)", (-3, 3)),
    ("chain", "exp(sin(x))", (-3, 3)),
    ("chain", "sin(cos(x))", (-3, 3)),
    ("chain", "log(cos(x))", (-1.2, 1.2)),
    ("chain", "(1 + x^2)^10", (-1, 1)),
    ("chain", "tan(2*x)", (-0.7, 0.7)),
    ("powers", "x^2.5", (0.2, 3)),
    ("powers", "x^(1/3)", (0.2, 3)),
    ("powers", "sqrt(x)", (0.2, 3)),
    ("powers", "x^(-3)", (0.2, 3)),
    ("powers", "(x^2 + 1)^(3/2)", (-3, 3)),
    ("powers", "x^(-1/2)", (0.2, 3)),
    ("powers", "(1 - x)^0.75", (-2, 0.9)),
    ("powers", "2^x", (-3, 3)),
    ("powers", "10^(x^2)", (-1, 1)),
    ("exp/log", "exp(x)", (-3, 3)),
    ("exp/log", "exp(2*x)", (-3, 3)),
    ("exp/log", "e^x", (-3, 3)),
    ("exp/log", "e^(2*x)", (-3, 3)),
    ("exp/log", "log(x)", (0.2, 3)),
    ("exp/log", "log(x^2 + 1)", (-3, 3)),
    ("exp/log", "log2(x)", (0.2, 3)),
    ("exp/log", "log10(x)", (0.2, 3)),
    ("exp/log", "exp(x)*log(x)", (0.2, 3)),
    ("exp/log", "log(log(x))", (1.5, 5)),
    ("exp/log", "x*exp(-x)", (-3, 3)),
    ("exp/log", "exp(x^3)", (-1, 1)),
    ("trig", "sin(x)", (-3, 3)),
    ("trig", "cos(x)", (-3, 3)),
    ("trig", "tan(x)", (-1.2, 1.2)),
    ("trig", "sin(x)^2", (-3, 3)),
    ("trig", "cos(x)^3", (-3, 3)),
    ("trig", "sin(2*x)*cos(3*x)", (-3, 3)),
    ("trig", "tan(x)^2", (-1.2, 1.2)),
    ("trig", "1/cos(x)", (-1.2, 1.2)),
    ("trig", "sin(x) + cos(x)", (-3, 3)),
    ("trig", "sin(pi*x)", (-3, 3)),
    ("inverse trig", "asin(x)", (-0.9, 0.9)),
    ("inverse trig", "acos(x)", (-0.9, 0.9)),
    ("inverse trig", "atan(x)", (-3, 3)),
    ("inverse trig", "asin(x/2)", (-1.8, 1.8)),
    ("inverse trig", "atan(x^2)", (-3, 3)),
    ("inverse trig", "acos(x)^2", (-0.9, 0.9)),
    ("inverse trig", "x*asin(x)", (-0.9, 0.9)),
    ("inverse trig", "atan(1/x)", (0.2, 3)),
    ("hyperbolic", "sinh(x)", (-3, 3)),
    ("hyperbolic", "cosh(x)", (-3, 3)),
    ("hyperbolic", "tanh(x)", (-3, 3)),
    ("hyperbolic", "asinh(x)", (-3, 3)),
    ("hyperbolic", "acosh(x)", (1.1, 5)),
    ("hyperbolic", "atanh(x)", (-0.9, 0.9)),
    ("hyperbolic", "sinh(x)*cosh(x)", (-3, 3)),
    ("hyperbolic", "tanh(x)^2", (-3, 3)),
    ("hyperbolic", "cosh(2*x)", (-3, 3)),
    ("hyperbolic", "log(cosh(x))", (-3, 3)),
    ("x^x", "x^x", (0.2, 3)),
    ("x^x", "x^(x^2)", (0.2, 2)),
    ("x^x", "x^sin(x)", (0.2, 3)),
    ("x^x", "sin(x)^x", (0.2, 3)),
    ("x^x", "(1 + x)^(1/x)", (0.2, 3)),
    ("x^x", "x^(1/x)", (0.2, 3)),
    ("sigmoid", "sigmoid(x)", (-4, 4)),
    ("sigmoid", "sigmoid(2*x)", (-3, 3)),
    ("sigmoid", "x*sigmoid(x)", (-4, 4)),
    ("sigmoid", "sigmoid(x)^2", (-4, 4)),
    ("sigmoid", "log(sigmoid(x))", (-4, 4)),
    ("abs", "abs(x)", (0.2, 3)),
    ("abs", "abs(x)", (-3, -0.2)),
    ("abs", "abs(x)^3", (-3, -0.2)),
    ("abs", "x*abs(x)", (-3, -0.2)),
    ("abs", "abs(sin(x))", (0.2, 3)),
    ("abs", "abs(x^2 - 1)", (1.2, 3)),
]

X = sympy.Symbol("x", real=True)  # abs differentiates as sign, as in gradcli


def _sigmoid(u: sympy.Expr) -> sympy.Expr:
    return 1 / (1 + sympy.exp(-u))


# gradcli's names as SymPy functions: for values (sigmoid written out) and
# for counting operations (one call counts one, as SymPy's own log(x, 2) does)
VALUE_NAMES = {
    "x": X, "e": sympy.E, "pi": sympy.pi, "abs": sympy.Abs, "sigmoid": _sigmoid,
    "log2": lambda u: sympy.log(u, 2), "log10": lambda u: sympy.log(u, 10),
    # gradcli's are real where SymPy's principal ones are not (cbrt(-8) = -2)
    "cbrt": lambda u: sympy.real_root(u, 3), "exp2": lambda u: 2**u,
    "expm1": lambda u: sympy.exp(u) - 1, "log1p": lambda u: sympy.log(1 + u),
}
COUNT_NAMES = {
    "x": X, "e": sympy.E, "pi": sympy.pi, "abs": sympy.Abs,
    "sigmoid": sympy.Function("sigmoid"), "log2": sympy.Function("log2"),
    "log10": sympy.Function("log10"), "cbrt": sympy.Function("cbrt"),
    "exp2": sympy.Function("exp2"), "expm1": sympy.Function("expm1"),
    "log1p": sympy.Function("log1p"),
}


def to_sympy(text: str, evaluate: bool = True, names: dict | None = None) -> sympy.Expr:
    return sympy.parse_expr(text.replace("^", "**"), local_dict=dict(names or VALUE_NAMES),
                            evaluate=evaluate)


@functools.cache
def formulas(text: str, order: int = 3) -> tuple[str, ...]:
    """Our printed derivatives of TEXT, orders 1 to ORDER (once for the tests that
    use them)."""
    return tuple(plain(d) for d in derivatives(from_ast(parse(text)[0].node), "x", order))


@functools.cache
def sympy_diff(text: str, order: int) -> sympy.Expr:
    """SymPy's derivative of TEXT (once for the tests that use it)."""
    return sympy.diff(to_sympy(text), X, order)


def points(domain: tuple[float, float], seed: str, n: int = 4) -> list[float]:
    rng = random.Random(seed)
    return [rng.uniform(*domain) for _ in range(n)]


def assert_equal_at_points(ours: str, reference: sympy.Expr, domain: tuple[float, float],
                           seed: str) -> None:
    # sign's derivative is 0 away from 0, where the points are (DiracDelta there)
    reference = reference.replace(lambda e: isinstance(e, sympy.DiracDelta),
                                  lambda e: sympy.S.Zero)
    mine = sympy.lambdify(X, to_sympy(ours), "mpmath")
    theirs = sympy.lambdify(X, reference, "mpmath")
    with mpmath.workdps(30):
        for p in points(domain, seed):
            a, b = mine(mpmath.mpf(p)), theirs(mpmath.mpf(p))
            assert abs(a - b) <= 1e-9 * max(abs(a), abs(b)) + mpmath.mpf(10) ** -25, \
                f"{ours} at x={p}: {a} != {b} ({reference})"


@pytest.mark.parametrize(("category", "text", "domain"), CORPUS,
                         ids=[f"{c}:{t}" for c, t, _ in CORPUS])
def test_corpus_formula_equals_sympy(category: str, text: str, domain: tuple[float, float]) -> None:
    for order, ours in enumerate(formulas(text), start=1):
        assert_equal_at_points(ours, sympy_diff(text, order), domain, f"{text}/{order}")


def flat_steps(e: sympy.Expr) -> sympy.Expr:
    """floor's derivative, which SymPy leaves unevaluated, is 0 between its jumps."""
    for kind in (sympy.Subs, sympy.Derivative):  # Subs(Derivative(floor(u), u), u, x/y)
        e = e.replace(lambda t, kind=kind: isinstance(t, kind)
                      and t.has(sympy.floor, sympy.ceiling), lambda t: sympy.S.Zero)
    return e


ELEMENTWISE = sorted(n for n, b in REGISTRY.items() if b.kind == "elementwise")


@pytest.mark.parametrize("name", ELEMENTWISE)
def test_every_builtin_formula_equals_sympy(name: str) -> None:
    entry = REGISTRY[name]
    reference = sympy.sympify(entry.reference, locals={"x": X})
    for order, ours in enumerate(formulas(f"{name}(x)"), start=1):
        assert_equal_at_points(ours, flat_steps(sympy.diff(reference, X, order)), entry.domain,
                               f"{name}/{order}")
    # and inside a chain, where the rule's argument is not a bare name
    inner = f"{name}(x/2 + 1/4)"
    reference = reference.subs(X, X / 2 + sympy.Rational(1, 4))
    lo, hi = entry.domain
    for order, ours in enumerate(formulas(inner, 2), start=1):
        assert_equal_at_points(ours, flat_steps(sympy.diff(reference, X, order)),
                               (2 * lo - 0.5, 2 * hi - 0.5), f"{inner}/{order}")


def test_corpus_size_and_categories() -> None:
    assert len(CORPUS) >= 100
    assert {c for c, _, _ in CORPUS} == {
        "polynomial", "rational", "product", "quotient", "chain", "powers", "exp/log",
        "trig", "inverse trig", "hyperbolic", "x^x", "sigmoid", "abs"}


def op_ratio(text: str, order: int, ours: str) -> float:
    """count_ops of our printed formula over SymPy's printed diff, both read
    back unevaluated (a count of 0 counts as 1)."""
    theirs = str(sympy_diff(text, order))
    a = sympy.count_ops(to_sympy(ours, False, COUNT_NAMES))
    b = sympy.count_ops(sympy.parse_expr(theirs, local_dict={"x": X}, evaluate=False))
    return max(int(a), 1) / max(int(b), 1)


def test_formulas_are_no_longer_than_sympys_diff() -> None:
    ratios = [op_ratio(text, k, ours) for _, text, _ in CORPUS
              for k, ours in enumerate(formulas(text), start=1)]
    assert statistics.median(ratios) <= 1.0
    assert max(ratios) <= 3.0  # no blow-up anywhere
