"""The REPL, driven for real.

Most tests type into a real prompt_toolkit PromptSession through a pipe input
(DummyOutput for the screen, a rich Console into a string for the results).
A few run ``python -m gradcli.repl`` on a pseudo-terminal with pexpect, and
the piped mode as a subprocess, as a user would.
"""

from __future__ import annotations

import io
import math
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pexpect
from inprocess import gradcli
from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document
from prompt_toolkit.history import FileHistory
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from rich.console import Console

from gradcli.lang.brackets import needs_more, open_depth
from gradcli.repl.app import run_interactive
from gradcli.repl.completer import GradcliCompleter
from gradcli.repl.display import RichDisplay
from gradcli.repl.lexer import tokens
from gradcli.repl.loader import SessionLoader

PYTHON = sys.executable
ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b[()][0-9A-Za-z]|\x1b[=>]")
STYLE = r"(?:\x1b\[[0-9;?]*[A-Za-z])*"  # any SGR or cursor codes around a line
CTRL_C, CTRL_D = "\x03", "\x04"


def drive(keys: str, tmp_path: Path, loader: SessionLoader | None = None):
    """Type ``keys`` (\\r is Enter) into a fresh REPL; Ctrl-D is added at the end.

    Returns (exit status, what the REPL printed, the history file).
    """
    out = io.StringIO()
    console = Console(file=out, width=120, color_system=None, force_terminal=False)
    history = tmp_path / "history"
    with create_pipe_input() as pipe:
        pipe.send_text(keys + CTRL_D)
        status = run_interactive(
            loader or SessionLoader(), history=FileHistory(str(history)), input=pipe,
            output=DummyOutput(), display=RichDisplay(console),
        )
    return status, out.getvalue(), history


def rows(text: str) -> list[list[str]]:
    """The cells of every table row in ``text``."""
    return [
        [c.strip() for c in line.strip("│ ").split("│")]
        for line in text.splitlines() if line.startswith("│")
    ]


# --- a real prompt_toolkit session through a pipe ------------------------------


def test_define_a_function_and_take_its_second_derivative(tmp_path) -> None:
    status, out, _ = drive("f(x) = x**4 - 2*x**2\rf''(2)\rf'(2)\r", tmp_path)
    assert status == 0
    lines = out.splitlines()
    assert "defined f(x)" in lines
    assert lines.index("44") < lines.index("24")


def test_a_syntax_error_shows_a_caret_and_the_session_goes_on(tmp_path) -> None:
    _, out, _ = drive("x = 3\r1 +* 2\rx*2\r", tmp_path)
    lines = out.splitlines()
    i = lines.index("error: unexpected '*', expected an expression")
    assert lines[i + 1] == "  1 +* 2"
    assert lines[i + 2] == "     ^"  # under the '*', column 4
    assert lines[i + 3] == "6"  # the next line ran, with x still bound
    assert out.count("error") == 1


def test_an_unknown_name_error_points_at_the_name_and_keeps_bindings(tmp_path) -> None:
    _, out, _ = drive("a = 5\r1 + sinn(a)\ra + 1\r", tmp_path)
    lines = out.splitlines()
    i = next(k for k, line in enumerate(lines) if line.startswith("error: unknown function"))
    assert "did you mean sin?" in lines[i]
    assert lines[i + 2] == "      ^"
    assert lines[i + 3] == "6"


def test_a_line_that_does_not_parse_runs_none_of_its_statements(tmp_path) -> None:
    # 'a = 7' ran before the parse error after the ';' (the README says a bad
    # line changes nothing)
    _, out, _ = drive("a = 5\ra = 7; 1 +* 2\ra + 1\r", tmp_path)
    lines = out.splitlines()
    i = lines.index("error: unexpected '*', expected an expression")
    assert lines[i + 3] == "6"
    assert out.count("error") == 1


def test_a_statement_that_fails_as_it_runs_leaves_the_others_on_its_line_to_run() -> None:
    # as README says: b and d are set, c is not
    done = gradcli("repl", stdin="b = 2; c = [1, 2] @ [1]; d = 4\n:vars\n")
    assert done.stdout.splitlines() == ["b = 2", "d = 4"]
    assert done.stderr.startswith("error: shapes (2,) and (1,) do not fit") and done.returncode == 1


