#!/usr/bin/env python
"""All derivatives up to order N: gradcli's Taylor mode against its own backprop and peers.

For each of five formulas at x = 0.7 this times, in one run, the computation of
every derivative of orders 0..N (N = 10 and N = 100) by

* gradcli Taylor mode: build the graph with ``gradcli.core.functions`` calls,
  then ``taylor_derivatives(y, x, N)`` (graph building is inside the timing);
* gradcli backprop: the same graph, then ``higher_derivatives`` (repeated
  backprop with ``create_graph``, DeZero's way);
* DeZero 0.0.13: ``backward(create_graph=True)`` repeated on ``x.grad``;
* PyTorch: nested ``torch.autograd.grad(..., create_graph=True)``, float64,
  one thread;
* JAX: ``jax.experimental.jet.jet`` with the input series (1, 0, ..., 0),
  eagerly (no ``jit``), float64; the warm time is reported, the first call
  (which traces and compiles every rule for that order) separately;
* mpmath: ``mpmath.diffs`` (numerical differentiation, default 15 digits;
  mpmath raises its working precision itself).

Repeated backprop costs grow exponentially with the order, so those methods are
run at increasing orders until one run takes longer than ``--budget`` seconds;
the table then shows the highest order reached (``N*``), and its ratio to
Taylor mode, which computed every order up to N, is a lower bound (``>``).
JAX's jet is run up to ``--jax-max`` (its first call at order 40 already takes
about 40 s and at order 100 it exhausted 15 GB).

Times are the best of several runs (each run timed with ``time.perf_counter``,
garbage collector off), after a warm-up run; ``x taylor`` is the method's time
divided by Taylor mode's. Every method's highest-order derivative is checked
against Taylor mode's; disagreements above 1e-6 (relative) are listed.

Then the accuracy of Taylor mode: orders 0..10 against SymPy's exact
derivatives (evaluated at 40 digits) on the five formulas and on every
elementwise function of the registry (three points inside its domain), and
orders 0..``--accuracy-order`` against ``mpmath.diffs`` at 50 digits on the
five, as the largest relative error per range of orders.

Last, arrays: orders 0..3 over a million points, against one NumPy evaluation
of the same formula.

Peers that are not installed are skipped. The script benchmarks the checkout it
lives in (``../src`` goes first on ``sys.path``).

Usage:
    python benchmarks/bench_taylor.py [--quick] [--budget 1.0] [--json PATH]
                                      [--accuracy-order 30] [--jax-max 20]
"""

from __future__ import annotations

import argparse
import gc
import json
import math
import os
import platform
import statistics
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

REPO_SRC = Path(__file__).resolve().parents[1] / "src"
sys.path.insert(0, str(REPO_SRC))

import gradcli.core.functions as F  # noqa: E402
from gradcli.core import Variable, higher_derivatives  # noqa: E402
from gradcli.core import taylor as T  # noqa: E402
from gradcli.core.taylor import taylor_derivatives  # noqa: E402

FORMULAS = [
    "x**4 - 2*x**2",
    "sin(x)*exp(x)",
    "tanh(x)",
    "1/(1+exp(-x))",
    "exp(sin(x))*log(1+x**2)",
]
X0 = 0.7
ORDERS = (10, 100)
CODES = {text: compile(text, text, "eval") for text in FORMULAS}
GRADCLI_NS = {"exp": F.exp, "sin": F.sin, "log": F.log, "tanh": F.tanh}

# --------------------------------------------------------------------------------
# methods: each is run(text, order) -> list of floats (orders 0..order)
# --------------------------------------------------------------------------------


def gradcli_taylor(text: str, order: int) -> list[float]:
    x = Variable(np.array(X0))
    y = eval(CODES[text], GRADCLI_NS, {"x": x})
    return taylor_derivatives(y, x, order)


def gradcli_backprop(text: str, order: int) -> list[float]:
    x = Variable(np.array(X0))
    y = eval(CODES[text], GRADCLI_NS, {"x": x})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return [y.data] + [d.data for d in higher_derivatives(y, x, order)]


