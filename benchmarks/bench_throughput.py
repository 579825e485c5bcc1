"""Statements per second through standard input.

    python benchmarks/bench_throughput.py [--statements 10000] [--repeats 3]

Writes a script of N statements (half assignments `x = 0.1234`, half
expressions of x such as `sin(x)*exp(x)`), runs

    gradcli eval - --format json --order 1 < script

--repeats times, checks that every output line is a strict JSON object with
a value (and a derivative for each expression), and prints the median wall
time and statements per second, with and without the process start-up (the
same command on a one-statement script).
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from installed import gradcli_script

EXPRESSIONS = [
    "x**4 - 2*x**2",
    "sin(x)*exp(x)",
    "log(x + 3)/x",
    "sqrt(x^2 + 1)",
    "tanh(x)^3 + 2x",
    "sigmoid(3x) - cos(x)/2",
]


def make_script(n: int) -> str:
    rng = random.Random(1)
    lines = []
    for i in range(n):
        if i % 2 == 0:
            lines.append(f"x = {rng.uniform(0.5, 2.0):.4f}")
        else:
            lines.append(rng.choice(EXPRESSIONS))
    return "\n".join(lines) + "\n"


def _child_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed_run(cmd: list[str], script: Path) -> tuple[float, str, float]:
    """Wall seconds, standard output, and the child's CPU seconds."""
    with script.open() as stdin:
        cpu = _child_cpu()
        start = time.perf_counter()
        proc = subprocess.run(cmd, stdin=stdin, capture_output=True, text=True)
        elapsed = time.perf_counter() - start
        cpu = _child_cpu() - cpu
    if proc.returncode != 0:
        sys.exit(f"gradcli failed ({proc.returncode}): {proc.stderr[:2000]}")
    return elapsed, proc.stdout, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--statements", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()

    cmd = [gradcli_script(), "eval", "-", "--format", "json", "--order", "1"]
    with tempfile.TemporaryDirectory() as tmp:
        script, one = Path(tmp, "script.gc"), Path(tmp, "one.gc")
        script.write_text(make_script(args.statements))
        one.write_text("x = 1\n")
        startup = statistics.median(timed_run(cmd, one)[0] for _ in range(3))
        times, cpus = [], []
        for _ in range(args.repeats):
            elapsed, out, cpu = timed_run(cmd, script)
            times.append(elapsed)
            cpus.append(cpu)
            objs = [json.loads(line, parse_constant=lambda c: sys.exit(f"non-strict {c}"))
                    for line in out.splitlines()]
            assert len(objs) == args.statements, (len(objs), args.statements)
            assert all("value" in o for o in objs)
            assert all(len(o["derivatives"]) == 1 for o in objs[1::2])

    median = statistics.median(times)
    n = args.statements
    print(f"{n} statements via stdin, `gradcli eval - --format json --order 1`, "
          f"{args.repeats} runs")
    print(f"median wall time {median:.2f} s (min {min(times):.2f} s); start-up alone "
          f"{startup * 1e3:.0f} ms")
    print(f"throughput: {n / median:,.0f} statements/s "
          f"({n / max(median - startup, 1e-9):,.0f}/s without start-up)")
    cpu = statistics.median(cpus)
    print(f"CPU time of the gradcli process: {cpu:.2f} s, {n / cpu:,.0f} statements per "
          "CPU second (less sensitive to a busy machine than wall time)")


if __name__ == "__main__":
    main()
