"""Bracket depth of an input, to know when a statement goes on to the next line:
the language's one bracket scanner (gradcli.lang.brackets), named here for the
REPL's plain loop and key bindings."""

from __future__ import annotations

from ..lang.brackets import CLOSING, OPENING, needs_more, open_depth

__all__ = ["CLOSING", "OPENING", "needs_more", "open_depth"]
