"""What computes now: the operation a floating-point warning names (fpe.py).

The places that run operations say so explicitly, and fpe.py reads it only
when NumPy reports an error:

* ``NOW.op`` is the Function whose forward runs (set around each forward by
  graph.py and ops.py's fast paths);
* ``NOW.owner`` is the operation that everything running now belongs to, in
  the user's words: a Function being differentiated (``NOW.derivative``; set
  by the backward passes: asin's derivative failing in its ``**`` is asin's
  warning), or a built-in made of other operations (``builtin("mean")``). The
  outermost owner counts.
* Taylor mode names its steps with ``operation`` and ``rename``: per thread,
  since its block workers run side by side, and ahead of ``NOW``.

``NOW`` is one plain object rather than thread-local: it is set around every
operation, where a thread-local costs as much as a tenth of a scalar operation.
Only Taylor mode's workers compute on other threads, and they name their own.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from typing import Any


class Running:
    __slots__ = ("op", "owner", "derivative")

    def __init__(self) -> None:
        self.op: Any = None  # a Function
        self.owner: Any = None  # a Function, or a name
        self.derivative = False


NOW = Running()

_local = threading.local()


@contextlib.contextmanager
def builtin(name: str) -> Iterator[None]:
    """The operations inside are the built-in ``name``'s (``linspace``, ``mean``)."""
    if NOW.owner is not None:
        yield
        return
    NOW.owner, NOW.derivative = name, False
    try:
        yield
    finally:
        NOW.owner = None


@contextlib.contextmanager
def operation(label: str, derivative: bool = False) -> Iterator[None]:
    """This thread's operations inside are ``label``'s (a derivative's, with
    ``derivative``); an inner ``operation`` names its own, and ``rename``
    changes this one's name."""
    outer = getattr(_local, "named", None)
    _local.named = (label, derivative)
    try:
        yield
    finally:
        _local.named = outer


def rename(label: str, derivative: bool = False) -> None:
    """Name the innermost ``operation`` anew (a loop's step by step)."""
    _local.named = (label, derivative)


def current() -> tuple[Any, bool]:
    """(what computes now: a label, a Function or None; whether a derivative of it)."""
    named = getattr(_local, "named", None)
    if named is not None:
        return named
    if NOW.owner is not None:
        return NOW.owner, NOW.derivative
    return NOW.op, False
