"""The installed ``gradcli`` command that the process benchmarks run."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path


def gradcli_script() -> str:
    """gradcli next to this Python (the venv's), else the one on PATH."""
    beside = Path(sys.executable).with_name("gradcli")
    found = str(beside) if beside.exists() else shutil.which("gradcli")
    if not found:
        sys.exit("gradcli is not installed next to this Python or on PATH")
    return found
