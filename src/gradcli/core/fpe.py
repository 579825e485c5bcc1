"""NumPy floating-point errors turned into gradcli's own warnings.

NumPy reports ``log(-1)`` or ``1/0`` as a RuntimeWarning that names a ufunc,
not the user's operation. Inside ``capture_fp_errors`` NumPy calls back on
each error instead; the callback finds the operation being computed (the
Function whose ``forward`` or ``backward`` is on the stack, or a frame that
names one in a local ``fpe_op``) and records one message per operation and
kind. The hot path pays nothing: the stack is only inspected when an error
has happened.
"""

from __future__ import annotations

import contextlib
import functools
import sys
import threading
from collections.abc import Iterator

import numpy as np

from .graph import Function
from .registry import REGISTRY

NAN_RESULT = "the result is nan"
INF_RESULT = "the result is infinite"
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
        values = entry.call(np.array(_PROBES))
    values = np.asarray(getattr(values, "data", values), dtype=float)
    return not bool(np.isnan(values).any())


def _invalid(op: str, derivative: bool) -> str:
    """The words for a nan that ``op`` made (``derivative``: in computing a
    derivative of it, where its value was a number)."""
    if op in _UNDEFINED:
        return f"{_UNDEFINED[op]}; {NAN_RESULT}"
    if derivative:
        # 0 * inf or inf - inf midway (sqrt's derivative at 0 times a zero), never
        # a domain left: the value is the forward pass's, and was a number
        return f"a derivative is undefined here; {NAN_RESULT}"
    if _total(op):
        return f"undefined where a value is infinite; {NAN_RESULT}"
    return _DESCRIPTIONS["invalid"]


def op_label(func: Function) -> str:
    name = type(func).op_name or type(func).__name__.lower()
    return f"'{name}'" if not name[0].isalpha() else name


_BACKWARD = {"backward", "_backward", "_backward_data"}  # the methods that differentiate


def _current_op() -> tuple[str, bool]:
    """(operation, whether a derivative of it was being computed).

    The operation is the outermost Function on the stack inside the innermost
    frame that names an operation (``fpe_op``), or that name; but the user
    wrote neither the operations a derivative is made of nor those a built-in
    is made of: inside a Function's backward that Function is the operation
    (asin's derivative failing in its ``**`` is asin's warning), and a
    built-in such as linspace or mean (a frame naming itself ``fpe_builtin``)
    is its own. A derivative is being computed in a Function's backward and
    in a frame that says so (``fpe_derivative``: Taylor mode's replay).
    """
    frame = sys._getframe(2)
    label = found = None
    derivative = False
    while frame is not None:
        local = frame.f_locals
        builtin = local.get("fpe_builtin")
        if isinstance(builtin, str):
            return builtin, False
        owner = local.get("self")
        if found is None:
            named = local.get("fpe_op")
            if isinstance(named, str):
                found = label or named
                # a backward naming its own arithmetic (Pow's on arrays) differentiates
                derivative = derivative or bool(local.get("fpe_derivative")) \
                    or frame.f_code.co_name in _BACKWARD
            elif isinstance(owner, Function):
                label = op_label(owner)
                derivative = frame.f_code.co_name in _BACKWARD
        elif isinstance(owner, Function) and frame.f_code.co_name in _BACKWARD:
            # the operations a derivative is made of ('*' of sqrt's) are not the
            # user's: the Function being differentiated is
            return op_label(owner), True
        frame = frame.f_back
    return found or label or "arithmetic", derivative


@contextlib.contextmanager
def capture_fp_errors() -> Iterator[list[str]]:
    """Collect one message per (operation, kind) of floating-point error."""
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
    try:
        with np.errstate(divide="call", invalid="call", over="call", under="ignore"):
            yield messages
    finally:
        np.seterrcall(old_call)
