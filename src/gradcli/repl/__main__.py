"""``python -m gradcli.repl``: the REPL without the command-line layer (for timing it)."""

from __future__ import annotations

import sys

from . import main

if __name__ == "__main__":
    sys.exit(main())
