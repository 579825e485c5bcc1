"""REPL commands: :funcs on one line, wrt for :d and :check, :plot's file names,
and graphs drawn without values."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from inprocess import gradcli

from gradcli.session import Session
from gradcli.session.graphs import graph

PYTHON = sys.executable


def _repl(text: str, cwd) -> subprocess.CompletedProcess[str]:
    return gradcli("repl", stdin=text, cwd=cwd)


def test_funcs_prints_a_definition_written_over_lines_on_one(tmp_path) -> None:
    done = _repl("g(a, b) = (a^2  # square\n     * b)\nh(t) = sin(\n  t)\n:funcs\n", tmp_path)
    assert done.stdout.splitlines() == ["g(a, b) = (a^2 * b)", "h(t) = sin(t)"]


def test_d_and_check_take_the_variable_after_wrt(tmp_path) -> None:
    done = _repl("g(a, b) = a^2 * b\na = 2; b = 3\n:d g(a, b) wrt b\n:d 2 g(a, b) wrt a\n"
                 ":check g(a, b) wrt b\n:d g(a, b)\n", tmp_path)
    out = done.stdout.splitlines()
    assert out[:5] == ["12", "4", "12", "12", "6"]
    assert out[5] == "12"  # :check's value, as eval --check prints it
    assert out[6].startswith("check order 1: autodiff 4 numerical 4") and out[6].endswith("pass")
    assert "several variables (a, b); name one after the expression (:d EXPR wrt x)" \
        in done.stderr


def test_plot_file_names_are_read_as_a_shell_reads_one_word(tmp_path) -> None:
    done = _repl('x = 1\n:plot x^2 "unterminated.png\n:plot x^2 "two" "files.png"\n'
                 ":plot x^2 a\x1bb.dot\n:plot x^2 a\x00b.dot\n:plot x^2 a\nb.dot\n"
                 ':plot x^2 "my graph.dot"\n', tmp_path)
    errors = done.stderr.splitlines()
    assert errors[0] == "error: the file name has a quote that is never closed (line 2)"
    assert errors[1] == "error: unexpected character '\"' (line 3, column 11)"
    assert errors[4].startswith("error: the file name has a control or format character, "
                                "U+001B, at position 2: a\ufffdb.dot")
    assert errors[5].startswith("error: the file name has a control or format character, "
                                "U+0000,")
    assert "\x1b" not in done.stderr and "\x00" not in done.stderr
    assert "internal error" not in done.stderr
    assert (tmp_path / "my graph.dot").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["my graph.dot"]


def test_a_graph_needs_no_values_unless_it_shows_them(tmp_path) -> None:
    def plot(*args: str) -> subprocess.CompletedProcess[str]:
        return gradcli("plot", *args, cwd=tmp_path)

    done, shown = plot("x**4 - 2*x**2", "-o", "g.dot"), plot("x^2", "--verbose", "-o", "v.dot")
    g = graph(Session(), "x**4 - 2*x**2", stand_ins=True)
    assert g.nodes == 10 and 'label="x"' in g.dot
    assert graph(Session(), "sin(x)*y", order=1, wrt="y", stand_ins=True).nodes > 0
    bound = Session()
    bound.run("x = 2")
    assert graph(bound, "x**4 - 2*x**2").dot == g.dot
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "g.dot").read_text() == g.dot
    assert shown.returncode == 1 and "unknown name 'x'; it has no value" in shown.stderr


def test_curve_draws_with_the_sessions_functions_in_the_terminal(tmp_path) -> None:
    from gradcli.render.termplot import render_terminal
    from gradcli.session.curves import DEFAULT_POINTS, sample_curves, session_evaluator

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


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="Linux's /dev/full")
def test_a_full_output_device_ends_the_session_with_one_error(tmp_path) -> None:
    # `gradcli repl > /dev/full` said "internal error (OSError ...); the session
    # goes on" for every line, where `gradcli eval` says it cannot write
    for command in (["-m", "gradcli", "repl"], ["-m", "gradcli", "eval", "-"]):
        with open("/dev/full", "w") as full:
            done = subprocess.run([PYTHON, *command], input="1\n2\n3\n", text=True,
                                  stdout=full, stderr=subprocess.PIPE, cwd=tmp_path, timeout=60)
        assert done.returncode == 1
        assert done.stderr == "error: cannot write the output: No space left on device\n"


def test_a_variable_without_a_value_is_offered_as_the_one_of_formulas(tmp_path) -> None:
    # sin(x)*y --order 1 with y bound only said "give x a value", where the
    # user wanted x's formulas; and the REPL's words said "--wrt z"
    from gradcli.cli.words import CLI_WORDS
    from gradcli.session import EvalOptions

    s = Session(words=CLI_WORDS)
    s.run("y = 2")
    err = s.run("sin(x)*y", EvalOptions(order=1))[0].error
    assert err.message == ("unknown name 'x'; it has no value: give one with --at x=... or "
                           "x = ...; or --wrt x for the formulas of the derivatives")
    done = s.run("sin(x)*y", EvalOptions(order=1, wrt="x"))[0]
    assert done.formula_dict()["derivative_formulas"] == ["2*cos(x)"]
    assert "--wrt" not in s.run("sin(x)*y")[0].error.message  # no derivative asked
    # --check and --series want numbers: no formulas to offer
    for options in (EvalOptions(order=1, check=True), EvalOptions(order=1, series=2)):
        assert "--wrt" not in s.run("sin(x)*y", options)[0].error.message
    done = _repl("y = 2\n:d sin(x)*y\n:d 1 y^2 wrt z\n", tmp_path)
    err_lines = [line for line in done.stderr.splitlines() if line.startswith("error")]
    assert err_lines[0].startswith("error: unknown name 'x'; it has no value: assign one first: "
                                   "x = ...; or name it, :d EXPR wrt x, for the formulas")
    assert len(err_lines) == 1 and "--wrt" not in done.stderr
    # a name the expression does not read: derivatives 0 (it said "wrt z: 'z' has no value")
    assert done.stdout.splitlines() == ["4", "0"]


def test_a_prime_alone_takes_a_comment_and_names_an_unknown_function(tmp_path) -> None:
    done = _repl("f(x) = x^3\nf'  # its slope\ng'\nx = 1; :d 1 x^2\n", tmp_path)
    assert done.stdout.splitlines() == ["f'(x) = 3*x^2"]
    errors = [line for line in done.stderr.splitlines() if line.startswith("error")]
    assert errors[0] == ("error: unknown function 'g'; define it first: g(x) = ... "
                         "(line 3, column 1)")
    # a ':' command after a statement: the REPL's words, not "use gradcli repl"
    assert errors[1] == ("error: unexpected ':'; a ':' command (:help, :vars ...) goes on a "
                         "line of its own (line 4, column 8)")
    from gradcli.cli.words import CLI_WORDS

    assert Session(words=CLI_WORDS).run(":vars")[0].error.message == (
        "unexpected ':'; ':' commands (:help, :vars ...) are the REPL's: gradcli repl")


def test_a_commands_arguments_may_end_in_a_comment(tmp_path) -> None:
    # '# c' was read as more of the expression, as 'wrt', or as :plot's file
    text = (f"x = 2\n:d 2 x^3 wrt x  # its curvature\n:vars # all of them\n"
            f"f(t) = t^2\n:d f'(x) # a prime is no quote\n"
            f":plot x^2 \"{tmp_path / 'a#b.dot'}\" # the file's name has a '#'\n")
    done = _repl(text, tmp_path)
    assert not [line for line in done.stderr.splitlines() if line.startswith("error")]
    plain = _repl(text.replace("  # its curvature", "").replace(" # all of them", "")
                  .replace(" # a prime is no quote", ""), tmp_path)
    assert done.stdout == plain.stdout  # the same answers as without the comments
    assert done.stdout.splitlines()[:3] == ["8", "12", "12"]
    assert (tmp_path / "a#b.dot").read_text().startswith("digraph g {")
