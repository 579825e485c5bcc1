#!/usr/bin/env python
"""Repeated backprop to order N: time, nodes per order, and how fast a request past
the budget is refused (issue 30 section 5).

For each formula, at x = 0.7, ``higher_derivatives`` (gradcli's repeated-derivative
builder, which folds constants and shares equal nodes) runs to ``--order`` with the
calculator's node budget; its result is compared with Taylor mode's to 1e-9
relative. Then each formula is asked for ``--past`` (an order past the budget) and
the time to its refusal is timed. Times are medians of ``--repeats`` runs, of
wall-clock time and of the process's CPU time (which other processes competing
for the CPUs inflate much less).

``--sizes`` prints the nodes in the graph of each order's derivative (as
``graph_size`` counts them), with ``--unshared`` also those DeZero's
``backward(create_graph=True)`` builds, unshared (slow past order 8).

Exit status 1 if a result differs from Taylor mode's or a goal is missed (order
``--order`` in at most 1 s of CPU time, a refusal in at most 1 s).

Usage:
    python benchmarks/bench_backprop.py [--order 10] [--past 40] [--repeats 5]
                                        [--sizes] [--unshared]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

import gradcli.core.functions as F
from gradcli.core import Variable
from gradcli.core.derivatives import BACKPROP_MAX_NODES, graph_size, higher_derivatives
from gradcli.core.taylor import taylor_derivatives
from gradcli.errors import LimitError

FORMULAS: dict[str, Callable[[Any], Any]] = {
    "1/x": lambda x: 1 / x,
    "sqrt(x)": F.sqrt,
    "x**x": lambda x: x ** x,
    "1/sqrt(x)": lambda x: 1 / F.sqrt(x),
    "sin(pi*x)/(pi*x)": lambda x: F.sin(np.pi * x) / (np.pi * x),
    "exp(sin(x))*log(1+x**2)": lambda x: F.exp(F.sin(x)) * F.log(1 + x ** 2),
    "sin(x)": F.sin,
}
AT = 0.7


def timed(fn: Callable[[], Any]) -> tuple[float, float, Any]:
    w, c = time.perf_counter(), time.process_time()
    try:
        out = fn()
    except LimitError as err:
        out = err
    return time.perf_counter() - w, time.process_time() - c, out


def run(build: Callable[[Any], Any], order: int) -> Any:
    x = Variable(np.array(AT))
    return higher_derivatives(build(x), x, order, max_nodes=BACKPROP_MAX_NODES)


def sizes(build: Callable[[Any], Any], order: int) -> list[int]:
    x = Variable(np.array(AT))
    y = build(x)
    ds = higher_derivatives(y, x, order + 1, max_nodes=10**8)
    return [graph_size(y, 10**8)] + [graph_size(d, 10**8) for d in ds[:-1]]


def unshared_sizes(build: Callable[[Any], Any], order: int) -> list[int]:
    """DeZero's graphs: backward(create_graph=True), once per order."""
    x = Variable(np.array(AT))
    y = build(x)
    out = [graph_size(y, 10**8)]
    for _ in range(order):
        x.cleargrad()
        y.backward(create_graph=True)
        y = x.grad
        out.append(graph_size(y, 10**8))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--order", type=int, default=10)
    ap.add_argument("--past", type=int, default=40)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--sizes", action="store_true")
    ap.add_argument("--unshared", action="store_true")
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    failed = False
    print(f"{'formula':26} {'order ' + str(args.order):>17} {'order ' + str(args.past):>24}")
    print(f"{'':26} {'wall s':>8} {'cpu s':>8} {'wall s':>8} {'cpu s':>8}  outcome")
    for name, build in FORMULAS.items():
        runs = [timed(lambda b=build: run(b, args.order)) for _ in range(args.repeats)]
        result = runs[-1][2]
        if isinstance(result, LimitError):
            print(f"{name:26} refused: {result}")
            failed = True
            continue
        x = Variable(np.array(AT))
        want = taylor_derivatives(build(x), x, args.order)[1:]
        got = [float(d.data) for d in result]
        if not np.allclose(got, [float(w) for w in want], rtol=1e-9, atol=0):
            print(f"{name:26} differs from Taylor mode: {got[-1]!r} {float(want[-1])!r}")
            failed = True
        wall = statistics.median(r[0] for r in runs)
        cpu = statistics.median(r[1] for r in runs)
        past = [timed(lambda b=build: run(b, args.past)) for _ in range(args.repeats)]
        pwall = statistics.median(r[0] for r in past)
        pcpu = statistics.median(r[1] for r in past)
        outcome = "refused" if isinstance(past[-1][2], LimitError) else "done"
        print(f"{name:26} {wall:8.3f} {cpu:8.3f} {pwall:8.3f} {pcpu:8.3f}  {outcome}")
        failed |= cpu > 1.0 or (outcome == "refused" and pcpu > 1.0)
        if args.sizes:
            print(f"{'':26} nodes per order: {sizes(build, args.order - 1)}")
        if args.unshared:
            print(f"{'':26} unshared:        {unshared_sizes(build, args.order - 1)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
