"""gradcli curve, --at ranges and sweeps, --formula, --format latex, and plot's
atomic write, through the command line."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys

import numpy as np
from inprocess import gradcli

PYTHON = sys.executable


def _gradcli(*args: str, cwd=None, env=None) -> subprocess.CompletedProcess[str]:
    return gradcli(*args, cwd=cwd, env=env)


def _gradcli_all(*calls: tuple[str, ...], cwd=None) -> list[subprocess.CompletedProcess[str]]:
    """Several command lines, their results in order."""
    return [_gradcli(*args, cwd=cwd) for args in calls]


def test_curve_writes_a_png_and_an_svg(tmp_path) -> None:
    done, svg = _gradcli_all(
        ("curve", "exp(sin(x))*log(1+x^2)", "--over", "x=0:5", "--order", "3", "-o", "c.png"),
        ("curve", "sin(x)", "cos(x)", "--over", "x=0:2pi", "-o", "c.svg"), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    data = (tmp_path / "c.png").read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 10_000
    assert done.stderr == "curve: 4 lines (x = 0..5, written to c.png)\n"
    assert svg.returncode == 0, svg.stderr
    assert "<svg" in (tmp_path / "c.svg").read_text()


def test_curve_needs_a_file_when_not_on_a_terminal_and_says_why_not(tmp_path) -> None:
    (tmp_path / "d.png").mkdir()
    done, jpg, folder, typo = _gradcli_all(
        ("curve", "sin(x)"), ("curve", "sin(x)", "-o", "c.jpg"),
        ("curve", "sin(x)", "-o", "d.png"), ("curve", "sinn(x)", "-o", "t.png"), cwd=tmp_path)
    assert done.returncode == 2 and done.stdout == ""
    assert "-o curve.png" in done.stderr
    # a name of no image format is a usage error, as for plot; a directory cannot be written
    for bad, what, status in ((jpg, "cannot tell the image format", 2),
                              (folder, "is a directory", 1)):
        assert bad.returncode == status and what in bad.stderr, bad.stderr
    assert typo.returncode == 1 and "did you mean sin?" in typo.stderr
    assert "^" in typo.stderr  # the caret under the name
    assert not (tmp_path / "t.png").exists()


def test_a_failed_curve_leaves_the_old_file(tmp_path) -> None:
    old = tmp_path / "c.png"
    old.write_bytes(b"old")
    done = _gradcli("curve", "nosuch(x)", "-o", "c.png", cwd=tmp_path)
    assert done.returncode == 1 and old.read_bytes() == b"old"


def test_an_at_range_is_a_sweep_with_a_csv_row_a_point() -> None:
    done, one = _gradcli_all(
        ("eval", "x^3", "sin(x)", "--at", "x=0:1:0.25", "--order", "2", "--format", "csv"),
        ("eval", "sin(x)", "--at", "x=0.75", "--order", "2", "--format", "plain"))
    assert done.returncode == 0, done.stderr
    rows = list(csv.DictReader(io.StringIO(done.stdout)))
    assert list(rows[0]) == ["input", "x", "value", "d1", "d2", "error"]
    assert [r["x"] for r in rows[:5]] == ["0", "0.25", "0.5", "0.75", "1"]
    assert [r["input"] for r in rows] == ["x^3"] * 5 + ["sin(x)"] * 5
    for r in rows:
        x = float(r["x"])
        want = (x**3, 3 * x**2, 6 * x) if r["input"] == "x^3" else \
            (np.sin(x), np.cos(x), -np.sin(x))
        got = (float(r["value"]), float(r["d1"]), float(r["d2"]))
        np.testing.assert_allclose(got, want, rtol=1e-15, atol=1e-15)
    # the same numbers as eval gives at one point
    assert one.stdout.split() == [rows[8]["value"], rows[8]["d1"], rows[8]["d2"]]


def test_a_range_needs_a_step_and_json_rows_are_objects_a_point() -> None:
    done, rows = _gradcli_all(("eval", "x^2", "--at", "x=0:1"),
                              ("eval", "x^2", "--at", "x=0:1:0.5", "--order", "1", "--format",
                               "json", "--rows"))
    assert done.returncode == 2 and "x=0:1:STEP" in done.stderr and "linspace" in done.stderr
    objs = [json.loads(line) for line in rows.stdout.splitlines()]
    assert [(o["at"]["x"], o["value"], o["derivatives"]) for o in objs] == [
        (0.0, 0.0, [0.0]), (0.5, 0.25, [1.0]), (1.0, 1.0, [2.0])]


def test_formula_and_latex_formats() -> None:
    done, latex, frac, table, mixed = _gradcli_all(
        ("eval", "x^3", "--at", "x=2", "--order", "2", "--formula", "--format", "json"),
        ("eval", "x^4 - 2*x^2", "--order", "1", "--format", "latex"),
        ("eval", "diff(sin(x)/x, x)", "--format", "latex"),
        ("eval", "x^4 - 2*x^2", "--order", "2", "--format", "csv"),
        ("eval", "x^2", "sin(1)", "--order", "1", "--format", "csv"))
    out = json.loads(done.stdout)
    assert (out["value"], out["derivatives"]) == (8.0, [12.0, 12.0])
    assert (out["formula"], out["derivative_formulas"]) == ("x^3", ["3*x^2", "6*x"])
    assert latex.stdout.splitlines() == ["x^{4} - 2 x^{2}", "4 x^{3} - 4 x"]
    assert frac.stdout.strip() == \
        r"\frac{\cos\left(x\right)}{x} - \frac{\sin\left(x\right)}{x^{2}}"
    assert table.stdout.splitlines() == [
        "input,order,formula,error", "x^4 - 2*x^2,0,x^4 - 2*x^2,", "x^4 - 2*x^2,1,4*x^3 - 4*x,",
        "x^4 - 2*x^2,2,12*x^2 - 4,"]
    # a number after a formula: numbers in the number columns, formulas in the
    # formula ones, one header for both (it was the formula table, numbers in it)
    assert mixed.stdout.splitlines() == [
        "input,wrt,value,d1,formula,formula_d1,error", "x^2,x,,,x^2,2*x,",
        "sin(1),,0.8414709848078965,0,,,"]


def test_a_failed_plot_write_leaves_the_old_file(tmp_path) -> None:
    old = tmp_path / "g.dot"
    old.write_text("old graph")
    # the file limit of the shell stops the write; the old file must survive
    done = subprocess.run(["bash", "-c", f"ulimit -f 0; {PYTHON} -m gradcli plot "
                           "'x^2' -o g.dot"], capture_output=True, text=True, cwd=tmp_path,
                          timeout=60)
    assert done.returncode != 0
    assert old.read_text() == "old graph"
    assert [p.name for p in tmp_path.iterdir()] == ["g.dot"]  # no temporary file left


def test_a_sweeps_rows_have_each_points_own_check_errors_and_no_summed_partials() -> None:
    done, grad, as_json = _gradcli_all(
        ("eval", "x^2", "--at", "x=0:1:0.5", "--check", "--format", "csv"),
        ("eval", "x*y", "--at", "x=0:1:0.5,y=2", "--grad", "--format", "csv"),
        ("eval", "x*y", "--at", "x=0:1:0.5,y=2", "--grad", "--format", "json", "--rows"))
    rows = list(csv.DictReader(io.StringIO(done.stdout)))
    for r in rows:
        err = abs(float(r["check1_autodiff"]) - float(r["check1_numerical"]))
        assert float(r["check1_abs_error"]) == err
    assert float(rows[0]["check1_abs_error"]) == 0.0
    cells = [r["gradient"] for r in csv.DictReader(io.StringIO(grad.stdout))]
    assert cells == ["x: 2", "x: 2", "x: 2"]  # d/dy of the sum (1.5) is no point's own
    objs = [json.loads(line) for line in as_json.stdout.splitlines()]
    assert [o["gradient"] for o in objs] == [{"x": 2.0}] * 3


def test_review_fixes_for_curve_and_latex(tmp_path) -> None:
    (tmp_path / "d").mkdir()
    wide, other, folder, latex = _gradcli_all(
        ("curve", "sin(x)", "--over", "x=-1e308:1e308", "-o", "w.png"),
        ("curve", "sin(y)", "-o", "c.png"), ("curve", "sin(x)", "-o", "d/"),
        ("eval", "grad(x*y)", "--format", "latex"), cwd=tmp_path)
    assert wide.returncode == 1 and "choose a narrower interval" in wide.stderr
    assert "internal error" not in wide.stderr and "RuntimeWarning" not in wide.stderr
    assert other.returncode == 2 and "--over y=-5:5" in other.stderr
    # no extension, as plot's
    assert folder.returncode == 2 and "cannot tell the image format" in folder.stderr
    (tmp_path / "e.png").mkdir()
    folder = _gradcli("curve", "sin(x)", "-o", "e.png", cwd=tmp_path)
    assert folder.returncode == 1 and "it is a directory" in folder.stderr
    assert latex.stdout.splitlines() == [r"\frac{\partial f}{\partial x} = y",
                                         r"\frac{\partial f}{\partial y} = x"]
