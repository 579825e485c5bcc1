"""Large elementwise expressions replayed block by block, each block's forward
pass and series together while they are in the cache, in threads."""

from __future__ import annotations

import os
import threading
from typing import Any

import numpy as np

from ..running import operation, rename
from . import budget
from .replay import Plan, is_elementwise, replay_plan
from .rows import Arena, aligned_empty, block_state, float_dtype
from .scaling import derivative_factors
from .threads import NEVER, run_parts

CHUNK = 81920
"""Elements per block when a large elementwise expression is replayed block by
block. A row of a block is 640 KiB: a rule's few live rows stay in the cache
across its whole-row operations, and each NumPy call is long enough that
handing the GIL between the threads at its start and end costs little. With
two threads, 16,384-element blocks took twice as long as with one, and on the
2026-11-26 machine 81,920 and 98,304 were the fastest of 8,192 to 131,072
(32,768 took 17-47% longer; 131,072 lost the cache for
exp(sin(x))*log(1+x**2), 47% longer)."""

CHUNK_MIN = 131072
"""Arrays at least this large (NumPy only) are replayed in blocks: each block's
temporaries stay in cache and are reused, where whole-array temporaries would
each cost a trip through memory (and page faults for every new buffer)."""

THREADS = min(8, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
              else os.cpu_count() or 1)
"""Threads that replay blocks side by side (at most one per two blocks): the
CPUs this process may use, up to 8. 1 replays every block in this thread."""


def blockwise(values: Any) -> bool:
    """Whether an x holding ``values`` is large enough to be replayed block by
    block (a NumPy float array of at least CHUNK_MIN elements)."""
    return type(values) is np.ndarray and values.dtype.kind == "f" and values.size >= CHUNK_MIN


def plan_blockwise(plan: Plan) -> bool:
    """Whether the replay can run block by block: NumPy, large, elementwise, every
    node of x's shape and every constant either one number or of x's shape."""
    return blockwise(plan.variables[0].data) and is_elementwise(plan)


def coefficients_blockwise(plan: Plan, n: int, derivatives: bool, dtype: Any, s: float,
                            values: Any = None) -> tuple[Any, Any]:
    """(value, coefficients): the replay run block by block on x's recorded values,
    value None; or, given ``values``, on them, each block's forward pass computed
    (by each step's Function) before its series, and value y at ``values``."""
    x0 = plan.variables[0].data if values is None else values
    size = x0.size
    # every value flat, one-element constants as 0-d arrays that broadcast
    flat = [a.reshape(()) if a.size == 1 else np.ravel(a) for a in plan.data()]
    if values is None:
        whole = [i for i, a in enumerate(flat) if a.ndim]
        forward = ()
    else:
        flat[0] = np.ravel(values)
        whole = [0]
        forward = [(label, type(f).ufunc, f.forward, ins, at, plan.variables[at].data.dtype)
                   for label, f, _, _, _, ins, at in plan.steps]
    seed = np.full((1, 1), s, dtype=float_dtype(x0))
    starts = range(0, size, CHUNK)
    threads = max(1, min(THREADS, len(starts) // 2))
    budget.check(plan, n, np.dtype(dtype).itemsize, size, CHUNK, threads)  # before allocating
    coef = aligned_empty((n, size), dtype)
    value = None if values is None else aligned_empty(size, plan.variables[plan.y_at].data.dtype)
    y_at = plan.y_at
    col = np.array(derivative_factors(n, s)).reshape(n, 1) if derivatives else None
    fixed: list[Any] = []
    lock = threading.Lock()

    def limits() -> Any:
        """Where y's values go when a limit changed some (y's recorded ones copied)."""
        if value is not None:
            return value
        with lock:
            if not fixed:
                fixed.append(np.array(plan.variables[y_at].data).reshape(-1))
            return fixed[0]

    @operation("derivative")  # fpe.py: k! * c_k may overflow
    def run(mine: range, cancel: threading.Event) -> None:
        arena = Arena()
        outer = getattr(block_state, "arena", None)
        block_state.arena = arena
        block_state.factorials = derivatives and s == 1.0  # k! c_k, for a seed of slope 1
        try:
            for lo in mine:
                hi_ = min(lo + CHUNK, size)
                data = flat.copy()
                for i in whole:
                    data[i] = flat[i][lo:hi_]
                arena.reset()
                # a ufunc writes into the block arena, and y into its place in value:
                # no new array and no copy per block (fpe.py names the step's label)
                for j, (label, ufunc, fwd, ins, at, dt) in enumerate(forward):
                    rename(label)
                    if ufunc is None:
                        data[at] = fwd(*[data[i] for i in ins])
                        if at == y_at:
                            value[lo:hi_] = data[at]
                    else:
                        out = value[lo:hi_] if at == y_at else arena.value(j, (hi_ - lo,), dt)
                        data[at] = ufunc(*[data[i] for i in ins], out=out)
                rename("derivative")  # fpe.py: k! * c_k may overflow
                block_state.scaled = False
                block = coef[:, lo:hi_]
                before = data[y_at]
                h = replay_plan(plan, data, seed, n, block)
                if data[y_at] is not before:  # a 0/0 replaced by its limit (singular.py)
                    limits()[lo:hi_] = data[y_at]
                d = 0 if h is None else min(h.shape[0], n)
                if h is block:  # y's rule wrote its rows in place: scale them there
                    if col is not None and not block_state.scaled:
                        if s == 1.0:
                            block[1:] *= col[1:]  # row 0 is c_1 itself (1! = 1)
                        else:
                            block *= col
                elif d:
                    if col is None:
                        block[:d] = h[:d]
                    else:
                        np.multiply(h[:d], col[:d], out=block[:d])
                if d < n:
                    block[d:] = 0
                if cancel.is_set():  # another thread failed, or Ctrl-C (threads.py)
                    return
        finally:
            block_state.arena = outer
            block_state.factorials = False

    try:
        if threads == 1:
            run(starts, NEVER)
        else:
            run_parts(run, [starts[i::threads] for i in range(threads)])
    except BaseException:
        # the traceback keeps this frame: its large arrays go now, not with it
        coef = value = None
        fixed.clear()
        raise
    if value is not None:
        value = value.reshape(x0.shape)
    elif fixed:
        value = fixed[0].reshape(x0.shape)
    return value, coef.reshape((n,) + x0.shape)


def sample(values: Any) -> Any:
    """The first block of ``values``, flat (a view): the x to record a graph on for
    taylor_derivatives_at."""
    return values.reshape(-1)[:CHUNK]