def load_dezero() -> Callable[[str, int], list[float]] | None:
    try:
        np.int = int  # type: ignore[attr-defined]  # DeZero 0.0.13 uses it; NumPy 2 lacks it
        try:
            import dezero
            import dezero.functions as DF
        finally:
            del np.int  # type: ignore[attr-defined]
    except Exception:
        return None
    ns = {"exp": DF.exp, "sin": DF.sin, "log": DF.log, "tanh": DF.tanh}

    def run(text: str, order: int) -> list[float]:
        x = dezero.Variable(np.array(X0))
        y = eval(CODES[text], ns, {"x": x})
        out = [float(y.data)]
        if order == 0:
            return out
        y.backward(create_graph=order > 1)
        for k in range(1, order):
            gx = x.grad
            x.cleargrad()
            out.append(float(gx.data))
            gx.backward(create_graph=k + 1 < order)
        out.append(float(x.grad.data))
        return out

    run.version = getattr(dezero, "__version__", "?")  # type: ignore[attr-defined]
    return run


def load_torch() -> Callable[[str, int], list[float]] | None:
    try:
        import torch
    except Exception:
        return None
    torch.set_num_threads(1)
    ns = {"exp": torch.exp, "sin": torch.sin, "log": torch.log, "tanh": torch.tanh}

    def run(text: str, order: int) -> list[float]:
        x = torch.tensor(X0, dtype=torch.float64, requires_grad=True)
        y = eval(CODES[text], ns, {"x": x})
        out = [float(y.detach())]
        g = y
        for k in range(order):
            if not g.requires_grad:  # constant in x: the rest vanish
                out += [0.0] * (order - k)
                break
            (g,) = torch.autograd.grad(g, x, create_graph=k + 1 < order)
            out.append(float(g.detach()))
        return out

    run.version = torch.__version__  # type: ignore[attr-defined]
    return run


def load_jax() -> Callable[[str, int], list[float]] | None:
    try:
        os.environ.setdefault("JAX_PLATFORMS", "cpu")
        import jax
        import jax.numpy as jnp
        from jax.experimental.jet import jet
    except Exception:
        return None
    jax.config.update("jax_enable_x64", True)
    ns = {"exp": jnp.exp, "sin": jnp.sin, "log": jnp.log, "tanh": jnp.tanh}
    funcs = {text: eval(f"lambda x: {text}", ns) for text in FORMULAS}

    def run(text: str, order: int) -> list[float]:
        series = ((1.0,) + (0.0,) * (order - 1),)
        y0, ys = jet(funcs[text], (X0,), series)
        return [float(y0)] + [float(v) for v in ys]

    run.version = jax.__version__  # type: ignore[attr-defined]
    return run


def load_mpmath() -> Callable[[str, int], list[float]] | None:
    try:
        import mpmath
    except Exception:
        return None
    ns = {"exp": mpmath.exp, "sin": mpmath.sin, "log": mpmath.log, "tanh": mpmath.tanh}
    funcs = {text: eval(f"lambda x: {text}", ns) for text in FORMULAS}

    def run(text: str, order: int) -> list[float]:
        with mpmath.workdps(15):
            return [float(v) for v in mpmath.diffs(funcs[text], mpmath.mpf(X0), order)]

    run.version = mpmath.__version__  # type: ignore[attr-defined]
    return run


# --------------------------------------------------------------------------------
# timing
# --------------------------------------------------------------------------------


def best_time(fn: Callable[[], Any], budget: float, max_repeats: int = 200) -> tuple[float, float]:
    """(best, median) seconds of fn() after a warm-up run, as many runs as fit in
    ``budget`` (at least 3 unless one run alone exceeds it); the garbage
    collector runs once before and is off during the runs, as in ``timeit``."""
    t0 = time.perf_counter()
    fn()
    first = time.perf_counter() - t0
    times: list[float] = []
    gc.collect()
    gc.disable()
    try:
        start = time.perf_counter()
        while True:
            t0 = time.perf_counter()
            fn()
            times.append(time.perf_counter() - t0)
            spent = time.perf_counter() - start
            if len(times) >= max_repeats or (len(times) >= 3 and spent > budget):
                break
            if first > budget:
                break
    finally:
        gc.enable()
    return min(times), statistics.median(times)


