"""The interactive REPL: ``gradcli repl``, and plain ``gradcli`` on a terminal.

Small modules in ptpython's spirit: ``app`` (the loops), ``commands`` (the
Shell and the ``:commands``), ``completer``, ``lexer``, ``keys`` (multi-line
Enter, by the language's bracket scanner), ``history``, ``display`` (rich or plain output),
``helptext`` and ``loader`` (the Session, imported off the startup path).
Importing this package costs nothing: ``main`` imports the rest when called.
"""

from __future__ import annotations


def main(dtype: str = "float64", device: str = "cpu", method: str = "auto") -> int:
    """Run the REPL; returns the exit status (see ``gradcli.repl.app``)."""
    from .app import main as app_main

    return app_main(dtype=dtype, device=device, method=method)


__all__ = ["main"]
