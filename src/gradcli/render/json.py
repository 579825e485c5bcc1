"""The JSON format: one strict JSON object per statement (JSON Lines).

Each line is ``Result.to_dict()`` with the non-finite numbers NaN, +inf and
-inf written as the strings "nan", "inf" and "-inf", so ``json.dumps`` runs
with ``allow_nan=False`` and any JSON parser reads the output. Numbers keep
full precision (Python writes the shortest text that reads back to the same
float64) and the text is ASCII (``ensure_ascii``).

``render_json_rows`` (``--rows``) writes a result over the points of a sweep
as one object a point instead: the same keys, each number the point's own,
and ``at`` the point's --at values (render/sweep.py says which results are
per point; any other is its one object, as by default).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from ..results import Result, to_plain
from .numbers import CHUNK, LARGE, empty_text
from .sweep import flat, point_errors, point_shape


def strict(obj: Any) -> Any:
    """``obj`` with every non-finite float replaced by "nan", "inf" or "-inf"."""
    if isinstance(obj, float):
        if math.isfinite(obj):
            return obj
        if math.isnan(obj):
            return "nan"
        return "inf" if obj > 0 else "-inf"
    if isinstance(obj, dict):
        return {k: strict(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        if obj and type(obj[0]) is float:
            try:  # one pass in C for a list of finite numbers, the common case
                if all(map(math.isfinite, obj)):
                    return obj
            except TypeError:  # not all numbers
                pass
        return [strict(v) for v in obj]
    return obj


def render_json(res: Result) -> str:
    """One line of JSON for one statement (its error object if it failed)."""
    return json.dumps(strict(res.to_dict()), allow_nan=False)


def json_pieces(res: Result) -> Iterator[str]:
    """``render_json(res)``, byte for byte, as pieces: a large array is written
    CHUNK numbers at a time, so ten million numbers never exist as Python
    floats at once (a list of them takes four times the array's memory). An
    empty array of more than SUMMARY_SIZE empty rows is the string of its
    shape, ``"[] (shape 10000000x0)"``, as the text formats write it."""
    arrays = list(_arrays(res))
    if sum(np.size(a) for a in arrays) <= LARGE and not any(np.ndim(a) > 1 and np.size(a) == 0
                                                             for a in arrays):
        yield render_json(res)
        return
    yield from _pieces(res.to_dict(plain=_raw))


def _arrays(res: Result) -> Iterator[Any]:
    yield res.value if not isinstance(res.value, dict) else 0
    yield from res.derivatives or ()
    yield from (res.gradient or {}).values()
    yield from res.series or ()
    for c in res.check or ():
        yield c.autodiff


def _raw(a: Any) -> Any:
    arr = np.asarray(a)
    if arr.size == 0 and arr.ndim > 1 and empty_text(arr.shape).startswith("[] "):
        return empty_text(arr.shape)  # its shape, not millions of empty lists
    if arr.ndim == 0 or arr.dtype.kind not in "fb":  # a number, or a kind to_plain words
        return to_plain(arr)
    return arr


def _pieces(obj: Any) -> Iterator[str]:
    if isinstance(obj, np.ndarray):
        yield from _array_pieces(obj)
    elif isinstance(obj, dict):
        yield "{"
        for i, (key, value) in enumerate(obj.items()):
            yield (", " if i else "") + json.dumps(key) + ": "
            yield from _pieces(value)
        yield "}"
    elif isinstance(obj, list) and any(isinstance(v, (np.ndarray, dict)) for v in obj):
        yield "["
        for i, value in enumerate(obj):
            if i:
                yield ", "
            yield from _pieces(value)
        yield "]"
    else:
        yield json.dumps(strict(obj), allow_nan=False)


def _array_pieces(a: np.ndarray) -> Iterator[str]:
    if a.ndim > 1:
        yield "["
        for i in range(a.shape[0]):
            if i:
                yield ", "
            yield from _array_pieces(a[i])
        yield "]"
        return
    yield "["
    for start in range(0, a.size, CHUNK):
        part = a[start : start + CHUNK]
        if a.dtype.kind == "b":
            texts = ["true" if v else "false" for v in part.tolist()]
        else:
            part = part.astype(np.float64, copy=False)
            texts = list(map(repr, part.tolist()))
            if not np.isfinite(part).all():
                for i in np.flatnonzero(~np.isfinite(part)).tolist():
                    v = part[i]
                    texts[i] = '"nan"' if np.isnan(v) else '"inf"' if v > 0 else '"-inf"'
        yield (", " if start else "") + ", ".join(texts)
    yield "]"


def render_json_rows(res: Result, sweep: Sequence[str]) -> str:
    """One line of JSON a point of a sweep (``sweep``: the --at names), or the
    result's one line where it is not over the points; no final newline."""
    shape = point_shape(res, sweep)
    if shape is None:
        return render_json(res)
    columns = {}

    def column(a: object) -> list:
        key = id(a)
        if key not in columns:
            columns[key] = to_plain(flat(a, shape))
        return columns[key]

    at = {n: column(v) for n, v in res.at.items() if np.shape(v) in ((), shape)}
    value = column(res.value)
    ds = [column(d) for d in res.derivatives or ()]
    # a partial derivative of the sum (by a scalar) is no point's own
    grads = {k: column(g) for k, g in (res.gradient or {}).items() if np.shape(g) == shape}
    series = [column(c) for c in res.series or ()]
    checks = [(c, column(c.autodiff), column(c.numerical),
               *(to_plain(flat(e, shape)) for e in point_errors(c)),
               _each(c.est_errors, c.est_error, shape), _each(c.point_ok, c.ok, shape, True))
              for c in res.check or ()]
    lines = []
    for i in range(int(np.prod(shape))):
        out: dict[str, Any] = {"input": res.input, "at": {n: v[i] for n, v in at.items()}}
        if res.wrt is not None:
            out["wrt"] = res.wrt
        out["value"] = value[i]
        if ds:
            out["derivatives"] = [d[i] for d in ds]
        if res.gradient is not None:
            out["gradient"] = {k: g[i] for k, g in grads.items()}
        if res.check is not None:
            out["check"] = [{**({} if c.variable is None else {"variable": c.variable}),
                             "order": c.order, "autodiff": a[i], "numerical": n[i],
                             "abs_error": e[i], "rel_error": r[i],
                             "est_error": s[i], "ok": ok[i]}
                            for c, a, n, e, r, s, ok in checks]
        if res.series is not None:
            out["series"] = [c[i] for c in series]
        lines.append(json.dumps(strict(out), allow_nan=False))
    return "\n".join(lines)


def _each(values: Any, overall: Any, shape: tuple[int, ...], verdicts: bool = False) -> list:
    """A check entry's per-point values (``verdicts``: True, False or None for
    1, 0, nan), or its one value at every point where it has none."""
    if values is None:
        return [overall] * int(np.prod(shape))
    points = flat(values, shape).tolist()
    if verdicts:
        return [None if v != v else bool(v) for v in points]
    return points


def error_json(input_text: str, kind: str, message: str,
               line: int | None = None, column: int | None = None) -> str:
    """A JSON error object for a failure that has no Result (``--at``, ``--device``)."""
    error: dict[str, Any] = {"kind": kind, "message": message}
    if line is not None:
        error["line"] = line
        error["column"] = column
    return json.dumps({"input": input_text, "error": error}, allow_nan=False)


__all__ = ["error_json", "render_json", "render_json_rows", "strict"]
