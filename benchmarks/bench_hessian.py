#!/usr/bin/env python
"""How fast gradcli takes a 20-variable Hessian at a point (issue 31's goal: at
most 20 ms in process), and JAX's ``jax.hessian`` beside it.

The function is a chain of terms that each read two neighbouring variables,

    f = sum over i of (x_i - x_{i+1})^2 * exp(x_i),   i = 1 .. n-1,

at x_i = i/10, written two ways:

- ``scalars``: n variables x1 .. xn and the sum written out, ``hessian(...)``
  as a statement: parse, evaluate, n + 1 backprop passes, the result;
- ``array``: one variable x of n elements,
  ``hessian(sum((x[:-1] - x[1:])^2*exp(x[:-1])))``.

Each is timed through ``Session.run`` (everything a statement costs in
process, start-up aside): the first call (a fresh session) and the median and
best of ``--repeats`` later ones, garbage collector as it is. Both answers
must agree with each other and with the exact Hessian (closed form below) to
1e-13 relative, or the script exits with status 1.

With ``--jax`` (JAX installed; never a gradcli dependency) the same function
in ``jax.numpy``, float64, on the CPU: ``jax.hessian(f)(x)`` eagerly and
``jax.jit(jax.hessian(f))(x)``, the first call (tracing and compiling) and the
later ones (``block_until_ready``), and its answer is checked the same way.

Usage:
    python benchmarks/bench_hessian.py [--n 20] [--repeats 50] [--jax] [--clock cpu]
                                       [--json PATH]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np


def exact(n: int) -> np.ndarray:
    """The Hessian of f at x_i = i/10, term by term: t = (a - b)^2 exp(a) has
    t_aa = (2 + 4(a - b) + (a - b)^2) exp(a), t_ab = -(2 + 2(a - b)) exp(a),
    t_bb = 2 exp(a)."""
    x = np.arange(1, n + 1) / 10
    H = np.zeros((n, n))
    for i in range(n - 1):
        d, e = x[i] - x[i + 1], np.exp(x[i])
        H[i, i] += (2 + 4 * d + d * d) * e
        H[i, i + 1] += -(2 + 2 * d) * e
        H[i + 1, i] += -(2 + 2 * d) * e
        H[i + 1, i + 1] += 2 * e
    return H


def timed(call: Callable[[], Any], repeats: int,
          clock: Callable[[], float]) -> tuple[Any, float, list[float]]:
    t0 = clock()
    first = call()
    first_s = clock() - t0
    later = []
    for _ in range(repeats):
        t0 = clock()
        call()
        later.append(clock() - t0)
    return first, first_s, later


def gradcli_cases(n: int) -> dict[str, tuple[Callable[[], Any], str]]:
    from gradcli.session import Session

    def session(bind: Callable[[Session], None]) -> Session:
        s = Session()
        bind(s)
        return s

    def scalars(s: Session) -> None:
        for i in range(1, n + 1):
            s.values[f"x{i}"] = np.array(i / 10)

    def array(s: Session) -> None:
        s.values["x"] = np.arange(1, n + 1) / 10

    terms = " + ".join(f"(x{i} - x{i + 1})^2*exp(x{i})" for i in range(1, n))
    cases = {"scalars": (scalars, f"hessian({terms})"),
             "array": (array, "hessian(sum((x[:-1] - x[1:])^2*exp(x[:-1])))")}
    out = {}
    for name, (bind, text) in cases.items():
        s = session(bind)

        def run(s: Session = s, text: str = text) -> Any:
            (res,) = s.run(text)
            if res.error is not None:
                raise RuntimeError(res.error.message)
            return res.value

        out[name] = (run, text)
    return out


def jax_cases(n: int) -> dict[str, tuple[Callable[[], Any], str]]:
    import jax

    jax.config.update("jax_enable_x64", True)
    jax.config.update("jax_platforms", "cpu")
    import jax.numpy as jnp

    def f(x: Any) -> Any:
        return jnp.sum((x[:-1] - x[1:]) ** 2 * jnp.exp(x[:-1]))

    x = jnp.arange(1, n + 1, dtype=jnp.float64) / 10
    eager = jax.hessian(f)
    jitted = jax.jit(jax.hessian(f))
    return {
        "jax.hessian": (lambda: np.asarray(eager(x).block_until_ready()),
                        "jax.hessian(f)(x)"),
        "jax.jit(jax.hessian)": (lambda: np.asarray(jitted(x).block_until_ready()),
                                 "jax.jit(jax.hessian(f))(x)"),
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=20)
    ap.add_argument("--repeats", type=int, default=50)
    ap.add_argument("--jax", action="store_true", help="time jax.hessian beside gradcli")
    ap.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                    help="wall-clock time, or the process's CPU time (steadier on a "
                    "loaded machine; JAX's compiler threads count too)")
    ap.add_argument("--json", help="write the numbers to this file")
    args = ap.parse_args()

    truth = exact(args.n)
    cases = gradcli_cases(args.n)
    if args.jax:
        cases.update(jax_cases(args.n))
    problems = []
    rows = []
    print(f"Hessian of sum (x_i - x_(i+1))^2*exp(x_i), n = {args.n}, at x_i = i/10; "
          f"{args.clock} times in ms, {args.repeats} later calls")
    print(f"{'':24} {'first':>9} {'median':>9} {'best':>9}  max rel error")
    for name, (call, text) in cases.items():
        clock = time.perf_counter if args.clock == "wall" else time.process_time
        value, first, later = timed(call, args.repeats, clock)
        err = float(np.max(np.abs(np.asarray(value) - truth)) / np.max(np.abs(truth)))
        if not err <= 1e-13:
            problems.append(f"{name}: relative error {err:.3g}")
        row = {"case": name, "statement": text, "first_ms": first * 1e3,
               "median_ms": statistics.median(later) * 1e3, "best_ms": min(later) * 1e3,
               "max_rel_error": err}
        rows.append(row)
        print(f"{name:24} {row['first_ms']:9.2f} {row['median_ms']:9.2f} "
              f"{row['best_ms']:9.2f}  {err:.1e}")
    goal = [r for r in rows if r["case"] in ("scalars", "array")]
    met = all(r["median_ms"] <= 20 for r in goal)
    print(f"goal (gradcli, median <= 20 ms): {'met' if met else 'NOT met'}")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"n": args.n, "repeats": args.repeats, "clock": args.clock,
                       "rows": rows}, fh, indent=1)
    for p in problems:
        print("PROBLEM:", p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
