"""Curves to PNG: cold time of a whole process, the matplotlib import's share, and
1,000,000 points against 1,000.

    python benchmarks/bench_curve.py [--runs 5] [--out DIR]

Goals (issue 24):

  1. ``gradcli curve "exp(sin(x))*log(1+x^2)" --over x=0:5 --order 3 -o c.png``
     in at most 1.2 s, in a fresh process;
  2. the same curve with ``--points 1000000`` in at most 3x the time of
     ``--points 1000``.

Each case runs --runs times in fresh processes, interleaved (machine load hits
them alike), after one warm-up (matplotlib's font cache, .pyc files); the
median and minimum wall times are printed. Where ``gradcli curve`` exists the
command itself runs; otherwise (before the CLI has it) a Python driver that
does what the command does through the library: a Session, sample_curves and
write_curve (the lead's CLI adds its own argument parsing). Then one run under
``python -X importtime`` gives matplotlib's import cost (its modules are
imported inside write_curve, so they appear as top-level imports), and one
in-process run times the phases: sampling, building the figure, writing it.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from installed import gradcli_script

EXPR = "exp(sin(x))*log(1+x^2)"
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
DRIVER = """
import sys
from gradcli.session.curves import sample_curves, session_evaluator
from gradcli.render.curve import curve_format, write_curve
from gradcli.session import Session
expr, a, b, order, points, path = sys.argv[1:7]
curve_format(path)
data = sample_curves(session_evaluator(Session()), [expr], "x", float(a), float(b),
                     int(points), int(order))
print(write_curve(data, path)[0])
"""


def command(points: int, path: str) -> list[str]:
    script = gradcli_script()
    probe = subprocess.run([script, "curve", "--help"], capture_output=True, env=ENV)
    if probe.returncode == 0:
        return [script, "curve", EXPR, "--over", "x=0:5", "--order", "3",
                "--points", str(points), "-o", path]
    return [sys.executable, "-c", DRIVER, EXPR, "0", "5", "3", str(points), path]


def wall(cmd: list[str]) -> float:
    start = time.perf_counter()
    proc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=ENV)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        sys.exit(f"{cmd} failed: {proc.stderr.decode()}")
    return elapsed


def matplotlib_import_ms(cmd: list[str]) -> float:
    """The cumulative import time of matplotlib's top-level imports in ``cmd``."""
    proc = subprocess.run([sys.executable, "-X", "importtime", *cmd[1:]] if cmd[0] ==
                          sys.executable else [sys.executable, "-X", "importtime",
                                               "-m", "gradcli", *cmd[1:]],
                          capture_output=True, text=True, env=ENV)
    total = 0
    for line in proc.stderr.splitlines():
        if not line.startswith("import time:") or "self [us]" in line:
            continue
        _, cumulative, name = line.split("|")
        if not name.startswith("  ") and name.strip().split(".")[0] in ("matplotlib", "PIL"):
            total += int(cumulative)
    return total / 1000


def phases(points: int, path: str) -> dict[str, float]:
    """In this process (imports done first): sampling, the figure, the file."""
    from gradcli.render import curve
    from gradcli.session import Session
    from gradcli.session.curves import sample_curves, session_evaluator

    curve.figure(sample_curves(session_evaluator(Session()), ["x"], "x", 0, 1, 10, 0))
    t0 = time.perf_counter()
    data = sample_curves(session_evaluator(Session()), [EXPR], "x", 0, 5, points, 3)
    t1 = time.perf_counter()
    fig = curve.figure(data)
    t2 = time.perf_counter()
    curve._save(fig, path, "png")
    t3 = time.perf_counter()
    return {"sample": t1 - t0, "figure": t2 - t1, "savefig": t3 - t2}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--out", default=None, help="where the PNGs go (a temporary folder)")
    args = parser.parse_args()
    out = Path(args.out or tempfile.mkdtemp(prefix="bench_curve_"))
    cases = {
        "numpy only": [sys.executable, "-c", "import numpy"],
        "400 points": command(400, str(out / "c400.png")),
        "1000 points": command(1000, str(out / "c1k.png")),
        "1000000 points": command(1_000_000, str(out / "c1m.png")),
    }
    via = "gradcli curve" if cases["400 points"][0] != sys.executable else "library driver"
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cpus; running the {via}")
    for cmd in cases.values():
        wall(cmd)  # warm-up
    times: dict[str, list[float]] = {name: [] for name in cases}
    for _ in range(args.runs):
        for name, cmd in cases.items():
            times[name].append(wall(cmd))
    print(f"\n{'case':<16}{'median s':>10}{'min s':>10}")
    for name, ts in times.items():
        print(f"{name:<16}{statistics.median(ts):>10.3f}{min(ts):>10.3f}")
    cold = statistics.median(times["400 points"])
    ratio = statistics.median(times["1000000 points"]) / statistics.median(times["1000 points"])
    mpl = matplotlib_import_ms(cases["400 points"])
    print(f"\ngoal 1: cold curve to PNG {cold:.3f} s (goal <= 1.2 s): "
          f"{'met' if cold <= 1.2 else 'NOT met'}; matplotlib's import {mpl:.0f} ms of it")
    print(f"goal 2: 1,000,000 / 1,000 points = {ratio:.2f}x (goal <= 3x): "
          f"{'met' if ratio <= 3 else 'NOT met'}")
    print("\nin-process phases (s):")
    for points in (1000, 1_000_000):
        ph = phases(points, str(out / "phase.png"))
        print(f"  {points:>9,} points: " + ", ".join(f"{k} {v:.3f}" for k, v in ph.items()))
    print(f"\nPNGs in {out}")


if __name__ == "__main__":
    main()