def test_vars_lists_the_assignments(tmp_path) -> None:
    _, out, _ = drive("a = 2\rv = [1, 2, 3]\r:vars\r", tmp_path)
    assert "a = 2" in out.splitlines() and "v = [1, 2, 3]" in out.splitlines()
    table = {r[0]: r[1:] for r in rows(out)}
    assert table["a"] == ["2", "scalar"]
    assert table["v"] == ["[1, 2, 3]", "(3,)"]


def test_funcs_lists_the_definitions(tmp_path) -> None:
    _, out, _ = drive("f(x) = x**4 - 2*x**2\rg(x, y) = x*y\r:funcs\r", tmp_path)
    table = {r[0]: r[1] for r in rows(out)}
    assert table == {"f(x)": "x**4 - 2*x**2", "g(x, y)": "x*y"}


def test_d_shows_orders_0_to_n_at_the_variables_value(tmp_path) -> None:
    _, out, _ = drive("x = 2\r:d 2 sin(x)\r", tmp_path)
    assert "sin(x) at x = 2" in out
    table = rows(out)
    assert [r[0] for r in table] == ["0  value", "1  d/dx", "2  d^2/dx^2"]
    assert [float(r[1]) for r in table] == [math.sin(2), math.cos(2), -math.sin(2)]


def test_d_of_a_constant_shows_its_orders_without_a_variable(tmp_path) -> None:
    _, out, _ = drive(":d 2 5\r", tmp_path)
    table = rows(out)
    assert [r[0] for r in table] == ["0  value", "1", "2"]
    assert [float(r[1]) for r in table] == [5.0, 0.0, 0.0]


def test_d_with_a_number_alone_asks_for_the_expression() -> None:
    # `:d 2` printed 2 and 0, the derivative of the number 2, where the user
    # left out the expression of `:d 2 EXPR`
    done = gradcli("repl", stdin="x = 1\n:d 2\n:d 1.5\n:d x^2\n:d 1 2\n")
    assert done.stderr.count("error: usage: :d [N] EXPR, as in :d 2 sin(x)") == 2
    assert done.stdout.splitlines() == ["1", "2", "2", "0"]


def test_d_defaults_to_the_first_derivative_and_its_errors_point_into_the_line(
    tmp_path,
) -> None:
    _, out, _ = drive("x = 2\r:d x**3\r:d 2 sin(x +)\r", tmp_path)
    assert [float(r[1]) for r in rows(out)] == [8.0, 12.0]
    lines = out.splitlines()
    i = lines.index("error: unexpected ')', expected an expression")
    assert lines[i + 1:i + 3] == ["  :d 2 sin(x +)", "              ^"]


def test_check_compares_backprop_with_central_differences(tmp_path) -> None:
    _, out, _ = drive("x = 0.5\r:check exp(x)\r", tmp_path)
    table = rows(out)  # the columns of gradcli eval --check: order 0 is the value
    assert [r[0] for r in table] == ["0", "1", "2"]
    for r in table:
        assert float(r[1]) == math.exp(0.5)
    for r in table[1:]:
        assert abs(float(r[2]) - math.exp(0.5)) < 1e-5
        assert r[6] == "pass"


def test_grad_and_warnings(tmp_path) -> None:
    _, out, _ = drive("x = 2; y = 3\rgrad(x*y)\rlog(-1)\r", tmp_path)
    assert {r[0]: r[1] for r in rows(out)} == {"d/dx": "3", "d/dy": "2"}
    lines = out.splitlines()
    # before the value, as gradcli eval prints it
    assert lines[lines.index("nan") - 1].startswith("warning: log")


def test_brackets_left_open_continue_the_input_on_the_next_line(tmp_path) -> None:
    status, out, history = drive("v = [1,\r2,\r3]\rsum(v)\r", tmp_path)
    assert "v = [1, 2, 3]" in out.splitlines()
    assert "6" in out.splitlines()
    assert "+v = [1,\n+    2,\n+    3]\n" in history.read_text()  # one entry, indented