def highest_order(run: Callable[[str, int], list[float]], text: str, target: int,
                  budget: float, start: int = 1) -> int:
    """The highest order <= target whose single run takes at most ``budget`` seconds."""
    reached = start
    for k in range(start, target + 1):
        t0 = time.perf_counter()
        run(text, k)
        if time.perf_counter() - t0 > budget and k > start:
            break
        reached = k
        if time.perf_counter() - t0 > budget:
            break
    return reached


def fmt_time(t: float | None) -> str:
    if t is None:
        return "-"
    if t < 1e-3:
        return f"{t * 1e6:.0f} us"
    if t < 1:
        return f"{t * 1e3:.2f} ms"
    return f"{t:.2f} s"


def rel(a: float, b: float) -> float:
    if a == b:
        return 0.0
    return abs(a - b) / max(abs(b), 1e-300)


# --------------------------------------------------------------------------------
# the speed table
# --------------------------------------------------------------------------------


def speed(args: argparse.Namespace, report: dict[str, Any], notes: list[str]) -> list[str]:
    problems: list[str] = []
    peers: dict[str, Any] = {
        "gradcli backprop": gradcli_backprop,
        "DeZero": load_dezero(),
        "PyTorch": load_torch(),
        "JAX jet": load_jax(),
        "mpmath diffs": load_mpmath(),
    }
    versions = {name: getattr(run, "version", None) for name, run in peers.items() if run}
    report["versions"] = versions
    rows = []
    jet_first: dict[tuple[str, int], float] = {}
    print("## Speed: all derivatives of orders 0..N at x = 0.7\n")
    print("| formula | N | method | time | N* | x taylor | median |")
    print("|---|---:|---|---:|---:|---:|---:|")
    for text in FORMULAS:
        reach: dict[str, int] = {}
        for N in ORDERS:
            ref = [float(v) for v in gradcli_taylor(text, N)]
            best, med = best_time(lambda text=text, N=N: gradcli_taylor(text, N),
                                  args.repeat_budget)
            base = best
            row = {"formula": text, "N": N, "method": "gradcli taylor", "order": N,
                   "best_s": best, "median_s": med}
            rows.append(row)
            print(f"| `{text}` | {N} | **gradcli taylor** | **{fmt_time(best)}** | {N} | 1 "
                  f"| {fmt_time(med)} |")
            for name, run in peers.items():
                if run is None:
                    print(f"| | {N} | {name} | not installed | | | |")
                    continue
                note = ""
                first = None
                if name == "JAX jet":
                    target = min(N, args.jax_max)
                    if target < N:
                        note = f" (run to order {args.jax_max} only)"
                    if (text, target) not in jet_first:
                        t0 = time.perf_counter()
                        with warnings.catch_warnings():
                            warnings.simplefilter("ignore")
                            run(text, target)
                        first = jet_first[text, target] = time.perf_counter() - t0
                elif name == "mpmath diffs":
                    target = N
                else:
                    if name not in reach:
                        reach[name] = highest_order(run, text, max(ORDERS), args.budget)
                    target = min(N, reach[name])
                try:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        values = run(text, target)
                        best, med = best_time(lambda run=run, t=target, s=text: run(s, t),
                                              args.repeat_budget)
                except Exception as exc:  # a peer failing is reported, not fatal
                    problems.append(f"{name} on {text} order {target}: {exc!r}")
                    print(f"| | {N} | {name} | failed | | | |")
                    continue
                err = rel(float(values[target]), ref[target])
                if err > 1e-6:
                    msg = (f"{name} on {text}: order {target} is {values[target]!r}, "
                           f"Taylor mode says {ref[target]!r} (rel. diff {err:.1e})")
                    (problems if target <= 30 else notes).append(msg)
                ratio = best / base
                lower = ">" if target < N else ""
                extra = f"; first call {fmt_time(first)}" if first is not None else ""
                print(f"| | {N} | {name}{note} | {fmt_time(best)} | {target} | {lower}{ratio:,.0f} "
                      f"| {fmt_time(med)}{extra} |")
                rows.append({"formula": text, "N": N, "method": name, "order": target,
                             "best_s": best, "median_s": med, "first_call_s": first,
                             "ratio_to_taylor": ratio, "rel_diff_vs_taylor": err})
    report["speed"] = rows
    print()
    goal10 = max(r["best_s"] for r in rows if r["method"] == "gradcli taylor" and r["N"] == 10)
    goal100 = max(r["best_s"] for r in rows if r["method"] == "gradcli taylor" and r["N"] == 100)
    print(f"Slowest Taylor-mode time: order 10 {fmt_time(goal10)} (goal <= 0.5 ms), "
          f"order 100 {fmt_time(goal100)} (goal <= 20 ms)\n")
    return problems


