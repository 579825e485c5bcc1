"""The ``gradcli`` command line (docs/cli.md): a thin shell over the Session.

``options`` declares every command, option and help text; ``input`` reads
``--at`` bindings and statements (standard input through
``gradcli.lang.reader``, which the piped REPL shares); ``commands`` is the one
place that calls the Session; ``main`` is the entry point and the one
top-level handler. Results are printed by ``gradcli.render.output``.

Importing this package costs only the standard library's argparse: the
Session, NumPy and the parser load when statements run, rich only for the
table format, prompt_toolkit only for the REPL, Graphviz only for ``plot``.
"""

from __future__ import annotations

from .input import UsageProblem, split_at
from .main import run
from .options import MAX_ORDER

# (gradcli.cli.main stays the module: the console script calls main.main)
__all__ = ["MAX_ORDER", "UsageProblem", "run", "split_at"]