def test_enter_on_an_empty_continuation_line_runs_the_input_anyway(tmp_path) -> None:
    _, out, _ = drive("(1 +\r\r7*6\r", tmp_path)
    assert "error: '(' was never closed" in out
    assert out.splitlines()[-1] == "42"


def test_ctrl_c_cancels_the_line_and_the_session_continues(tmp_path) -> None:
    status, out, history = drive("x = 5\rundefined_thing +" + CTRL_C + "x + 1\r", tmp_path)
    assert status == 0
    assert "error" not in out
    assert out.splitlines()[-1] == "6"
    assert "undefined_thing" not in history.read_text()


def test_ctrl_d_leaves_with_status_0_and_quit_stops_reading(tmp_path) -> None:
    status, out, _ = drive(":quit\r1 + 1\r", tmp_path)
    assert status == 0
    assert "2" not in out.splitlines()


def test_the_history_file_holds_the_lines_typed(tmp_path) -> None:
    _, _, history = drive("f(x) = x**4 - 2*x**2\rf''(2)\r:vars\r", tmp_path)
    entries = re.findall(r"^\+(.*)$", history.read_text(), re.M)
    assert entries == ["f(x) = x**4 - 2*x**2", "f''(2)", ":vars"]


def test_plot_writes_the_graph_file(tmp_path) -> None:
    dot, svg = tmp_path / "g.dot", tmp_path / "g2.svg"
    _, out, _ = drive(f"x = 2\r:plot x**4 - 2*x**2 {dot}\r:plot 2 x**4 - 2*x**2 {svg}\r", tmp_path)
    assert dot.read_text().startswith("digraph g {")
    assert "graph: 10 nodes" in out
    assert "order-2 derivative by x" in out
    if svg.exists() or "Graphviz" not in out:  # with `dot` installed, a real SVG
        assert "<svg" in svg.read_text()


def test_piped_plot_takes_a_quoted_file_name_and_names_the_line_of_an_error(tmp_path) -> None:
    spaced, single = tmp_path / "my graph.dot", tmp_path / "a b.dot"
    text = (f'x = 2\n:plot 1 x^3 "{spaced}"\n:plot x^2 \'{single}\'\n'
            f':plot "{spaced}"\n:plot nosuch + 1 {tmp_path / "c.dot"}\n'
            f':plot log(-x) {tmp_path / "d.dot"}\n')
    done = gradcli("repl", stdin=text, env=_env(tmp_path))
    assert spaced.read_text().startswith("digraph g {")
    assert single.read_text().startswith("digraph g {")
    err = [line for line in done.stderr.splitlines() if not line.startswith("graph: ")]
    assert err[0].startswith("error: usage: :plot [N] EXPR FILE") and err[0].endswith("(line 4)")
    # the expression's error is on the input's line 5, not the expression's line 1
    assert err[1].startswith("error: unknown name 'nosuch'") and "(line 5, column 7)" in err[1]
    assert err[3] == "        ^"
    assert not (tmp_path / "c.dot").exists()
    # a warning of :plot names its line too
    assert err[4] == "warning: log: argument outside the domain; the result is nan (line 6)"


def test_clear_forgets_bindings_and_unknown_commands_are_errors(tmp_path) -> None:
    _, out, _ = drive("x = 2\r:clear\rx\r:vras\r", tmp_path)
    assert "cleared every variable and function" in out
    assert "error: unknown name 'x'" in out
    assert "error: unknown command ':vras'; did you mean :vars?" in out


def test_clear_with_names_forgets_just_those_or_nothing(tmp_path) -> None:
    _, out, _ = drive("x = 2\ry = 3\rf(t) = t^2\r:clear x z\rx\r:clear x, f\r"
                      ":vars\r:funcs\r", tmp_path)
    lines = out.splitlines()
    at = lines.index("error: 'z' is neither a variable nor a function; nothing was forgotten")
    assert lines[at + 1:at + 3] == ["  :clear x z", "           ^"]
    assert "forgot x, f" in out and "no functions yet" in out
    assert "unknown name 'x'" not in out  # the failed :clear kept x
    vars_table = out[out.index("forgot x, f"):]
    assert "y" in vars_table and "x " not in vars_table


