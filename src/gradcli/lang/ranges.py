"""Ranges written ``start:stop:step`` (``--at x=0:1:0.25``) and ``start:stop``
(``--over x=0:2pi``).

The ends and the step are expressions (``0:2pi``, ``-pi:pi:pi/4``): the text
splits at colons outside brackets only, since a slice ``A[0:2]`` holds one.
The parts are evaluated by a callback the caller passes (a Session's
evaluator), so this module knows nothing of the evaluator, and never hands
user text to Python.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from ..errors import LimitError, UsageError
from ..limits import MAX_ELEMENTS as MAX_POINTS  # a range is one array; 1e-9 over 0:1 a typo

LANDS = 1e-9
"""How near, relative to the step, the last step must end to stop for the stop
to be included: 0:1:0.1 takes ten steps of 0.1, whose sum is 0.9999999999999999."""


def split_range(text: str) -> list[str]:
    """``text`` split at its colons outside brackets, each part stripped:
    ``"0:2pi"`` -> ``["0", "2pi"]``; one part when it has no such colon."""
    parts, depth, start = [], 0, 0
    for i, char in enumerate(text):
        if char in "([":
            depth += 1
        elif char in ")]":
            depth = max(0, depth - 1)
        elif char == ":" and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
    parts.append(text[start:].strip())
    return parts


def is_range(text: str) -> bool:
    """Whether ``text`` is written as a range (has a colon outside brackets)."""
    return len(split_range(text)) > 1


def range_points(start: float, stop: float, step: float) -> np.ndarray:
    """start, start + step, ... up to stop, with stop itself where the steps land
    on it within rounding (0:1:0.25 is 0, 0.25, 0.5, 0.75, 1; 0:1:0.3 ends at
    0.9). The points are ``start + k*step`` (no error accumulates), the last
    one exactly ``stop`` when it lands. A UsageError for a zero or non-finite
    step or ends, or a step that leads away from stop."""
    for what, v in (("start", start), ("stop", stop), ("step", step)):
        if not math.isfinite(v):
            raise UsageError(f"the range's {what} is {v}; it must be a finite number")
    if step == 0:
        raise UsageError("the range's step is 0; give a step other than 0")
    span = stop - start
    if span != 0 and (span > 0) != (step > 0):
        raise UsageError(f"the step {_num(step)} leads away from the stop {_num(stop)}; "
                         f"use {_num(-step)} to go from {_num(start)} to {_num(stop)}")
    steps = span / step
    whole = round(steps)
    lands = abs(steps - whole) <= LANDS * max(1.0, abs(steps))
    count = (whole if lands else math.floor(steps)) + 1
    if count > MAX_POINTS:
        raise LimitError(f"the range has {count:,} points, more than {MAX_POINTS:,}; "
                         "use a larger step")
    points = start + step * np.arange(count, dtype=np.float64)
    if lands:
        points[-1] = stop
    return points


def at_range(name: str, text: str, evaluate: Callable[[str], float]) -> np.ndarray | None:
    """The points of ``--at name=text`` when ``text`` is a range, else None.

    ``evaluate`` turns each part's text into a number (raising the evaluator's
    errors, with their columns relative to that part). ``x=0:1`` without a
    step is a UsageError that suggests one, or linspace.
    """
    parts = split_range(text)
    if len(parts) == 1:
        return None
    if len(parts) == 2:
        a, b = parts
        raise UsageError(
            f"{name}={text} has no step; write {name}={a}:{b}:STEP (as in "
            f"{name}={a}:{b}:0.1), or {name}=linspace({a}, {b}, N) for N points")
    if len(parts) > 3 or not all(parts):
        raise UsageError(f"{name}={text} is not a range; write {name}=START:STOP:STEP, "
                         f"as in {name}=0:1:0.25")
    start, stop, step = (evaluate(p) for p in parts)
    return range_points(start, stop, step)


def over_range(name: str, text: str,
               evaluate: Callable[[str], float]) -> tuple[float, float]:
    """The ends (a, b) of ``--over name=A:B``; a UsageError unless it is two
    expressions around one colon, a < b, both finite."""
    parts = split_range(text)
    if len(parts) != 2 or not all(parts):
        raise UsageError(f"{name}={text} is not an interval; write {name}=A:B, "
                         f"as in {name}=0:2pi")
    a, b = (evaluate(p) for p in parts)
    if not (math.isfinite(a) and math.isfinite(b)):
        raise UsageError(f"the interval {name}={text} has an end that is not a finite number")
    if not a < b:
        raise UsageError(f"the interval {name}={text} is empty: its start {_num(a)} is not "
                         f"below its end {_num(b)}")
    return a, b


def _num(v: float) -> str:
    text = repr(float(v))
    return text[:-2] if text.endswith(".0") else text


__all__ = ["MAX_POINTS", "at_range", "is_range", "over_range", "range_points", "split_range"]
