#!/usr/bin/env python
"""How far --check can be trusted: false alarms, wrong derivatives caught, cost.

Prints, with the survey functions of tests/test_check_adaptive.py:

* false alarms: every elementwise built-in at 20 points across its test
  domain and at extreme magnitudes (exp near 700, log at 1e-8, sqrt at 1e10,
  tanh at 15, x^10 at 1e3, 1/x at 1e-5 ...), orders 1-3, autodiff by Taylor
  mode against Ridders' estimate, in float64 and float32; and how tight the
  estimates were (est_error / |derivative|);
* detection: each registry derivative mutated three ways (times 1 + 1e-6,
  sign flipped, argument moved by a relative 1e-6), order 1 at the same
  points: the mutants whose change exceeds the estimate's own error, and the
  fraction of those the check fails;
* with ``--stress``: 300 random points a built-in, alone and composed with
  itself (f(f(x)/2 + x)), orders 1-3, both dtypes;
* the cost: seconds for the estimates of orders 1 and 2 of sin(x)*exp(x)
  over N points, Ridders' method against one central difference.

Usage:
    python benchmarks/bench_check.py [--stress] [--points 1000]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from test_check_adaptive import (
    ELEMENTWISE,
    _values,
    autodiff,
    false_alarms,
    mutation_survey,
)

from gradcli.core.check import agrees, central_difference, ridders
from gradcli.core.registry import REGISTRY


def stress(dtype: type, seed: int = 1) -> tuple[int, int]:
    rng = np.random.default_rng(seed)
    compared = alarms = 0
    for name in ELEMENTWISE:
        lo, hi = REGISTRY[name].domain
        pts = rng.uniform(lo, hi, 300).astype(dtype).astype(np.float64)
        f = REGISTRY[name].call
        for g in (f, lambda v, f=f: f(f(v) * 0.5 + v)):
            with np.errstate(all="ignore"):
                pts_g = pts[np.isfinite(_values(g, dtype)(pts))]
                ds = autodiff(g, pts_g, 3, dtype)
                for k in (1, 2, 3):
                    est, err = ridders(_values(g, dtype), pts_g, k, dtype)
                    # where no step gives an estimate, --check leaves the point out
                    counted = np.isfinite(ds[k]) & np.isfinite(est)
                    compared += int(counted.sum())
                    alarms += int((counted & ~agrees(ds[k], est, err, dtype)).sum())
    return compared, alarms


def cost(n: int) -> tuple[float, float]:
    a = np.linspace(-3, 3, n)

    def f(p: np.ndarray) -> np.ndarray:
        return np.sin(p) * np.exp(p)

    t0 = time.perf_counter()
    for k in (1, 2):
        ridders(f, a, k)
    t1 = time.perf_counter()
    for k in (1, 2):
        central_difference(f, a, k)
    t2 = time.perf_counter()
    return t1 - t0, t2 - t1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stress", action="store_true")
    parser.add_argument("--points", type=int, default=1000)
    args = parser.parse_args()
    for dtype in (np.float64, np.float32):
        s = false_alarms(dtype)
        print(f"false alarms, {dtype.__name__}, orders 1-3: {len(s['failed'])} of "
              f"{s['compared']} comparisons; est_error/|derivative| median "
              f"{s['median_rel_est_error']:.2g}")
        for case in s["failed"]:
            print("   ", case)
    m = mutation_survey()
    share = m["caught"] / m["detectable"] if m["detectable"] else float("nan")
    print(f"mutants: {m['mutants']}, detectable {m['detectable']}, caught {m['caught']} "
          f"({100 * share:.2f}%)")
    for case in m["missed"]:
        print("    missed", case)
    if args.stress:
        for dtype in (np.float64, np.float32):
            compared, alarms = stress(dtype)
            print(f"stress, {dtype.__name__}: {alarms} false alarms in {compared} comparisons")
    ridders_s, central_s = cost(args.points)
    print(f"cost of orders 1 and 2 at {args.points} points: Ridders {1e3 * ridders_s:.1f} ms, "
          f"one central difference {1e3 * central_s:.2f} ms")


if __name__ == "__main__":
    main()