def test_commands_without_arguments_refuse_them(tmp_path) -> None:
    _, out, _ = drive("x = 2\r:quit now\r:vars x\r:funcs f\rx + 1\r", tmp_path)
    for command in (":quit", ":vars", ":funcs"):
        assert f"error: {command} takes no arguments" in out
    assert out.rstrip().endswith("3")  # :quit now did not quit


def test_help_lists_built_ins_from_the_registry_and_commands(tmp_path) -> None:
    _, out, _ = drive(":help\r:help asinh\r", tmp_path)
    assert "sin(x)" in out and "sine (radians)" in out
    assert "linspace(a, b, n)" in out and ":d [N] EXPR" in out
    assert out.count("inverse hyperbolic sine") == 2  # in the list, then on its own
    # each section's title on one line (as a table's title it wrapped at the
    # narrow constants table's width)
    from gradcli.repl.helptext import overview

    lines = out.splitlines()
    assert all(title in lines for title, _ in overview())


def test_large_arrays_are_summarised_as_numpy_prints_them(tmp_path) -> None:
    _, out, _ = drive("x = linspace(0, 1, 5001)\rx^2\r:d 1 x^2\rgrad(x^2)\r", tmp_path)
    assert "x = [0, 0.0002, 0.0004, ...] (5001 values)" in out  # the assignment's short form
    a, b = (float(v) for v in np.linspace(0, 1, 5001)[-3:-1] ** 2)
    assert f"[0, 4e-08, 1.6e-07, ..., {a!r}, {b!r}, 1] (5001 values)" in out
    assert out.count("(5001 values)") == 6  # the value, :d's point and orders 0 and 1, grad
    assert len(out) < 5000


def test_help_on_another_tools_name_points_to_ours(tmp_path) -> None:
    _, out, _ = drive(":help arcsec\r:help π\r", tmp_path)
    assert "no help for 'arcsec'; did you mean asec?" in out
    assert "no help for 'π'; did you mean pi?" in out


def test_help_on_ans_says_what_it_is_before_it_has_a_value(tmp_path) -> None:
    # it said "no help for 'ans'; did you mean tan?"
    _, out, _ = drive(":help ans\r6*7\r:help ans\r", tmp_path)
    lines = [line.split() for line in out.splitlines()]
    assert ["ans", "the", "last", "result"] in lines and "tan" not in out
    assert ["ans", "42"] in lines


def test_an_internal_error_prints_briefly_and_the_session_survives(
    tmp_path, monkeypatch
) -> None:
    from gradcli.session import Session

    real_run = Session.run

    def flaky(self, text, *args, **kwargs):
        if "boom" in text:
            raise RuntimeError("kaboom")
        return real_run(self, text, *args, **kwargs)

    monkeypatch.setattr(Session, "run", flaky)
    _, out, _ = drive("x = 4\rboom\rx + 1\r", tmp_path)
    assert "internal error (RuntimeError: kaboom)" in out
    assert "Traceback" not in out
    assert out.splitlines()[-1] == "5"


# --- completion and highlighting ---------------------------------------------------


def completions(text: str, loader: SessionLoader) -> dict[str, str]:
    found = GradcliCompleter(loader).get_completions(
        Document(text), CompleteEvent(completion_requested=True)
    )
    return {c.text: c.display_meta_text for c in found}


def test_completion_offers_built_ins_with_descriptions_names_and_commands() -> None:
    loader = SessionLoader()
    session = loader.get()
    session.run("sigma = 2; f(x) = x**4 - 2*x**2")
    got = completions("3 + si", loader)
    assert got["sin"] == "sine (radians)"
    assert got["sinh"] == "hyperbolic sine"
    assert got["sigmoid"].startswith("logistic sigmoid")
    assert got["sigma"] == "= 2"
    assert completions("f", loader)["f"] == "= x**4 - 2*x**2"
    assert "diff" in completions("di", loader) and "pi" in completions("p", loader)
    assert set(completions(":", loader)) >= {":help", ":vars", ":funcs", ":d", ":check",
                                             ":plot", ":clear", ":quit"}
    assert set(completions(":c", loader)) == {":check", ":clear", ":curve"}


