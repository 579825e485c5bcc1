#!/usr/bin/env python
"""Plot time against derivative order for Taylor mode, repeated backprop and peers.

Left: the time to get every derivative of orders 0..N of
``exp(sin(x))*log(1+x**2)`` at x = 0.7, against N, for gradcli's Taylor mode,
gradcli's repeated backprop, DeZero, PyTorch's nested ``autograd.grad``, JAX's
``jet`` (warm) and ``mpmath.diffs``; the backprop methods stop where one run
takes longer than ``--budget`` seconds. Right: Taylor mode's relative error
against ``mpmath.diffs`` at 50 digits, order by order, for the five benchmark
formulas (the error growth with order).

The methods are the ones in ``bench_taylor.py``; peers that are not installed
are left out. Needs matplotlib (a benchmark-only dependency, not gradcli's).

Usage:
    python benchmarks/plot_orders.py [-o docs/taylor-vs-backprop.png] [--budget 1.0]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import warnings
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import bench_taylor as B  # noqa: E402

FORMULA = "exp(sin(x))*log(1+x**2)"
TAYLOR_ORDERS = [1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 15, 20, 25, 30, 40, 50, 60, 70, 80, 90, 100]
JET_ORDERS = [1, 2, 3, 4, 5, 6, 8, 10, 12, 15, 20]
MPMATH_ORDERS = [1, 2, 4, 6, 8, 10, 15, 20, 30, 40, 50, 70, 100]


def sweep(run, text, orders, budget, repeat_budget, compiles=False):
    """(order, best time) for increasing orders until one run exceeds ``budget``.

    ``compiles``: the first call at each order traces and compiles (JAX); it is
    made before timing and not counted.
    """
    out = []
    for k in orders:
        t0 = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            run(text, k)
            if compiles:
                t0 = time.perf_counter()
                run(text, k)
        single = time.perf_counter() - t0
        if single > budget and out:
            out.append((k, single))
            break
        best, _ = B.best_time(lambda k=k: run(text, k), repeat_budget)
        out.append((k, best))
        if single > budget:
            break
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("-o", "--output", default=str(HERE.parent / "docs" /
                                                      "taylor-vs-backprop.png"))
    parser.add_argument("--budget", type=float, default=1.0,
                        help="stop a method after one run takes longer than this (s)")
    parser.add_argument("--repeat-budget", type=float, default=0.3)
    parser.add_argument("--json", help="also write the measured points here")
    args = parser.parse_args()

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import mpmath

    methods = {
        "gradcli Taylor mode": (B.gradcli_taylor, TAYLOR_ORDERS),
        "gradcli backprop": (B.gradcli_backprop, range(1, 101)),
        "DeZero 0.0.13": (B.load_dezero(), range(1, 101)),
        "PyTorch autograd.grad": (B.load_torch(), range(1, 101)),
        "JAX jet (warm)": (B.load_jax(), JET_ORDERS),
        "mpmath.diffs": (B.load_mpmath(), MPMATH_ORDERS),
    }
    styles = {
        "gradcli Taylor mode": dict(color="C3", marker="o", lw=2.5),
        "gradcli backprop": dict(color="C0", marker="s"),
        "DeZero 0.0.13": dict(color="C1", marker="^"),
        "PyTorch autograd.grad": dict(color="C2", marker="v"),
        "JAX jet (warm)": dict(color="C4", marker="D"),
        "mpmath.diffs": dict(color="C7", marker="x", ls="--"),
    }
    data = {}
    for name, (run, orders) in methods.items():
        if run is None:
            print(f"{name}: not installed")
            continue
        pts = sweep(run, FORMULA, orders, args.budget, args.repeat_budget,
                    compiles=name.startswith("JAX"))
        data[name] = pts
        print(f"{name}: " + ", ".join(f"{k}:{B.fmt_time(t)}" for k, t in pts), flush=True)

    errors = {}
    ns = {"exp": mpmath.exp, "sin": mpmath.sin, "log": mpmath.log, "tanh": mpmath.tanh}
    top = 100
    for text in B.FORMULAS:
        f = eval(f"lambda x: {text}", ns)
        with mpmath.workdps(50):
            want = [float(v) for v in mpmath.diffs(f, mpmath.mpf(B.X0), top)]
        got = [float(v) for v in B.gradcli_taylor(text, top)]
        errors[text] = [(k, B.rel(g, w)) for k, (g, w) in enumerate(zip(got, want))
                        if k and w != 0]
        worst = {n: max([e for k, e in errors[text] if k <= n] or [0.0]) for n in (10, 30, 100)}
        print(f"error {text}: to order 10 {worst[10]:.1e}, to 30 {worst[30]:.1e}, "
              f"to 100 {worst[100]:.1e}", flush=True)

    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(13, 5.2), gridspec_kw={"width_ratios": [3, 2]})
    for name, pts in data.items():
        ks, ts = zip(*pts)
        ax.plot(ks, ts, label=name, ms=4, **styles[name])
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("highest derivative order N (all orders 0..N computed)")
    ax.set_ylabel("time (s), best of several runs")
    ax.set_title(f"{FORMULA} at x = 0.7")
    ax.axhline(0.5e-3, color="C3", lw=0.8, ls=":")
    ax.axhline(20e-3, color="C3", lw=0.8, ls=":")
    ax.text(1.05, 0.5e-3 * 1.15, "0.5 ms goal (N = 10)", color="C3", fontsize=8)
    ax.text(1.05, 20e-3 * 1.15, "20 ms goal (N = 100)", color="C3", fontsize=8)
    ax.grid(True, which="both", alpha=0.25)
    ax.legend(fontsize=8, loc="upper left")

    for text, pts in errors.items():
        ks, es = zip(*pts)
        ax2.semilogy(ks, [max(e, 1e-17) for e in es], label=text, lw=1.2)
    ax2.axhline(1e-9, color="k", lw=0.8, ls=":")
    ax2.axhline(1e-6, color="k", lw=0.8, ls=":")
    ax2.set_xlabel("derivative order k")
    ax2.set_ylabel("relative error of Taylor mode (vs mpmath, 50 digits)")
    ax2.set_title("error growth with order")
    ax2.grid(True, which="both", alpha=0.25)
    ax2.legend(fontsize=7, loc="upper left")
    fig.tight_layout()
    Path(args.output).parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(args.output, dpi=110)
    print(f"wrote {args.output}")
    if args.json:
        Path(args.json).write_text(json.dumps({"times": data, "errors": errors}), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
