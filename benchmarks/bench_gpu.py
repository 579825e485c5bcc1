#!/usr/bin/env python
"""Orders 0..3 over a million points on the GPU: gradcli's Taylor mode on CuPy
against one CuPy evaluation of the same formula.

The CPU's version of this is ``bench_taylor.py --only arrays`` (issue 5's goal:
at most 3x one evaluation). Here the array lives on the GPU, so the whole graph
is recorded on the array and replayed on CuPy (blocks and threads are NumPy's).
Each time is the best of ``--repeat`` runs, ``cupy.cuda.Device().synchronize()``
before the clock stops, after two warm-up runs (which compile CuPy's kernels).
``x cupy`` is gradcli's time divided by CuPy's.

Where PyTorch with CUDA is installed, its time for the same derivatives (nested
``torch.autograd.grad`` with ``create_graph``, float64, on the GPU) is shown too.

Usage:
    python benchmarks/bench_gpu.py [--points 1000000] [--repeat 20]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_taylor import CODES, FORMULAS, GRADCLI_NS  # puts ../src first

from gradcli.core import Variable, gpu_available
from gradcli.core.taylor import taylor_derivatives


def best_time(fn: Callable[[], Any], sync: Callable[[], None], repeat: int) -> float:
    for _ in range(2):
        fn()
    sync()
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        sync()
        best = min(best, time.perf_counter() - t0)
    return best


def torch_run(text: str, xs: np.ndarray) -> Callable[[], Any] | None:
    try:
        import torch
    except ImportError:
        return None
    if not torch.cuda.is_available():
        return None
    ns = {"exp": torch.exp, "sin": torch.sin, "log": torch.log, "tanh": torch.tanh}
    data = torch.tensor(xs, dtype=torch.float64, device="cuda")

    def run() -> Any:
        x = data.clone().requires_grad_(True)
        y = eval(CODES[text], ns, {"x": x})
        out, d = [y], y
        for _ in range(3):
            (d,) = torch.autograd.grad(d.sum(), x, create_graph=True)
            out.append(d)
        return out

    return run


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--points", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    if not gpu_available():
        print("no CuPy with a CUDA device here: nothing to measure")
        return 0
    import cupy as cp

    sync = cp.cuda.Device().synchronize
    name = cp.cuda.runtime.getDeviceProperties(0)["name"].decode()
    print(f"## Orders 0..3 over {args.points:,} points on {name} (CuPy {cp.__version__})\n")
    print("| formula | cupy | gradcli taylor | x cupy | torch nested grad | x cupy |")
    print("|---|---:|---:|---:|---:|---:|")
    xs = np.linspace(-2.0, 2.0, args.points)
    data = cp.asarray(xs)
    cp_ns = {"exp": cp.exp, "sin": cp.sin, "log": cp.log, "tanh": cp.tanh}
    problems = []
    for text in FORMULAS:
        code = CODES[text]

        def gradcli(c: Any = code) -> Any:
            x = Variable(data)
            return taylor_derivatives(eval(c, GRADCLI_NS, {"x": x}), x, 3)

        got = gradcli()
        x = Variable(xs)
        want = taylor_derivatives(eval(code, GRADCLI_NS, {"x": x}), x, 3)
        for k, (g, w) in enumerate(zip(got, want)):
            if not np.allclose(cp.asnumpy(g), w, rtol=1e-12, atol=1e-12 * np.abs(w).max()):
                problems.append(f"`{text}` order {k}: CuPy differs from NumPy")
        t_cp = best_time(lambda c=code: eval(c, cp_ns, {"x": data}), sync, args.repeat)
        t_g = best_time(gradcli, sync, args.repeat)
        peer = torch_run(text, xs)
        t_t = best_time(peer, sync_all(sync), args.repeat) if peer else float("nan")
        print(f"| `{text}` | {t_cp * 1e3:.3f} ms | {t_g * 1e3:.3f} ms | {t_g / t_cp:.1f} "
              f"| {t_t * 1e3:.3f} ms | {t_t / t_cp:.1f} |")
    print()
    for p in problems:
        print(p)
    return 1 if problems else 0


def sync_all(sync: Callable[[], None]) -> Callable[[], None]:
    """CuPy's synchronize and, for PyTorch's streams, torch.cuda.synchronize."""
    import torch

    def both() -> None:
        sync()
        torch.cuda.synchronize()

    return both


if __name__ == "__main__":
    sys.exit(main())