# --------------------------------------------------------------------------------
# accuracy
# --------------------------------------------------------------------------------


def sympy_derivatives(text: str, a: float, order: int) -> list[float]:
    import mpmath
    import sympy

    x = sympy.Symbol("x", real=True)
    exprs = [sympy.sympify(text, locals={"x": x})]
    for _ in range(order):
        exprs.append(sympy.diff(exprs[-1], x))
    exprs = [e.replace(sympy.DiracDelta, lambda *args: 0) for e in exprs]
    fn = sympy.lambdify(x, exprs, "mpmath")
    with mpmath.workdps(40):
        return [float(v) for v in fn(mpmath.mpf(a))]


def accuracy(args: argparse.Namespace, report: dict[str, Any]) -> list[str]:
    try:
        import mpmath
        import sympy  # noqa: F401
    except ImportError:
        print("## Accuracy: skipped (needs sympy and mpmath)\n")
        return []
    from gradcli.core.registry import REGISTRY

    problems = []
    acc: dict[str, Any] = {}
    print("## Accuracy of Taylor mode\n")
    print("Largest relative error, orders 0..10, against SymPy's exact derivatives "
          "(evaluated at 40 digits):\n")
    print("| function | points | max rel. error |")
    print("|---|---|---:|")
    worst_all = 0.0
    for text in FORMULAS:
        want = sympy_derivatives(text, X0, 10)
        got = [float(v) for v in gradcli_taylor(text, 10)]
        err = max(rel(g, w) for g, w in zip(got, want))
        worst_all = max(worst_all, err)
        acc[text] = {"sympy_order10": err}
        print(f"| `{text}` | 0.7 | {err:.1e} |")
    for name, entry in sorted(REGISTRY.items()):
        if entry.kind != "elementwise":
            continue
        lo, hi = entry.domain
        pts = [lo + f * (hi - lo) for f in (0.2, 0.5, 0.8)]
        err = 0.0
        for a in pts:
            want = sympy_derivatives(entry.reference, a, 10)
            x = Variable(np.array(a))
            got = [float(v) for v in taylor_derivatives(entry.call(x), x, 10)]
            scale = max(abs(w) for w in want)
            err = max(err, max(abs(g - w) / max(abs(w), 1e-12 * scale)
                               for g, w in zip(got, want)))
        worst_all = max(worst_all, err)
        acc[name] = {"sympy_order10": err}
        print(f"| {name} | {', '.join(f'{p:g}' for p in pts)} | {err:.1e} |")
    if worst_all > 1e-9:
        problems.append(f"accuracy: worst relative error to order 10 is {worst_all:.1e} > 1e-9")
    print(f"\nWorst: {worst_all:.1e} (goal <= 1e-9)\n")

    top = args.accuracy_order
    edges = [e for e in (0, 5, 10, 20, 30, 50, 70, 100, 150) if e < top] + [top]
    ranges = [(0 if i == 0 else edges[i - 1] + 1, edges[i]) for i in range(len(edges)) if i]
    ns = {"exp": mpmath.exp, "sin": mpmath.sin, "log": mpmath.log, "tanh": mpmath.tanh}
    print("Largest relative error against `mpmath.diffs` at 50 digits, by range of orders "
          "(error growth with order):\n")
    print("| formula | " + " | ".join(f"{a}-{b}" for a, b in ranges) + " |")
    print("|---|" + "---:|" * len(ranges))
    worst30 = 0.0
    for text in FORMULAS:
        f = eval(f"lambda x: {text}", ns)
        with mpmath.workdps(50):
            want = [float(v) for v in mpmath.diffs(f, mpmath.mpf(X0), top)]
        got = [float(v) for v in gradcli_taylor(text, top)]
        errs = [rel(g, w) if w != 0 else abs(g) for g, w in zip(got, want)]
        by_range = [max(errs[a : b + 1]) for a, b in ranges]
        worst30 = max(worst30, max(errs[:31]))
        acc[text]["mpmath_by_order"] = errs
        print(f"| `{text}` | " + " | ".join(f"{e:.0e}" for e in by_range) + " |")
    if worst30 > 1e-6:
        problems.append(f"accuracy: worst relative error to order 30 is {worst30:.1e} > 1e-6")
    print(f"\nWorst to order 30: {worst30:.1e} (goal <= 1e-6)\n")
    report["accuracy"] = acc
    return problems


