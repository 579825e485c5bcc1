"""The bracket scanner the REPL's keys ask (it lives in gradcli.lang.brackets)."""

from ..lang.brackets import CLOSING, OPENING, needs_more, open_depth

__all__ = ["CLOSING", "OPENING", "needs_more", "open_depth"]
