"""Settings for the whole suite.

The gradcli runs the tests start (about 290) get one BLAS thread unless the
environment names a number: OpenBLAS starts a thread per core when NumPy is
imported, and their start took half of each run's CPU time (0.08 of 0.17 s on
a 2-core machine), which the runs side by side paid on the cores they share.
gradcli uses BLAS only for ``@``. This process keeps its threads: NumPy is
imported, and they start, before the variable is set.

No test writes into the user's home: every test, and every gradcli it starts
(they inherit the environment), sees HOME and the XDG directories in a
temporary home, and GRADCLI_HISTORY names a file there (a test that reads
history gives its own file). The home is one per session, so what libraries
cache there (matplotlib's font list) is built once, not once per test.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy  # noqa: F401
import pytest

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

REAL_HOME = Path.home()
"""The user's home as the suite found it: the isolation test checks it is left alone."""

XDG = {
    "XDG_DATA_HOME": ".local/share",
    "XDG_CONFIG_HOME": ".config",
    "XDG_CACHE_HOME": ".cache",
    "XDG_STATE_HOME": ".local/state",
}


@pytest.fixture(scope="session")
def real_home() -> Path:
    return REAL_HOME


@pytest.fixture(scope="session")
def isolated_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("home")


@pytest.fixture(scope="session", autouse=True)
def _isolate_home(isolated_home: Path) -> None:
    # set once for the whole run, not per test: a per-test tmp_path cost 2-3 ms
    # in each of 3,400 tests; a test's monkeypatch of these is undone after it
    os.environ["HOME"] = str(isolated_home)
    for name, under in XDG.items():
        os.environ[name] = str(isolated_home / under)
    os.environ["GRADCLI_HISTORY"] = str(isolated_home / "history")
