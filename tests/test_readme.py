"""Every `console` example in README.md runs, and prints what the README shows.

A `console` block holds commands (`$ gradcli ...`), each followed by the
output it prints: standard output and standard error through one pipe, as
a terminal shows them (gradcli flushes its results before each message, so
the order is stable). Commands run with `sh` from the repository root.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
BLOCK = re.compile(r"^```console\n(.*?)^```", re.MULTILINE | re.DOTALL)


def examples() -> list[tuple[str, list[str]]]:
    found = []
    for block in BLOCK.findall(README.read_text(encoding="utf-8")):
        command, output = None, []
        for line in block.splitlines():
            if line.startswith("$ "):
                if command is not None:
                    found.append((command, output))
                command, output = line[2:], []
            else:
                assert command is not None, f"output before any command: {line!r}"
                output.append(line)
        if command is not None:
            found.append((command, output))
    return found


EXAMPLES = examples()


def test_the_readme_has_examples_and_each_runs_gradcli():
    assert len(EXAMPLES) >= 20
    for command, _ in EXAMPLES:
        assert command.startswith("gradcli "), command


def test_the_readme_starts_with_install_and_test_commands():
    head = README.read_text(encoding="utf-8").split("\n## ")[0]
    assert 'pip install . && gradcli eval "x**4 - 2*x**2" --at x=2 --order 3 --check' in head
    assert "pip install '.[test]' && python -m pytest" in head


def _run(command: str) -> str:
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    proc = subprocess.run(["sh", "-c", command], cwd=ROOT, env=env, text=True,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=120)
    return proc.stdout


@pytest.fixture(scope="module")
def outputs() -> dict[str, str]:
    """Every example's output, run concurrently (start-up dominates each)."""
    commands = sorted({command for command, _ in EXAMPLES})
    with ThreadPoolExecutor(max_workers=min(8, len(commands))) as pool:
        return dict(zip(commands, pool.map(_run, commands)))


@pytest.mark.parametrize(("command", "expected"), EXAMPLES,
                         ids=[c[:60] for c, _ in EXAMPLES])
def test_readme_example(command, expected, outputs):
    assert outputs[command].splitlines() == expected


def _plot_nodes(expr: str, at: str, order: int, tmp_path: Path) -> str:
    """What `gradcli plot` says of EXPR's order-N graph: its node count, as printed."""
    proc = subprocess.run([sys.executable, "-m", "gradcli", "plot", expr, "-o",
                           str(tmp_path / "g.dot"), "--at", at, "--order", str(order)],
                          capture_output=True, text=True, timeout=120, cwd=ROOT)
    found = re.search(r"([\d,]+) nodes", proc.stdout + proc.stderr)
    assert found, proc.stdout + proc.stderr
    return found.group(1)


def test_the_graph_sizes_the_readme_states_are_what_plot_counts(tmp_path: Path) -> None:
    text = " ".join(README.read_text(encoding="utf-8").split())
    stated = re.search(r"it has (\d+) nodes at order 0, ([\d,]+) at order 4 and "
                       r"([\d,]+) at order 7", text)
    assert stated, "README's backprop graph sizes are gone"
    for order, count in zip((0, 4, 7), stated.groups()):
        assert _plot_nodes("exp(sin(x))*log(1+x**2)", "x=0.7", order, tmp_path) == count
    # the REPL session's `:plot 2 f(x) graph.png`, with f(x) = x**4 - 2*x**2 at x = 2
    for doc in (README, ROOT / "docs" / "repl.md"):
        shown = re.search(r"graph: (\d+) nodes \(order-2 derivative by x, written to graph.png\)",
                          doc.read_text(encoding="utf-8"))
        assert shown, doc
        assert _plot_nodes("x**4 - 2*x**2", "x=2", 2, tmp_path) == shown.group(1)


def test_the_summary_of_a_large_array_the_readme_shows_is_what_a_terminal_gets():
    # README showed `[0, 1e-05, 2e-05, ..., 1]`, where three numbers end it
    import numpy as np

    from gradcli.render.numbers import format_summary

    text = " ".join(README.read_text(encoding="utf-8").split())
    shown = re.search(r"`(\[0, 1e-05, [^`]*\] \(100001 values\))`", text)
    assert shown is not None
    assert shown.group(1) == format_summary(np.linspace(0, 1, 100001))
