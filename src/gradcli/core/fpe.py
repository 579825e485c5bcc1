"""NumPy floating-point errors turned into gradcli's own warnings.

NumPy reports ``log(-1)`` or ``1/0`` as a RuntimeWarning that names a ufunc,
not the user's operation. Inside ``capture_fp_errors`` NumPy calls back on
each error instead; the callback asks running.py which operation is being
computed (as the code that runs it named it) and records one message per
operation and kind.
"""

from __future__ import annotations

import contextlib
import functools
import threading
from collections.abc import Iterator
from typing import Any

import numpy as np

from .registry import REGISTRY
from .running import current

NAN_RESULT = "the result is nan"
INF_RESULT = "the result is infinite"
DERIVATIVE_UNDEFINED = f"a derivative is undefined here; {NAN_RESULT}"
"""How a message ends, by the kind of number it warns of (session.py keeps only
the warnings of a kind some result holds)."""

_DESCRIPTIONS = {
    "divide": f"division by zero; {INF_RESULT}",
    "invalid": f"argument outside the domain; {NAN_RESULT}",
    "overflow": f"overflow; {INF_RESULT}",
}


_DIVISIONS = {"'/'", "'**'", "arithmetic"}  # 0**-1 divides too

_UNDEFINED = {
    "'+'": "inf - inf is undefined",
    "'-'": "inf - inf is undefined",
    "'*'": "0 * inf is undefined",
    "'/'": "0/0 or inf/inf is undefined",
    "mean": "inf - inf is undefined",
    "linspace": "an infinite end leaves points undefined",
}
"""The only ways an arithmetic operation (or a built-in made of them) makes a
nan: no domain was left."""

_PROBES = (-1e300, -10.0, -1.5, -1.0, -0.5, 0.0, 0.5, 1.0, 1.5, 10.0, 1e300)


@functools.cache
def _total(op: str) -> bool:
    """Whether ``op`` is a built-in function of one argument that has a value at
    every real number (exp, sin, tanh: the registry's forward gives no nan at
    any probe), so that a nan it makes came from an infinity, not its domain."""
    entry = REGISTRY.get(op)
    if entry is None or entry.kind != "elementwise" or entry.min_args != 1:
        return False
    with np.errstate(all="ignore"):
        # the forward alone: no Function call, which would name itself as running
        values = entry.function().forward(np.array(_PROBES))
    values = np.asarray(values, dtype=float)
    return not bool(np.isnan(values).any())


def _invalid(op: str, derivative: bool) -> str:
    """The words for a nan that ``op`` made (``derivative``: in computing a
    derivative of it, where its value was a number)."""
    if op in _UNDEFINED:
        return f"{_UNDEFINED[op]}; {NAN_RESULT}"
    if derivative:
        # 0 * inf or inf - inf midway (sqrt's derivative at 0 times a zero), never
        # a domain left: the value is the forward pass's, and was a number
        return DERIVATIVE_UNDEFINED
    if _total(op):
        return f"undefined where a value is infinite; {NAN_RESULT}"
    return _DESCRIPTIONS["invalid"]


def op_label(func: Any) -> str:
    """How a warning names a Function: its operator in quotes ('/'), or its name."""
    name = type(func).op_name or type(func).__name__.lower()
    return f"'{name}'" if not name[0].isalpha() else name


def _current_op() -> tuple[str, bool]:
    """(the operation computing now, whether a derivative of it), as running.py
    has it named."""
    what, derivative = current()
    if what is None:
        return "arithmetic", False
    return (what if isinstance(what, str) else op_label(what)), derivative


_CAPTURING: list[tuple[list[str], threading.Lock]] = []
"""The message lists of the capture_fp_errors now open, innermost last."""


def report(message: str) -> None:
    """A warning that is not a floating-point error (a derivative taken at a
    jump of floor): to the innermost capture_fp_errors's messages, once, or
    where none is open, a NumericWarning."""
    if _CAPTURING:
        messages, lock = _CAPTURING[-1]
        with lock:
            if message not in messages:
                messages.append(message)
        return
    import warnings

    from ..errors import NumericWarning

    warnings.warn(NumericWarning(message), stacklevel=3)


@contextlib.contextmanager
def capture_fp_errors() -> Iterator[list[str]]:
    """Collect one message per (operation, kind) of floating-point error, and
    those given to ``report``."""
    messages: list[str] = []
    lock = threading.Lock()  # a blockwise replay's threads report here side by side

    def handler(err: str, flag: int) -> None:
        kind = err.split()[0] if err else "invalid"
        kind = {"divide": "divide", "overflow": "overflow", "invalid": "invalid"}.get(
            kind, "invalid"
        )
        op, derivative = _current_op()
        if kind == "divide" and (op not in _DIVISIONS or derivative and op == "'**'"):
            # NumPy's flag for log(0) and atanh(1) too, where nothing was divided;
            # sqrt(x) at 0 is 0, and only its derivatives are infinite (x^0.5's
            # too: its derivative divides by 0, the user did not)
            what = "a derivative is infinite" if derivative else "infinite"
            msg = f"{op}: {what} at a singularity; {INF_RESULT}"
        elif kind == "invalid":
            msg = f"{op}: {_invalid(op, derivative)}"
        elif derivative:  # 1/x at 1e-200 is 1e200; its derivative overflows
            msg = f"{op}: a derivative overflows; {INF_RESULT}"
        else:
            msg = f"{op}: {_DESCRIPTIONS[kind]}"
        with lock:
            if msg not in messages:
                messages.append(msg)

    old_call = np.seterrcall(handler)
    _CAPTURING.append((messages, lock))
    try:
        with np.errstate(divide="call", invalid="call", over="call", under="ignore"):
            yield messages
    finally:
        _CAPTURING.remove((messages, lock))
        np.seterrcall(old_call)
