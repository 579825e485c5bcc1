#!/usr/bin/env python
"""Per-operation autodiff overhead: gradcli.core vs DeZero 0.0.13 vs PyTorch vs HIPS autograd.

Workload ("scalar chain"): starting from a float64 scalar x = 0.5, apply N
operations, cycling through

    y = sin(y);  y = y * 0.999;  y = y + 0.001

(so N // 3 of each, plus a remainder), then back-propagate to get dy/dx.
Every operation acts on a 0-d value, so the time is almost entirely the
per-operation overhead of the framework (graph node creation, dispatch,
Python bookkeeping), not arithmetic.

For each library and each N the chain is run once as warm-up and then
``--repeats`` times, the libraries' repeats interleaved round-robin so that a
change in machine load hits all of them alike.  Forward (graph build) and
backward are timed separately, with the garbage collector disabled during the
timed region (as ``timeit`` does; ``--keep-gc`` leaves it on).  The table shows
wall-clock time (``time.perf_counter``) or, with ``--clock cpu``, the process's
CPU time (``time.process_time``), which other processes competing for the
CPUs inflate much less; the JSON file holds both.  Reported numbers are
medians over the repeats, divided by N: microseconds per operation.  "total"
is the median of the per-repeat forward+backward sums, "best" the fastest
repeat's total.

Correctness: every library's y and dy/dx (from every repeat) are compared with
a pure-Python ``math`` reference and with each other; any relative
disagreement above 1e-10 is reported and makes the script exit with status 1.

Peers that are not installed are skipped ("not installed"); gradcli is
"not available" when ``gradcli.core`` cannot be imported.  The script itself
uses only the standard library and NumPy.

Usage:
    python benchmarks/bench_core.py [--n 2000 20000] [--repeats 7] [--clock wall|cpu]
                                    [--only gradcli dezero ...] [--json PATH]
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
import traceback
from pathlib import Path

import numpy as np

C_MUL = 0.999
C_ADD = 0.001
X0 = 0.5
RTOL = 1e-10
REPO_SRC = Path(__file__).resolve().parents[1] / "src"


# --------------------------------------------------------------------------
# The workload, written once against DeZero's API (operators + a sin function)
# --------------------------------------------------------------------------
def chain(x, n, sin):
    """N ops cycling sin, *0.999, +0.001.  Works for any object with
    DeZero-/torch-/autograd-style operator overloading."""
    y = x
    for _ in range(n // 3):
        y = sin(y)
        y = y * C_MUL
        y = y + C_ADD
    r = n % 3
    if r >= 1:
        y = sin(y)
    if r >= 2:
        y = y * C_MUL
    return y


def reference(n):
    """(y, dy/dx) of the chain in plain float64 Python (math module)."""
    v, d = X0, 1.0
    for i in range(n):
        k = i % 3
        if k == 0:
            d *= math.cos(v)
            v = math.sin(v)
        elif k == 1:
            d *= C_MUL
            v *= C_MUL
        else:
            v += C_ADD
    return v, d


# --------------------------------------------------------------------------
# Peers.  Each one provides:
#   prepare()              -> x   (fresh leaf, not timed)
#   forward(x, n)          -> y   (timed: builds the graph)
#   backward(x, y)         -> r   (timed: reverse pass)
#   extract(x, y, r)       -> (float y, float dy/dx)   (not timed)
#   check_extra(n)         -> optional extra (label, grad) pairs to verify
# --------------------------------------------------------------------------
class Unavailable(Exception):
    pass


class DezeroAPIPeer:
    """gradcli.core and DeZero share this API: Variable, functions.sin,
    operators, y.backward(), x.grad.data."""

    def __init__(self, name, version, Variable, functions, origin):
        self.name = name
        self.version = version
        self.Variable = Variable
        self.F = functions
        self.origin = origin

    def prepare(self):
        return self.Variable(np.array(X0))

    def forward(self, x, n):
        return chain(x, n, self.F.sin)

    def backward(self, x, y):
        y.backward()

    def extract(self, x, y, r):
        return float(y.data), float(x.grad.data)

    def check_extra(self, n):
        return []


class TorchPeer:
    def __init__(self, torch):
        self.torch = torch
        self.name = "pytorch"
        self.version = torch.__version__
        self.origin = os.path.dirname(torch.__file__)
        torch.set_num_threads(1)

    def prepare(self):
        return self.torch.tensor(X0, dtype=self.torch.float64, requires_grad=True)

    def forward(self, x, n):
        return chain(x, n, self.torch.sin)

    def backward(self, x, y):
        y.backward()

    def extract(self, x, y, r):
        return y.item(), x.grad.item()

    def check_extra(self, n):
        return []


class AutogradPeer:
    """HIPS autograd.  autograd.grad(f)(x) == make_vjp (forward trace) followed
    by vjp(1.0) (backward pass); we call the two halves separately to time
    them, and cross-check against autograd.grad itself."""

    def __init__(self, autograd, anp, make_vjp, version):
        self.autograd = autograd
        self.anp = anp
        self.make_vjp = make_vjp
        self.name = "autograd"
        self.version = version
        self.origin = os.path.dirname(autograd.__file__)

    def prepare(self):
        return X0

    def forward(self, x, n):
        return self.make_vjp(lambda v: chain(v, n, self.anp.sin), x)

    def backward(self, x, y):
        vjp, _ = y
        return vjp(1.0)

    def extract(self, x, y, r):
        return float(y[1]), float(r)

    def check_extra(self, n):
        g = self.autograd.grad(lambda v: chain(v, n, self.anp.sin))(X0)
        return [("autograd.grad", float(g))]


def _version(modname):
    try:
        from importlib.metadata import version

        return version(modname)
    except Exception:
        return "?"


def load_gradcli(src=REPO_SRC):
    # Benchmark the checkout this script lives in (or --gradcli-src), whether
    # or not gradcli is installed into the environment.
    src = Path(src)
    if src.is_dir() and str(src) not in sys.path:
        sys.path.insert(0, str(src))
    try:
        import gradcli.core.functions as F
        from gradcli.core import Variable

        F.sin  # noqa: B018  (must exist)
    except Exception as e:  # ImportError, AttributeError, or a broken module
        raise Unavailable(f"not available ({type(e).__name__}: {e})") from None
    import gradcli

    version = getattr(gradcli, "__version__", "?")
    rev = _git_rev(Path(sys.modules["gradcli.core"].__file__).parent)
    if rev:
        version = f"{version}@{rev}"
    origin = os.path.dirname(os.path.abspath(sys.modules["gradcli.core"].__file__))
    return DezeroAPIPeer("gradcli", version, Variable, F, origin)


def load_dezero():
    try:
        import importlib.util

        if importlib.util.find_spec("dezero") is None:
            raise Unavailable("not installed")
    except ValueError:
        raise Unavailable("not installed") from None
    # DeZero 0.0.13 uses the alias np.int (removed in NumPy 1.24) at import
    # time.  Provide it only while importing DeZero, then restore NumPy.
    had_int = "int" in np.__dict__
    if not had_int:
        np.int = int
    try:
        import dezero
        import dezero.functions as F
        from dezero import Variable
    except Exception as e:
        raise Unavailable(f"import failed ({type(e).__name__}: {e})") from None
    finally:
        if not had_int:
            del np.int
    return DezeroAPIPeer(
        "dezero",
        getattr(dezero, "__version__", _version("dezero")),
        Variable,
        F,
        os.path.dirname(dezero.__file__),
    )


def load_torch():
    try:
        import torch
    except ImportError:
        raise Unavailable("not installed") from None
    return TorchPeer(torch)


def load_autograd():
    try:
        import autograd
        import autograd.numpy as anp
        from autograd.core import make_vjp
    except ImportError:
        raise Unavailable("not installed") from None
    return AutogradPeer(autograd, anp, make_vjp, _version("autograd"))


LOADERS = {
    "gradcli": load_gradcli,
    "dezero": load_dezero,
    "pytorch": load_torch,
    "autograd": load_autograd,
}


# --------------------------------------------------------------------------
# Timing
# --------------------------------------------------------------------------
def run_once(peer, n, keep_gc=False):
    """One forward + backward.  Returns wall-clock (perf_counter) and CPU
    (process_time) durations of both phases, plus y and dy/dx."""
    x = peer.prepare()
    gc.collect()
    gc_was_enabled = gc.isenabled()
    if not keep_gc:
        gc.disable()
    wall, cpu = time.perf_counter, time.process_time
    try:
        c0, t0 = cpu(), wall()
        y = peer.forward(x, n)
        t1, c1 = wall(), cpu()
        r = peer.backward(x, y)
        t2, c2 = wall(), cpu()
    finally:
        if gc_was_enabled:
            gc.enable()
    value, grad = peer.extract(x, y, r)
    del x, y, r  # free the graph outside the timed region
    return {"wall": (t1 - t0, t2 - t1), "cpu": (c1 - c0, c2 - c1), "value": value, "grad": grad}


def bench_all(peers, n, repeats, warmup, on_error, keep_gc=False, clock="wall"):
    """Run every peer on chain length n.  Repeats are interleaved (round-robin,
    with the starting peer rotated each round) so that a change in machine
    load hits all libraries alike instead of skewing one of them."""
    outs = {p.name: [] for p in peers}
    live = list(peers)

    def attempt(p):
        try:
            return run_once(p, n, keep_gc)
        except Exception as e:  # report any failure, go on
            on_error(p, n, e)
            live.remove(p)
            return None

    for p in list(live):
        for _ in range(warmup):
            if p in live:
                attempt(p)
    for rep in range(repeats):
        k = rep % len(live) if live else 0
        for p in live[k:] + live[:k]:
            if p in live:
                o = attempt(p)
                if o is not None:
                    outs[p.name].append(o)
    results = {}
    us = 1e6 / n
    for p in live:
        o = outs[p.name]
        fwd = [t[clock][0] for t in o]
        bwd = [t[clock][1] for t in o]
        tot = [t[clock][0] + t[clock][1] for t in o]
        results[p.name] = {
            "library": p.name,
            "version": p.version,
            "n": n,
            "clock": clock,
            "fwd_us_per_op": statistics.median(fwd) * us,
            "bwd_us_per_op": statistics.median(bwd) * us,
            "total_us_per_op": statistics.median(tot) * us,
            "min_total_us_per_op": min(tot) * us,
            "samples_s": {
                k: {"forward": [t[k][0] for t in o], "backward": [t[k][1] for t in o]}
                for k in ("wall", "cpu")
            },
            "values": [t["value"] for t in o],
            "grads": [t["grad"] for t in o],
        }
    return results


def rel(a, b):
    if a == b:
        return 0.0
    if not (math.isfinite(a) and math.isfinite(b)):
        return math.inf
    return abs(a - b) / max(abs(a), abs(b))


# --------------------------------------------------------------------------
def fmt(v, nd=3):
    return "-" if v is None else f"{v:.{nd}f}"


def print_table(rows, ns):
    headers = [
        "library",
        "version",
        "N",
        "fwd us/op",
        "bwd us/op",
        "total us/op",
        "best",
        "x gradcli",
    ]
    body = []
    for n in ns:
        for r in rows:
            if r["n"] != n:
                continue
            body.append(
                [
                    r["library"],
                    str(r["version"]),
                    f"{n:,}",
                    fmt(r.get("fwd_us_per_op")),
                    fmt(r.get("bwd_us_per_op")),
                    fmt(r.get("total_us_per_op")),
                    fmt(r.get("min_total_us_per_op")),
                    fmt(r.get("ratio_vs_gradcli"), 2),
                ]
            )
    widths = [
        max(len(h), *(len(b[i]) for b in body)) if body else len(h) for i, h in enumerate(headers)
    ]
    left = {0, 1}

    def line(cells):
        return "  ".join(
            c.ljust(w) if i in left else c.rjust(w)
            for i, (c, w) in enumerate(zip(cells, widths, strict=True))
        )

    print(line(headers))
    print("  ".join("-" * w for w in widths))
    prev_n = None
    for b in body:
        if prev_n is not None and b[2] != prev_n:
            print()
        prev_n = b[2]
        print(line(b))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--n",
        type=int,
        nargs="+",
        default=[2000, 20000],
        help="chain lengths (default: 2000 20000)",
    )
    ap.add_argument("--repeats", type=int, default=7, help="timed repeats (default 7)")
    ap.add_argument("--warmup", type=int, default=1, help="untimed warm-up runs (default 1)")
    ap.add_argument(
        "--only",
        nargs="+",
        choices=list(LOADERS),
        default=list(LOADERS),
        help="libraries to run (default: all)",
    )
    ap.add_argument(
        "--keep-gc",
        action="store_true",
        help="leave the cyclic garbage collector on while timing (default: off, as timeit)",
    )
    ap.add_argument(
        "--clock",
        choices=["wall", "cpu"],
        default="wall",
        help="what the table reports: wall = time.perf_counter (default); cpu = "
        "time.process_time, less sensitive to other processes competing for the "
        "CPUs.  The JSON file always holds both.",
    )
    ap.add_argument(
        "--gradcli-src",
        metavar="DIR",
        default=str(REPO_SRC),
        help="directory holding the gradcli package to benchmark (default: this checkout's src/)",
    )
    ap.add_argument("--json", metavar="PATH", help="also write the results as JSON")
    args = ap.parse_args(argv)
    if args.repeats < 1 or args.warmup < 0 or min(args.n) < 1:
        ap.error("need --repeats >= 1, --warmup >= 0 and every N >= 1")

    print(
        "gradcli core benchmark: scalar chain (sin, *0.999, +0.001), float64, "
        f"x0={X0}; median of {args.repeats} interleaved repeats "
        f"after {args.warmup} warm-up; {args.clock} clock; "
        f"GC {'on' if args.keep_gc else 'off'} while timing"
    )
    print(
        f"python {platform.python_version()} ({platform.python_implementation()}), "
        f"numpy {np.__version__}, {platform.machine()} {platform.system()}, "
        f"{os.cpu_count()} CPU(s): {_cpu_model()}"
    )
    print()

    load_start = _loadavg()
    if load_start:
        print(f"load average at start: {load_start}")
    peers, status = [], {}
    for name in args.only:
        try:
            p = LOADERS[name](args.gradcli_src) if name == "gradcli" else LOADERS[name]()
        except Unavailable as e:
            print(f"  {name:9s} {e}")
            status[name] = str(e)
            continue
        print(f"  {name:9s} {p.version}  ({p.origin})")
        status[name] = "ok"
        peers.append(p)
    print()

    rows, problems, checks, unchecked = [], [], [], []
    for n in args.n:
        ref_v, ref_g = reference(n)
        # For very long chains dy/dx (~1e-47 at N=20,000) sinks into float64's
        # subnormal range, where 1e-10 relative precision does not exist.
        grad_checkable = abs(ref_g) > sys.float_info.min * 2.0**40

        def on_error(p, n, e):
            msg = f"{p.name} N={n}: {type(e).__name__}: {e}"
            problems.append(msg)
            print(f"ERROR {msg}")
            traceback.print_exception(type(e), e, e.__traceback__, limit=-8, file=sys.stdout)

        res = bench_all(peers, n, args.repeats, args.warmup, on_error, args.keep_gc, args.clock)
        for p in peers:
            r = res.get(p.name)
            if r is None:
                rows.append(
                    {
                        "library": p.name,
                        "version": p.version,
                        "n": n,
                        "error": next(
                            (m for m in problems if m.startswith(f"{p.name} N={n}:")), "error"
                        ),
                    }
                )
                continue
            try:
                extra = p.check_extra(n)
            except Exception as e:
                on_error(p, n, e)
                extra = []
            rows.append(r)
            for label, g in [(f"{p.name}[{i}]", g) for i, g in enumerate(r["grads"])] + extra:
                e_g = rel(g, ref_g)
                checks.append((n, label, e_g))
                if e_g > RTOL and grad_checkable:
                    problems.append(
                        f"N={n} {label}: dy/dx={g!r} vs reference {ref_g!r} (rel err {e_g:.3g})"
                    )
            for i, v in enumerate(r["values"]):
                e_v = rel(v, ref_v)
                if e_v > RTOL:
                    problems.append(
                        f"N={n} {p.name}[{i}]: y={v!r} vs reference {ref_v!r} (rel err {e_v:.3g})"
                    )

        # pairwise agreement of the (first-repeat) gradients
        ok_rows = [r for r in rows if r["n"] == n and "grads" in r]
        worst = 0.0
        for i in range(len(ok_rows)):
            for j in range(i + 1, len(ok_rows)):
                e = rel(ok_rows[i]["grads"][0], ok_rows[j]["grads"][0])
                worst = max(worst, e)
                if e > RTOL and grad_checkable:
                    problems.append(
                        f"N={n}: {ok_rows[i]['library']} vs {ok_rows[j]['library']}"
                        f" dy/dx rel diff {e:.3g}"
                    )
        names = ", ".join(r["library"] for r in ok_rows)
        print(f"N={n:,}: reference dy/dx = {ref_g:.17g}, y = {ref_v:.17g}")
        print(
            f"N={n:,}: gradients of [{names}] vs each other: max rel diff {worst:.2e}; "
            f"vs math reference: max rel diff "
            f"{max((c[2] for c in checks if c[0] == n), default=0.0):.2e} "
            f"(tolerance {RTOL:g})"
        )
        if not grad_checkable:
            unchecked.append(n)
            print(
                f"N={n:,}: NOTE dy/dx underflows to (near-)subnormal float64 at this N; "
                "gradients not checked, y still is"
            )

    # ratios vs gradcli (per N)
    for n in args.n:
        base = next(
            (
                r
                for r in rows
                if r["n"] == n and r["library"] == "gradcli" and "total_us_per_op" in r
            ),
            None,
        )
        for r in rows:
            if r["n"] == n and "total_us_per_op" in r:
                r["ratio_vs_gradcli"] = (
                    r["total_us_per_op"] / base["total_us_per_op"] if base else None
                )

    print()
    print_table(rows, args.n)
    print(
        "(us/op = median time / N; 'best' = fastest repeat's total; 'x gradcli' = median "
        "total relative to gradcli's, >1 means slower than gradcli)"
    )

    if len(args.n) > 1:
        n0, n1 = args.n[0], args.n[-1]
        print()
        print(
            f"scaling: total us/op at N={n1:,} / at N={n0:,} "
            "(1.00 = perfectly linear; 'best' is the steadier one on a busy machine)"
        )
        for p in peers:
            a, b = (
                next(
                    (
                        r
                        for r in rows
                        if r["library"] == p.name and r["n"] == n_ and "total_us_per_op" in r
                    ),
                    None,
                )
                for n_ in (n0, n1)
            )
            med = best = None
            if a and b:
                med = b["total_us_per_op"] / a["total_us_per_op"]
                best = b["min_total_us_per_op"] / a["min_total_us_per_op"]
                b["scaling_vs_first_n"] = {"median": med, "best": best}
            print(f"  {p.name:9s} median {fmt(med, 2)}   best {fmt(best, 2)}")

    print()
    load_end = _loadavg()
    if load_end:
        print(
            f"load average at end: {load_end}  (other processes competing for the CPUs "
            "inflate wall-clock times; see --clock cpu)"
        )
    failed = bool(problems)
    if problems:
        print("CORRECTNESS / RUN PROBLEMS:")
        for m in problems:
            print("  - " + m)
    else:
        print(
            f"OK: all libraries' y and dy/dx agree with each other and with the math "
            f"reference to {RTOL:g} relative, for every repeat and every N"
            + (" (dy/dx skipped where it underflows)." if unchecked else ".")
        )

    if args.json:
        out = {
            "benchmark": "scalar chain sin/*0.999/+0.001",
            "date": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            "python": platform.python_version(),
            "numpy": np.__version__,
            "machine": platform.machine(),
            "cpu_count": os.cpu_count(),
            "cpu_model": _cpu_model(),
            "repeats": args.repeats,
            "warmup": args.warmup,
            "gc_during_timing": args.keep_gc,
            "clock": args.clock,
            "loadavg_start": load_start,
            "loadavg_end": load_end,
            "ns": args.n,
            "libraries": status,
            "gradcli_src": args.gradcli_src,
            "reference": {
                str(n): dict(zip(("y", "grad"), reference(n), strict=True)) for n in args.n
            },
            "results": rows,
            "problems": problems,
            "ok": not failed,
        }
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        with open(args.json, "w") as f:
            json.dump(out, f, indent=2)
        print(f"wrote {args.json}")

    return 1 if failed else 0


def _git_rev(path):
    """Short commit of the checkout holding `path`, '+dirty' if that directory
    has uncommitted changes; '' when git is unavailable."""
    import subprocess

    try:
        rev = subprocess.run(
            ["git", "-C", str(path), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            timeout=10,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(path), "status", "--porcelain", "--", "."],
            capture_output=True,
            text=True,
            timeout=10,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""
    return rev + ("+dirty" if dirty else "")


def _loadavg():
    try:
        return " ".join(f"{v:.2f}" for v in os.getloadavg())
    except (OSError, AttributeError):
        return ""


def _cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "?"


if __name__ == "__main__":
    sys.exit(main())