def test_lexer_classifies_numbers_names_functions_and_operators() -> None:
    loader = SessionLoader()
    loader.get().run("x = 1; f(t) = t")
    from gradcli.repl.lexer import Names

    got = tokens("f'(2x) + sin(pi)**y # note", Names(loader).classify)
    styled = [(s, t) for s, t in got if s]
    assert styled == [
        ("class:function", "f'"), ("class:bracket", "("), ("class:number", "2"),
        ("class:variable", "x"), ("class:bracket", ")"), ("class:operator", "+"),
        ("class:builtin", "sin"), ("class:bracket", "("), ("class:constant", "pi"),
        ("class:bracket", ")"), ("class:operator", "**"), ("class:name", "y"),
        ("class:comment", "# note"),
    ]
    assert tokens(":d 2 x", Names().classify)[1] == ("class:command", ":d")
    assert "".join(t for _, t in got) == "f'(2x) + sin(pi)**y # note"


def test_bracket_depth_ignores_comments_and_stray_closers() -> None:
    assert open_depth("f(1, [2") == 2
    assert open_depth("x) + (") == 1
    assert not needs_more("g(x) # (")
    assert needs_more("[1,\n 2")


# --- as a user runs it -----------------------------------------------------------------


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = dict(os.environ, GRADCLI_HISTORY=str(tmp_path / "hist"), TERM="xterm",
               NO_COLOR="1", PROMPT_TOOLKIT_NO_CPR="1", COLUMNS="100")
    env.update(extra)
    return env


def test_on_a_terminal(tmp_path) -> None:
    child = pexpect.spawn(PYTHON, ["-m", "gradcli.repl"], env=_env(tmp_path),
                          encoding="utf-8", timeout=10, dimensions=(40, 100))
    try:
        child.expect_exact(">>>")

        def line(text: str, *expect: str) -> None:
            """Type a line; ``expect`` are the output lines, styles or not."""
            child.send(text + "\r")
            child.expect(r"\r\n".join(f"{STYLE}{re.escape(e)}{STYLE}" for e in expect) + "\r\n")
            child.expect_exact(">>>")  # the next prompt: the terminal is raw again

        line("f(x) = x**4 - 2*x**2", "defined f(x)")
        line("f''(2)", "44")
        line("1 +* 2", "error: unexpected '*', expected an expression", "  1 +* 2", "     ^")
        line("f(3)", "63")
        child.sendcontrol("d")
        child.expect(pexpect.EOF)
    finally:
        child.close()
    assert child.exitstatus == 0
    assert "Traceback" not in ANSI.sub("", child.before or "")
    entries = re.findall(r"^\+(.*)$", (tmp_path / "hist").read_text(), re.M)
    assert entries == ["f(x) = x**4 - 2*x**2", "f''(2)", "1 +* 2", "f(3)"]


def _stat(path: Path) -> tuple[int, int] | None:
    return (path.stat().st_size, path.stat().st_mtime_ns) if path.exists() else None


def test_a_spawned_repl_keeps_its_history_in_the_tests_home(tmp_path, isolated_home,
                                                            real_home, monkeypatch) -> None:
    # conftest.py gives the tests a home of their own: with GRADCLI_HISTORY unset
    # the REPL's default file is under the isolated XDG_DATA_HOME, never the user's.
    assert Path.home() == isolated_home != real_home
    assert os.environ["GRADCLI_HISTORY"] == str(isolated_home / "history")
    monkeypatch.delenv("GRADCLI_HISTORY")
    real = real_home / ".local" / "share" / "gradcli" / "history"
    before = _stat(real)
    typed = f"{len(str(tmp_path))} + 1  # {tmp_path.name}"
    env = _env(tmp_path)
    del env["GRADCLI_HISTORY"]
    child = pexpect.spawn(PYTHON, ["-m", "gradcli.repl"], env=env,
                          encoding="utf-8", timeout=30, dimensions=(40, 100))
    try:
        child.expect_exact(">>>")
        child.send(typed + "\r")
        child.expect(rf"\r\n{STYLE}{len(str(tmp_path)) + 1}{STYLE}\r\n")
        child.expect_exact(">>>")
        child.sendcontrol("d")
        child.expect(pexpect.EOF)
    finally:
        child.close()
    assert child.exitstatus == 0
    written = Path(os.environ["XDG_DATA_HOME"]) / "gradcli" / "history"
    assert written.is_relative_to(isolated_home)
    assert re.findall(r"^\+(.*)$", written.read_text(), re.M)[-1] == typed
    assert _stat(real) == before


