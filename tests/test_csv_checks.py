"""CSV of --grad --check: one row a variable, its name under wrt, its
partial derivative's check in the check columns, each cell one value."""

from __future__ import annotations

import csv
import io
import sys

from inprocess import gradcli

PYTHON = sys.executable


def _csv(*args: str) -> list[dict[str, str]]:
    done = gradcli("eval", *args, "--format", "csv")
    assert done.returncode == 0, done.stderr
    return list(csv.DictReader(io.StringIO(done.stdout)))


def test_each_partial_has_its_own_row_of_numbers() -> None:
    rows = _csv("x*y", "sin(x)", "z = 3", "--at", "x=1,y=2", "--grad", "--check")
    assert [(r["input"], r["wrt"]) for r in rows] == [
        ("x*y", "x"), ("x*y", "y"), ("sin(x)", "x"), ("z = 3", "")]
    xy = rows[:2]
    assert [float(r["check1_autodiff"]) for r in xy] == [2.0, 1.0]
    assert [float(r["check1_numerical"]) for r in xy] == [2.0, 1.0]
    for r in xy:
        assert r["check1_ok"] == "true" and r["check2_ok"] == ""
        for field in ("abs_error", "rel_error", "est_error"):
            assert 0 <= float(r["check1_" + field]) < 1e-10
        assert r["value"] == "2" and r["gradient"] == "x: 2; y: 1"
    # one variable: its orders 1 and 2, one row, as without --grad
    assert rows[2]["check1_ok"] == rows[2]["check2_ok"] == "true"


def test_a_sweep_has_a_row_a_point_for_each_partial() -> None:
    rows = _csv("x*y", "--at", "x=0:1:0.5,y=0:1:0.5", "--grad", "--check")
    assert [(r["x"], r["wrt"]) for r in rows] == [
        ("0", "x"), ("0.5", "x"), ("1", "x"), ("0", "y"), ("0.5", "y"), ("1", "y")]
    # d(x*y)/dx is y and d/dy is x, point by point
    assert [float(r["check1_autodiff"]) for r in rows] == [0, 0.5, 1, 0, 0.5, 1]
    assert all(r["check1_ok"] == "true" for r in rows)


def test_formulas_stay_beside_a_checked_gradient() -> None:
    # --grad --check dropped --formula: the check ran with options of its own
    rows = _csv("x*y", "--at", "x=1,y=2", "--grad", "--check", "--formula")
    assert [(r["wrt"], r["formula"], r["gradient_formula"]) for r in rows] == [
        ("x", "x*y", "x: y; y: x"), ("y", "x*y", "x: y; y: x")]
