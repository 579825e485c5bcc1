"""Numbers and arrays as text, shared by every text renderer.

Full precision is the shortest text that reads back to the same float64
(Python's ``repr``), without a trailing ``.0`` on whole numbers, as bc and
qalc print them. ``digits`` rounds to that many significant digits.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
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
    return "".join(value_pieces(value, digits))


def value_pieces(value: Any, digits: int | None = None) -> Iterator[str]:
    """``format_value``'s text in pieces of at most CHUNK numbers each, so that
    the text of a large array never exists whole (renderers write each piece
    as it comes)."""
    arr = np.asarray(value)
    if arr.ndim == 0:
        if arr.dtype.kind == "b":
            yield str(bool(arr))
        else:
            yield format_number(arr.item(), digits)
    elif arr.size == 0:
        yield empty_text(arr.shape)
    elif arr.dtype.kind in "fiu":
        yield from _array_pieces(arr.astype(np.float64, copy=False), digits)
    else:
        yield "[" + ", ".join(format_value(item, digits) for item in arr) + "]"


def empty_text(shape: tuple[int, ...]) -> str:
    """An empty array's text: its nested brackets, ``[[], []]``, where they are
    few, else ``[] (shape 10000000x0)``, so that printing it takes time bounded
    by its size, not by the count of its empty rows."""
    rows = 1
    for k, n in enumerate(shape):
        if n == 0:
            if rows > SUMMARY_SIZE:
                return f"[] (shape {'x'.join(map(str, shape))})"
            return _nested(["[]"] * rows, shape[:k]) if k else "[]"
        rows *= n
    raise ValueError("empty_text: not an empty shape")


SUMMARY_SIZE = 1000
"""Arrays larger than this are summarised where people read them (tables on a
terminal, the REPL): NumPy's threshold, past which nobody reads every number."""


def format_summary(value: Any, digits: int | None = None, edge: int = 3) -> str:
    """format_value, or for an array of more than SUMMARY_SIZE elements its first
    and last ``edge`` items along each axis around "...", as NumPy prints, and
    its size: ``[0, 1e-05, 2e-05, ..., 0.99998, 0.99999, 1] (100001 values)``."""
    arr = np.asarray(value)
    if arr.size <= SUMMARY_SIZE or arr.dtype.kind not in "fiub":
        return format_value(arr, digits)

    def items(a: np.ndarray) -> str:
        if a.ndim == 0:
            return format_value(a, digits)
        if a.shape[0] > 2 * edge:
            inner = [items(b) for b in a[:edge]] + ["..."] + [items(b) for b in a[-edge:]]
        else:
            inner = [items(b) for b in a]
        return "[" + ", ".join(inner) + "]"

    if arr.ndim == 1:
        return f"{items(arr)} ({arr.size} values)"
    return f"{items(arr)} (shape {'x'.join(str(n) for n in arr.shape)})"


LARGE = 65536
"""Numbers in a result past which its text is written in pieces (JSON) and its
table, off a terminal, as labelled lines (render/table.py)."""

CHUNK = 65536
"""Numbers made into text at a time: a Python string per number lives only
while its chunk is joined, so ten million numbers never exist as ten million
strings at once (about 70 bytes each)."""


def _array_pieces(arr: np.ndarray, digits: int | None) -> Iterator[str]:
    """A non-empty float64 array's nested brackets, whole rows of its last axis
    (at least one, at most about CHUNK numbers) a piece."""
    flat = arr.reshape(-1)
    if arr.ndim == 1:
        yield "["
        for i in range(0, flat.size, CHUNK):
            yield (", " if i else "") + ", ".join(number_texts(flat[i : i + CHUNK], digits))
        yield "]"
        return
    n = arr.shape[-1]
    outer = arr.shape[:-1]
    rows = flat.size // n
    step = max(1, CHUNK // n)  # whole rows of the last axis
    spans = [int(np.prod(outer[k:])) for k in range(len(outer) - 1, -1, -1)]  # innermost first
    for r0 in range(0, rows, step):
        r1 = min(rows, r0 + step)
        texts = number_texts(flat[r0 * n : r1 * n], digits)
        parts = ["[" + ", ".join(texts[j : j + n]) + "]" for j in range(0, len(texts), n)]
        # a row opens the brackets of each outer axis it starts, closes those it ends
        r = np.arange(r0, r1)
        opens, closes = np.zeros(r.size, int), np.zeros(r.size, int)
        starts, ends = np.ones(r.size, bool), np.ones(r.size, bool)
        for span in spans:
            starts &= r % span == 0
            ends &= (r + 1) % span == 0
            opens += starts
            closes += ends
        for i in np.flatnonzero(opens | closes).tolist():
            parts[i] = "[" * int(opens[i]) + parts[i] + "]" * int(closes[i])
        yield (", " if r0 else "") + ", ".join(parts)


def number_texts(flat: np.ndarray, digits: int | None) -> list[str]:
    """format_number of each element of a 1-D float64 array, fast: a million
    numbers are a few seconds of Python as one call each, and ``repr`` is
    already the text of all but non-finite, whole and negative-zero numbers."""
    if digits is not None:
        return [format_number(v, digits) for v in flat.tolist()]
    with np.errstate(invalid="ignore"):
        # repr writes whole numbers below 1e16 with a trailing .0, and -0.0:
        # those are written as integers (zeros(1e7) was ten million calls)
        whole = (flat == np.trunc(flat)) & (np.abs(flat) < 1e16)
    finite = np.isfinite(flat)
    if whole.all():
        return list(map(str, flat.astype(np.int64).tolist()))
    texts = list(map(repr, flat.tolist()))
    at = np.flatnonzero(whole)
    for i, text in zip(at.tolist(), map(str, flat[at].astype(np.int64).tolist())):
        texts[i] = text
    for i in np.flatnonzero(~finite).tolist():
        texts[i] = format_number(flat[i])
    return texts


def _nested(texts: list[str], shape: tuple[int, ...]) -> str:
    """Texts in C order as nested brackets of ``shape`` (no zero-length axis)."""
    for n in reversed(shape):
        texts = ["[" + ", ".join(texts[i : i + n]) + "]" for i in range(0, len(texts), n)]
    return texts[0]