PIPED = "f(x) = x**4 - 2*x**2\nf''(2)\n1 +* 2\nx = 2\n:d 2 sin(x)\n:vars\n"


def _check_piped(done: subprocess.CompletedProcess, tmp_path: Path) -> None:
    assert "\x1b" not in done.stdout + done.stderr
    assert done.stdout.splitlines() == [
        "44",
        repr(math.sin(2)), repr(math.cos(2)), repr(-math.sin(2)),
        f"ans = {math.sin(2)!r}", "x = 2",  # :vars
    ]
    assert done.stderr.splitlines() == [
        "error: unexpected '*', expected an expression (line 3, column 4)",
        "  1 +* 2",
        "     ^",
    ]
    assert done.returncode == 2  # the highest status, as `gradcli eval -` reports
    assert not (tmp_path / "hist").exists()


def test_piped_standard_input_reads_lines_plainly(tmp_path) -> None:
    done = subprocess.run([PYTHON, "-m", "gradcli.repl"], input=PIPED, text=True,
                          capture_output=True, env=_env(tmp_path, TERM="xterm-256color"),
                          timeout=60)
    _check_piped(done, tmp_path)


def test_gradcli_repl_command_piped(tmp_path) -> None:
    import gradcli.cli  # noqa: F401  (a broken CLI import fails here, not as a skip)

    done = subprocess.run([PYTHON, "-m", "gradcli", "repl"], input=PIPED, text=True,
                          capture_output=True, env=_env(tmp_path), timeout=60)
    _check_piped(done, tmp_path)


def test_piped_input_exit_status_is_0_when_every_line_succeeds(tmp_path) -> None:
    done = gradcli("repl", stdin="x = 3\n[x,\n 2x]\n", env=_env(tmp_path))
    assert (done.returncode, done.stdout, done.stderr) == (0, "[3, 6]\n", "")


