"""Every script in examples/ runs for real, and its output is what it should be."""

from __future__ import annotations

import csv
import io
import math
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
BIN = Path(sys.executable).with_name("gradcli")
GRADCLI = str(BIN) if BIN.exists() else shutil.which("gradcli")


def run(args: list[str], stdin_file: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, GRADCLI=GRADCLI, PATH=f"{BIN.parent}{os.pathsep}{os.environ['PATH']}")
    env.pop("NO_COLOR", None)
    stdin = stdin_file.read_text() if stdin_file else ""
    return subprocess.run(args, input=stdin, capture_output=True, text=True, cwd=ROOT,
                          env=env, timeout=120)


def test_every_example_is_tested_and_documented():
    scripts = sorted(p.name for p in EXAMPLES.iterdir() if p.suffix in (".gc", ".sh"))
    assert scripts == ["check.gc", "derivative_table.sh", "newton.gc", "taylor.sh"]
    readme = (EXAMPLES / "README.md").read_text()
    for name in scripts:
        assert f"`{name}`" in readme


def test_newton_converges_to_sqrt_2():
    proc = run([GRADCLI, "eval", "-"], EXAMPLES / "newton.gc")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines == [
        "1.5",
        "1.4166666666666667",
        "1.4142156862745099",
        "1.4142135623746899",
        "1.4142135623730951",
        "0",
        "2.8284271247461903",
    ]
    assert float(lines[4]) == math.sqrt(2)
    assert proc.stderr == ""


def test_newton_as_json_has_one_object_per_statement():
    proc = run([GRADCLI, "eval", "-", "--format", "json"], EXAMPLES / "newton.gc")
    assert proc.returncode == 0
    statements = [
        line.split("#")[0].strip()
        for line in (EXAMPLES / "newton.gc").read_text().splitlines()
        if line.split("#")[0].strip()
    ]
    assert len(proc.stdout.splitlines()) == len(statements) == 14


def test_derivative_table_is_csv_of_f_and_two_derivatives():
    proc = run(["sh", str(EXAMPLES / "derivative_table.sh")])
    assert proc.returncode == 0, proc.stderr
    rows = list(csv.DictReader(io.StringIO(proc.stdout)))
    assert [r["x"] for r in rows] == ["-2", "-1", "0", "0.5", "2"]
    for row in rows:
        x = float(row["x"])
        assert float(row["f"]) == x**4 - 2 * x**2
        assert float(row["df"]) == 4 * x**3 - 4 * x
        assert float(row["d2f"]) == 12 * x**2 - 4


def test_taylor_prints_one_polynomial_per_expression():
    proc = run(["sh", str(EXAMPLES / "taylor.sh")])
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == [
        "x - x^3/6 + x^5/120",
        "1 + x + x^2/2 + x^3/6 + x^4/24 + x^5/120",
        "1 + x + x^2 + x^3 + x^4 + x^5",
        "(x - 1) - (x - 1)^2/2 + (x - 1)^3/3 - (x - 1)^4/4",
    ]


def test_check_passes_for_every_function():
    proc = run([GRADCLI, "eval", "-", "--check", "--at", "x=0.7"], EXAMPLES / "check.gc")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    checks = [line for line in proc.stdout.splitlines() if line.startswith("check order")]
    assert len(checks) == 12
    assert all(line.endswith(" pass") for line in checks)


def test_check_can_fail_with_status_3(tmp_path):
    script = tmp_path / "kink.gc"
    script.write_text((EXAMPLES / "check.gc").read_text() + "abs(x - 0.7 - 1e-9)\n")
    proc = run([GRADCLI, "eval", "-", "--check", "--at", "x=0.7"], script)
    assert proc.returncode == 3
    # order 1 fails: the kink is closer than the smallest step
    assert proc.stdout.splitlines()[-2].endswith("FAIL")
