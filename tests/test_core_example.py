"""examples/dezero_steps.py: the book's own code runs on gradcli.core unchanged."""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "dezero_steps.py"


def test_book_code_runs_with_only_its_imports_changed(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, str(EXAMPLE), str(tmp_path)],
        capture_output=True, text=True, timeout=60, check=True,
    )
    lines = proc.stdout.splitlines()
    # Step 33 of the book: Newton's method from 2.0 reaches the minimum at 1.0.
    assert lines[0] == "0 variable(2.0)"
    assert lines[1].startswith("1 variable(1.4545454545454")
    assert lines[9] == "9 variable(1.0)"
    # Step 34: -sin(1), -cos(1), sin(1).
    got = [float(line.split("variable(")[1].rstrip(")")) for line in lines[10:13]]
    want = [-math.sin(1.0), -math.cos(1.0), math.sin(1.0)]
    assert all(math.isclose(g, w, rel_tol=1e-12) for g, w in zip(got, want))
    # Step 35: d2/dx2 tanh = -2 tanh (1 - tanh^2).
    t = math.tanh(1.0)
    last = float(lines[13].split("variable(")[1].rstrip(")"))
    assert math.isclose(last, -2 * t * (1 - t * t), rel_tol=1e-12)
    assert lines[-1] == f"graph written to {tmp_path / 'tanh.dot'}"
    dot = (tmp_path / "tanh.dot").read_text()
    assert dot.startswith("digraph g {")
    assert 'label="gx2"' in dot and 'label="x"' in dot and 'label="Tanh"' in dot


def test_without_a_folder_it_writes_nothing_into_the_current_one(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, str(EXAMPLE)], capture_output=True, text=True,
                          timeout=60, check=True, cwd=tmp_path)
    written = Path(proc.stdout.splitlines()[-1].removeprefix("graph written to "))
    assert written.read_text().startswith("digraph g {")
    assert list(tmp_path.iterdir()) == []
