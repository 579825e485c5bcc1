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
