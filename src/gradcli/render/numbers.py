"""Numbers and arrays as text, shared by every text renderer.

Full precision is the shortest text that reads back to the same float64
(Python's ``repr``), without a trailing ``.0`` on whole numbers, as bc and
qalc print them. ``digits`` rounds to that many significant digits.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np


def format_number(x: float, digits: int | None = None) -> str:
    x = float(x)
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    if digits is not None:
        text = f"{x:.{digits}g}"
    else:
        text = repr(x)
    if text.endswith(".0"):
        text = text[:-2]
    if text == "-0":
        text = "0"
    return text


def format_value(value: Any, digits: int | None = None) -> str:
    """A scalar as a number, an array as nested brackets on one line: [1, 2.5, 3]."""
    arr = np.asarray(value)
    if arr.ndim == 0:
        if arr.dtype.kind == "b":
            return str(bool(arr))
        return format_number(arr.item(), digits)
    return "[" + ", ".join(format_value(item, digits) for item in arr) + "]"
