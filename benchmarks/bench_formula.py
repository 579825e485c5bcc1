#!/usr/bin/env python
"""How short and how fast gradcli's derivative formulas are, against SymPy.

For every function of the tests' textbook corpus (tests/test_formula_corpus.py)
and orders 1-3, the script prints gradcli's formula and SymPy's
``diff(f, x, n)``, reads both printed texts back with
``sympy.parse_expr(..., evaluate=False)`` and compares ``count_ops`` (a count
of 0 counts as 1). It reports the median, 90th percentile and maximum ratio,
against ``diff`` and against ``simplify(diff)``, and the time gradcli takes to
make the formulas of orders 1-3 of one function, caches cleared before each
(median and maximum over the corpus, best of ``--repeats``).

SymPy is used only here and in the tests, never by gradcli itself.

Usage:
    python benchmarks/bench_formula.py [--repeats 5] [--worst 8] [--json PATH]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import sympy
from test_formula_corpus import CORPUS, COUNT_NAMES, X, to_sympy

from gradcli.formula import derivatives, from_ast, plain, simplify
from gradcli.lang.parser import parse


def ops_of(text: str, names: dict | None = None) -> int:
    expr = sympy.parse_expr(text.replace("^", "**"), local_dict=dict(names or {"x": X}),
                            evaluate=False)
    return max(int(sympy.count_ops(expr)), 1)


def percentile(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(round(q * (len(s) - 1))))]


def time_one(text: str, repeats: int) -> float:
    node = parse(text)[0].node
    best = float("inf")
    for _ in range(repeats):
        simplify.forget()
        t0 = time.perf_counter()
        derivatives(from_ast(node), "x", 3)
        best = min(best, time.perf_counter() - t0)
    return best


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--worst", type=int, default=8, help="list this many worst ratios")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()

    vs_diff, vs_simplified, rows = [], [], []
    for _, text, _ in CORPUS:
        ours = [plain(d) for d in derivatives(from_ast(parse(text)[0].node), "x", 3)]
        f = to_sympy(text)
        for k, formula in enumerate(ours, start=1):
            d = sympy.diff(f, X, k)
            a = ops_of(formula, COUNT_NAMES)
            b = ops_of(str(d))
            c = ops_of(str(sympy.simplify(d)))
            vs_diff.append(a / b)
            vs_simplified.append(a / c)
            rows.append((a / b, text, k, formula, str(d)))
    times = [time_one(text, args.repeats) for _, text, _ in CORPUS]

    def line(name: str, r: list[float]) -> str:
        return (f"{name:<24} median {statistics.median(r):.2f}  p90 {percentile(r, 0.9):.2f}"
                f"  max {max(r):.2f}")

    print(f"corpus: {len(CORPUS)} functions x orders 1-3 = {len(vs_diff)} formulas")
    print("op-count ratio, gradcli / SymPy (count_ops of the printed text, unevaluated):")
    print(line("  vs diff", vs_diff))
    print(line("  vs simplify(diff)", vs_simplified))
    print(f"time for orders 1-3 of one function: median {statistics.median(times) * 1e3:.2f} ms,"
          f" max {max(times) * 1e3:.2f} ms (best of {args.repeats})")
    print(f"worst {args.worst} ratios vs diff:")
    for ratio, text, k, ours, theirs in sorted(rows, reverse=True)[: args.worst]:
        print(f"  {ratio:.2f}  d{k}/dx{k} {text}:  {ours}   |  sympy: {theirs}")
    if args.json:
        args.json.write_text(json.dumps({
            "vs_diff": vs_diff, "vs_simplify": vs_simplified, "seconds": times}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
