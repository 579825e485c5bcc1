"""Ctrl-C stops a blockwise Taylor replay: the worker threads end within about
a second, their memory goes, and KeyboardInterrupt reaches the caller; the
REPL gets its prompt back and ``gradcli eval`` exits 130."""

from __future__ import annotations

import _thread
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pexpect
import pytest

import gradcli.core.functions as F
from gradcli.core import Variable
from gradcli.core.taylor import blocks, sample, taylor_derivatives, taylor_derivatives_at
from gradcli.core.taylor.threads import run_parts

BIN = Path(sys.executable).with_name("gradcli")
GRADCLI = str(BIN) if BIN.exists() else shutil.which("gradcli")
POINTS = 2_000_000
ORDER = 150
BIG = {"GRADCLI_MAX_MEMORY": "64G"}  # pages are touched block by block: the run is cut short
# a child's BLAS starts no threads of its own (the replay uses none), so that the
# child's address space before the replay is small on any machine
ONE_BLAS_THREAD = {name: "1" for name in
                   ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")}
REPLAYING = 2 << 30
"""A child's address space past this (bytes): the replay's coefficients (ORDER + 1
rows of POINTS numbers, 2.4 GB, whose pages are touched block by block) are
allocated, and its blocks are under way."""


@pytest.fixture(autouse=True)
def _no_memory_limit(monkeypatch) -> None:
    monkeypatch.setenv("GRADCLI_MAX_MEMORY", BIG["GRADCLI_MAX_MEMORY"])


def _block_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "gradcli-block" and t.is_alive()]


def _interrupted_in_a_block(monkeypatch, work) -> float:
    """Seconds from a simulated Ctrl-C, 0.2 s after the first block's replay began
    (its work at ORDER takes seconds), to the KeyboardInterrupt."""
    sent: list[float] = []
    started, done = threading.Event(), threading.Event()
    replay = blocks.replay_plan

    def replay_and_tell(*args, **kwargs):
        started.set()
        return replay(*args, **kwargs)

    monkeypatch.setattr(blocks, "replay_plan", replay_and_tell)

    def ctrl_c() -> None:
        if started.wait(30) and not done.wait(0.2):
            sent.append(time.monotonic())
            _thread.interrupt_main()

    timer = threading.Thread(target=ctrl_c)
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            work()
    finally:
        done.set()
        started.set()
        timer.join()
        monkeypatch.setattr(blocks, "replay_plan", replay)
    assert sent, "the computation ended before the interrupt"
    return time.monotonic() - sent[0]


@pytest.mark.parametrize("threads", [2, 1])
def test_ctrl_c_stops_the_block_workers(monkeypatch, threads: int) -> None:
    monkeypatch.setattr(blocks, "THREADS", threads)
    v = np.linspace(0.0, 1.0, POINTS)
    x = Variable(sample(v).copy())
    y = F.exp(F.sin(x)) * F.log(1 + x**2)
    took = _interrupted_in_a_block(monkeypatch, lambda: taylor_derivatives_at(y, x, v, ORDER))
    assert took < 2.0
    assert _block_threads() == []
    # recorded on the whole array, the other entry point
    xv = Variable(v.copy())
    yv = F.exp(F.sin(xv)) * F.log(1 + xv**2)
    took = _interrupted_in_a_block(monkeypatch, lambda: taylor_derivatives(yv, xv, ORDER))
    assert took < 2.0
    assert _block_threads() == []
    # and the replay works afterwards, as before
    small = np.linspace(0.0, 1.0, 2 * blocks.CHUNK)
    ds = taylor_derivatives_at(y, x, small, 3)
    assert np.isclose(ds[1][-1], np.exp(np.sin(1.0)) * (np.cos(1.0) * np.log(2.0) + 1.0))


def test_an_error_in_one_part_stops_the_others() -> None:
    done = []

    def run(part: range, cancel: threading.Event) -> None:
        for i in part:
            if cancel.is_set():
                return
            if i == 0:
                raise ValueError("boom")
            time.sleep(0.01)
            done.append(i)

    start = time.monotonic()
    with pytest.raises(ValueError, match="boom"):
        run_parts(run, [range(0, 1000, 2), range(1, 1000, 2)])
    assert time.monotonic() - start < 1.0 and len(done) < 50
    assert _block_threads() == []


def _address_space(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmSize:"):
            return int(line.split()[1]) * 1024
    return 0


def _wait_for_the_replay(pid: int, running) -> None:
    """Until the child ``pid`` replays its blocks (then half a second more, into
    their work), while ``running()``; at most 30 seconds."""
    deadline = time.monotonic() + 30
    while running() and time.monotonic() < deadline:
        try:
            if _address_space(pid) > REPLAYING:
                break
        except OSError:  # it ended
            return
        time.sleep(0.01)
    time.sleep(0.5)


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def test_gradcli_eval_exits_130_promptly_on_sigint() -> None:
    proc = subprocess.Popen(
        [GRADCLI, "eval", "diff(exp(sin(v))*log(1+v^2), v, 150)",
         "--at", f"v=linspace(0,1,{POINTS})", "--format", "csv"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        env={**os.environ, **BIG, **ONE_BLAS_THREAD})
    try:
        # the start, the forward pass, then the replay's blocks
        _wait_for_the_replay(proc.pid, lambda: proc.poll() is None)
        assert proc.poll() is None
        sent = time.monotonic()
        proc.send_signal(signal.SIGINT)
        code = proc.wait(timeout=10)
        took = time.monotonic() - sent
    finally:
        proc.kill()
        proc.wait()
    assert code == 130
    assert took < 2.0
    assert b"Traceback" not in proc.stderr.read()


def test_repl_ctrl_c_gives_the_prompt_back_and_stops_the_work() -> None:
    child = pexpect.spawn(GRADCLI, ["repl"],
                          env={**os.environ, **BIG, **ONE_BLAS_THREAD, "TERM": "dumb"},
                          encoding="utf-8", timeout=30)
    try:
        child.expect(">>> ")
        child.sendline("v = linspace(0, 1, 2000000)")
        child.expect(">>> ")
        assert _address_space(child.pid) < REPLAYING
        child.sendline("q = diff(exp(sin(v))*log(1+v^2), v, 150)")
        _wait_for_the_replay(child.pid, child.isalive)
        before = _cpu_seconds(child.pid)
        sent = time.monotonic()
        child.sendintr()
        child.expect("interrupted")
        child.expect(">>> ")
        took = time.monotonic() - sent
        cpu = _cpu_seconds(child.pid)
        time.sleep(1.0)  # a thread that went on computing would take about a second
        assert _cpu_seconds(child.pid) - cpu < 0.3  # no thread goes on computing
        assert took < 2.0, took
        assert cpu - before < 6.0
        child.sendline("1+1")
        child.expect(r"\b2\b")
        child.expect(">>> ")
    finally:
        child.close(force=True)
