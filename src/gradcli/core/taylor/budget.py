"""The memory a replay will take, counted before it allocates (core/memory.py
holds the limit): orders times elements times the rows Taylor mode keeps.

A replay over whole arrays keeps every node's rows to its end (up to n rows
of the node's size each), then the result scaled (a copy). A
blockwise replay keeps the result (n rows of x's size) and y's values, and
each thread a block's worth of the rows alive at once (the plan's live
slots, plus a rule's scratch) and of the forward values. _scaled's look for
underflowed coefficients takes about 3 bytes more per order and element.
"""

from __future__ import annotations

from typing import Any

from ..memory import check_memory
from .replay import Plan as _Plan

SMALL = 64 << 20
"""Requests that cannot reach this many bytes are not counted (the scalar path
pays nothing)."""

_SCRATCH_ROWS = 3  # a rule's own rows besides its inputs' and output's (tmp, -1/b0)


def _live_peak(plan: _Plan) -> int:
    """The most slots whose rows a blockwise replay holds at once."""
    live: set[int] = set()
    peak = 0
    for (*_, at), dead in zip(plan.steps, plan.dead()):
        live.add(at)
        peak = max(peak, len(live))
        live.difference_update(dead)
    return peak


def replay_bytes(plan: _Plan, n: int, itemsize: int) -> int:
    x_size = plan.variables[0].data.size
    rows = sum(plan.variables[at].data.size for *_, at in plan.steps)
    out = max(plan.variables[plan.y_at].data.size, x_size)
    return (n * rows + n * out) * itemsize + 3 * n * out


def blockwise_bytes(plan: _Plan, n: int, size: int, itemsize: int, chunk: int,
                    threads: int) -> int:
    block = min(chunk, size)
    per_thread = ((_live_peak(plan) + _SCRATCH_ROWS) * n + len(plan.steps)) * block * itemsize
    return (n + 1) * size * itemsize + threads * per_thread + 3 * n * size


def check(plan: _Plan, n: int, itemsize: int, size: int | None = None,
          chunk: int = 0, threads: int = 1) -> None:
    """LimitError before a replay to order n that would need more memory than
    allowed: over whole arrays, or (given ``size``, the points) block by block."""
    points = plan.variables[0].data.size if size is None else size
    widest = max([points] + [plan.variables[at].data.size for *_, at in plan.steps])
    if (n + 4) * widest * (len(plan.steps) + 4) * itemsize < SMALL:
        return
    needed = replay_bytes(plan, n, itemsize) if size is None else \
        blockwise_bytes(plan, n, size, itemsize, chunk, threads)
    check_memory(needed, points, n)


def itemsize_of(dtype: Any) -> int:
    return int(getattr(dtype, "itemsize", 8))
