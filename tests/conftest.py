"""Settings for the whole suite.

The gradcli runs the tests start (about 290) get one BLAS thread unless the
environment names a number: OpenBLAS starts a thread per core when NumPy is
imported, and their start took half of each run's CPU time (0.08 of 0.17 s on
a 2-core machine), which the runs side by side paid on the cores they share.
gradcli uses BLAS only for ``@``. This process keeps its threads: NumPy is
imported, and they start, before the variable is set.
"""

from __future__ import annotations

import os

import numpy  # noqa: F401

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
