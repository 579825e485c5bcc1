"""Curves of EXPR arguments with assignments and definitions before the
expression (``f(t) = t^3 - t; f(x)``), on the command line and in the REPL,
and the REPL's trailing numbers (A B N)."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from inprocess import gradcli

from gradcli.cli.main import run_command
from gradcli.session.curves import Curves

PYTHON = sys.executable


@pytest.fixture
def drawn(monkeypatch, tmp_path):
    """Runs ``gradcli curve ARGS -o c.png`` in this process; (status, stderr,
    the Curves that would have been written or None)."""
    import gradcli.render.curve as render

    seen: list[Curves] = []

    def write_curve(data: Curves, path: str) -> list[str]:
        seen.append(data)
        return []

    monkeypatch.setattr(render, "write_curve", write_curve)
    monkeypatch.chdir(tmp_path)

    def run(*args: str, capsys=None) -> tuple[int, Curves | None]:
        status = run_command("curve", [*args, "-o", "c.png"])
        return status, (seen.pop() if seen else None)

    return run


def test_definitions_run_first_and_the_expression_alone_is_drawn(drawn, capsys) -> None:
    status, data = drawn("f(t) = t^3 - t; f(x)", "--over", "x=-2:2")
    assert status == 0, capsys.readouterr().err
    assert data.exprs == ["f(x)"] and data.title == "f(x)"
    x, y = data.curves[0].x, data.curves[0].y
    np.testing.assert_allclose(y, x**3 - x)
    status, data = drawn("a = 3; a*x", "--over", "x=0:1")
    assert status == 0 and data.title == "f(x) = a*x"
    np.testing.assert_allclose(data.curves[0].y, 3 * data.curves[0].x)


def test_each_argument_runs_its_own_definitions_before_its_expression(drawn) -> None:
    status, data = drawn("f(t) = t; f(x)", "f(t) = 2*t; f(x)", "--over", "x=0:1")
    assert status == 0 and data.exprs == ["f(x)", "f(x)"]
    first, second = data.curves
    np.testing.assert_allclose(first.y, first.x)
    np.testing.assert_allclose(second.y, 2 * second.x)


@pytest.mark.parametrize(("expr", "message", "caret"), [
    ("x = 2; x^2", "'x = 2' assigns x, the variable the curve is drawn over", 0),
    ("x; x^2", "a curve draws one expression, written last", 3),
    ("f(t) = t; f(x); g(t) = t", "a curve draws one expression, written last", 16),
    ("x = 2", "'x = 2' has no expression to draw", None),
    ("", "there is no expression to draw", None),
])
def test_anything_but_setup_then_one_expression_is_a_usage_error(
        drawn, capsys, expr, message, caret) -> None:
    status, data = drawn(expr, "--over", "x=0:1")
    err = capsys.readouterr().err
    assert status == 2 and data is None
    assert err.startswith("error: " + message), err
    if caret is not None:
        assert err.splitlines()[2] == "  " + " " * caret + "^"


def test_an_expression_after_definitions_is_checked_for_its_own_names(drawn, capsys) -> None:
    # f(x) reads x: the advice to draw over t (f's parameter) was wrong
    status, _ = drawn("f(t) = t^3 - t; f(x)", "--over", "x=-2:2")
    assert status == 0 and "draw it over" not in capsys.readouterr().err
    status, _ = drawn("f(t) = t^2; f(y)", "--over", "x=0:1")
    err = capsys.readouterr().err
    assert status == 2 and "f(y) has no x but y" in err


def test_errors_in_setup_and_expression_point_into_the_argument(drawn, capsys) -> None:
    status, _ = drawn("a = sinn(1); x", "--over", "x=0:1")
    lines = capsys.readouterr().err.splitlines()
    assert status == 1 and "(line 1, column 5)" in lines[0]
    assert lines[1:] == ["  a = sinn(1); x", "      ^"]
    status, _ = drawn("x^2", "a = 1; sinn(x)", "--over", "x=0:1")
    lines = capsys.readouterr().err.splitlines()
    assert status == 1 and lines[1:] == ["  a = 1; sinn(x)", "         ^"]


def _repl(text: str, cwd) -> subprocess.CompletedProcess[str]:
    return gradcli("repl", stdin=text, cwd=cwd)


def test_repl_curve_takes_setup_statements_as_curve_does(tmp_path) -> None:
    done = _repl(":curve f(t) = t^3 - t; f(x) 0 2 1\nf(3)\n:curve x = 2; x^2\n"
                 ":curve x; x^2\n:curve a = 3\nx\n", tmp_path)
    out = done.stdout.splitlines()
    assert out[0].strip() == "f(x)"  # titled by the expression alone
    assert "⣿⣿ f'" in done.stdout
    assert out[-1] == "24"  # the definition stays, as :plot's do
    errors = done.stderr.splitlines()
    assert errors[0].startswith("error: 'x = 2' assigns x, the variable the curve is drawn "
                                "over") and errors[0].endswith("(line 3, column 8)")
    assert errors[3].startswith("error: a curve draws one expression")
    assert errors[3].endswith("(line 4, column 11)")
    assert errors[6].startswith("error: 'a = 3' has no expression to draw")
    assert errors[7].startswith("error: unknown name 'x'")  # x = 2 did not run
    assert done.returncode == 2


def test_repl_curve_order_is_a_whole_number_with_the_caret_under_it(tmp_path) -> None:
    lines = [":curve sin(x) 0 2 pi", ":curve sin(x) 0 1 2pi", ":curve sin(x) 0 1 e",
             ":curve g(x) 0 1 -1", ":curve sin(x) 1.5"]
    done = _repl("\n".join(lines) + "\n", tmp_path)
    assert done.stdout == ""
    errors = done.stderr.splitlines()
    for k, line in enumerate(lines):
        word = line.split()[-1]
        assert errors[3 * k] == ("error: the order N must be a whole number from 0 to 20, as in "
                                 f":curve sin(x) 0 2pi 1; got {word} "
                                 f"(line {k + 1}, column {line.rindex(' ') + 2})")
        assert errors[3 * k + 2] == "  " + " " * line.rindex(" ") + " ^"


def test_repl_curve_bounds_are_evaluated_as_over_does(tmp_path) -> None:
    done = _repl(":curve sin(x) 0 inf\n:curve sin(x) 0 foo\n:curve sin(x) -pi/2 pi/2\n"
                 ":curve x^2 + 1 0 1\nb = 3\n:curve sin(x) 0 b\n", tmp_path)
    errors = done.stderr.splitlines()
    assert errors[0] == ("error: the interval x=0:inf has an end that is not a finite number "
                         "(line 1, column 15)")
    assert errors[2] == " " * 16 + "^"  # under A
    assert errors[3].startswith("error: unknown name 'foo'")
    assert errors[3].endswith("(line 2, column 17)")
    assert len(errors) == 6  # the last three draw
    assert done.stdout.count("f(x) = sin(x)") == 2 and "f(x) = x^2 + 1" in done.stdout
    assert "2.5" in done.stdout  # b, a name, is an end: x runs to 3
    assert "-1.5" in done.stdout  # -pi/2 is an end, not part of the expression


@pytest.mark.parametrize(("name", "status"), [
    ("c.jpg", 2), ("/dev/full", 2), (".png", 2), ("d/", 2),  # no image format: usage
    ("nonexistent/c.png", 1),  # cannot be written
])
def test_curve_and_plot_give_a_file_name_problem_the_same_status(
        tmp_path, monkeypatch, capsys, name, status) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "d").mkdir()
    assert run_command("curve", ["x^2", "-o", name]) == status
    graph_name = name.replace(".png", ".dot").replace(".jpg", ".txt")
    assert run_command("plot", ["x^2", "-o", graph_name]) == status
    err = capsys.readouterr().err
    assert err.count("error: ") == 2 and "Traceback" not in err


def _box_characters(text: str) -> set[str]:
    return {c for c in text if 0x2500 <= ord(c) < 0x2580}


def test_piped_repl_curve_has_no_box_characters(tmp_path) -> None:
    from gradcli.render.termplot import render_terminal
    from gradcli.session import Session
    from gradcli.session.curves import sample_curves, session_evaluator

    done = _repl(":curve x^2 -2 2\n", tmp_path)
    assert done.returncode == 0 and _box_characters(done.stdout) == set()
    assert "⣿⣿ f" in done.stdout and "\u258f" in done.stdout  # the legend, the zero line
    data = sample_curves(session_evaluator(Session()), ["x^2"], "x", -2.0, 2.0)
    framed = render_terminal(data, 80, 24, colour=False).splitlines()
    bare = render_terminal(data, 80, 24, colour=False, box=False).splitlines()
    assert _box_characters("".join(framed)) and len(bare) == len(framed) - 2  # the two frame rows
    assert bare[-2] == framed[-2]  # the x labels stay in their columns
    assert done.stdout.splitlines() == bare


@pytest.mark.parametrize(("args", "expr", "ends", "order"), [
    # a negative start before an end that is no number literal: -1 a was read as
    # sin(x) - 1 and an order 'a', and -1 a 1 as sin(x) - 1 over a..1
    ("sin(x) -1 a", "sin(x)", ["-1", "a"], 0),
    ("sin(x) -1 a 1", "sin(x)", ["-1", "a"], 1),
    ("sin(x) -a 2*a", "sin(x)", ["-a", "2*a"], 0),
    ("x^2 + 1", "x^2 + 1", ["-5", "5"], 0),
    ("g(x) 0 a", "g(x)", ["0", "a"], 0),
    ("x^2 + 1 0 2", "x^2 + 1", ["0", "2"], 0),
])
def test_repl_curve_splits_its_arguments_as_meant(args, expr, ends, order) -> None:
    from gradcli.repl.arguments import split_curve

    parts = split_curve(args, 1, 7)
    assert (parts.expr, parts.ends, parts.order) == (expr, ends, order)