# --------------------------------------------------------------------------------
# arrays
# --------------------------------------------------------------------------------


def interleaved(fns: list[Callable[[], Any]], rounds: int) -> list[float]:
    """The best time of each of fns, run in turn, ``rounds`` times (after a warm-up
    round, garbage collector off): a slow spell of a shared machine then slows
    every method's round alike, not one method's whole series."""
    for fn in fns:
        fn()
    best = [math.inf] * len(fns)
    gc.collect()
    gc.disable()
    try:
        for _ in range(rounds):
            for i, fn in enumerate(fns):
                t0 = time.perf_counter()
                fn()
                best[i] = min(best[i], time.perf_counter() - t0)
    finally:
        gc.enable()
    return best


def sympy_blocks(text: str, xs: Any, threads: int) -> Callable[[], Any] | None:
    """A function computing derivatives 0..3 of ``text`` at every element of ``xs``
    the symbolic way (SymPy, lambdified to NumPy with shared subexpressions), on
    gradcli's blocks in ``threads`` threads; None without SymPy."""
    try:
        import sympy
    except ImportError:
        return None
    x = sympy.Symbol("x", real=True)
    exprs = [sympy.sympify(text, locals={"x": x})]
    for _ in range(3):
        exprs.append(sympy.diff(exprs[-1], x))
    fn = sympy.lambdify(x, [sympy.simplify(e) for e in exprs], "numpy", cse=True)
    size = xs.size
    starts = range(0, size, T.blocks.CHUNK)

    def run() -> Any:
        out = T.rows.aligned_empty((4, size), np.float64)

        def work(mine: range) -> None:
            for lo in mine:
                hi = min(lo + T.blocks.CHUNK, size)
                for k, row in enumerate(fn(xs[lo:hi])):
                    out[k, lo:hi] = row

        T.blocks._run_threads(work, [starts[i::threads] for i in range(threads)])
        return out

    return run


# Orders 0..3 worked out by hand for each formula, as derivatives (not series),
# in as few whole-row NumPy operations as I found: what gradcli's general rules
# are measured against. Each writes rows value, d1, d2, d3 of ``o`` from ``x``,
# with scratch rows ``b``.


def _hand_poly(x: Any, o: Any, b: list[Any]) -> None:
    x2, t = b
    np.multiply(x, x, out=x2)
    np.subtract(x2, 2.0, out=t)
    np.multiply(x2, t, out=o[0])  # x^2 (x^2 - 2)
    np.subtract(x2, 1.0, out=t)
    np.multiply(t, x, out=t)
    np.multiply(t, 4.0, out=o[1])  # 4 x (x^2 - 1)
    np.multiply(x2, 12.0, out=o[2])
    np.subtract(o[2], 4.0, out=o[2])  # 12 x^2 - 4
    np.multiply(x, 24.0, out=o[3])


def _hand_sin_exp(x: Any, o: Any, b: list[Any]) -> None:
    s, c, e, t = b
    np.sin(x, out=s)
    np.cos(x, out=c)
    np.exp(x, out=e)
    np.multiply(s, e, out=o[0])
    np.add(s, c, out=t)
    np.multiply(e, t, out=o[1])  # e (s + c)
    np.multiply(e, c, out=o[2])
    np.multiply(o[2], 2.0, out=o[2])  # 2 e c
    np.subtract(c, s, out=t)
    np.multiply(t, e, out=t)
    np.multiply(t, 2.0, out=o[3])  # 2 e (c - s)


