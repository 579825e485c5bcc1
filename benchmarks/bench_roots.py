"""The root finder (gradcli.core.roots) on textbook functions and Chebfun's
documented examples: share of roots found, worst error, time per case.

Truth is independent of gradcli: SymPy reads each expression and lambdifies it
(and its derivative) for NumPy and mpmath; sign changes of f on a grid of
200,003 points, and sign changes of f' where |f| is tiny (roots of even
multiplicity), are refined by ``mpmath.findroot`` at 50 digits, and a bracket
where |f| stays large (a pole) is dropped. gradcli's roots come from
``find_roots`` through a Session's evaluator (Taylor mode), as ``gradcli
extrema`` gets them; the time is the whole call, in process, after a warm-up.

    python benchmarks/bench_roots.py            # the table and the summary
    python benchmarks/bench_roots.py --json     # one object per case
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time

import mpmath
import numpy as np
import sympy

from gradcli.core.roots import find_roots
from gradcli.session import Session
from gradcli.session.curves import session_evaluator

PI = float(np.pi)

# (source, expression, a, b)
CASES: list[tuple[str, str, float, float]] = [
    # Chebfun Guide, chapter 3 (Rootfinding and minima and maxima)
    ("chebfun 3.1", "x^3 + x^2 - x", -1, 1),
    ("chebfun 3.1", "sin(pi*x)", 0, 10),
    ("chebfun 3.1", "sin(pi*x)", 0, 100),
    ("chebfun 3.1", "sin(pi*x)", 0, 1000),
    ("chebfun 3.1", "cos(x) - x", -2, 2),
    # the cases of issue 31
    ("issue 31", "(x-1)^2*(x+2)", -3, 3),
    ("issue 31", "x^2", -1, 1),
    ("issue 31", "x^3 - 1e-6*x", -1, 1),
    ("issue 31", "sin(1/x)", 0.05, 1),
    ("issue 31", "tan(x)", 1, 2),
    ("issue 31", "x^3", -1, 1),
    ("issue 31", "x^4", -1, 1),
    ("issue 31", "x^2 - 4", 2, 3),
    ("issue 31", "sin(x)", 0, PI),
    # textbooks: Newton's method, fixed points, transcendental equations
    ("textbook", "x^2 - 2", 0, 3),
    ("textbook", "x^3 - 2*x - 5", 0, 3),
    ("textbook", "exp(x) - 3", 0, 2),
    ("textbook", "log(x) - 1", 1, 5),
    ("textbook", "x*exp(x) - 1", 0, 1),
    ("textbook", "exp(-x) - x", 0, 1),
    ("textbook", "tan(x) - x", 1, 10),
    ("textbook", "x^5 - x - 1", 0, 2),
    ("textbook", "x^4 - 10*x^2 + 9", -4, 4),
    ("textbook", "(x - 0.5)^3", 0, 1),
    ("textbook", "sin(x)/x", 1, 20),
    ("textbook", "cos(x)*cosh(x) + 1", 0, 10),
    ("textbook", "x*sin(x) - 1", 0, 10),
    ("textbook", "exp(x) - 4*x^2", -1, 5),
    ("textbook", "x^3 - 6*x^2 + 11*x - 6", 0, 4),
    ("textbook", "(x-1)*(x-2)*(x-3)*(x-4)*(x-5)", 0, 6),
    ("textbook", "log(x^2 + 1) - 1", -3, 3),
    ("textbook", "sqrt(x) - cos(x)", 0, 2),
    ("textbook", "exp(-x^2) - 0.5", -2, 2),
    ("textbook", "cosh(x) - 2", -3, 3),
    ("textbook", "tanh(x) - 0.5", -2, 2),
    ("textbook", "atan(x) - 1", 0, 3),
    ("textbook", "(x^2 - 2)^2", 0, 3),
    ("textbook", "sin(x)^2", 1, 10),
    ("textbook", "1 - cos(x)", -1, 7),
    ("textbook", "x*exp(-x) - 0.1", 0, 10),
    ("textbook", "sin(exp(x))", 0, 3),
    ("textbook", "exp(x)*sin(5*x)", 0, 3),
    ("textbook", "1/(x - 1) + 1/(x - 2)", 0, 3),
    ("textbook", "x - tanh(2*x)", -2, 2),
    ("textbook", "cos(x^2)", 0, 3),
    ("textbook", "sin(x^2)", 0, 5),
    ("textbook", "(x - 0.1)*(x - 0.1001)*(x + 0.5)", -1, 1),
    ("textbook", "sin(100*x)", 0, 1),
    ("textbook", "sin(10*x) + cos(3*x)", 0, 6),
]

X = sympy.Symbol("x", real=True)
SCAN = 200_003


def truth(text: str, a: float, b: float) -> list[mpmath.mpf]:
    """The roots of ``text`` on [a, b] by SymPy + mpmath (see the module's text)."""
    expr = sympy.sympify(text.replace("^", "**"), locals={"x": X})
    d1 = sympy.diff(expr, X)
    fn, f1n = (sympy.lambdify(X, e, "numpy") for e in (expr, d1))
    fm, f1m = (sympy.lambdify(X, e, "mpmath") for e in (expr, d1))
    grid = np.linspace(a, b, SCAN)
    with np.errstate(all="ignore"):
        v = np.broadcast_to(np.asarray(fn(grid), dtype=float), grid.shape)
        d = np.broadcast_to(np.asarray(f1n(grid), dtype=float), grid.shape)
    scale = float(np.nanmax(np.abs(v[np.isfinite(v)]))) or 1.0
    found: list[mpmath.mpf] = []
    with mpmath.workdps(50):
        def refine(f, lo, hi):
            try:
                r = mpmath.findroot(f, (mpmath.mpf(lo), mpmath.mpf(hi)), solver="anderson")
            except (ValueError, ZeroDivisionError):
                # a pole: bisection ends beside it, and is_root says no
                r = mpmath.findroot(f, (mpmath.mpf(lo), mpmath.mpf(hi)), solver="bisect",
                                    verify=False)
            width = hi - lo  # a root at an end may come out a hair beyond it
            return r if lo - width <= r <= hi + width else (lo + hi) / 2

        def is_root(r) -> bool:
            return abs(fm(r)) < mpmath.mpf(10) ** -30 * scale

        for end in (a, b):  # a root at an end, or an ulp beyond it (float pi)
            near = [mpmath.mpf(end)]
            if abs(fm(near[0])) < 1e-12 * scale:
                r = mpmath.findroot(fm, near[0]) if fm(near[0]) != 0 else near[0]
                if abs(r - end) < 1e-12 * max(1, abs(end)) and is_root(r):
                    found.append(r)
        with np.errstate(invalid="ignore"):
            for i in np.flatnonzero(v[:-1] * v[1:] < 0):
                r = refine(fm, grid[i], grid[i + 1])
                if is_root(r):
                    found.append(r)
            # even multiplicity: f' changes sign where |f| is tiny
            for i in np.flatnonzero(d[:-1] * d[1:] < 0):
                if min(abs(v[i]), abs(v[i + 1])) < 1e-6 * scale:
                    r = refine(f1m, grid[i], grid[i + 1])
                    if is_root(r):
                        found.append(r)
            for i in np.flatnonzero(v == 0):
                found.append(mpmath.mpf(grid[i]))
    found.sort()
    out: list[mpmath.mpf] = []
    for r in found:
        if a - 1e-12 <= r <= b + 1e-12 and (not out or abs(r - out[-1]) > 1e-12 * max(1, abs(r))):
            out.append(r)
    return out


def ulps(x: float, t: mpmath.mpf) -> float:
    if t == 0:
        return 0.0 if x == 0 else float("inf")
    return float(abs(mpmath.mpf(x) - t) / np.spacing(abs(float(t))))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    evaluate = session_evaluator(Session())

    def derivatives(text):
        return lambda xs, n: evaluate(text, "x", xs, n)[0]

    find_roots(derivatives("sin(x)"), 0, 1)  # warm-up: imports, the first parse
    rows = []
    for source, text, a, b in CASES:
        want = truth(text, a, b)
        t0 = time.perf_counter()
        got = find_roots(derivatives(text), a, b)
        seconds = time.perf_counter() - t0
        xs = [r.x for r in got]
        matched, errors, spurious = 0, [], 0
        for t in want:
            near = min(xs, key=lambda x: abs(x - t), default=None)
            tol = 1e-9 * max(1.0, abs(float(t)))
            if near is not None and abs(near - t) <= tol:
                matched += 1
                mult = next(r.multiplicity for r in got if r.x == near)
                if mult == 1:
                    errors.append(ulps(near, t))
        for x in xs:
            if not any(abs(x - t) <= 1e-9 * max(1.0, abs(float(t))) for t in want):
                spurious += 1
        rows.append({"source": source, "expr": text, "a": a, "b": b, "roots": len(want),
                     "found": matched, "spurious": spurious,
                     "worst_ulps": max(errors, default=0.0), "ms": seconds * 1e3})
    if args.json:
        for row in rows:
            print(json.dumps(row))
        return 0
    print(f"{'case':<44} {'roots':>5} {'found':>5} {'extra':>5} {'ulps':>5} {'ms':>7}")
    for r in rows:
        name = f"{r['expr']} on [{r['a']:g}, {r['b']:g}]"
        print(f"{name:<44} {r['roots']:>5} {r['found']:>5} {r['spurious']:>5} "
              f"{r['worst_ulps']:>5.1f} {r['ms']:>7.1f}")
    total = sum(r["roots"] for r in rows)
    found = sum(r["found"] for r in rows)
    print(f"\n{len(rows)} cases, {total} roots: {found} found ({100 * found / total:.1f}%), "
          f"{sum(r['spurious'] for r in rows)} spurious; worst error on simple roots "
          f"{max(r['worst_ulps'] for r in rows):.1f} ulps; median "
          f"{statistics.median(r['ms'] for r in rows):.1f} ms a case, "
          f"slowest {max(r['ms'] for r in rows):.0f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
