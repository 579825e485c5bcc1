"""Graphs to files: ``gradcli plot`` and the REPL's ``:plot`` share this one function.

The format comes from the file's extension. ``.dot`` is the DOT text itself
and needs nothing else; ``.png .svg .pdf`` are rendered by Graphviz's ``dot``
(through ``core.dot.render_dot``, which imports the ``graphviz`` package only
then). The returned lines are for the user: the node count, and for large
graphs a warning with a way out.
"""

from __future__ import annotations

import os
import subprocess
from typing import TYPE_CHECKING

from ..errors import GradcliError, LimitError, UsageError

if TYPE_CHECKING:
    from ..figures import GraphResult

FORMATS = (".png", ".svg", ".pdf", ".dot")
# Above this many nodes a picture stops being legible: say so.
LARGE_GRAPH = 400
# Above this many nodes Graphviz's layout takes long and then minutes (1,061
# nodes took 24 s for PNG and 5 s for SVG here, 2,225 nodes 110 s for PNG):
# refuse to render, the DOT text is still there.
RENDER_LIMIT = 1000


def graph_format(path: str) -> str:
    """The extension of ``path`` (".png"), or a UsageError naming the formats."""
    ext = os.path.splitext(path)[1].lower()
    if ext not in FORMATS:
        listed = " ".join(FORMATS)
        what = f"'{ext}'" if ext else "no extension"
        base = os.path.basename(path)
        if not ext and base.lower() in FORMATS:
            # all extension and no name: a hidden file to the system, of no format
            raise UsageError(f"'{path}' has an extension but no name before it; "
                             f"name the file, as in graph{base}")
        raise UsageError(
            f"cannot tell the graph format of '{path}' ({what}); "
            f"the file name must end in one of {listed}"
        )
    return ext


def write_graph(g: GraphResult, path: str) -> list[str]:
    """Write the graph ``g`` to ``path``; returns lines to show the user.

    Raises UsageError for an unknown extension, ToolMissingError when Graphviz's
    ``dot`` is needed and missing, LimitError for a graph too large to lay out,
    and GradcliError when the file cannot be written.
    """
    from ..core.dot import render_dot  # keeps the REPL's startup light

    ext = graph_format(path)
    if ext != ".dot" and g.nodes > RENDER_LIMIT:
        raise LimitError(
            f"the graph has {g.nodes} nodes, too many to lay out as {ext} in reasonable "
            f"time (the limit is {RENDER_LIMIT}); write a .dot file instead, or lower --order"
        )
    from ..atomic import replacing

    try:
        # a temporary file renamed into place: a failed write leaves the old file
        with replacing(path) as tmp:
            render_dot(g.dot, tmp)
    except OSError as exc:
        reason = exc.strerror or str(exc)
        raise GradcliError(f"cannot write '{path}': {reason}") from None
    except subprocess.CalledProcessError as exc:  # graphviz.CalledProcessError
        detail = (exc.stderr or b"").decode(errors="replace").strip().splitlines()
        why = f": {detail[-1]}" if detail else ""
        raise GradcliError(f"Graphviz's dot failed to render '{path}'{why}") from None
    what = f"order-{g.order} derivative by {g.wrt}, " if g.order else ""
    lines = [f"graph: {g.nodes} node{'' if g.nodes == 1 else 's'} ({what}written to {path})"]
    if g.nodes > LARGE_GRAPH:
        svg = ext != ".svg" and g.nodes <= RENDER_LIMIT  # an .svg there would be refused
        advice = "lower --order, or write .svg to zoom in" if svg else "lower --order"
        lines.append(
            f"warning: the graph has {g.nodes} nodes (more than {LARGE_GRAPH}) and may be "
            f"hard to read; try {advice}"
        )
    return lines


__all__ = ["FORMATS", "LARGE_GRAPH", "RENDER_LIMIT", "graph_format", "write_graph"]