def _hand_tanh(x: Any, o: Any, b: list[Any]) -> None:
    y2, t = b
    y = np.tanh(x, out=o[0])
    np.multiply(y, y, out=y2)
    p = np.subtract(1.0, y2, out=o[1])  # 1 - y^2
    np.multiply(y, -2.0, out=t)
    np.multiply(t, p, out=o[2])  # -2 y p
    np.multiply(y2, 6.0, out=y2)
    np.subtract(y2, 2.0, out=y2)
    np.multiply(p, y2, out=o[3])  # p (6 y^2 - 2)


def _hand_sigmoid(x: Any, o: Any, b: list[Any]) -> None:
    (t,) = b
    s = o[0]
    np.negative(x, out=t)
    np.exp(t, out=t)
    np.add(t, 1.0, out=t)
    np.divide(1.0, t, out=s)
    np.subtract(1.0, s, out=t)
    d1 = np.multiply(s, t, out=o[1])  # s (1 - s)
    np.multiply(s, -2.0, out=t)
    np.add(t, 1.0, out=t)
    np.multiply(d1, t, out=o[2])  # d1 (1 - 2 s)
    np.multiply(d1, -6.0, out=t)
    np.add(t, 1.0, out=t)
    np.multiply(d1, t, out=o[3])  # d1 (1 - 6 d1)


def _hand_exp_sin_log(x: Any, o: Any, b: list[Any]) -> None:
    s, c, E, v, L, E1, E2, E3, t, u, L1, L2, L3, r = b
    D0, D1, D2, D3 = o
    np.sin(x, out=s)
    np.cos(x, out=c)
    np.exp(s, out=E)
    np.multiply(x, x, out=v)
    np.add(v, 1.0, out=v)
    np.log(v, out=L)
    np.multiply(E, L, out=D0)
    # E = exp(sin x): E1 = E c, E2 = E (c^2 - s), E3 = c E2 - E1 (2 s + 1)
    np.multiply(E, c, out=E1)
    np.multiply(c, c, out=t)
    np.subtract(t, s, out=t)
    np.multiply(E, t, out=E2)
    np.add(s, s, out=t)
    np.add(t, 1.0, out=t)
    np.multiply(E1, t, out=t)
    np.multiply(c, E2, out=E3)
    np.subtract(E3, t, out=E3)
    # L = log(1 + x^2), r = 1/v: L1 = 2 x r, L2 = 2 r - L1^2, L3 = -2 L1 (r + L2)
    np.divide(1.0, v, out=r)
    np.add(x, x, out=L1)
    np.multiply(L1, r, out=L1)
    np.add(r, r, out=L2)
    np.multiply(L1, L1, out=t)
    np.subtract(L2, t, out=L2)
    np.add(r, L2, out=L3)
    np.multiply(L3, L1, out=L3)
    np.multiply(L3, -2.0, out=L3)
    # Leibniz
    np.multiply(E1, L, out=D1)
    np.multiply(E, L1, out=t)
    np.add(D1, t, out=D1)
    np.multiply(E2, L, out=D2)
    np.multiply(E1, L1, out=t)
    np.multiply(t, 2.0, out=t)
    np.add(D2, t, out=D2)
    np.multiply(E, L2, out=t)
    np.add(D2, t, out=D2)
    np.multiply(E2, L1, out=t)
    np.multiply(E1, L2, out=u)
    np.add(t, u, out=t)
    np.multiply(t, 3.0, out=t)
    np.multiply(E3, L, out=D3)
    np.add(D3, t, out=D3)
    np.multiply(E, L3, out=t)
    np.add(D3, t, out=D3)


HAND = {
    "x**4 - 2*x**2": (_hand_poly, 2),
    "sin(x)*exp(x)": (_hand_sin_exp, 4),
    "tanh(x)": (_hand_tanh, 2),
    "1/(1+exp(-x))": (_hand_sigmoid, 1),
    "exp(sin(x))*log(1+x**2)": (_hand_exp_sin_log, 14),
}


