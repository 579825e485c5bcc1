"""Cold start-up of `gradcli` against a bare `python -c "import numpy"`.

    python benchmarks/bench_startup.py [--runs 15]

Runs, side by side and interleaved (so machine load hits all alike):

    A  python -c "import numpy"
    B  gradcli eval "x**4 - 2*x**2" --at x=2 --order 2 --format json
    C  gradcli --help
    D  gradcli eval --help
    E  gradcli eval 1 --order 2000           (a usage error, status 2)

each --runs times after one warm-up (which fills the OS file cache and
writes .pyc files, even under PYTHONDONTWRITEBYTECODE; the parser's tables
need no warming, as they are generated into gradcli/lang/_tables.py when
gradcli is built; "cold" here means a fresh interpreter, as a shell script
gets), and prints the median and minimum wall times and each one's ratio to
A. The targets: B at most 1.4, C, D and E at most 1.5. Then it runs B under
`python -X importtime` and prints the costliest imports (cumulative
microseconds of top-level imports, and gradcli's own modules), and checks
that rich, prompt_toolkit, graphviz, cupy, typer and pydantic were not
imported on this path. (Imports are attributed to the module that imports
them first: numpy shows up under gradcli.render.plain, and re, enum and
typing, which numpy needs too, under gradcli.cli.)
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time

from installed import gradcli_script

EXPR = ["eval", "x**4 - 2*x**2", "--at", "x=2", "--order", "2", "--format", "json"]
# (label, arguments, exit status, target ratio to `import numpy`)
COMMANDS = [
    ("gradcli eval x**4 - 2*x**2 ... --format json", EXPR, 0, 1.4),
    ("gradcli --help", ["--help"], 0, 1.5),
    ("gradcli eval --help", ["eval", "--help"], 0, 1.5),
    ("gradcli eval 1 --order 2000 (usage error)", ["eval", "1", "--order", "2000"], 2, 1.5),
]
MUST_NOT_IMPORT = ("rich", "prompt_toolkit", "graphviz", "cupy", "typer", "pydantic")


# Byte-code caching on, as an installed package has it: with
# PYTHONDONTWRITEBYTECODE set, every module edited since its last .pyc is
# compiled again on every start, which is not what users pay.
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def wall(cmd: list[str], status: int = 0) -> float:
    start = time.perf_counter()
    proc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=ENV)
    elapsed = time.perf_counter() - start
    if proc.returncode != status:
        sys.exit(f"{cmd} exited {proc.returncode}: {proc.stderr.decode()}")
    return elapsed


def importtime(cmd: list[str]) -> list[tuple[str, int, int, int]]:
    """(module, self us, cumulative us, depth) for every import of ``cmd``."""
    proc = subprocess.run([sys.executable, "-X", "importtime", *cmd], capture_output=True,
                          text=True, env=ENV)
    rows = []
    for line in proc.stderr.splitlines():
        if not line.startswith("import time:") or "self [us]" in line:
            continue
        head, cumulative, name = line.split("|")
        self_us = head.split(":")[1]
        depth = (len(name) - len(name.lstrip())) // 2
        rows.append((name.strip(), int(self_us), int(cumulative), depth))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--top", type=int, default=12)
    parser.add_argument("--gradcli", metavar="PATH", action="append",
                        help="a gradcli script to time (default: the installed one); "
                        "repeat it to compare builds in the same interleaved runs")
    args = parser.parse_args()

    scripts = args.gradcli or [gradcli_script()]
    script = scripts[0]
    numpy_cmd = [sys.executable, "-c", "import numpy"]
    cases = [(label if len(scripts) == 1 else f"{label} [{i}]", [path, *argv], status, target)
             for label, argv, status, target in COMMANDS
             for i, path in enumerate(scripts)]
    wall(numpy_cmd)  # warm-up
    for _, cmd, status, _ in cases:
        wall(cmd, status)
    base: list[float] = []
    times: list[list[float]] = [[] for _ in cases]
    for _ in range(args.runs):
        base.append(wall(numpy_cmd))
        for (_, cmd, status, _), column in zip(cases, times):
            column.append(wall(cmd, status))

    ma = statistics.median(base)
    print(f"runs: {args.runs} each, interleaved; Python {sys.version.split()[0]}")
    for i, path in enumerate(scripts if len(scripts) > 1 else []):
        print(f"[{i}] {path}")
    print(f"{'command':52} {'median':>9} {'min':>9} {'ratio':>6} {'target':>7}")
    label = 'python -c "import numpy"'
    print(f"{label:52} {ma * 1e3:8.1f}ms {min(base) * 1e3:8.1f}ms")
    for (label, _, _, target), column in zip(cases, times):
        median = statistics.median(column)
        print(f"{label:52} {median * 1e3:8.1f}ms {min(column) * 1e3:8.1f}ms "
              f"{median / ma:6.2f} {target:7.1f}")

    # -X importtime, 5 runs: each module's smallest time (one run is noisy).
    runs = [importtime([script, *EXPR]) for _ in range(5)]
    # keyed by depth too: a module shows twice when a package imports it
    # before the script does (gradcli.cli.main under gradcli.cli, then at the top)
    best: dict[tuple[str, int], tuple[str, int, int, int]] = {}
    for run in runs:
        for row in run:
            key = (row[0], row[3])
            if key not in best or row[2] < best[key][2]:
                best[key] = row
    rows = list(best.values())
    names = {name.split(".")[0] for name, *_ in rows}
    total = sum(r[2] for r in rows if r[3] == 0)
    print(f"\n-X importtime of the gradcli run (best of 5 per module): {total / 1e3:.1f} ms "
          "in imports")
    print(f"top {args.top} top-level imports (cumulative):")
    for name, _self, cumulative, _depth in sorted(
        (r for r in rows if r[3] == 0), key=lambda r: -r[2]
    )[: args.top]:
        print(f"  {cumulative / 1e3:8.1f} ms  {name}")
    print("gradcli's own modules (self time):")
    for name, self_us, _cumulative, _depth in sorted(
        (r for r in rows if r[0].startswith("gradcli")), key=lambda r: -r[1]
    ):
        print(f"  {self_us / 1e3:8.1f} ms  {name}")
    leaked = [m for m in MUST_NOT_IMPORT if m in names]
    print("not imported: " + ", ".join(m for m in MUST_NOT_IMPORT if m not in names))
    if leaked:
        print("IMPORTED ON THE EVAL PATH: " + ", ".join(leaked))
        sys.exit(1)


if __name__ == "__main__":
    main()
