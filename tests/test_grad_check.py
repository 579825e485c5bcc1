"""--grad --check: one check row per variable of the gradient."""

from __future__ import annotations

import json
import math
import subprocess
import sys

from inprocess import gradcli

PYTHON = sys.executable


def _eval(*args: str) -> subprocess.CompletedProcess[str]:
    return gradcli("eval", *args)


def test_grad_check_gives_one_row_per_variable_in_json() -> None:
    done = _eval("x*y + sin(x)", "--at", "x=1,y=2", "--grad", "--check", "--format", "json")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    rows = {c["variable"]: c for c in out["check"]}
    assert set(rows) == {"x", "y"}
    assert rows["x"]["autodiff"] == out["gradient"]["x"] == 2 + math.cos(1)
    assert rows["y"]["autodiff"] == out["gradient"]["y"] == 1.0
    for c in rows.values():
        assert {"order", "autodiff", "numerical", "abs_error", "rel_error", "ok"} <= set(c)
        assert c["order"] == 1 and c["ok"] is True
        assert math.isclose(c["numerical"], c["autodiff"], rel_tol=1e-8)


def test_grad_check_in_plain_checks_array_variables_elementwise() -> None:
    done = _eval("sum(v^2)*w", "--at", "v=[1,2],w=3", "--grad", "--check", "--format", "plain")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[:3] == ["15", "d/dv: [6, 12]", "d/dw: 5"]
    assert lines[3].startswith("check d/dv: autodiff [6, 12] numerical [6, 12]")
    assert lines[3].endswith(" pass") and lines[4].endswith(" pass")
    assert lines[4].startswith("check d/dw: autodiff 5 numerical 5")


def test_grad_check_table_adds_the_check_columns_to_the_gradient() -> None:
    done = _eval("x*y", "--at", "x=1,y=2", "--grad", "--check", "--format", "table")
    assert done.returncode == 0, done.stderr
    assert "| variable | partial derivative | numerical" in done.stdout
    assert done.stdout.count("pass") == 2
