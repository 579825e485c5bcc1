"""Memory bounded before allocating (core/memory.py, core/taylor/budget.py):
a Taylor request that would need more than GRADCLI_MAX_MEMORY is refused at
once with the estimate and the way around, on every path of core.taylor."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np
import pytest

import gradcli.core.functions as F
from gradcli.core import Variable, memory
from gradcli.core.taylor import (
    sample,
    taylor_coefficients,
    taylor_derivatives,
    taylor_derivatives_at,
)
from gradcli.errors import LimitError, UsageError

BIN = Path(sys.executable).with_name("gradcli")
GRADCLI = str(BIN) if BIN.exists() else shutil.which("gradcli")


@pytest.mark.parametrize(("text", "size"), [
    ("2G", 2 << 30), ("512M", 512 << 20), ("300K", 300 << 10), ("4096", 4096),
    ("1.5g", 3 << 29), ("8GiB", 8 << 30), ("64MB", 64 << 20), (" 1T ", 1 << 40)])
def test_sizes_parse(text: str, size: int) -> None:
    assert memory.parse_size(text) == size


@pytest.mark.parametrize("text", ["lots", "2X", "-1G", "0", "G", "1e9", "2 G B"])
def test_an_invalid_size_is_a_clear_error(monkeypatch, text: str) -> None:
    monkeypatch.setenv("GRADCLI_MAX_MEMORY", text)
    with pytest.raises(UsageError, match="GRADCLI_MAX_MEMORY must be"):
        memory.max_memory()


def test_the_default_is_half_the_machine_at_most_8_gib(monkeypatch) -> None:
    monkeypatch.delenv("GRADCLI_MAX_MEMORY", raising=False)
    total = int(next(line for line in Path("/proc/meminfo").read_text().splitlines()
                     if line.startswith("MemTotal:")).split()[1]) * 1024
    assert memory.max_memory() == min(8 << 30, total // 2)
    monkeypatch.setattr(memory, "machine_memory", lambda: 64 << 30)
    memory._limit.cache_clear()
    assert memory.max_memory() == 8 << 30
    monkeypatch.setattr(memory, "machine_memory", lambda: 4 << 30)
    memory._limit.cache_clear()
    assert memory.max_memory() == 2 << 30
    memory._limit.cache_clear()


def test_sizes_in_messages() -> None:
    assert memory.size_text(9.1 * (1 << 30)) == "9.1 GB"
    assert memory.size_text(8 << 30) == "8 GB"
    assert memory.size_text(512 << 20) == "512 MB"
    assert memory.size_text(300) == "300 bytes"


def _refused_fast(call) -> str:
    """The LimitError's message of ``call``, which must come at once and having
    allocated next to nothing (NumPy reports its arrays to tracemalloc)."""
    tracemalloc.start()
    start = time.monotonic()
    try:
        with pytest.raises(LimitError) as info:
            call()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert time.monotonic() - start < 1.0
    assert peak < 8 << 20
    return str(info.value)


def test_blockwise_requests_are_refused_before_allocating(monkeypatch) -> None:
    monkeypatch.setenv("GRADCLI_MAX_MEMORY", "100M")
    v = np.linspace(0, 1, 2_000_000)
    x = Variable(sample(v).copy())
    y = F.exp(x)
    message = _refused_fast(lambda: taylor_derivatives_at(y, x, v, 60))
    assert message.startswith("Taylor mode needs about ")
    assert "for 2,000,000 points at order 60; the limit is 100 MB (GRADCLI_MAX_MEMORY); " \
           "ask for fewer points or a lower order" in message
    # 60 rows of 2M float64 are 0.9 GB on their own: the estimate counts them
    needed = float(message.split("about ")[1].split(" GB")[0])
    assert 0.9 <= needed <= 2.0
    xv = Variable(v)
    yv = F.exp(F.sin(xv))
    assert "2,000,000 points at order 60" in _refused_fast(lambda: taylor_derivatives(yv, xv, 60))
    assert "order 60" in _refused_fast(lambda: taylor_coefficients(yv, xv, 60))


def test_whole_array_replays_are_refused_too(monkeypatch) -> None:
    monkeypatch.setenv("GRADCLI_MAX_MEMORY", "100M")
    x = Variable(np.linspace(0, 1, 100_000))  # below the blockwise size
    y = F.exp(F.sin(x)) * F.log(1 + x**2)
    assert "100,000 points at order 300" in _refused_fast(lambda: taylor_derivatives(y, x, 300))
    # a scalar x whose y is an array (the derivative of its sum) counts y's elements
    s = Variable(np.array(0.5))
    ys = F.sin(s * Variable(np.linspace(0, 1, 1_000_000)))
    assert "1 point at order 100" in _refused_fast(lambda: taylor_derivatives(ys, s, 100))


def test_requests_within_the_limit_run(monkeypatch) -> None:
    monkeypatch.setenv("GRADCLI_MAX_MEMORY", "100M")
    v = np.linspace(0, 1, 300_000)
    x = Variable(sample(v).copy())
    ds = taylor_derivatives_at(F.exp(x), x, v, 4)
    np.testing.assert_allclose(ds[4], np.exp(v))
    x1 = Variable(np.array(0.7))
    assert float(taylor_derivatives(F.sin(x1), x1, 1000)[1000]) == pytest.approx(np.sin(0.7))


def _cli(*args: str, env: dict[str, str]) -> tuple[subprocess.CompletedProcess[str], float]:
    start = time.monotonic()
    proc = subprocess.run([GRADCLI, *args], capture_output=True, text=True, timeout=60,
                          env={**os.environ, **env})
    return proc, time.monotonic() - start


def test_cli_fails_fast_with_the_estimate() -> None:
    proc, took = _cli("eval", "exp(x)", "--at", "x=linspace(0,1,2000000)", "--order", "60",
                      "--format", "csv", env={"GRADCLI_MAX_MEMORY": "1G"})
    assert proc.returncode == 1
    assert took < 3.0
    assert "for 2,000,000 points at order 60; the limit is 1 GB (GRADCLI_MAX_MEMORY); " \
           "ask for fewer points or a lower order" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_cli_invalid_limit_is_a_usage_error() -> None:
    proc, _ = _cli("eval", "sin(x)", "--at", "x=linspace(0,1,2000000)", "--order", "60",
                   env={"GRADCLI_MAX_MEMORY": "lots"})
    assert proc.returncode == 2
    assert "GRADCLI_MAX_MEMORY must be a size such as 2G, 512M, 300K" in proc.stderr
