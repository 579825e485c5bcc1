"""Graphviz DOT text of a computational graph, and rendering it with ``dot``.

The text is deterministic: nodes are numbered in the order a walk from the
output meets them (by generation, as backward visits them), never by ``id()``,
so the same formula always gives the same bytes. Function nodes carry their
class name (``Add``, ``Sin``) and variable nodes their name, as DeZero draws;
for a reader who did not write the graph, constants also show their value and
a power its exponent (``x**4`` and ``x**2`` look different). ``verbose`` adds
each variable's shape and dtype, ``values`` every variable's value.
"""

from __future__ import annotations

import heapq
import os
from typing import Any

import numpy as np

from ..errors import ToolMissingError
from .backend import as_numpy
from .graph import Constant, Function, Variable
from .ops import Pow


def _fmt_value(data: Any) -> str:
    arr = np.asarray(as_numpy(data))
    if arr.ndim == 0:
        return f"{arr.item():.6g}"
    if arr.size > 6:
        return f"[{arr.size} values]"
    text = np.array2string(arr, precision=6, separator=", ", threshold=6)
    return text.replace("\n", " ")


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')


def _var_label(v: Variable, verbose: bool, values: bool) -> str:
    parts = [v.name or ""]
    if verbose and v.data is not None:
        head = f"{parts[0]}: " if parts[0] else ""
        parts = [f"{head}{v.shape} {v.dtype}"]
    if (values or type(v) is Constant) and v.data is not None:
        value = _fmt_value(v.data)
        parts.append(f"= {value}" if parts[0] else value)
    return _join(parts)


def _func_label(f: Function) -> str:
    parts = [type(f).__name__]
    c = getattr(f, "c", None) if isinstance(f, Pow) else None
    if c is not None:  # x ** c; a Variable exponent is an input of its own
        parts.append(f"** {_fmt_value(c)}")
    return _join(parts)


def _join(parts: list[str]) -> str:
    # Each part is escaped on its own: the joint is DOT's own line break.
    return "\\n".join(_escape(p) for p in parts if p)


def walk(output: Variable) -> tuple[list[Variable], list[Function]]:
    """Variables and Functions reachable from ``output``, in a fixed order."""
    variables: list[Variable] = [output]
    seen_vars = {id(output)}
    funcs: list[Function] = []
    if output.creator is None:
        return variables, funcs
    heap = [(-output.creator.generation, 0, output.creator)]
    seen_funcs = {id(output.creator)}
    counter = 1
    while heap:
        f = heapq.heappop(heap)[2]
        funcs.append(f)
        for x in f.inputs:
            if id(x) not in seen_vars:
                seen_vars.add(id(x))
                variables.append(x)
            c = x.creator
            if c is not None and id(c) not in seen_funcs:
                seen_funcs.add(id(c))
                heapq.heappush(heap, (-c.generation, counter, c))
                counter += 1
    return variables, funcs


def get_dot_graph(output: Variable, verbose: bool = True, values: bool = False) -> str:
    """DOT text for the graph that computed ``output`` (DeZero's get_dot_graph)."""
    variables, funcs = walk(output)
    vid = {id(v): f"v{i}" for i, v in enumerate(variables)}
    fid = {id(f): f"f{i}" for i, f in enumerate(funcs)}
    lines = ["digraph g {"]
    for v in variables:
        label = _var_label(v, verbose, values)
        lines.append(f'{vid[id(v)]} [label="{label}", color=orange, style=filled]')
    for f in funcs:
        lines.append(
            f'{fid[id(f)]} [label="{_func_label(f)}", color=lightblue, style=filled, shape=box]'
        )
        for x in f.inputs:
            lines.append(f"{vid[id(x)]} -> {fid[id(f)]}")
        for ref in f.outputs:
            y = ref()
            if y is not None and id(y) in vid:
                lines.append(f"{fid[id(f)]} -> {vid[id(y)]}")
    lines.append("}")
    return "\n".join(lines) + "\n"


def count_nodes(output: Variable) -> int:
    variables, funcs = walk(output)
    return len(variables) + len(funcs)


def render_dot(dot_text: str, to_file: str) -> None:
    """Write DOT text to ``to_file``, rendered by Graphviz for .png/.svg/.pdf."""
    ext = os.path.splitext(to_file)[1][1:].lower()
    if ext == "dot" or ext == "gv":
        with open(to_file, "w", encoding="utf-8") as fh:
            fh.write(dot_text)
        return
    import graphviz  # only rendering needs it

    try:
        data = graphviz.Source(dot_text).pipe(format=ext)
    except graphviz.ExecutableNotFound:
        raise ToolMissingError(
            "Graphviz's 'dot' program was not found; install Graphviz "
            "(Debian/Ubuntu: apt-get install graphviz, macOS: brew install graphviz) "
            "or write a .dot file instead"
        ) from None
    with open(to_file, "wb") as fh:
        fh.write(data)


def plot_dot_graph(output: Variable, verbose: bool = True, to_file: str = "graph.png",
                   values: bool = False) -> None:
    """Render the graph of ``output`` to ``to_file`` (DeZero's plot_dot_graph)."""
    render_dot(get_dot_graph(output, verbose=verbose, values=values), to_file)