def hand_blocks(text: str, xs: Any, threads: int) -> Callable[[], Any]:
    """A function computing orders 0..3 of ``text`` at every element of ``xs`` by
    its hand-written program (HAND), on gradcli's blocks in ``threads`` threads."""
    kernel, scratch = HAND[text]
    size = xs.size
    starts = range(0, size, T.blocks.CHUNK)

    def run() -> Any:
        out = T.rows.aligned_empty((4, size), np.float64)

        def work(mine: range) -> None:
            rows = [T.rows.aligned_empty(T.blocks.CHUNK, np.float64) for _ in range(scratch)]
            for lo in mine:
                hi = min(lo + T.blocks.CHUNK, size)
                kernel(xs[lo:hi], out[:, lo:hi], [r[: hi - lo] for r in rows])

        T.blocks._run_threads(work, [starts[i::threads] for i in range(threads)])
        return out

    return run


def arrays(args: argparse.Namespace, report: dict[str, Any]) -> list[str]:
    size = args.points
    xs = np.linspace(-2.0, 2.0, size)
    np_ns = {"exp": np.exp, "sin": np.sin, "log": np.log, "tanh": np.tanh}
    threads = T.blocks.THREADS
    rounds = 5 if args.quick else 15
    print(f"## Arrays: orders 0..3 over {size:,} points\n")
    print("`numpy` is one evaluation of the formula with NumPy (the faster of its time "
          "in the rounds below and its time run after run, when NumPy reuses its freed "
          "buffers). `blocks` is what `gradcli eval --order 3` does for a large array: "
          "record the graph on the first block of x (`taylor.sample`), then "
          "`taylor_derivatives_at` over all of x, values and derivatives block by block, "
          f"with {threads} thread(s) (`gradcli.core.taylor.blocks.THREADS`); `1 thread` the same "
          "with one. `graph + taylor` is the whole-array way: the graph on all of x "
          "(order 0), then `taylor_derivatives(y, x, 3)` (orders 1..3, also block by "
          f"block). Each is the best of {rounds} rounds in which NumPy and the block "
          "methods run once each, in turn, so that a slow spell of the machine slows "
          "all alike and each reuses the memory it freed, as NumPy does; the whole-array "
          "way runs in rounds of its own with NumPy (its large temporaries make the "
          "allocator give memory back, so what runs next pays page faults).\n")
    print("`sympy` is the symbolic way a user might take instead: SymPy's derivatives "
          "0..3 (simplified), lambdified to NumPy with common subexpressions shared, run "
          "on the same blocks in as many threads. `store` is what writing the four result "
          "rows alone costs (a fresh (4, N) array filled): the result is four times the "
          "size of NumPy's, so this much of the 3x is spent before any arithmetic. "
          "`sympy`, `hand` and `store` write into rows allocated as gradcli's are "
          "(`taylor.rows.aligned_empty`: starting on a 64-byte line).\n")
    print("`hand` is each formula's orders 0..3 worked out by hand (HAND in this "
          "script), as few NumPy operations as could be found, on the same blocks and "
          "threads: what a kernel written for that one formula costs, against "
          "gradcli's general rules.\n")
    print("| formula | numpy | blocks | blocks / numpy | 1 thread / numpy "
          "| graph + taylor / numpy | sympy / numpy | hand / numpy | store / numpy |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")

    def blocks(code: Any) -> Any:
        x = Variable(T.sample(xs))
        return T.taylor_derivatives_at(eval(code, GRADCLI_NS, {"x": x}), x, xs, 3)

    def one_thread(code: Any) -> None:
        T.blocks.THREADS = 1
        try:
            blocks(code)
        finally:
            T.blocks.THREADS = threads

    def whole(code: Any) -> Any:
        x = Variable(xs)
        return taylor_derivatives(eval(code, GRADCLI_NS, {"x": x}), x, 3)

    def store() -> Any:
        out = T.rows.aligned_empty((4, size), np.float64)
        out.fill(1.0)
        return out

    rows = []
    problems = []
    with np.errstate(all="ignore"):
        for text in FORMULAS:
            code = CODES[text]
            got, want = blocks(code), whole(code)
            if got is None or not all(np.array_equal(a, b, equal_nan=True)
                                      for a, b in zip(got, want)):
                problems.append(f"arrays: `{text}` block by block differs from whole arrays")
            symbolic = sympy_blocks(text, xs, threads)
            if symbolic is not None and not np.allclose(symbolic(), np.stack(got),
                                                        rtol=1e-9, atol=1e-12):
                problems.append(f"arrays: `{text}` SymPy's derivatives differ from blocks")
            hand = hand_blocks(text, xs, threads)
            if not np.allclose(hand(), np.stack(got), rtol=1e-12, atol=1e-12):
                problems.append(f"arrays: `{text}` the hand-written program differs from blocks")
            t_np, t_blocks, t_one, t_store, t_sympy, t_hand = interleaved([
                lambda c=code: eval(c, np_ns, {"x": xs}),
                lambda c=code: blocks(c),
                lambda c=code: one_thread(c),
                store,
                symbolic or store,
                hand,
            ], rounds)
            if symbolic is None:
                t_sympy = math.nan
            # apart: the whole-array way's large temporaries make the allocator hand
            # memory back to the system, and whatever runs next pays page faults
            t_np2, t_whole = interleaved([
                lambda c=code: eval(c, np_ns, {"x": xs}),
                lambda c=code: whole(c),
            ], rounds)
            # NumPy alone, run after run, reuses its freed buffers (no page faults):
            # its best time, the lowest of the three, is the baseline
            t_np = min(t_np, t_np2, best_time(lambda c=code: eval(c, np_ns, {"x": xs}),
                                              args.repeat_budget, 15)[0])
            rows.append({"formula": text, "numpy_s": t_np, "blocks_s": t_blocks,
                         "blocks_1_thread_s": t_one, "graph_taylor_s": t_whole,
                         "sympy_s": t_sympy, "hand_s": t_hand, "store_s": t_store,
                         "threads": threads})
            print(f"| `{text}` | {fmt_time(t_np)} | {fmt_time(t_blocks)} "
                  f"| {t_blocks / t_np:.2f} | {t_one / t_np:.2f} | {t_whole / t_np:.2f} "
                  f"| {t_sympy / t_np:.2f} | {t_hand / t_np:.2f} | {t_store / t_np:.2f} |")
    report["arrays"] = rows
    print()
    for p in problems:
        print(p)
    return problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--budget", type=float, default=1.0,
                        help="seconds one run of a backprop method may take (default 1)")
    parser.add_argument("--repeat-budget", type=float, default=0.5,
                        help="seconds spent repeating a timing (default 0.5)")
    parser.add_argument("--jax-max", type=int, default=20,
                        help="highest order given to JAX's jet (default 20)")
    parser.add_argument("--accuracy-order", type=int, default=30,
                        help="highest order checked against mpmath (default 30)")
    parser.add_argument("--points", type=int, default=1_000_000)
    parser.add_argument("--quick", action="store_true", help="smaller budgets, no peers' order 10")
    parser.add_argument("--only", nargs="*", choices=["speed", "accuracy", "arrays"],
                        default=["speed", "accuracy", "arrays"])
    parser.add_argument("--json", help="also write the numbers to this file")
    args = parser.parse_args()
    if args.quick:
        args.budget, args.repeat_budget, args.jax_max = 0.2, 0.1, 10

    report: dict[str, Any] = {
        "machine": {"python": platform.python_version(), "numpy": np.__version__,
                    "platform": platform.platform(), "processor": platform.processor(),
                    "cpus": os.cpu_count()},
    }
    print(f"# gradcli Taylor mode benchmark\n\nPython {platform.python_version()}, "
          f"NumPy {np.__version__}, {platform.platform()}, {os.cpu_count()} CPUs\n")
    problems: list[str] = []
    notes: list[str] = []
    if "speed" in args.only:
        problems += speed(args, report, notes)
        print("Versions: " + ", ".join(f"{k} {v}" for k, v in report["versions"].items()
                                       if v) + "\n")
    if "accuracy" in args.only:
        problems += accuracy(args, report)
    if "arrays" in args.only:
        problems += arrays(args, report)
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1, default=float), encoding="utf-8")
    if notes:
        print("## Notes\n")
        print("Disagreements above order 30, where Taylor mode's float64 products lose "
              "digits to cancellation (see the accuracy table):\n")
        for n in notes:
            print(f"- {n}")
        print()
    if problems:
        print("## PROBLEMS\n")
        for p in problems:
            print(f"- {p}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
