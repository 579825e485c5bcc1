"""REPL commands: :funcs on one line, wrt for :d and :check, :plot's file names,
and graphs drawn without values."""

from __future__ import annotations

import subprocess
import sys

from gradcli.graphs import graph
from gradcli.session import Session

PYTHON = sys.executable


def _repl(text: str, cwd) -> subprocess.CompletedProcess[str]:
    return subprocess.run([PYTHON, "-m", "gradcli", "repl"], input=text, text=True,
                          capture_output=True, cwd=cwd, timeout=60)


def test_funcs_prints_a_definition_written_over_lines_on_one(tmp_path) -> None:
    done = _repl("g(a, b) = (a^2  # square\n     * b)\nh(t) = sin(\n  t)\n:funcs\n", tmp_path)
    assert done.stdout.splitlines() == ["g(a, b) = (a^2 * b)", "h(t) = sin(t)"]


def test_d_and_check_take_the_variable_after_wrt(tmp_path) -> None:
    done = _repl("g(a, b) = a^2 * b\na = 2; b = 3\n:d g(a, b) wrt b\n:d 2 g(a, b) wrt a\n"
                 ":check g(a, b) wrt b\n:d g(a, b)\n", tmp_path)
    out = done.stdout.splitlines()
    assert out[:5] == ["12", "4", "12", "12", "6"]
    assert out[5].startswith("check order 1: autodiff 4 numerical 4") and out[5].endswith("pass")
    assert "several variables (a, b); name one after the expression (:d EXPR wrt x)" \
        in done.stderr


def test_plot_file_names_are_read_as_a_shell_reads_one_word(tmp_path) -> None:
    done = _repl('x = 1\n:plot x^2 "unterminated.png\n:plot x^2 "two" "files.png"\n'
                 ":plot x^2 a\x1bb.dot\n:plot x^2 a\x00b.dot\n:plot x^2 a\nb.dot\n"
                 ':plot x^2 "my graph.dot"\n', tmp_path)
    errors = done.stderr.splitlines()
    assert errors[0] == "error: the file name has a quote that is never closed (line 2)"
    assert errors[1] == "error: unexpected character '\"' (line 3, column 11)"
    assert errors[4].startswith("error: the file name has a control character, \\x1b,")
    assert errors[5].startswith("error: the file name has a control character, \\x00,")
    assert "\x1b" not in done.stderr and "\x00" not in done.stderr
    assert "internal error" not in done.stderr
    assert (tmp_path / "my graph.dot").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["my graph.dot"]


def test_a_graph_needs_no_values_unless_it_shows_them(tmp_path) -> None:
    g = graph(Session(), "x**4 - 2*x**2", stand_ins=True)
    assert g.nodes == 10 and 'label="x"' in g.dot
    assert graph(Session(), "sin(x)*y", order=1, wrt="y", stand_ins=True).nodes > 0
    bound = Session()
    bound.run("x = 2")
    assert graph(bound, "x**4 - 2*x**2").dot == g.dot
    done = subprocess.run([PYTHON, "-m", "gradcli", "plot", "x**4 - 2*x**2", "-o", "g.dot"],
                          capture_output=True, text=True, cwd=tmp_path, timeout=60)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "g.dot").read_text() == g.dot
    shown = subprocess.run([PYTHON, "-m", "gradcli", "plot", "x^2", "--verbose", "-o", "v.dot"],
                           capture_output=True, text=True, cwd=tmp_path, timeout=60)
    assert shown.returncode == 1 and "unknown name 'x'; it has no value" in shown.stderr


def test_curve_draws_with_the_sessions_functions_in_the_terminal(tmp_path) -> None:
    from gradcli.curves import DEFAULT_POINTS, sample_curves, session_evaluator
    from gradcli.render.termplot import render_terminal

    done = _repl("f(t) = t^3 - t\nx = 7\n:curve f(x) 0 3 2\nx\n:curve x^2 + 1\n"
                 ":curve nosuch(x) 0 1\n:curve sin(x) 1 0\n", tmp_path)
    session = Session()
    session.run("f(t) = t^3 - t")
    want = render_terminal(sample_curves(session_evaluator(session), ["f(x)"], "x", 0.0, 3.0,
                                         DEFAULT_POINTS, 2), 80, 24, colour=False,
                           box=False)
    out = done.stdout
    assert out.startswith(want)
    after = out[len(want):].splitlines()
    assert after[0] == "7"  # the variable's binding is as it was
    assert "f(x) = x^2 + 1" in after[1]  # `+ 1` is the expression's, not a range
    assert "⣿⣿ f'" in want and "⣿⣿ f''" in want
    errors = done.stderr.splitlines()
    assert errors[0].startswith("error: unknown function 'nosuch'")
    assert any("is empty" in e for e in errors)


def test_curve_bounds_may_be_constants_and_its_errors_name_their_line(tmp_path) -> None:
    done = _repl("1\n:curve sin(x) 0 pi/2\n:curve sin(x) 0 1 50\n:curve sinn(x) 0 1\n", tmp_path)
    assert "f(x) = sin(x)" in done.stdout
    errors = done.stderr.splitlines()
    assert errors[0] == ("error: a curve draws derivatives to order 20 at most; got 50 "
                         "(line 3, column 19)")  # under the 50
    assert errors[2] == " " * 20 + "^"
    assert errors[3].startswith("error: unknown function 'sinn'")
    assert "(line 4, column 8)" in errors[3]