def test_piped_a_bracket_never_closed_costs_only_its_line(tmp_path) -> None:
    # every line after 'y = sin(' went into its one error: x = 2, :d and 7 never ran
    done = gradcli("repl", stdin="y = sin(\nx = 2\nx^2\n:d x^3\nz = [1,\n7\n",
                   env=_env(tmp_path))
    assert done.returncode == 2
    assert done.stdout.split() == ["4", "8", "12", "7"]
    errors = [line for line in done.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 2 and "(line 1, column" in errors[0] and "(line 5, column" in errors[1]


def test_piped_thousands_of_stray_brackets_end_in_errors_not_a_crash(tmp_path) -> None:
    # each one read the rest again, recursively: 3,000 of them ran past Python's
    # recursion limit (and took minutes); past the parser's budget the rest is one input
    done = gradcli("repl", stdin="(\n" * 3000 + "7\n", env=_env(tmp_path))
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.count("error: ") > 1


def test_the_path_to_the_first_prompt_imports_nothing_heavy() -> None:
    code = (
        "import sys\n"
        "from gradcli.repl import app, completer, lexer, keys, history\n"
        "from gradcli.repl.loader import SessionLoader\n"
        "app.make_prompt_session(SessionLoader())\n"
        "heavy = {'numpy', 'lark', 'rich', 'graphviz', 'typer', 'sympy'}\n"
        "print(sorted(heavy & {m.split('.')[0] for m in sys.modules}))\n"
    )
    out = subprocess.run([PYTHON, "-c", code], capture_output=True, text=True, check=True,
                         env=dict(os.environ, TERM="dumb"), stdin=subprocess.DEVNULL)
    assert out.stdout.strip() == "[]"


# --- the history file and settings -----------------------------------------------------


def test_history_lives_in_the_user_data_directory_unless_overridden(
    tmp_path, monkeypatch
) -> None:
    from gradcli.repl.history import history_path, make_history

    monkeypatch.delenv("GRADCLI_HISTORY", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    if sys.platform.startswith("linux"):
        assert history_path() == tmp_path / "data" / "gradcli" / "history"
    assert history_path().name == "history" and "gradcli" in history_path().parts
    monkeypatch.setenv("GRADCLI_HISTORY", str(tmp_path / "deep" / "h.txt"))
    history, warning = make_history()
    assert isinstance(history, FileHistory) and warning is None
    assert (tmp_path / "deep" / "h.txt").exists()  # the folder is made
    monkeypatch.setenv("GRADCLI_HISTORY", "")
    assert history_path() is None
    monkeypatch.setenv("GRADCLI_HISTORY", str(tmp_path))  # a directory: in memory, one warning
    history, warning = make_history()
    assert not isinstance(history, FileHistory)
    assert warning is not None and "GRADCLI_HISTORY" in warning


def test_a_bad_setting_is_reported_before_any_prompt(tmp_path) -> None:
    code = "from gradcli.repl import main; raise SystemExit(main(dtype='float16'))"
    done = subprocess.run([PYTHON, "-c", code], input="1 + 1\n", text=True,
                          capture_output=True, env=_env(tmp_path), timeout=60)
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr == "error: unknown dtype 'float16'; expected float64 or float32\n"


def test_piped_d_and_check_take_expressions_and_print_as_eval_does(tmp_path) -> None:
    text = ("x = 2\n:check x^4\n:check x = 5\n:d f(t) = 1\n:d 1.5 x\nx\n:d 1e1 x^2\n"
            ":plot  2000 x a.png\n")
    done = gradcli("repl", stdin=text, env=_env(tmp_path))
    out = done.stdout.splitlines()
    assert out[0] == "16"  # the value first, as eval --check prints it
    assert out[1].startswith("check order 1: autodiff 32 numerical 32")
    assert out[1].endswith(" pass") and out[2].startswith("check order 2: autodiff 48")
    assert out[3:] == ["2", "4", "4", "2"] + ["0"] * 8  # x not rebound, f not defined; 1e1 is 10
    assert done.stderr.splitlines() == [
        "error: :check takes expressions; run 'x = 5' on its own first (line 3)",
        "error: :d takes expressions; run 'f(t) = 1' on its own first (line 4)",
        "error: the order must be a whole number from 0, not 1.5 (line 5, column 4)",
        "  :d 1.5 x",
        "     ^",
        "error: the order 2000 is outside 0..1000 (line 8, column 8)",
        "  :plot  2000 x a.png",
        "         ^",
    ]
    assert not (tmp_path / "a.png").exists()
    assert done.returncode == 2


def test_piped_d_of_a_constant_gives_n_plus_one_lines(tmp_path) -> None:
    # as gradcli eval 5 --order 2 does; it printed the value alone
    done = gradcli("repl", stdin=":d 2 5\n:d 1 pi\n", env=_env(tmp_path))
    assert done.stdout.splitlines() == ["5", "0", "0", "3.141592653589793", "0"]
    assert done.returncode == 0


def test_piped_commands_errors_and_warnings_name_their_line(tmp_path) -> None:
    # as parse and name errors do: a script's reader finds the line at fault
    text = "x = 2\n:bogus\nlog(-x)\n(1 +\n2) + nosuch\n:d 1 sqrt(-x)\n"
    done = gradcli("repl", stdin=text, env=_env(tmp_path))
    err = done.stderr.splitlines()
    assert err[0].startswith("error: unknown command ':bogus'") and err[0].endswith("(line 2)")
    assert err[1] == "warning: log: argument outside the domain; the result is nan (line 3)"
    assert err[2].startswith("error: unknown name 'nosuch'") and "(line 5, column" in err[2]
    assert err[-1] == "warning: sqrt: argument outside the domain; the result is nan (line 6)"
    assert done.returncode == 2


def test_piped_commands_on_several_variables_point_at_the_expression_and_say_what_works(
        tmp_path) -> None:
    text = (f"x = 1; y = 2\n:check x*y\n:plot 2 x*y {tmp_path / 'f.dot'}\n"
            "f(t) = t*y\n:check f(x)\n")
    done = gradcli("repl", stdin=text, env=_env(tmp_path))
    err = done.stderr.splitlines()
    several = "error: the expression has several variables (x, y); "
    # :check cannot take diff(...): the hint names what does work, f(x) below
    assert err[0].startswith(several) and "function of it" in err[0]
    assert err[0].endswith("(line 2, column 8)") and err[2] == "         ^"
    # :plot's error had a line and no caret
    assert err[3].startswith(several) and err[3].endswith("(line 3, column 9)")
    assert err[5] == "          ^"
    assert done.stdout.splitlines()[-2].startswith("check order 1: autodiff 2 numerical 2")


def test_clear_says_why_a_name_cannot_be_cleared(tmp_path) -> None:
    done = gradcli("repl", stdin=":clear sin\n:clear pi\n:clear ans\n:clear zz\npi = 3\n"
                   ":clear pi\npi\n", env=_env(tmp_path))
    err = [line for line in done.stderr.splitlines() if line.startswith("error: ")]
    assert [e.split(";")[0] for e in err] == [
        "error: 'sin' is a built-in function, not one of your names",
        "error: 'pi' is a constant, not one of your names",
        "error: 'ans' has no value yet",
        "error: 'zz' is neither a variable nor a function"]
    # a rebound constant is the user's, and clearing it brings the constant back
    assert done.stderr.splitlines()[-1] == "forgot pi"
    assert done.stdout.splitlines()[-1] == "3.141592653589793"


def test_a_narrow_terminal_keeps_every_digit_of_a_check() -> None:
    # a 50-column :check showed "-0.4161468365471…" and "2.9e…" (e-12 or e+3?)
    import numpy as np

    from gradcli.results import CheckEntry, Result

    out = io.StringIO()
    display = RichDisplay(Console(file=out, width=50, color_system=None, force_terminal=False))
    entry = CheckEntry(order=2, autodiff=np.array(-0.9092974268256817),
                       numerical=np.array(-0.9092974265397255), abs_error=2.859562e-10,
                       rel_error=3.1447737e-10, ok=True)
    display.check(Result(input="sin(x)", wrt="x", point=np.array(2.0),
                         value=np.array(0.9092974268256817), check=[entry]))
    text = out.getvalue()
    assert "\u2026" not in text
    for number in ("-0.9092974268256817", "-0.9092974265397255", "2.86e-10", "3.14e-10",
                   "pass"):
        assert number in text, number
    assert max(len(line) for line in text.splitlines()) <= 50


def test_plot_with_its_file_left_out_says_how_to_use_it(tmp_path) -> None:
    # `:plot 1 sum(v^2)` took sum(v^2) for the file: "cannot tell the graph format"
    done = gradcli("repl", cwd=tmp_path,
                   stdin="v = [1, 2]\n:plot 1 sum(v^2)\n:plot 0 2 g.dot\n")
    assert done.stderr.splitlines() == [
        "error: usage: :plot [N] EXPR FILE, as in :plot 2 x**4 - 2*x**2 graph.png (line 2)",
        "graph: 1 node (written to g.dot)"]
    assert (tmp_path / "g.dot").exists()


def test_the_session_in_docs_repl_md_prints_the_rows_it_shows(tmp_path, monkeypatch) -> None:
    # its :vars showed an `ans` row that a gradient of two shapes never leaves
    doc = (Path(__file__).resolve().parents[1] / "docs" / "repl.md").read_text(encoding="utf-8")
    session = doc.split("```text\n", 1)[1].split("```", 1)[0]
    typed = [line[4:] for line in session.splitlines() if line.startswith((">>> ", "... "))]
    monkeypatch.chdir(tmp_path)  # :plot writes graph.png here
    status, out, _ = drive("\r".join(typed) + "\r", tmp_path)
    assert status == 0
    assert rows(out) == rows(session)
    assert [line for line in session.splitlines() if line.startswith("graph: ")] == \
        [line for line in out.splitlines() if line.startswith("graph: ")]
